"""<joint> elements: pins (revolute) and ropes/rods (distance) between vehicles or blocks."""

from __future__ import annotations

import math

from mvsim_ros.world.specs import JointSpec, SourceRef
from mvsim_ros.world.values import bounded, fail, parse_bool, parse_bounded, parse_bounded_floats, parse_float, \
    range_note
from mvsim_ros.world.xml_tree import XmlNode

#: Bounds quantity (world/bounds.py) of each numeric joint attribute.
_QUANTITIES = {"min_length": "joint_length", "max_length": "joint_length", "stiffness": "joint_stiffness",
               "damping": "joint_damping"}
JOINT_TYPES = {"revolute": "revolute", "pin": "revolute", "distance": "distance", "rope": "distance"}


def parse_joint(node: XmlNode) -> JointSpec:
    """A <joint type=... body_a=... anchor_a="x y" body_b=... anchor_b="x y" .../> (attributes, as MVSim)."""
    kind = node.attrib.get("type", "").strip()
    if kind not in JOINT_TYPES:
        raise fail(node, f"unknown joint type '{kind}'; valid: {', '.join(JOINT_TYPES)}")
    joint = JointSpec(kind=JOINT_TYPES[kind], body_a="", body_b="", source=SourceRef(node.file, node.line, node.tag))
    for side in ("a", "b"):
        body = node.attrib.get(f"body_{side}", "").strip()
        if not body:
            raise fail(node, f"expected attribute body_{side}=\"<vehicle or block name>\"")
        setattr(joint, f"body_{side}", body)
        if f"anchor_{side}" in node.attrib:
            x, y = parse_bounded_floats(node.attrib[f"anchor_{side}"], node, f"anchor_{side} 'x y'",
                                        ("body_coordinate", "body_coordinate"))
            setattr(joint, f"anchor_{side}", (x, y))
    attrib = node.attrib
    if "enable_limit" in attrib:
        joint.enable_limit = parse_bool(attrib["enable_limit"], node, "enable_limit")
    for key, field_name in (("lower_angle_deg", "lower_angle"), ("upper_angle_deg", "upper_angle")):
        if key in attrib:
            setattr(joint, field_name, math.radians(parse_bounded(attrib[key], node, "angle", key)))
    for key in ("min_length", "max_length", "stiffness", "damping"):
        if key in attrib:
            value = parse_float(attrib[key], node, key)
            if value < 0:
                raise fail(node, f"{key} must be >= 0, got {value:g}{range_note(_QUANTITIES[key])}")
            setattr(joint, key, bounded(value, node, _QUANTITIES[key], key))
    if joint.enable_limit and joint.lower_angle > joint.upper_angle:
        raise fail(node, "lower_angle_deg must not exceed upper_angle_deg")
    if joint.kind == "distance" and joint.max_length < joint.min_length:
        raise fail(node, "max_length must not be below min_length")
    return joint
