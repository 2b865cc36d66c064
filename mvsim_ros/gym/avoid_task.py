"""Drive around without touching anything: reward forward progress, end on a collision."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gymnasium import spaces

from mvsim_ros.gym import arguments


class AvoidCollisions:
    """Reward per step: progress_weight * the distance driven forward [m] (the step's displacement along the
    heading the vehicle had at its start; reversing counts negative), minus collision_penalty on a collision,
    which ends the episode. random_heading: turn the vehicle to a heading drawn from the env's generator at each
    reset (on the spot of its start pose)."""

    def __init__(self, progress_weight: float = 1.0, collision_penalty: float = 10.0, random_heading: bool = False):
        self.progress_weight = arguments.real("progress_weight", progress_weight, arguments.ANY)
        self.collision_penalty = arguments.real("collision_penalty", collision_penalty, arguments.ANY)
        self.random_heading = arguments.flag("random_heading", random_heading)
        self._last = (0.0, 0.0, 0.0)
        self.forward = 0.0

    def observation_spaces(self) -> dict[str, spaces.Space]:
        """No entries of its own (the lidars see the obstacles)."""
        return {}

    def reset(self, env: Any, rng: np.random.Generator, options: dict[str, Any]) -> None:
        """Turn the vehicle to a random heading when random_heading (and no options['start_pose'] was given)."""
        if self.random_heading and options.get("start_pose") is None:
            x, y, _ = env.pose.tolist()
            env.place(x, y, float(rng.uniform(-math.pi, math.pi)))
        self._last = tuple(env.pose.tolist())
        self.forward = 0.0

    def observe(self, env: Any) -> dict[str, np.ndarray]:
        """No entries."""
        return {}

    def reward(self, env: Any) -> float:
        """Forward progress of the step, minus the collision penalty."""
        x, y, yaw = env.pose.tolist()
        x0, y0, yaw0 = self._last
        self.forward = (x - x0) * math.cos(yaw0) + (y - y0) * math.sin(yaw0)
        self._last = (x, y, yaw)
        return self.progress_weight * self.forward - (self.collision_penalty if env.collided else 0.0)

    def terminated(self, env: Any) -> bool:
        """On a collision."""
        return bool(env.collided)

    def info(self, env: Any) -> dict[str, Any]:
        """'forward_progress' [m] of the last step."""
        return {"forward_progress": self.forward}
