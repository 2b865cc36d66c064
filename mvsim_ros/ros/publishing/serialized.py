"""Fast publishing: serialize a message once per vehicle, then rewrite only its numeric fields.

Building a Python ROS message and converting it for the middleware costs ~10-20 us per message; rewriting the
numbers of all vehicles' pre-serialized CDR copies at once (numpy) and publishing each copy's bytes (rclpy's
serialized publish) costs ~2 us per message. Field offsets are found by serializing the template with a unique
sentinel in every patched field, so they follow whatever layout the installed message type has (frame-id
strings included). Compiled code writes the same fields with runtime/fast_path/fields.py's `write_fields`, from a
batch's `buffers`.
"""

from __future__ import annotations

import copy
import struct
from typing import Any

import numpy as np
from rclpy.serialization import serialize_message

from mvsim_ros.runtime.fast_path.fields import FIELD_KINDS, StreamBuffers, write_fields

__all__ = ["FIELD_KINDS", "SerializedBatch", "field_layout", "write_fields"]

#: struct codes by message field type.
_CODES = {"float64": "d", "double": "d", "int32": "i", "uint32": "I"}
_NUMPY_CODES = {"d": "f8", "i": "i4", "I": "u4"}


def _resolve(msg: Any, path: str) -> tuple[Any, str]:
    """(parent object, attribute name) for a dotted path such as 'transforms.0.header.stamp.sec'."""
    parts = path.split(".")
    obj = msg
    for part in parts[:-1]:
        obj = obj[int(part)] if part.isdigit() else getattr(obj, part)
    return obj, parts[-1]


def _field_code(parent: Any, name: str) -> str:
    types = type(parent).get_fields_and_field_types()
    try:
        return _CODES[types[name]]
    except KeyError:
        raise TypeError(f"field {name!r} of {type(parent).__name__} is {types.get(name)!r}; "
                        f"only {', '.join(_CODES)} can be patched") from None


def _complement(code: str, endian: str, value: float | int) -> float | int:
    """The value of type `code` whose serialized bytes are the bitwise complement of `value`'s: every byte differs
    (a finite double for the sentinels used here)."""
    packed = struct.pack(endian + code, value)
    return struct.unpack(endian + code, bytes(255 - b for b in packed))[0]


def _serialize_with(template: Any, fields: list[str], values: list) -> bytes:
    probe = copy.deepcopy(template)
    for path, value in zip(fields, values):
        parent, name = _resolve(probe, path)
        setattr(parent, name, value)
    return serialize_message(probe)


def field_layout(template: Any, fields: list[str]) -> tuple[bytes, str, list[int], list[str]]:
    """Serialize `template` and find where each listed numeric field lies in the CDR bytes.

    Returns (serialized template, struct endianness '<' or '>', byte offset of each field, struct code of each).
    The fields must be listed in their serialized order.

    The template is serialized twice, with a sentinel in every listed field and then with the sentinels' bitwise
    complements; a field lies where both serializations hold its sentinel. The serializer leaves CDR alignment
    padding uninitialised (it can hold bytes of earlier messages, sentinels included), and padding or any other
    byte outside the listed fields is the same in both serializations, so it cannot match both sentinels.
    """
    codes = []
    for path in fields:
        parent, name = _resolve(template, path)
        codes.append(_field_code(parent, name))
    first = [1234567.8901 + 0.0625 * (k + 1) if code == "d" else 0x3ADE0000 + k for k, code in enumerate(codes)]
    data = _serialize_with(template, fields, first)
    endian = "<" if data[1] == 1 else ">"  # CDR encapsulation: 0x0001 little-endian, 0x0000 big-endian
    second = [_complement(code, endian, value) for code, value in zip(codes, first)]
    other = _serialize_with(template, fields, second)
    offsets = []
    for path, code, a, b in zip(fields, codes, first, second):
        needle_a, needle_b = struct.pack(endian + code, a), struct.pack(endian + code, b)
        found = [o for o in _occurrences(data, needle_a) if other[o:o + len(needle_b)] == needle_b]
        if len(found) != 1 or len(data) != len(other):
            raise RuntimeError(f"could not locate field {path!r} in the serialized {type(template).__name__}")
        offsets.append(found[0])
    if offsets != sorted(offsets):
        raise ValueError(f"list the fields in their serialized order: {fields}")
    return serialize_message(template), endian, offsets, codes


def _occurrences(data: bytes, needle: bytes) -> list[int]:
    """Every offset at which `needle` starts in `data` (overlapping ones included)."""
    found, start = [], data.find(needle)
    while start >= 0:
        found.append(start)
        start = data.find(needle, start + 1)
    return found


class SerializedBatch:
    """`count` serialized copies of a template message, one per row of a byte array; `fill` writes the listed
    numeric fields of every copy at once (numpy), `row(i)` gives copy i's bytes for a serialized publish.

    `fields` are dotted attribute paths (list elements by index), in their serialized order; fields next to each
    other with the same type are written as one block.
    """

    def __init__(self, template: Any, fields: list[str], count: int):
        data, endian, offsets, codes = field_layout(template, fields)
        self.store = np.tile(np.frombuffer(data, dtype=np.uint8), (count, 1))
        #: Byte offset of each field in a row, and its kind (FIELD_KINDS), for compiled writers (write_fields).
        self.field_offsets = np.array(offsets, dtype=np.intp)
        self.field_kinds = np.array([FIELD_KINDS[c] for c in codes], dtype=np.int64)
        #: True when the bytes are little-endian (what write_fields writes).
        self.little_endian = endian == "<"
        self.rows = [self.store[i] for i in range(count)]
        self._blocks = []  # (view of shape (count, n) over the field bytes, first column, n)
        start = 0
        for i in range(1, len(fields) + 1):
            size = struct.calcsize(endian + codes[i - 1])
            if i == len(fields) or codes[i] != codes[start] or offsets[i] != offsets[i - 1] + size:
                dtype = np.dtype(endian + _NUMPY_CODES[codes[start]])
                length = (i - start) * dtype.itemsize
                view = self.store[:, offsets[start]:offsets[start] + length].view(dtype)
                self._blocks.append((view, start, i - start))
                start = i

    def fill(self, values: np.ndarray) -> None:
        """Write every field of every copy: values[row, k] is field k of copy `row` (integers exactly)."""
        for view, first, n in self._blocks:
            view[:] = values[:, first:first + n]

    def row(self, index: int) -> bytes:
        """The serialized bytes of copy `index`."""
        return self.rows[index].tobytes()

    @property
    def buffers(self) -> StreamBuffers:
        """The copies' bytes with the fields' offsets and kinds, for compiled writers (fields.write_fields; only
        when `little_endian`)."""
        return StreamBuffers(self.store, self.field_offsets, self.field_kinds)
