"""Publishing many pre-serialized messages with one call: a compiled loop over rcl's serialized publish.

rclpy's `publish_raw` costs ~1.4 us per message, of which ~0.9 us is the middleware's own work (Fast DDS:
writer history, locks, time stamps) and the rest Python call and byte-copy overhead. For 150 messages
(50 vehicles x odometry, ground truth, TF) at every 50 Hz event that overhead is ~70 us of the simulation
thread. Here one compiled loop (runtime/fast_path/delivery.py) calls `rcl_publish_serialized_message` directly on
every message's bytes in place (no copy), with the GIL released.

This module is the ROS side of that delivery: it finds the librcl and librcutils that rclpy has already loaded
(the same libraries, no build step), binds rcl's serialized publish (through the recording tee,
output/recording/tee.c, which also records the messages while the node records a run) and rcutils' error reset as
the fast path's delivery functions, and describes each batch as a `Delivery` (rcl publisher handles,
serialized-message structs).
Where the libraries cannot be found, the batches go through each outlet's serialized publish instead (which
records them itself while the run records their topic).

Publishing stays on the simulation thread: waking a worker thread and handing the GIL back and forth at every
event would cost more than the publishing it moves off the simulation thread.
"""

from __future__ import annotations

import ctypes
import functools
from typing import Callable, Sequence

import numpy as np
from mvsim_ros.output.recording import tee_library
from mvsim_ros.runtime.fast_path import delivery
from mvsim_ros.ros.publishing.outlet import Outlet
from mvsim_ros.runtime.fast_path.delivery import Delivery, deliver_all

#: rcutils_uint8_array_t (= rcl_serialized_message_t): buffer, buffer_length, buffer_capacity, then the
#: rcutils_allocator_t (allocate, deallocate, reallocate, zero_allocate, state), unused by a publish.
_SERIALIZED_MESSAGE = np.dtype([("buffer", np.uintp), ("buffer_length", np.uintp),
                                ("buffer_capacity", np.uintp), ("allocator", np.uintp, (5,))])


