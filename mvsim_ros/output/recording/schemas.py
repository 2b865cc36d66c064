"""ROS 2 message definitions as MCAP `ros2msg` schemas, and where a message type's time stamp lies.

A schema is the type's `.msg` text followed by the text of every message type it uses, each after a line of 80 '='
and `MSG: pkg/Type` (the layout rosbag2 writes and every MCAP reader of ROS 2 data parses). The `.msg` files are
read from the `share/<pkg>/msg/` folders of the ament prefixes ($AMENT_PREFIX_PATH) and of this interpreter's
prefix (where the ROS 2 wheels install them); `fields_of`, when given, describes a type found in neither (its
fields as `type name` lines).

Type hashes: the ROS 2 type description hash of a type ('RIHS01_' and 64 hex digits, what rosbag2 writes as
`topic_type_hash`), read from the `share/<pkg>/msg/<Type>.json` type description that rosidl installs beside the
`.msg` file; empty when there is none.

Stamp rules (tee.c reads the stamp from the serialized bytes, little-endian CDR after the 4-byte encapsulation):
STAMP_FIRST: the first field is a builtin_interfaces/Time, or a message (e.g. std_msgs/Header) whose first field
is one; STAMP_FIRST_ELEMENT: the first field is a sequence of such messages (e.g. tf2_msgs/TFMessage), the stamp
of its first element; STAMP_NONE otherwise.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Callable, Iterable

STAMP_NONE, STAMP_FIRST, STAMP_FIRST_ELEMENT = 0, 1, 2
SEPARATOR = "=" * 80
PRIMITIVES = {"bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32",
              "int64", "uint64", "string", "wstring"}
_FIELD = re.compile(r"^\s*([A-Za-z][\w/]*)(<=\d+)?(\[(<=)?(\d*)\])?\s+([A-Za-z]\w*)(\s+.*)?$")

FieldsOf = Callable[[str], list[str]]


class SchemaNotFound(LookupError):
    """No definition of a message type was found."""


def short_name(type_name: str) -> str:
    """'nav_msgs/msg/Odometry' -> 'nav_msgs/Odometry' (the form used inside .msg files and schemas)."""
    package, _, name = type_name.partition("/msg/")
    return f"{package}/{name}" if name else type_name


def _search_dirs() -> list[Path]:
    prefixes = [p for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p] + [sys.prefix]
    return [Path(p) / "share" for p in dict.fromkeys(prefixes)]


class MessageDefinitions:
    """Definitions of ROS 2 message types, read once each: `schema(type)` and `stamp_rule(type)`."""

    def __init__(self, fields_of: FieldsOf | None = None, search_dirs: Iterable[Path] | None = None):
        self._fields_of = fields_of
        self._dirs = list(search_dirs) if search_dirs is not None else _search_dirs()
        self._texts: dict[str, str] = {}
        self._hashes: dict[str, str] = {}

    def text(self, type_name: str) -> str:
        """The .msg text of `type_name` ('pkg/Type' or 'pkg/msg/Type'); SchemaNotFound when there is none."""
        name = short_name(type_name)
        if name not in self._texts:
            package, _, message = name.partition("/")
            for folder in self._dirs:
                path = folder / package / "msg" / f"{message}.msg"
                if path.is_file():
                    self._texts[name] = path.read_text(encoding="utf-8")
                    break
            else:
                if self._fields_of is None:
                    raise SchemaNotFound(f"no definition of the message type {name} (no {package}/msg/{message}.msg "
                                         f"under {', '.join(str(d) for d in self._dirs)})")
                self._texts[name] = "\n".join(self._fields_of(name)) + "\n"
        return self._texts[name]

    def type_hash(self, type_name: str) -> str:
        """The type description hash of `type_name` ('pkg/msg/Type' or 'pkg/Type'), e.g. 'RIHS01_9fc4...', from its
        installed type description (.json); '' when none is installed or it names no hash for the type."""
        name = short_name(type_name)
        if name not in self._hashes:
            package, _, message = name.partition("/")
            full_name = f"{package}/msg/{message}"
            found = ""
            for folder in self._dirs:
                path = folder / package / "msg" / f"{message}.json"
                if not path.is_file():
                    continue
                try:
                    hashes = json.loads(path.read_text(encoding="utf-8")).get("type_hashes", [])
                    found = next((str(h["hash_string"]) for h in hashes if h.get("type_name") == full_name), "")
                except (OSError, ValueError, AttributeError, KeyError, TypeError):
                    found = ""
                break
            self._hashes[name] = found
        return self._hashes[name]

    def fields(self, type_name: str) -> list[tuple[str, str]]:
        """(type, array suffix) of each field of `type_name`, in order; types are 'pkg/Type' or primitives."""
        package = short_name(type_name).partition("/")[0]
        found = []
        for line in self.text(type_name).splitlines():
            line = line.split("#", 1)[0].rstrip()
            match = _FIELD.match(line)
            if match is None or _is_constant(line):
                continue
            kind = match.group(1)
            if kind not in PRIMITIVES:
                if kind == "Header":
                    kind = "std_msgs/Header"
                elif "/" not in kind:
                    kind = f"{package}/{kind}"
            found.append((kind, match.group(3) or ""))
        return found

    def schema(self, type_name: str) -> str:
        """The ros2msg schema text of `type_name` with every message type it uses."""
        root = short_name(type_name)
        order, pending = [], [root]
        while pending:
            name = pending.pop(0)
            if name in order:
                continue
            order.append(name)
            pending += [kind for kind, _ in self.fields(name) if kind not in PRIMITIVES and kind not in order]
        parts = [self.text(root).rstrip("\n")]
        for name in order[1:]:
            parts += [SEPARATOR, f"MSG: {name}", self.text(name).rstrip("\n")]
        return "\n".join(parts) + "\n"

    def stamp_rule(self, type_name: str) -> int:
        """Where the stamp of a serialized `type_name` lies: STAMP_FIRST, STAMP_FIRST_ELEMENT or STAMP_NONE."""
        name = short_name(type_name)
        if name == "builtin_interfaces/Time":
            return STAMP_FIRST
        fields = self.fields(name)
        if not fields or fields[0][0] in PRIMITIVES:
            return STAMP_NONE
        kind, array = fields[0]
        if self.stamp_rule(kind) != STAMP_FIRST:
            return STAMP_NONE
        if not array:
            return STAMP_FIRST
        size = array.strip("[]<=")
        if array.startswith("[<=") or not size:
            return STAMP_FIRST_ELEMENT  # a sequence: its length, then the elements
        return STAMP_FIRST if int(size) > 0 else STAMP_NONE


def _is_constant(line: str) -> bool:
    """Whether a .msg line declares a constant (`type NAME=value`)."""
    words = line.split(None, 1)
    return len(words) == 2 and "=" in words[1] and not words[1].lstrip().startswith("<=")
