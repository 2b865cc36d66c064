"""The compiled fast path's messages (/clock, odometry, TF, scans) to Foxglove on their way to the middleware.

The fast path delivers serialized messages with no Python in between (runtime/fast_path/delivery.py), through the
recording tee (output/recording/tee.c), which publishes them with rcl. Each publisher's rcl handle with a Foxglove
channel gets a forwarding gate in the tee (`gate`): at most one message per interval of wall time (the node's
`foxglove_max_rate`; every message for a transient-local topic), decided in C. While a Foxglove client subscribes
to some channel (`wanted()`), `FastPathTap.service` sets the tee's forward function to a ctypes function of the
delivery ABI (ros/publishing/batch_publisher.forward_deliveries: batch publishers made before and after, a spawned
vehicle's too): the due messages reach it after rcl published them, and it hands their bytes to the handle's
channel when a client subscribes to it (`channel_of(handle)`). Messages that are not due reach no Python code. With
no client subscribed nothing is forwarded: the fast path does the work it does without Foxglove, and one atomic
load more per message.
"""

from __future__ import annotations

import ctypes
from typing import Any, Callable

from mvsim_ros.output.recording import tee_library
from mvsim_ros.ros.publishing import batch_publisher

#: The fast path's delivery ABI: int32 deliver(handle, message, allocation).
DELIVER = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t)


class SerializedMessage(ctypes.Structure):
    """rcutils_uint8_array_t (rcl_serialized_message_t)."""

    _fields_ = [("buffer", ctypes.c_void_p), ("buffer_length", ctypes.c_size_t), ("buffer_capacity", ctypes.c_size_t)]


class FastPathTap:
    """Forwards the due fast-path deliveries on handles that `channel_of` maps to a Foxglove channel (None: not
    served) while `wanted()` (a client subscribes to some channel); `log_time()` [ns] stamps them."""

    def __init__(self, channel_of: Callable[[int], Any], wanted: Callable[[], bool], log_time: Callable[[], int]):
        self.channel_of = channel_of
        self.wanted = wanted
        self.log_time = log_time
        #: Whether due deliveries are forwarded to this tap at the moment.
        self.routed = False
        #: Why the fast path's topics cannot be served (one line), None while they can.
        self.problem: str | None = None
        self._gated = False
        self._callback = DELIVER(self._deliver)

    def gate(self, handle: int, interval_ns: int) -> str | None:
        """Forward the deliveries on the rcl handle at address `handle` at most once per `interval_ns` of wall time
        [ns] (0: every one; < 0: none, a channel closed). Returns why the fast path cannot be served, the first
        time only."""
        if self.problem is not None:
            return None
        try:
            if tee_library.tee().mvsim_tee_gate(handle, interval_ns) != 0:
                raise OSError("the tee's gate table is full")
            self._gated = True
        except (OSError, tee_library.TeeUnavailable) as exc:
            self.problem = f"the compiled fast path's topics are not served ({exc})"
            return self.problem
        return None

    def service(self) -> str | None:
        """Forward due deliveries to this tap while `wanted()`, none otherwise; call between simulation steps, in
        the thread that delivers. Returns why the fast path cannot be served, the first time only."""
        if self.problem is not None or self.wanted() == self.routed:
            return None
        try:
            through = ctypes.cast(self._callback, ctypes.c_void_p).value
            batch_publisher.forward_deliveries(None if self.routed else through)
        except (OSError, tee_library.TeeUnavailable) as exc:
            self.problem = f"the compiled fast path's topics are not served ({exc})"
            return self.problem
        self.routed = not self.routed
        return None

    def uninstall(self) -> None:
        """Forward nothing and forget every gate."""
        if self.routed:
            batch_publisher.forward_deliveries(None)
            self.routed = False
        if self._gated:
            tee_library.tee().mvsim_tee_gate_clear()
            self._gated = False

    def _deliver(self, handle: int, message: int, allocation: int) -> int:
        channel = self.channel_of(handle)
        if channel is not None and channel.has_sinks():
            serialized = SerializedMessage.from_address(message)
            channel.log(ctypes.string_at(serialized.buffer, serialized.buffer_length), log_time=self.log_time())
        return 0


__all__ = ["DELIVER", "FastPathTap", "SerializedMessage"]
