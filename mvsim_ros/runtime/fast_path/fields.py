"""Numbers written into serialized (little-endian CDR) messages from compiled code, and their time stamps.

A stream keeps its messages serialized, one per row of a byte array; only its numeric fields change from one
instant to the next, at byte offsets found once when the messages were serialized (ros/publishing/serialized.py).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mvsim_ros.core.jit import allocation_free_kernel

#: Field kinds (the numbers in StreamBuffers.kinds), by struct code: int32, uint32, float64.
FIELD_KINDS = {"i": 0, "I": 1, "d": 2}


class StreamBuffers(NamedTuple):
    """One stream's serialized messages and where their numbers go."""

    #: The messages' bytes, one message per row: C-contiguous (messages, bytes) uint8, read in place by delivery.
    store: np.ndarray
    #: Byte offset of each written field in a row (intp).
    offsets: np.ndarray
    #: Kind of each field (FIELD_KINDS, int64).
    kinds: np.ndarray


def empty_buffers() -> StreamBuffers:
    """StreamBuffers of no messages and no fields."""
    return StreamBuffers(np.zeros((0, 0), np.uint8), np.zeros(0, np.intp), np.zeros(0, np.int64))


@allocation_free_kernel
def write_fields(store, offsets, kinds, values):
    """values[row, k] into field k of row `row` of `store` (a stream's byte array, little-endian), at byte
    offsets[k] as kinds[k] (FIELD_KINDS: int32, uint32, float64; integers exactly). The fields are written through
    views of their bytes (a CDR field need not lie on a multiple of its size in the row)."""
    for row in range(store.shape[0]):
        for k in range(offsets.size):
            at = offsets[k]
            if kinds[k] == 2:
                store[row, at:at + 8].view(np.float64)[0] = values[row, k]
            elif kinds[k] == 0:
                store[row, at:at + 4].view(np.int32)[0] = np.int32(values[row, k])
            else:
                store[row, at:at + 4].view(np.uint32)[0] = np.uint32(values[row, k])


@allocation_free_kernel
def write_buffers(buffers, values):
    """`write_fields` into a StreamBuffers."""
    write_fields(buffers.store, buffers.offsets, buffers.kinds, values)


@allocation_free_kernel
def stamp(now, offset_ns):
    """(sec, nanosec) of simulated time `now` [s] rounded to the nanosecond, plus offset_ns [ns] (the front end's
    stamp offset: 0, or the wall-clock anchor of its stamps)."""
    nanoseconds = np.int64(np.rint(now * 1e9)) + offset_ns
    return nanoseconds // 1_000_000_000, nanoseconds % 1_000_000_000
