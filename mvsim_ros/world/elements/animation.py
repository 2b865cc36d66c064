"""Keyframe animations (MVSim's ``<animation type="keyframes">``) of blocks and world elements.

A keyframe is ``<time_pose>t x y yaw_deg</time_pose>`` or
``<time_pose3d>t x y z yaw_deg pitch_deg roll_deg</time_pose3d>`` [s, m, deg]. As in MVSim
(``Simulable::simul_pre_timestep``), the object's pose at simulated time t is its initial pose composed with the
keyframe pose interpolated at ``fmod(t, T)``, T being the last keyframe's time: position linearly, orientation by
spherical linear interpolation of unit quaternions (the shorter way round). Keyframe poses are therefore relative
to the initial pose (an object with ``<init_pose>0 0 0</init_pose>`` moves along the absolute keyframes). Before
the first keyframe's time in the first cycle the object stays at its initial pose, and in later cycles at its last
keyframe pose: there is nothing to interpolate between, and MVSim leaves the pose unchanged then.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from mvsim_ros.core.rotations import matrix_quaternion, quaternion_product, quaternion_yaw_pitch_roll, slerp
from mvsim_ros.world.specs import Pose3, SourceRef
from mvsim_ros.world.xml.bounds import BOUNDS
from mvsim_ros.world.xml.values import POSE3D_QUANTITIES, fail, parse_bounded_floats, range_note
from mvsim_ros.world.xml.xml_tree import XmlNode

#: Most keyframes an animation may have (each costs nothing per step, but bounds memory and load time).
MAX_KEYFRAMES = int(BOUNDS["keyframes"].high)
_TIME_POSE = ("duration", "position", "position", "angle")


@dataclass
class KeyframeAnimation:
    """A keyframe path. times [s], strictly increasing; positions (N, 3) [m]; quaternions (N, 4) as (w, x, y, z)."""

    times: np.ndarray
    positions: np.ndarray
    quaternions: np.ndarray
    source: SourceRef | None = None

    @property
    def period(self) -> float:
        """Length of one cycle [s]: the last keyframe's time."""
        return float(self.times[-1])

    def track(self, initial: Pose3) -> "KeyframeTrack":
        """The keyframes composed with an initial pose, ready to be sampled every step."""
        return KeyframeTrack(self, initial)

    def pose_at(self, t: float, initial: Pose3) -> Pose3:
        """The object's world pose at simulated time t [s]: `initial` composed with the interpolated keyframe."""
        return Pose3(*self.track(initial).pose(t))


class KeyframeTrack:
    """A KeyframeAnimation composed with an object's initial pose: world-frame keyframes, sampled with plain
    floats (a few microseconds per sample, as the physics does every step).

    Composing first and interpolating then is the same as MVSim's interpolating then composing: positions are
    interpolated linearly and a fixed rotation commutes with slerp (q0 slerp(qa, qb, u) = slerp(q0 qa, q0 qb, u)).
    """

    def __init__(self, animation: KeyframeAnimation, initial: Pose3):
        self.times = animation.times.tolist()
        self.period = animation.period
        rot0 = initial.rotation()
        q0 = matrix_quaternion(rot0)
        origin = np.array([initial.x, initial.y, initial.z])
        self.positions = [tuple(float(c) for c in origin + rot0 @ p) for p in animation.positions]
        self.quaternions = [quaternion_product(q0, q) for q in animation.quaternions]
        #: Rotations about z only (MVSim's <time_pose> keyframes on an upright object): their angles [rad], to
        #: interpolate as slerp would, without it.
        self.yaws = [2.0 * math.atan2(z, w) for w, x, y, z in self.quaternions] \
            if all(x == 0.0 and y == 0.0 for _, x, y, _ in self.quaternions) else None
        self.initial = tuple(float(c) for c in (initial.x, initial.y, initial.z, initial.yaw, initial.pitch,
                                                initial.roll))

    def pose(self, t: float) -> tuple[float, float, float, float, float, float]:
        """(x, y, z, yaw, pitch, roll) [m, rad] at simulated time t [s] (see the module docstring)."""
        times = self.times
        if self.period > 0.0:
            phase = math.fmod(t, self.period)
            if phase < times[0]:
                if t < self.period:
                    return self.initial
                return self._keyframe(-1)
        else:  # a single keyframe at t = 0: a fixed offset
            phase = 0.0
        k = bisect.bisect_right(times, phase) - 1
        if k >= len(times) - 1:
            return self._keyframe(-1)
        u = (phase - times[k]) / (times[k + 1] - times[k])
        (xa, ya, za), (xb, yb, zb) = self.positions[k], self.positions[k + 1]
        if self.yaws is None:
            orientation = quaternion_yaw_pitch_roll(slerp(self.quaternions[k], self.quaternions[k + 1], u))
        else:  # slerp about one axis: the angle moves linearly the shorter way (a half turn: as slerp goes)
            turn = self.yaws[k + 1] - self.yaws[k]
            if turn > math.pi:
                turn -= 2.0 * math.pi
            elif turn < -math.pi:
                turn += 2.0 * math.pi
            orientation = (math.remainder(self.yaws[k] + u * turn, 2.0 * math.pi), 0.0, 0.0)
        return (xa + u * (xb - xa), ya + u * (yb - ya), za + u * (zb - za), *orientation)

    def _keyframe(self, k: int) -> tuple[float, float, float, float, float, float]:
        return (*self.positions[k], *quaternion_yaw_pitch_roll(self.quaternions[k]))


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


__all__ = ["KeyframeAnimation", "KeyframeTrack", "parse_animation"]
