"""Follow a path (a circle or a polyline): reward progress along it minus the cross-track error."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gymnasium import spaces

from mvsim_ros.gym import arguments
from mvsim_ros.gym.observe import POSITION_BOUND
from mvsim_ros.gym.paths import Circle, Path, Polyline
from mvsim_ros.gym.rewards.path import path_follow_step, path_observation, path_start

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
    The reward, the termination and the observation come from the compiled kernels of rewards.path, called for one
    copy (the batched env calls them for all of its copies).
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
        self._s, self._cross_track, self._progress = np.zeros(1), np.zeros(1), np.zeros(1)
        self._collided = np.zeros(1, dtype=bool)
        self._reward, self._terminated = np.zeros(1), np.zeros(1, dtype=bool)

    def kernel_parameters(self) -> tuple:
        """The scalar arguments of rewards.path.path_follow_step after the path's arrays: (progress_weight,
        cross_track_weight, max_cross_track, collision_penalty, end_on_collision, end_tolerance)."""
        return (self.progress_weight, self.cross_track_weight, self.max_cross_track, self.collision_penalty,
                self.end_on_collision, self.end_tolerance)

    def observation_spaces(self) -> dict[str, spaces.Space]:
        """'path': (cross-track error, heading error, lookahead dx, dy)."""
        far = 2.0 * POSITION_BOUND
        high = np.array([far, math.pi, far, far], dtype=np.float32)
        return {PATH_KEY: spaces.Box(-high, high, dtype=np.float32)}

    def reset(self, env: Any, rng: np.random.Generator, options: dict[str, Any]) -> None:
        """Start measuring progress from the vehicle's nearest path point."""
        path_start(self._pose(env), *self.path.arrays(), self._s, self._cross_track)
        self.s, self.cross_track, self.progress = float(self._s[0]), float(self._cross_track[0]), 0.0

    @staticmethod
    def _pose(env: Any) -> np.ndarray:
        return np.asarray(env.pose, dtype=np.float64).reshape(1, 3)

    def observe(self, env: Any) -> dict[str, np.ndarray]:
        """The cross-track and heading errors and the lookahead point in the vehicle frame."""
        observation = np.zeros((1, 4), dtype=np.float32)
        path_observation(self._pose(env), *self.path.arrays(), self.lookahead, observation)
        return {PATH_KEY: observation[0]}

    def reward(self, env: Any) -> float:
        """Arc length gained minus the weighted cross-track error, minus the collision penalty."""
        self._collided[0] = bool(env.collided)
        path_follow_step(self._pose(env), self._collided, self._s, *self.path.arrays(), *self.kernel_parameters(),
                         self._reward, self._terminated, self._cross_track, self._progress)
        self.s, self.cross_track, self.progress = float(self._s[0]), float(self._cross_track[0]), \
            float(self._progress[0])
        return float(self._reward[0])

    def terminated(self, env: Any) -> bool:
        """Off the path by more than max_cross_track, at the end of an open path, or a collision."""
        return bool(self._terminated[0])

    def info(self, env: Any) -> dict[str, Any]:
        """'cross_track_error' [m], 'path_progress' [m] of the last step, 'arc_length' [m] of the nearest point."""
        return {"cross_track_error": self.cross_track, "path_progress": self.progress, "arc_length": self.s}
