"""Reach a goal pose: reward the progress toward it, a bonus on arrival, a penalty on collision."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gymnasium import spaces

from mvsim_ros.gym import arguments
from mvsim_ros.gym.free_space import corridor_clear
from mvsim_ros.gym.rewards.goal import goal_distance, goal_observation, goal_reach_step
from mvsim_ros.gym.task import as_pose, relative_space

#: Observation key of the goal seen from the vehicle.
GOAL_KEY = "goal"
#: Random goals tried before giving up on finding a free one.
GOAL_TRIES = 200


class GoalReach:
    """Drive to a goal pose (x, y, yaw) [m, m, rad] in the world frame.

    goal: a fixed goal, or None for one drawn at each reset from the env's generator: at a distance in
    `goal_distance` [m] from the start, in any direction, with any heading, reachable in a straight line (no body
    within `clearance` [m] of the way, see free_space.corridor_clear). reset(options={'goal': (x, y[, yaw])})
    sets the episode's goal.
    Arrival: within `tolerance` [m] of the goal (and within `yaw_tolerance` [rad] of its heading, unless None).
    Reward per step: progress_weight * (distance before - distance after) [m] - step_penalty, + arrival_bonus on
    arrival, - collision_penalty on a collision. Terminates on arrival, and on a collision when end_on_collision.
    Observation 'goal': (dx, dy, dyaw), the goal in the vehicle frame [m, m, rad].
    The reward, the termination and the observation come from the compiled kernels of rewards.goal, called for one
    copy (the batched env calls them for all of its copies).
    """

    def __init__(self, goal=None, tolerance: float = 0.3, yaw_tolerance: float | None = None,
                 goal_distance: tuple[float, float] = (1.5, 4.0), clearance: float = 0.4,
                 arrival_bonus: float = 10.0, collision_penalty: float = 10.0, progress_weight: float = 1.0,
                 step_penalty: float = 0.01, end_on_collision: bool = True):
        self.fixed_goal = None if goal is None else as_pose(goal, "goal")
        self.tolerance = arguments.real("tolerance", tolerance, arguments.positive("m"))
        self.yaw_tolerance = None if yaw_tolerance is None else \
            arguments.real("yaw_tolerance", yaw_tolerance, arguments.Interval(0.0, math.pi, low_open=True, unit="rad"))
        self.goal_distance = arguments.real_pair("goal_distance", goal_distance, arguments.non_negative("m"),
                                                 ordered=True)
        self.clearance = arguments.real("clearance", clearance, arguments.non_negative("m"))
        self.arrival_bonus = arguments.real("arrival_bonus", arrival_bonus, arguments.ANY)
        self.collision_penalty = arguments.real("collision_penalty", collision_penalty, arguments.ANY)
        self.progress_weight = arguments.real("progress_weight", progress_weight, arguments.ANY)
        self.step_penalty = arguments.real("step_penalty", step_penalty, arguments.ANY)
        self.end_on_collision = arguments.flag("end_on_collision", end_on_collision)
        self.goal = (0.0, 0.0, 0.0)
        self.distance = 0.0
        self.arrived = False
        self._goal = np.zeros((1, 3))
        self._distance = np.zeros(1)
        self._reward, self._terminated, self._arrived = np.zeros(1), np.zeros(1, dtype=bool), np.zeros(1, dtype=bool)
        self._collided = np.zeros(1, dtype=bool)

    def kernel_parameters(self) -> tuple:
        """The scalar arguments of rewards.goal.goal_reach_step after `distance`: (tolerance, yaw_tolerance
        (math.inf when the heading does not count), progress_weight, step_penalty, arrival_bonus,
        collision_penalty, end_on_collision)."""
        yaw_tolerance = math.inf if self.yaw_tolerance is None else self.yaw_tolerance
        return (self.tolerance, yaw_tolerance, self.progress_weight, self.step_penalty, self.arrival_bonus,
                self.collision_penalty, self.end_on_collision)

    def observation_spaces(self) -> dict[str, spaces.Space]:
        """'goal': the relative goal (dx, dy, dyaw)."""
        return {GOAL_KEY: relative_space()}

    def reset(self, env: Any, rng: np.random.Generator, options: dict[str, Any]) -> None:
        """The episode's goal: options['goal'], the fixed goal, or a free one drawn from `rng`."""
        if options.get("goal") is not None:
            self.goal = as_pose(options["goal"], "options['goal']")
        elif self.fixed_goal is not None:
            self.goal = self.fixed_goal
        else:
            self.goal = self.draw_goal(env, rng)
        self._goal[0] = self.goal
        goal_distance(self._pose(env), self._goal, self._distance)
        self.distance = float(self._distance[0])
        self.arrived = False

    def draw_goal(self, env: Any, rng: np.random.Generator) -> tuple[float, float, float]:
        """A goal at a random distance and bearing from the vehicle, reachable in a straight line; RuntimeError
        when none of GOAL_TRIES draws is."""
        x, y, _ = env.pose.tolist()
        low, high = self.goal_distance
        for _ in range(GOAL_TRIES):
            distance, bearing, heading = rng.uniform(low, high), rng.uniform(-math.pi, math.pi), \
                rng.uniform(-math.pi, math.pi)
            gx, gy = x + distance * math.cos(bearing), y + distance * math.sin(bearing)
            if corridor_clear(env.sim, env.vehicle, (x, y), (gx, gy), self.clearance):
                return gx, gy, heading
        raise RuntimeError(f"no goal {low}-{high} m away from ({x:.2f}, {y:.2f}) is reachable in a straight line")

    @staticmethod
    def _pose(env: Any) -> np.ndarray:
        return np.asarray(env.pose, dtype=np.float64).reshape(1, 3)

    def observe(self, env: Any) -> dict[str, np.ndarray]:
        """The goal in the vehicle frame."""
        observation = np.zeros((1, 3))
        goal_observation(self._pose(env), self._goal, observation)
        return {GOAL_KEY: observation[0]}  # the env clips it

    def reward(self, env: Any) -> float:
        """Progress toward the goal, minus the step penalty, with the arrival bonus and the collision penalty."""
        self._collided[0] = bool(env.collided)
        goal_reach_step(self._pose(env), self._goal, self._collided, self._distance, *self.kernel_parameters(),
                        self._reward, self._terminated, self._arrived)
        self.distance, self.arrived = float(self._distance[0]), bool(self._arrived[0])
        return float(self._reward[0])

    def terminated(self, env: Any) -> bool:
        """On arrival, or on a collision when end_on_collision."""
        return bool(self._terminated[0])

    def info(self, env: Any) -> dict[str, Any]:
        """'goal' (x, y, yaw) [m, m, rad] (an array), 'distance_to_goal' [m], 'is_success' (arrived)."""
        return {"goal": np.array(self.goal), "distance_to_goal": self.distance, "is_success": self.arrived}
