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

import numpy as np

from mvsim_ros.core.rotations import matrix_quaternion, quaternion_product, quaternion_yaw_pitch_roll, slerp
from mvsim_ros.world.specs.common import Pose3, SourceRef


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


__all__ = ["KeyframeAnimation", "KeyframeTrack"]
