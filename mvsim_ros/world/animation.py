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

import math
from dataclasses import dataclass

import numpy as np

from mvsim_ros.world.specs import Pose3, SourceRef
from mvsim_ros.world.values import fail, parse_floats
from mvsim_ros.world.xml_tree import XmlNode

#: Most keyframes an animation may have (each costs nothing per step, but bounds memory and load time).
MAX_KEYFRAMES = 100_000


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

    def relative_pose(self, t: float) -> tuple[np.ndarray, np.ndarray] | None:
        """(position (3,), quaternion (4,)) of the path at simulated time t [s] (relative to the initial pose), or
        None at the start, before the first keyframe of the first cycle (the object then keeps its initial pose)."""
        times = self.times
        if self.period > 0.0:
            phase = math.fmod(t, self.period)
            if phase < times[0]:
                return None if t < self.period else (self.positions[-1], self.quaternions[-1])
        else:  # a single keyframe at t = 0: a fixed offset
            phase = 0.0
        k = int(np.searchsorted(times, phase, side="right")) - 1
        if k >= len(times) - 1:
            return self.positions[-1], self.quaternions[-1]
        u = (phase - times[k]) / (times[k + 1] - times[k])
        position = (1.0 - u) * self.positions[k] + u * self.positions[k + 1]
        return position, slerp(self.quaternions[k], self.quaternions[k + 1], u)

    def pose_at(self, t: float, initial: Pose3) -> Pose3:
        """The object's world pose at simulated time t [s]: `initial` composed with the interpolated keyframe."""
        relative = self.relative_pose(t)
        if relative is None:
            return initial
        position, quaternion = relative
        rot0 = initial.rotation()
        world_position = np.array([initial.x, initial.y, initial.z]) + rot0 @ position
        yaw, pitch, roll = yaw_pitch_roll(rot0 @ quaternion_matrix(quaternion))
        return Pose3(float(world_position[0]), float(world_position[1]), float(world_position[2]), yaw, pitch, roll)


def parse_animation(node: XmlNode) -> KeyframeAnimation:
    """Read ``<animation type="keyframes">`` (WorldFileError naming file, line and tag for anything else)."""
    kind = node.attrib.get("type")
    if kind is None:
        raise fail(node, '<animation> needs a type="keyframes" attribute')
    if kind.strip() != "keyframes":
        raise fail(node, f"unknown animation type '{kind}'; valid: keyframes")
    rows = []
    for child in node.children:
        if child.tag == "time_pose":
            t, x, y, yaw = parse_floats(child.text, child, "time_pose 't x y yaw_deg'", 4)
            rows.append((t, Pose3(x, y, 0.0, math.radians(yaw)), child))
        elif child.tag == "time_pose3d":
            t, x, y, z, yaw, pitch, roll = parse_floats(
                child.text, child, "time_pose3d 't x y z yaw_deg pitch_deg roll_deg'", 7)
            rows.append((t, Pose3(x, y, z, math.radians(yaw), math.radians(pitch), math.radians(roll)), child))
        else:
            raise fail(child, "unknown tag inside <animation>; valid: time_pose, time_pose3d")
        if len(rows) > MAX_KEYFRAMES:
            raise fail(child, f"more than {MAX_KEYFRAMES} keyframes")
    if not rows:
        raise fail(node, "<animation> has no <time_pose> or <time_pose3d> keyframes")
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


def matrix_quaternion(r: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z) of a 3x3 rotation matrix (Shepperd's method), with w >= 0."""
    trace = r[0, 0] + r[1, 1] + r[2, 2]
    if trace > 0:
        s = 2.0 * math.sqrt(1.0 + trace)
        q = np.array([0.25 * s, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s])
    else:
        i = int(np.argmax([r[0, 0], r[1, 1], r[2, 2]]))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * math.sqrt(1.0 + r[i, i] - r[j, j] - r[k, k])
        q = np.zeros(4)
        q[1 + i] = 0.25 * s
        q[1 + j] = (r[j, i] + r[i, j]) / s
        q[1 + k] = (r[k, i] + r[i, k]) / s
        q[0] = (r[k, j] - r[j, k]) / s
    return q if q[0] >= 0 else -q


def quaternion_matrix(q: np.ndarray) -> np.ndarray:
    """3x3 rotation matrix of a unit quaternion (w, x, y, z)."""
    w, x, y, z = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def slerp(q0: np.ndarray, q1: np.ndarray, u: float) -> np.ndarray:
    """Spherical linear interpolation between unit quaternions, u in [0, 1], along the shorter arc."""
    dot = float(np.dot(q0, q1))
    if dot < 0.0:
        q1, dot = -q1, -dot
    if dot > 0.9995:  # nearly equal: linear interpolation, renormalised
        q = q0 + u * (q1 - q0)
        return q / np.linalg.norm(q)
    theta = math.acos(dot)
    return (math.sin((1 - u) * theta) * q0 + math.sin(u * theta) * q1) / math.sin(theta)


def yaw_pitch_roll(r: np.ndarray) -> tuple[float, float, float]:
    """(yaw, pitch, roll) [rad] of a rotation matrix R = Rz(yaw) Ry(pitch) Rx(roll) (MRPT's convention)."""
    pitch = math.atan2(-r[2, 0], math.hypot(r[0, 0], r[1, 0]))
    if abs(math.cos(pitch)) < 1e-12:  # gimbal lock: put it all in yaw
        return math.atan2(-r[0, 1], r[1, 1]), pitch, 0.0
    return math.atan2(r[1, 0], r[0, 0]), pitch, math.atan2(r[2, 1], r[2, 2])


__all__ = ["KeyframeAnimation", "parse_animation", "slerp", "yaw_pitch_roll"]
