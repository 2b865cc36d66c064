"""Drive around without touching anything: reward forward progress, end on a collision."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gymnasium import spaces

from mvsim_ros.gym import arguments
from mvsim_ros.gym.rewards.avoid import avoid_collisions_step


class AvoidCollisions:
    """Reward per step: progress_weight * the distance driven forward [m] (the step's displacement along the
    heading the vehicle had at its start; reversing counts negative), minus collision_penalty on a collision,
    which ends the episode. random_heading: turn the vehicle to a heading drawn from the env's generator at each
    reset (on the spot of its start pose). The reward and the termination come from the compiled kernel
    rewards.avoid.avoid_collisions_step, called for one copy."""

    def __init__(self, progress_weight: float = 1.0, collision_penalty: float = 10.0, random_heading: bool = False):
        self.progress_weight = arguments.real("progress_weight", progress_weight, arguments.ANY)
        self.collision_penalty = arguments.real("collision_penalty", collision_penalty, arguments.ANY)
        self.random_heading = arguments.flag("random_heading", random_heading)
        self._last = np.zeros((1, 3))
        self.forward = 0.0
        self._collided = np.zeros(1, dtype=bool)
        self._reward, self._terminated, self._forward = np.zeros(1), np.zeros(1, dtype=bool), np.zeros(1)

    def kernel_parameters(self) -> tuple:
        """The scalar arguments of rewards.avoid.avoid_collisions_step after `last_pose`: (progress_weight,
        collision_penalty)."""
        return self.progress_weight, self.collision_penalty

    def observation_spaces(self) -> dict[str, spaces.Space]:
        """No entries of its own (the lidars see the obstacles)."""
        return {}

    def reset(self, env: Any, rng: np.random.Generator, options: dict[str, Any]) -> None:
        """Turn the vehicle to a random heading when random_heading (and no options['start_pose'] was given)."""
        if self.random_heading and options.get("start_pose") is None:
            x, y, _ = env.pose.tolist()
            env.place(x, y, float(rng.uniform(-math.pi, math.pi)))
        self._last[0] = np.asarray(env.pose, dtype=np.float64)
        self.forward = 0.0

    def observe(self, env: Any) -> dict[str, np.ndarray]:
        """No entries."""
        return {}

    def reward(self, env: Any) -> float:
        """Forward progress of the step, minus the collision penalty."""
        self._collided[0] = bool(env.collided)
        avoid_collisions_step(np.asarray(env.pose, dtype=np.float64).reshape(1, 3), self._collided, self._last,
                              *self.kernel_parameters(), self._reward, self._terminated, self._forward)
        self.forward = float(self._forward[0])
        return float(self._reward[0])

    def terminated(self, env: Any) -> bool:
        """On a collision."""
        return bool(self._terminated[0])

    def info(self, env: Any) -> dict[str, Any]:
        """'forward_progress' [m] of the last step."""
        return {"forward_progress": self.forward}
