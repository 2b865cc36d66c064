"""Reading MVSim's ``<animation type="keyframes">`` of blocks and world elements into a KeyframeAnimation.

A keyframe is ``<time_pose>t x y yaw_deg</time_pose>`` or
``<time_pose3d>t x y z yaw_deg pitch_deg roll_deg</time_pose3d>`` [s, m, deg]; how the pose between keyframes is
interpolated, and relative to what, is in world/specs/animation.py.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from mvsim_ros.core.rotations import matrix_quaternion
from mvsim_ros.world.specs import KeyframeAnimation, Pose3, SourceRef
from mvsim_ros.world.xml.bounds import BOUNDS
from mvsim_ros.world.xml.values import POSE3D_QUANTITIES, fail, parse_bounded_floats, range_note
from mvsim_ros.world.xml.xml_tree import XmlNode

#: Most keyframes an animation may have (each costs nothing per step, but bounds memory and load time).
MAX_KEYFRAMES = int(BOUNDS["keyframes"].high)
_TIME_POSE = ("duration", "position", "position", "angle")


def parse_animation(node: XmlNode, warn: Callable[[XmlNode, str], None] | None = None) -> KeyframeAnimation:
    """Read ``<animation type="keyframes">`` (WorldFileError naming file, line and tag for anything else).
    ``warn(node, message)``, if given, hears about attributes other than type (skipped)."""
    if warn is not None:
        for key in node.attrib:
            if key != "type":
                warn(node, f"unknown attribute {key}=\"...\" for <animation>; skipped (known: type)")
    kind = node.attrib.get("type")
    if kind is None:
        raise fail(node, '<animation> needs a type="keyframes" attribute')
    if kind.strip() != "keyframes":
        raise fail(node, f"unknown animation type '{kind}'; valid: keyframes")
    rows = []
    for child in node.children:
        if child.tag == "time_pose":
            t, x, y, yaw = parse_bounded_floats(child.text, child, "time_pose 't x y yaw_deg'", _TIME_POSE)
            rows.append((t, Pose3(x, y, 0.0, math.radians(yaw)), child))
        elif child.tag == "time_pose3d":
            t, x, y, z, yaw, pitch, roll = parse_bounded_floats(
                child.text, child, "time_pose3d 't x y z yaw_deg pitch_deg roll_deg'", ("duration", *POSE3D_QUANTITIES))
            rows.append((t, Pose3(x, y, z, math.radians(yaw), math.radians(pitch), math.radians(roll)), child))
        else:
            raise fail(child, "unknown tag inside <animation>; valid: time_pose, time_pose3d")
        if len(rows) > MAX_KEYFRAMES:
            raise fail(child, f"more than {MAX_KEYFRAMES} keyframes{range_note('keyframes')}")
    if not rows:
        raise fail(node, f"<animation> has no <time_pose> or <time_pose3d> keyframes{range_note('keyframes')}")
    rows.sort(key=lambda row: row[0])  # MVSim keeps keyframes in a map ordered by time; a repeated time wins last
    unique: dict[float, tuple[Pose3, XmlNode]] = {}
    for t, pose, child in rows:
        if t < 0:
            raise fail(child, f"keyframe time must be >= 0 [s], got {t:g}")
        unique[t] = (pose, child)
    times = np.array(sorted(unique), dtype=float)
    poses = [unique[t][0] for t in times]
    positions = np.array([(p.x, p.y, p.z) for p in poses], dtype=float)
    quaternions = np.array([matrix_quaternion(p.rotation()) for p in poses], dtype=float)
    return KeyframeAnimation(times, positions, quaternions, SourceRef(node.file, node.line, node.tag))


__all__ = ["parse_animation"]
