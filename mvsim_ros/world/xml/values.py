"""Reading typed values (numbers, booleans, vectors, colours) out of XML text, with located errors."""

from __future__ import annotations

import math
import re

from mvsim_ros.world.xml.bounds import BOUNDS
from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.specs import Pose3
from mvsim_ros.world.xml.xml_tree import XmlNode

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}
_COLOR = re.compile(r"^#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$")
#: Bounds quantities of the values of "x y yaw_deg" and "x y z yaw_deg pitch_deg roll_deg" poses.
POSE2D_QUANTITIES = ("position", "position", "angle")
POSE3D_QUANTITIES = ("position", "position", "position", "angle", "angle", "angle")


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


def bounded(value: float, node: XmlNode, quantity: str, what: str) -> float:
    """`value` if it lies in the accepted range of `quantity` (world/xml/bounds.py), else a WorldFileError naming the
    value and the range."""
    b = BOUNDS[quantity]
    if not b.low <= value <= b.high:
        raise fail(node, f"{what}: {value:g} is outside the accepted range {b.text()} ({b.why})")
    return value


def parse_bounded(text: str, node: XmlNode, quantity: str, what: str) -> float:
    """A finite float within the accepted range of `quantity` (see bounded)."""
    return bounded(parse_float(text, node, what), node, quantity, what)


def parse_bounded_floats(text: str, node: XmlNode, what: str, quantities: tuple[str, ...] | list[str],
                         counts: int | tuple[int, ...] | None = None) -> list[float]:
    """Floats as parse_floats, the i-th within the range of quantities[i]; `counts` defaults to len(quantities)."""
    values = parse_floats(text, node, what, len(quantities) if counts is None else counts)
    for value, quantity in zip(values, quantities):
        bounded(value, node, quantity, what)
    return values


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


def range_note(quantity: str | None) -> str:
    """' (accepted range [low, high] unit)' of a bounds quantity, to end a message with; '' for None."""
    return f" (accepted range {BOUNDS[quantity].text()})" if quantity else ""


def positive(value: float, node: XmlNode, what: str, quantity: str | None = None) -> float:
    """`value` if it is > 0, else a WorldFileError (naming the accepted range of `quantity` when given)."""
    if value <= 0.0:
        raise fail(node, f"{what}: must be > 0, got {value:g}{range_note(quantity)}")
    return value


def parse_pose3d(node: XmlNode) -> Pose3:
    """A 3D pose written "x y z yaw_deg pitch_deg roll_deg" [m, deg] (<init_pose3d>, <pose_3d>, ...)."""
    x, y, z, yaw, pitch, roll = parse_bounded_floats(node.text, node, f"{node.tag} 'x y z yaw_deg pitch_deg roll_deg'",
                                                     POSE3D_QUANTITIES)
    return Pose3(x, y, z, math.radians(yaw), math.radians(pitch), math.radians(roll))


def parse_init_pose(node: XmlNode) -> Pose3:
    """An object's <init_pose> "x y yaw_deg" (on the ground, z = 0) or <init_pose3d> (see parse_pose3d)."""
    if node.tag == "init_pose3d":
        return parse_pose3d(node)
    x, y, yaw = parse_bounded_floats(node.text, node, "init_pose 'x y yaw_deg'", POSE2D_QUANTITIES)
    return Pose3(x, y, 0.0, math.radians(yaw))
