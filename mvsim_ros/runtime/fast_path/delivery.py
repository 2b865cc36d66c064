"""Delivering serialized messages from compiled code through one C function, bound by the front end.

The compiled loops deliver each message with a call of the C ABI

    int32_t deliver(uintptr_t handle, uintptr_t message, uintptr_t allocation);   /* 0: delivered */
    void clear_error(void);                                                      /* after a refusal */

(handle: the front end's publisher; message: its serialized-message struct; allocation: 0). The front end binds
the two functions' addresses once per process (`bind`); the ROS adapter binds rcl's serialized publish and
rcutils' error reset (ros/publishing/batch_publisher.py), so a message goes from the compiled steps to the
middleware with no Python in between.

The functions are reached as link-time symbols (numba ExternalFunction, registered with llvmlite under the names
below), not passed in as arguments: a numba first-class function argument keeps `cache=True` working, but every
call of a compiled function taking one unboxes it through Python, ~90 us per call against ~3 us for arrays (numba
0.68), which the publishers pay at every event; a symbol costs nothing per call and leaves the compiled code on
disk valid whatever address it is bound to. Compiled code that calls these must only run after `bind`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types

#: The symbol names the compiled code calls (bound by `bind`).
DELIVER_SYMBOL = "mvsim_fast_path_deliver"
CLEAR_ERROR_SYMBOL = "mvsim_fast_path_clear_delivery_error"

_deliver = types.ExternalFunction(DELIVER_SYMBOL, types.int32(types.uintp, types.uintp, types.uintp))
_clear_error = types.ExternalFunction(CLEAR_ERROR_SYMBOL, types.void())

_bound = False


class Delivery(NamedTuple):
    """Where messages go: message i (the address of its serialized-message struct) is delivered on handle i."""

    #: The front end's publisher handles (addresses), one per message (uintp).
    handles: np.ndarray
    #: The addresses of the messages' serialized-message structs (uintp).
    messages: np.ndarray


def empty_delivery() -> Delivery:
    """A Delivery of no messages."""
    return Delivery(np.zeros(0, np.uintp), np.zeros(0, np.uintp))


#: As core.jit.allocation_free_kernel (no reference counting), releasing the GIL when called from Python.
_delivery_kernel = njit(cache=True, nogil=True, _nrt=False)


@_delivery_kernel
def deliver_all(handles, messages):
    """Deliver message i on handle i, for all i; returns how many were refused. Only after `bind`."""
    failures = 0
    for i in range(handles.shape[0]):
        if _deliver(handles[i], messages[i], 0) != 0:
            _clear_error()  # the refusal's error state is per thread: clear it for the next call
            failures += 1
    return failures


@_delivery_kernel
def deliver(delivery):
    """`deliver_all` of a Delivery's messages; returns how many were refused. Only after `bind`."""
    return deliver_all(delivery.handles, delivery.messages)


def bind(deliver_address: int, clear_error_address: int) -> None:
    """Bind the delivery functions (addresses of C functions of the module docstring's ABI) for this process, and
    compile or load `deliver_all`. Bind once: compiled code keeps the addresses it was linked with."""
    global _bound
    import llvmlite.binding as llvm

    llvm.add_symbol(DELIVER_SYMBOL, deliver_address)
    llvm.add_symbol(CLEAR_ERROR_SYMBOL, clear_error_address)
    _bound = True
    deliver_all(np.zeros(0, np.uintp), np.zeros(0, np.uintp))


def bound() -> bool:
    """Whether `bind` was called in this process (compiled delivery may run)."""
    return _bound
