"""Follow a path (a circle or a polyline): reward progress along it minus the cross-track error."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gymnasium import spaces

from mvsim_ros.gym import arguments
from mvsim_ros.gym.observe import POSITION_BOUND
from mvsim_ros.gym.paths import Circle, Path, Polyline
from mvsim_ros.gym.task import relative_pose

#: Observation key of the path seen from the vehicle.
PATH_KEY = "path"


def make_path(path) -> Path:
    """A Path as given, or built from a description: {'circle': {'center': (x, y), 'radius': r, ...}} or
    {'polyline': {'points': [[x, y], ...], 'closed': False}} (arguments of Circle and Polyline, SI units)."""
    if isinstance(path, dict):
        if set(path) == {"circle"}:
            return Circle(**path["circle"])
        if set(path) == {"polyline"}:
            return Polyline(**path["polyline"])
        raise ValueError(f"a path description is {{'circle': {{...}}}} or {{'polyline': {{...}}}}, got {path!r}")
    return path


class PathFollow:
    """Drive along `path` (paths.Circle or paths.Polyline, or a description make_path reads).

    Reward per step: progress_weight * the arc length gained along the path [m] (wrapped on closed paths) minus
    cross_track_weight * |cross-track error| [m], minus collision_penalty on a collision. Terminates when the
    cross-track error exceeds max_cross_track [m], at the end of an open path (within end_tolerance [m]), and on a
    collision when end_on_collision.
    Observation 'path': (cross-track error [m] (> 0: the vehicle is left of the path), heading
    error [rad] (path heading - vehicle heading), dx, dy [m]: the path point `lookahead` metres ahead of the
    nearest one, in the vehicle frame).
    """

    def __init__(self, path, progress_weight: float = 1.0, cross_track_weight: float = 0.1,
                 max_cross_track: float = 2.0, collision_penalty: float = 10.0, end_on_collision: bool = True,
                 lookahead: float = 1.0, end_tolerance: float = 0.2):
        self.path = make_path(path)
        self.progress_weight = arguments.real("progress_weight", progress_weight, arguments.ANY)
        self.cross_track_weight = arguments.real("cross_track_weight", cross_track_weight, arguments.ANY)
        self.max_cross_track = arguments.real("max_cross_track", max_cross_track, arguments.positive("m"))
        self.collision_penalty = arguments.real("collision_penalty", collision_penalty, arguments.ANY)
        self.end_on_collision = arguments.flag("end_on_collision", end_on_collision)
        self.lookahead = arguments.real("lookahead", lookahead, arguments.positive("m"))
        self.end_tolerance = arguments.real("end_tolerance", end_tolerance, arguments.positive("m"))
        self.s = 0.0
        self.cross_track = 0.0
        self.progress = 0.0

    def observation_spaces(self) -> dict[str, spaces.Space]:
        """'path': (cross-track error, heading error, lookahead dx, dy)."""
        far = 2.0 * POSITION_BOUND
        high = np.array([far, math.pi, far, far], dtype=np.float32)
        return {PATH_KEY: spaces.Box(-high, high, dtype=np.float32)}

    def reset(self, env: Any, rng: np.random.Generator, options: dict[str, Any]) -> None:
        """Start measuring progress from the vehicle's nearest path point."""
        x, y, _ = env.pose.tolist()
        projection = self.path.project(x, y)
        self.s, self.cross_track, self.progress = projection.s, projection.cross_track, 0.0

    def observe(self, env: Any) -> dict[str, np.ndarray]:
        """The cross-track and heading errors and the lookahead point in the vehicle frame."""
        pose = env.pose
        x, y, yaw = pose.tolist()
        projection = self.path.project(x, y)
        ahead = self.path.point_at(projection.s + self.lookahead)
        dx, dy, _ = relative_pose(pose, (ahead[0], ahead[1], 0.0))
        heading_error = (projection.heading - yaw + math.pi) % (2.0 * math.pi) - math.pi
        return {PATH_KEY: np.array([projection.cross_track, heading_error, dx, dy], dtype=np.float32)}

    def reward(self, env: Any) -> float:
        """Arc length gained minus the weighted cross-track error, minus the collision penalty."""
        x, y, _ = env.pose.tolist()
        projection = self.path.project(x, y)
        gained = projection.s - self.s
        if self.path.closed:  # the shorter way round: passing the start point is progress, not a lap lost
            length = self.path.length
            gained = (gained + 0.5 * length) % length - 0.5 * length
        self.s, self.cross_track, self.progress = projection.s, projection.cross_track, gained
        reward = self.progress_weight * gained - self.cross_track_weight * abs(projection.cross_track)
        return reward - (self.collision_penalty if env.collided else 0.0)

    def terminated(self, env: Any) -> bool:
        """Off the path by more than max_cross_track, at the end of an open path, or a collision."""
        at_end = not self.path.closed and self.s >= self.path.length - self.end_tolerance
        return abs(self.cross_track) > self.max_cross_track or at_end or (self.end_on_collision and env.collided)

    def info(self, env: Any) -> dict[str, Any]:
        """'cross_track_error' [m], 'path_progress' [m] of the last step, 'arc_length' [m] of the nearest point."""
        return {"cross_track_error": self.cross_track, "path_progress": self.progress, "arc_length": self.s}
