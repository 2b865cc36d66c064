"""Reading typed values (numbers, booleans, vectors, colours) out of XML text, with located errors."""

from __future__ import annotations

import math
import re

from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.specs import Pose3
from mvsim_ros.world.xml_tree import XmlNode

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}
_COLOR = re.compile(r"^#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$")


def fail(node: XmlNode, message: str) -> WorldFileError:
    """A WorldFileError located at this node."""
    return WorldFileError(message, file=node.file, line=node.line, tag=node.tag)


def parse_float(text: str, node: XmlNode, what: str) -> float:
    """A finite float, or a WorldFileError naming `what`."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise fail(node, f"{what}: expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise fail(node, f"{what}: expected a finite number, got {text!r}")
    return value


def parse_floats(text: str, node: XmlNode, what: str, count: int | tuple[int, ...]) -> list[float]:
    """Whitespace/comma separated floats; `count` is the allowed number (or numbers) of values."""
    parts = [p for p in re.split(r"[\s,]+", text.strip()) if p]
    allowed = (count,) if isinstance(count, int) else count
    if len(parts) not in allowed:
        expected = " or ".join(str(c) for c in allowed)
        raise fail(node, f"{what}: expected {expected} numbers, got {text!r}")
    return [parse_float(p, node, what) for p in parts]


def parse_bool(text: str, node: XmlNode, what: str) -> bool:
    """true/false, 1/0, yes/no, on/off (case-insensitive)."""
    low = text.strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise fail(node, f"{what}: expected true or false, got {text!r}")


def parse_color(text: str, node: XmlNode, what: str) -> str:
    """An HTML colour '#rrggbb' or '#rrggbbaa' (returned lower-case)."""
    value = text.strip()
    if not _COLOR.match(value):
        raise fail(node, f"{what}: expected a colour like #rrggbb, got {text!r}")
    return value.lower()


def positive(value: float, node: XmlNode, what: str) -> float:
    """`value` if it is > 0, else a WorldFileError."""
    if value <= 0.0:
        raise fail(node, f"{what}: must be > 0, got {value:g}")
    return value


def parse_pose3d(node: XmlNode) -> Pose3:
    """A 3D pose written "x y z yaw_deg pitch_deg roll_deg" [m, deg] (<init_pose3d>, <pose_3d>, ...)."""
    x, y, z, yaw, pitch, roll = parse_floats(node.text, node, f"{node.tag} 'x y z yaw_deg pitch_deg roll_deg'", 6)
    return Pose3(x, y, z, math.radians(yaw), math.radians(pitch), math.radians(roll))


def parse_init_pose(node: XmlNode) -> Pose3:
    """An object's <init_pose> "x y yaw_deg" (on the ground, z = 0) or <init_pose3d> (see parse_pose3d)."""
    if node.tag == "init_pose3d":
        return parse_pose3d(node)
    x, y, yaw = parse_floats(node.text, node, "init_pose 'x y yaw_deg'", 3)
    return Pose3(x, y, 0.0, math.radians(yaw))
