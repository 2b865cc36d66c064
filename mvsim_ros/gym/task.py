"""What an episode is about: the reward, when it ends, and any observation entries of its own.

A Task is called by MvsimEnv in this order: `reset(env, rng, options)` once the new simulation is built (the
vehicle at its start pose; it may place the vehicle or pick a goal), `observe(env)` for its entries of the first
observation and `info(env)` for the reset's info; then after every env step `observe(env)`, `reward(env)`,
`terminated(env)` and `info(env)`, each once, in that order. `observation_spaces()` names its observation entries.

What a task reads from the env (MvsimEnv): `env.sim` (the physics Simulation), `env.vehicle` (the controlled
vehicle's index), `env.pose` (x, y, yaw) [m, m, rad], `env.collided` (it touched something during the last step),
`env.step_s` [s] and `env.elapsed_steps`.
"""

from __future__ import annotations

import math
from typing import Any, Protocol, runtime_checkable

import numpy as np
from gymnasium import spaces

from mvsim_ros.gym.observe import POSITION_BOUND
from mvsim_ros.gym.rewards.goal import relative_goal


@runtime_checkable
class Task(Protocol):
    """Reward, termination and extra observations of an episode (see the module docstring for the call order)."""

    def observation_spaces(self) -> dict[str, spaces.Space]:
        """This task's entries of the observation space (may be empty)."""

    def reset(self, env: Any, rng: np.random.Generator, options: dict[str, Any]) -> None:
        """Start an episode: `rng` is the env's seeded generator, `options` what reset() was given."""

    def observe(self, env: Any) -> dict[str, np.ndarray]:
        """This task's entries of the observation now (new arrays on every call)."""

    def reward(self, env: Any) -> float:
        """The reward of the step just taken."""

    def terminated(self, env: Any) -> bool:
        """Whether the episode has ended (a goal reached, a collision, ...)."""

    def info(self, env: Any) -> dict[str, Any]:
        """Extra entries for the step's info dict (new objects on every call)."""


class FreeDrive:
    """No task: reward 0, never terminates (episodes end by truncation only), no extra observation."""

    def observation_spaces(self) -> dict[str, spaces.Space]:
        """No entries."""
        return {}

    def reset(self, env: Any, rng: np.random.Generator, options: dict[str, Any]) -> None:
        """Nothing to prepare."""

    def observe(self, env: Any) -> dict[str, np.ndarray]:
        """No entries."""
        return {}

    def reward(self, env: Any) -> float:
        """Always 0."""
        return 0.0

    def terminated(self, env: Any) -> bool:
        """Never."""
        return False

    def info(self, env: Any) -> dict[str, Any]:
        """Nothing."""
        return {}


def relative_pose(pose, target) -> tuple[float, float, float]:
    """`target` (x, y, yaw) seen from `pose` (x, y, yaw): (dx, dy) [m] in the frame of `pose` (x forward, y left)
    and dyaw [rad] in [-pi, pi)."""
    x, y, yaw = (float(c) for c in pose)
    tx, ty, tyaw = (float(c) for c in target)
    return relative_goal(x, y, yaw, tx, ty, tyaw)


def relative_space() -> spaces.Box:
    """Box of a relative pose (dx, dy [m], dyaw [rad]): positions within twice the world bounds."""
    high = np.array([2.0 * POSITION_BOUND, 2.0 * POSITION_BOUND, math.pi], dtype=np.float32)
    return spaces.Box(-high, high, dtype=np.float32)


def as_pose(value, what: str) -> tuple[float, float, float]:
    """A pose (x, y[, yaw]) [m, m, rad] as three finite floats (yaw 0 when left out); ValueError naming `what`."""
    numbers = [float(c) for c in np.asarray(value, dtype=float).reshape(-1)]
    if len(numbers) == 2:
        numbers.append(0.0)
    if len(numbers) != 3 or not all(math.isfinite(c) for c in numbers):
        raise ValueError(f"{what} must be (x, y) or (x, y, yaw) finite numbers, got {value!r}")
    return numbers[0], numbers[1], numbers[2]