def _loaded_library(name: str) -> str | None:
    """Path of the shared library `name` (e.g. 'librcl.so') mapped into this process, if any (Linux)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                path = line.rstrip().rpartition(" ")[2]
                if path.rpartition("/")[2] == name:
                    return path
    except OSError:
        return None
    return None


def _function_address(library: str, symbol: str) -> int | None:
    """Address of the C function `symbol` in the (already loaded) shared library at path `library`."""
    try:
        return ctypes.cast(getattr(ctypes.CDLL(library), symbol), ctypes.c_void_p).value
    except (OSError, AttributeError):
        return None


def forward_deliveries(forward: int | None) -> None:
    """Hand the due messages of the compiled fast path (batch publishers made before or after this call) to
    `forward` after rcl published them: the address of a C function of the delivery ABI
    (runtime/fast_path/delivery.py) whose result is ignored; None forwards nothing. Which messages are due is the
    recording tee's forwarding gates' decision (output/recording/tee.c, `mvsim_tee_gate`), made in C: the others
    reach no Python code. Raises tee_library.TeeUnavailable where the tee, through which every delivery passes,
    cannot be loaded, and OSError where rcl is not mapped into this process (nothing is delivered through the tee)."""
    if _publish_kernel() is None:  # bound first (once per process): deliveries pass through the tee from then on
        raise OSError("librcl is not loaded")
    tee_library.tee().mvsim_tee_set_forward(forward)


def _bind_rcl_delivery() -> Callable[[np.ndarray, np.ndarray], int] | None:
    """Bind rcl's serialized publish (rcl_ret_t rcl_publish_serialized_message(const rcl_publisher_t *,
    const rcl_serialized_message_t *, rmw_publisher_allocation_t *)) and rcutils_reset_error as the fast path's
    delivery (delivery.bind) and return its compiled loop `deliver_all`, or None where rcl's libraries are not
    mapped into this process."""
    rcl, rcutils = _loaded_library("librcl.so"), _loaded_library("librcutils.so")
    if rcl is None or rcutils is None:
        return None
    publish = _function_address(rcl, "rcl_publish_serialized_message")
    reset_error = _function_address(rcutils, "rcutils_reset_error")
    if not publish or not reset_error:
        return None
    try:  # through the recording tee, which delivers with rcl and records while a recording runs
        tee_library.tee().mvsim_tee_set_target(publish)
        publish = tee_library.deliver_address()
    except tee_library.TeeUnavailable:
        pass  # straight to rcl; a recording cannot start either (it needs the same library)
    delivery.bind(publish, reset_error)
    return deliver_all


@functools.cache
def _publish_kernel() -> Callable[[np.ndarray, np.ndarray], int] | None:
    """_bind_rcl_delivery(), once per process."""
    return _bind_rcl_delivery()


class BatchPublisher:
    """Publishes row i of each stream's byte array on that stream's outlet i, all in one call.

    `streams` pairs outlets (ros/publishing/outlet.py) with a C-contiguous (count, nbytes) uint8 array of
    serialized messages (a SerializedBatch's `store`), read in place at every `publish()`: keep the arrays alive
    and unresized, and the outlets' publishers alive, as long as this object is used.
    """

    def __init__(self, streams: Sequence[tuple[Sequence[Outlet], np.ndarray]]):
        self._streams = [(list(outlets), store) for outlets, store in streams]
        for outlets, store in self._streams:
            if len(outlets) != store.shape[0]:
                raise ValueError(f"{len(outlets)} publishers for {store.shape[0]} messages")
            if not store.flags.c_contiguous or store.dtype != np.uint8:
                raise ValueError("message arrays must be C-contiguous uint8")
        #: Messages the middleware refused so far (e.g. while the ROS context shuts down).
        self.failures = 0
        self._kernel = _publish_kernel()
        if not all(outlet.handle_address is not None for outlets, _ in self._streams for outlet in outlets):
            self._kernel = None  # an rclpy without the rcl handle's address: publish through rclpy
        if self._kernel is None:
            self._serialized = [(outlet, store[i]) for outlets, store in self._streams
                                for i, outlet in enumerate(outlets)]
            return
        count = sum(store.shape[0] for _, store in self._streams)
        self._messages = np.zeros(count, _SERIALIZED_MESSAGE)
        handles, row = [], 0
        for outlets, store in self._streams:
            for i, outlet in enumerate(outlets):
                message = self._messages[row:row + 1]
                message["buffer"] = store[i].ctypes.data
                message["buffer_length"] = message["buffer_capacity"] = store.shape[1]
                handles.append(outlet.handle_address)
                row += 1
        self._handles = np.array(handles, dtype=np.uintp)
        self._message_pointers = (self._messages.ctypes.data
                                  + _SERIALIZED_MESSAGE.itemsize * np.arange(count)).astype(np.uintp)

    @property
    def delivery(self) -> Delivery:
        """The rcl publishers' addresses, one per message, and the addresses of the serialized-message structs
        over the streams' rows, for the compiled fast path (only when `direct`)."""
        return Delivery(self._handles, self._message_pointers)

    @property
    def direct(self) -> bool:
        """True when publishing calls rcl directly, False when it goes through rclpy."""
        return self._kernel is not None

    def publish(self) -> None:
        """Publish every stream's current bytes."""
        if self._kernel is not None:
            self.failures += self._kernel(self._handles, self._message_pointers)
            return
        for outlet, row in self._serialized:
            try:
                outlet.publish_serialized(row.tobytes())
            except RuntimeError:
                self.failures += 1


class RowsPublisher:
    """One serialized message per outlet (row 0 of each store), published for the ones due at an instant: all of
    them in one call when they are all due (sensors sharing a rate), else one call each."""

    def __init__(self, outlets: Sequence[Outlet], stores: Sequence[np.ndarray]):
        self._all = BatchPublisher([([outlet], store) for outlet, store in zip(outlets, stores)])
        self._each = [BatchPublisher([([outlet], store)]) for outlet, store in zip(outlets, stores)]

    def publish(self, due: Sequence[int]) -> None:
        """Publish the messages of the outlets at indices `due`."""
        if due and len(due) == len(self._each):
            self._all.publish()
            return
        for index in due:
            self._each[index].publish()
