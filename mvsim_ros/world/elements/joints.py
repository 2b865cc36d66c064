"""<joint> elements: pins (revolute) and ropes, rods or springs (distance) between vehicles or blocks, read through
the joint table (params/world_tables.py) with MVSim's names, units and defaults."""

from __future__ import annotations

from typing import Callable

from mvsim_ros.world.xml.param_reading import read_params
from mvsim_ros.world.params.world_tables import JOINT
from mvsim_ros.world.specs import JointSpec, SourceRef
from mvsim_ros.world.xml.values import fail
from mvsim_ros.world.xml.xml_tree import XmlNode

Warn = Callable[[XmlNode, str], None]
JOINT_TYPES = {"revolute": "revolute", "pin": "revolute", "distance": "distance", "rope": "distance"}


def parse_joint(node: XmlNode, warn: Warn | None = None) -> JointSpec:
    """A <joint type=... body_a=... anchor_a="x y" body_b=... anchor_b="x y" .../> (attributes, as MVSim)."""
    kind = node.attrib.get("type", "").strip()
    if kind not in JOINT_TYPES:
        raise fail(node, f"unknown joint type '{kind}'; valid: {', '.join(JOINT_TYPES)}")
    values = read_params(JOINT, node, warn or _ignore, label=f'<joint type="{kind}">')
    joint = JointSpec(kind=JOINT_TYPES[kind], body_a="", body_b="", source=SourceRef(node.file, node.line, node.tag))
    for side in ("a", "b"):
        body = values[f"body_{side}"]
        if not body:
            raise fail(node, f"expected attribute body_{side}=\"<vehicle or block name>\"")
        setattr(joint, f"body_{side}", body)
        anchor = values[f"anchor_{side}"]
        if anchor is None:  # MVSim refuses the joint; its body's origin is the one sensible anchor
            (warn or _ignore)(node, f"no anchor_{side}=\"x y\" (MVSim requires it): body {side.upper()}'s origin "
                                    "(0 0) is used")
            anchor = [0.0, 0.0]
        if len(anchor) != 2:
            raise fail(node, f"anchor_{side}: expected 'x y', got {len(anchor)} numbers")
        setattr(joint, f"anchor_{side}", (anchor[0], anchor[1]))
    joint.enable_limit = values["enable_limit"]
    joint.lower_angle, joint.upper_angle = values["lower_angle_deg"], values["upper_angle_deg"]
    for key in ("min_length", "max_length", "stiffness", "damping"):
        setattr(joint, key, values[key])
    if joint.enable_limit and joint.lower_angle > joint.upper_angle:
        raise fail(node, "lower_angle_deg must not exceed upper_angle_deg")
    if joint.kind == "distance":
        if joint.max_length < joint.min_length:
            raise fail(node, "max_length must not be below min_length")
        if 0.0 < joint.min_length < joint.max_length and warn is not None:
            warn(node, f"min_length {joint.min_length:g} m is not enforced: Box2D 2.3 (used here) has no lower "
                       "length limit; the anchors may come closer")
    return joint


def _ignore(node: XmlNode, message: str) -> None:
    """A warn callback for callers that do not collect warnings."""


__all__ = ["JOINT_TYPES", "parse_joint"]
