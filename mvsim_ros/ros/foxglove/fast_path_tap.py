"""The compiled fast path's messages (/clock, odometry, TF, scans) to Foxglove on their way to the middleware.

The fast path delivers serialized messages with no Python in between (runtime/fast_path/delivery.py), through the
recording tee (output/recording/tee.c), whose target is rcl's serialized publish. `FastPathTap.install` makes the
tee's target a ctypes function of the same ABI that publishes with rcl, then, when the handle's topic has a
Foxglove channel with a subscribed client, hands the delivered bytes to it (`channel_of(handle)`). With no client
subscribed it costs one Python call and one lookup per message; it runs only while the Foxglove server is on.
"""

from __future__ import annotations

import ctypes
from typing import Any, Callable

from mvsim_ros.output.recording import tee_library

#: The fast path's delivery ABI: int32 deliver(handle, message, allocation).
DELIVER = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t)


class SerializedMessage(ctypes.Structure):
    """rcutils_uint8_array_t (rcl_serialized_message_t)."""

    _fields_ = [("buffer", ctypes.c_void_p), ("buffer_length", ctypes.c_size_t), ("buffer_capacity", ctypes.c_size_t)]


class FastPathTap:
    """Forwards fast-path deliveries on handles that `channel_of` maps to a Foxglove channel (None: not served);
    `log_time()` [ns] stamps them."""

    def __init__(self, channel_of: Callable[[int], Any], log_time: Callable[[], int]):
        self.channel_of = channel_of
        self.log_time = log_time
        self.installed = False
        self._publish: Callable[[int, int, int], int] | None = None
        self._callback = DELIVER(self._deliver)

    def install(self) -> str | None:
        """Route the tee's deliveries through this tap; why it cannot (one line), or None once installed."""
        try:
            rcl = ctypes.CDLL("librcl.so")
            publish = ctypes.cast(rcl.rcl_publish_serialized_message, ctypes.c_void_p).value
            tee = tee_library.tee()
        except (OSError, AttributeError, tee_library.TeeUnavailable) as exc:
            return f"the compiled fast path's topics are not served ({exc})"
        self._publish = DELIVER(publish)
        tee.mvsim_tee_set_target(ctypes.cast(self._callback, ctypes.c_void_p).value)
        self.installed = True
        return None

    def uninstall(self) -> None:
        """Deliver straight with rcl again."""
        if self.installed:
            tee_library.tee().mvsim_tee_set_target(ctypes.cast(self._publish, ctypes.c_void_p).value)
            self.installed = False

    def _deliver(self, handle: int, message: int, allocation: int) -> int:
        result = self._publish(handle, message, allocation)
        channel = self.channel_of(handle)
        if result == 0 and channel is not None and channel.has_sinks():
            serialized = SerializedMessage.from_address(message)
            channel.log(ctypes.string_at(serialized.buffer, serialized.buffer_length), log_time=self.log_time())
        return result


__all__ = ["DELIVER", "FastPathTap", "SerializedMessage"]
