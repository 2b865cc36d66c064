"""Publishing many pre-serialized messages with one call: a compiled loop over rcl's serialized publish.

rclpy's `publish_raw` costs ~1.4 us per message, of which ~0.9 us is the middleware's own work (Fast DDS:
writer history, locks, time stamps) and the rest Python call and byte-copy overhead. For 150 messages
(50 vehicles x odometry, ground truth, TF) at every 50 Hz event that overhead is ~70 us of the simulation
thread. Here one numba-compiled loop calls `rcl_publish_serialized_message` directly on every message's bytes
in place (no copy), with the GIL released.

rcl is reached by symbol name in the librcl that rclpy has already loaded (the same library, no build step;
numba's disk cache stays valid). Where that library cannot be found, the batches go through rclpy instead.

(Publishing from a worker thread was tried and is slower here: waking the thread and handing the GIL back and
forth at every event costs more than the publishing it moves off the simulation thread.)
"""

from __future__ import annotations

import functools
from typing import Callable, Sequence

import numpy as np
from numba import njit, types
from rclpy.publisher import Publisher

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


# rcl_ret_t rcl_publish_serialized_message(const rcl_publisher_t *, const rcl_serialized_message_t *,
#                                          rmw_publisher_allocation_t *), pointers passed as integers; resolved by
# name in the librcl that rclpy loaded, once _publish_kernel() made it visible to compiled code.
_rcl_publish = types.ExternalFunction("rcl_publish_serialized_message",
                                      types.int32(types.uintp, types.uintp, types.uintp))
_reset_error = types.ExternalFunction("rcutils_reset_error", types.void())


@njit(cache=True, nogil=True)
def publish_all(publishers, messages):
    """Publish message i (a serialized-message struct's address) on publisher i (an rcl publisher's address);
    returns how many rcl refused. Only after _publish_kernel() returned it (rcl must be visible)."""
    failures = 0
    for i in range(publishers.shape[0]):
        if _rcl_publish(publishers[i], messages[i], 0) != 0:
            _reset_error()  # rcl keeps one error state per thread: clear it, as rclpy does after raising
            failures += 1
    return failures


def _compile_publish_kernel() -> Callable[[np.ndarray, np.ndarray], int] | None:
    """`publish_all`, once rcl's libraries are visible to compiled code, or None where they are not mapped into
    this process."""
    rcl, rcutils = _loaded_library("librcl.so"), _loaded_library("librcutils.so")
    if rcl is None or rcutils is None:
        return None
    import llvmlite.binding as llvm

    try:
        llvm.load_library_permanently(rcl)
        llvm.load_library_permanently(rcutils)
    except RuntimeError:
        return None
    publish_all(np.zeros(0, np.uintp), np.zeros(0, np.uintp))
    return publish_all


@functools.cache
def _publish_kernel() -> Callable[[np.ndarray, np.ndarray], int] | None:
    """_compile_publish_kernel(), once per process."""
    return _compile_publish_kernel()


class BatchPublisher:
    """Publishes row i of each stream's byte array on that stream's publisher i, all in one call.

    `streams` pairs publishers with a C-contiguous (count, nbytes) uint8 array of serialized messages
    (a SerializedBatch's `store`), read in place at every `publish()`: keep the arrays alive and unresized,
    and the publishers alive, as long as this object is used.
    """

    def __init__(self, streams: Sequence[tuple[Sequence[Publisher], np.ndarray]]):
        self._streams = [(list(publishers), store) for publishers, store in streams]
        for publishers, store in self._streams:
            if len(publishers) != store.shape[0]:
                raise ValueError(f"{len(publishers)} publishers for {store.shape[0]} messages")
            if not store.flags.c_contiguous or store.dtype != np.uint8:
                raise ValueError("message arrays must be C-contiguous uint8")
        #: Messages the middleware refused so far (e.g. while the ROS context shuts down).
        self.failures = 0
        self._kernel = _publish_kernel()
        if not all(hasattr(pub.handle, "pointer") for pubs, _ in self._streams for pub in pubs):
            self._kernel = None  # an rclpy without the rcl handle's address: publish through rclpy
        if self._kernel is None:
            self._raw = [(pub.handle.publish_raw, store[i]) for pubs, store in self._streams
                         for i, pub in enumerate(pubs)]
            return
        count = sum(store.shape[0] for _, store in self._streams)
        self._messages = np.zeros(count, _SERIALIZED_MESSAGE)
        handles, row = [], 0
        for publishers, store in self._streams:
            for i, publisher in enumerate(publishers):
                message = self._messages[row:row + 1]
                message["buffer"] = store[i].ctypes.data
                message["buffer_length"] = message["buffer_capacity"] = store.shape[1]
                handles.append(publisher.handle.pointer)
                row += 1
        self._handles = np.array(handles, dtype=np.uintp)
        self._message_pointers = (self._messages.ctypes.data
                                  + _SERIALIZED_MESSAGE.itemsize * np.arange(count)).astype(np.uintp)

    @property
    def handles(self) -> np.ndarray:
        """The rcl publishers' addresses, one per message (only when `direct`)."""
        return self._handles

    @property
    def message_pointers(self) -> np.ndarray:
        """The addresses of the serialized-message structs over the streams' rows (only when `direct`)."""
        return self._message_pointers

    @property
    def direct(self) -> bool:
        """True when publishing calls rcl directly, False when it goes through rclpy."""
        return self._kernel is not None

    def publish(self) -> None:
        """Publish every stream's current bytes."""
        if self._kernel is not None:
            self.failures += self._kernel(self._handles, self._message_pointers)
            return
        for publish_raw, row in self._raw:
            try:
                publish_raw(row.tobytes())
            except RuntimeError:
                self.failures += 1


class RowsPublisher:
    """One serialized message per publisher (row 0 of each store), published for the ones due at an instant: all
    of them in one call when they are all due (sensors sharing a rate), else one call each."""

    def __init__(self, publishers: Sequence[Publisher], stores: Sequence[np.ndarray]):
        self._all = BatchPublisher([([pub], store) for pub, store in zip(publishers, stores)])
        self._each = [BatchPublisher([([pub], store)]) for pub, store in zip(publishers, stores)]

    def publish(self, due: Sequence[int]) -> None:
        """Publish the messages of the publishers at indices `due`."""
        if due and len(due) == len(self._each):
            self._all.publish()
            return
        for index in due:
            self._each[index].publish()
