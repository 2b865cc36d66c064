"""Bodies that move along prescribed paths: keyframe-animated blocks and actors (pedestrians).

Each is a Box2D kinematic body: it moves at the velocity it is given, whatever it touches, and pushes dynamic
bodies (vehicles, movable blocks) out of its way as an infinitely heavy body would. Before every Box2D step the
velocity is set so that the body lands exactly on its path's pose at the end of the step (from wherever Box2D
has it now, so float32 rounding never accumulates).
"""

from __future__ import annotations

import math
from typing import Callable

import Box2D
import numpy as np

from mvsim_ros.physics.kinematic.actor_paths import ActorPath
from mvsim_ros.world.specs import BlockSpec

#: A path: simulated time [s] -> (x, y, z, yaw, pitch, roll) [m, rad] in the world frame.
PosePath = Callable[[float], tuple[float, float, float, float, float, float]]


def block_path(block: BlockSpec) -> PosePath:
    """The keyframe path of an animated block (its animation composed with its initial pose)."""
    return block.animation.track(block.init_pose).pose


def actor_path(path: ActorPath) -> PosePath:
    """An actor's timeline as a PosePath (actors stay upright: pitch = roll = 0)."""

    def pose(t: float) -> tuple[float, float, float, float, float, float]:
        x, y, z, yaw = path.pose(t)
        return x, y, z, yaw, 0.0, 0.0

    return pose


class KinematicMovers:
    """Drives a list of Box2D kinematic bodies along their paths, one step at a time."""

    def __init__(self, bodies: list[Box2D.b2Body], paths: list[PosePath]):
        self.bodies = bodies
        self.paths = paths
        self._poses = np.array([path(0.0) for path in paths], dtype=float).reshape(-1, 6)

    @property
    def count(self) -> int:
        """Number of moved bodies."""
        return len(self.bodies)

    @property
    def poses(self) -> np.ndarray:
        """(x, y, z, yaw, pitch, roll) [m, rad] of each body, exact from its path at the simulation's current time
        (Box2D's own copy of x, y, yaw is float32). The live array, written in place by `steer` and
        `place_on_paths`: copy it to keep a snapshot."""
        return self._poses

    def place_on_paths(self, rows: np.ndarray, t: float) -> None:
        """The poses of bodies `rows` (indices into the movers) where their paths are at time t [s]."""
        for k in np.asarray(rows, dtype=np.intp).tolist():
            self._poses[k] = self.paths[k](t)

    def steer(self, t: float, dt: float) -> None:
        """Give every body the velocity that takes it from its Box2D pose now to its path's pose at t + dt [s]."""
        rate, later, poses = 1.0 / dt, t + dt, self._poses
        for k, body in enumerate(self.bodies):
            target = self.paths[k](later)
            poses[k] = target
            x, y = body.position
            body.linearVelocity = ((target[0] - x) * rate, (target[1] - y) * rate)
            body.angularVelocity = _wrap(target[3] - body.angle) * rate


def _wrap(angle: float) -> float:
    """Angle wrapped into [-pi, pi) [rad]."""
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


__all__ = ["KinematicMovers", "PosePath", "actor_path", "block_path"]
