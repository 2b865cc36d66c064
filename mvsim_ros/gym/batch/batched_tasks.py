"""The built-in tasks of all copies stepped together: when every copy's task is GoalReach (or every one
AvoidCollisions, or every one PathFollow) with the same kernel parameters, one object holds the task state of all
copies in arrays (a row per copy) and one call of the task's compiled kernel (gym/rewards/) computes the rewards,
terminations, info values and observation entries of every copy, the numbers the copies' own tasks would compute
(they call the same kernels for one copy).

A copy's reset stays the task's own (GoalReach draws its goal from the copy's generator there); `reset_rows` then
copies the state the task set into the copy's rows. Each class offers: `reward`, `terminated` (N,) arrays of the
last step; `step(pose, collided)` over all copies; `reset_rows(rows, pose)`; `observe(pose)`: the observation
entries (N, ...) before clipping; `infos()`: the info entries, MvsimEnv's, one row per copy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mvsim_ros.gym.avoid_task import AvoidCollisions
from mvsim_ros.gym.goal_task import GOAL_KEY, GoalReach
from mvsim_ros.gym.path_task import PATH_KEY, PathFollow
from mvsim_ros.gym.rewards.avoid import avoid_collisions_step
from mvsim_ros.gym.rewards.goal import goal_observation, goal_reach_step
from mvsim_ros.gym.rewards.path import path_follow_step, path_observation


class BatchedGoalReach:
    """GoalReach of N copies. State: goal (N, 3) [m, m, rad], distance (N,) [m] to it after the last step."""

    def __init__(self, tasks: list[GoalReach]):
        count = len(tasks)
        self.tasks = tasks
        self.parameters = tasks[0].kernel_parameters()
        self.goal, self.distance = np.zeros((count, 3)), np.zeros(count)
        self.reward, self.terminated = np.zeros(count), np.zeros(count, dtype=bool)
        self.arrived = np.zeros(count, dtype=bool)
        self.observation = np.zeros((count, 3))

    def step(self, pose: np.ndarray, collided: np.ndarray) -> None:
        """One step of every copy: pose (N, 3) float64 [m, m, rad] after it, collided (N,) bool."""
        goal_reach_step(pose, self.goal, collided, self.distance, *self.parameters, self.reward, self.terminated,
                        self.arrived)

    def reset_rows(self, rows: np.ndarray, pose: np.ndarray) -> None:
        """Rows `rows` from their tasks just reset: the goal and the distance they hold, not arrived."""
        for k in rows.tolist():
            self.goal[k] = self.tasks[k].goal
            self.distance[k] = self.tasks[k].distance
        self.arrived[rows] = False

    def observe(self, pose: np.ndarray) -> dict[str, np.ndarray]:
        """'goal': each copy's goal in its vehicle frame (dx, dy [m], dyaw [rad]), float64 (N, 3)."""
        goal_observation(pose, self.goal, self.observation)
        return {GOAL_KEY: self.observation}

    def infos(self) -> dict[str, np.ndarray]:
        """GoalReach.info's entries of every copy: 'goal' (N, 3), 'distance_to_goal' (N,) [m], 'is_success'."""
        return {"goal": self.goal.copy(), "distance_to_goal": self.distance.copy(), "is_success": self.arrived.copy()}


class BatchedAvoidCollisions:
    """AvoidCollisions of N copies. State: last_pose (N, 3) [m, m, rad], each copy's pose after the last step."""

    def __init__(self, tasks: list[AvoidCollisions]):
        count = len(tasks)
        self.tasks = tasks
        self.parameters = tasks[0].kernel_parameters()
        self.last_pose, self.forward = np.zeros((count, 3)), np.zeros(count)
        self.reward, self.terminated = np.zeros(count), np.zeros(count, dtype=bool)

    def step(self, pose: np.ndarray, collided: np.ndarray) -> None:
        """One step of every copy: pose (N, 3) float64 [m, m, rad] after it, collided (N,) bool."""
        avoid_collisions_step(pose, collided, self.last_pose, *self.parameters, self.reward, self.terminated,
                              self.forward)

    def reset_rows(self, rows: np.ndarray, pose: np.ndarray) -> None:
        """Rows `rows` just reset: their start pose (the task's reset placed the vehicle), no progress yet."""
        self.last_pose[rows] = pose[rows]
        self.forward[rows] = 0.0

    def observe(self, pose: np.ndarray) -> dict[str, np.ndarray]:
        """No entries."""
        return {}

    def infos(self) -> dict[str, np.ndarray]:
        """AvoidCollisions.info's entry of every copy: 'forward_progress' (N,) [m] of the last step."""
        return {"forward_progress": self.forward.copy()}


class BatchedPathFollow:
    """PathFollow of N copies along one path. State: s (N,) [m], the arc length of each copy's nearest path point
    after the last step."""

    def __init__(self, tasks: list[PathFollow]):
        count = len(tasks)
        self.tasks = tasks
        self.parameters = tasks[0].kernel_parameters()
        self.path = tuple(tasks[0].path.arrays())
        self.lookahead = tasks[0].lookahead
        self.s, self.cross_track, self.progress = np.zeros(count), np.zeros(count), np.zeros(count)
        self.reward, self.terminated = np.zeros(count), np.zeros(count, dtype=bool)
        self.observation = np.zeros((count, 4), dtype=np.float32)

    def step(self, pose: np.ndarray, collided: np.ndarray) -> None:
        """One step of every copy: pose (N, 3) float64 [m, m, rad] after it, collided (N,) bool."""
        path_follow_step(pose, collided, self.s, *self.path, *self.parameters, self.reward, self.terminated,
                         self.cross_track, self.progress)

    def reset_rows(self, rows: np.ndarray, pose: np.ndarray) -> None:
        """Rows `rows` from their tasks just reset: the arc length and cross-track error they hold, no progress."""
        for k in rows.tolist():
            self.s[k] = self.tasks[k].s
            self.cross_track[k] = self.tasks[k].cross_track
        self.progress[rows] = 0.0

    def observe(self, pose: np.ndarray) -> dict[str, np.ndarray]:
        """'path': each copy's (cross-track error [m], heading error [rad], lookahead dx, dy [m]), float32 (N, 4)."""
        path_observation(pose, *self.path, self.lookahead, self.observation)
        return {PATH_KEY: self.observation}

    def infos(self) -> dict[str, np.ndarray]:
        """PathFollow.info's entries of every copy: 'cross_track_error', 'path_progress', 'arc_length' (N,) [m]."""
        return {"cross_track_error": self.cross_track.copy(), "path_progress": self.progress.copy(),
                "arc_length": self.s.copy()}


def _same_path(first: PathFollow, other: PathFollow) -> bool:
    """Whether two PathFollow tasks follow the same path with the same lookahead."""
    if other.lookahead != first.lookahead:
        return False
    mine, theirs = first.path.arrays(), other.path.arrays()
    return all(np.array_equal(a, b) for a, b in zip(mine, theirs))


def batched_tasks(tasks: list[Any]) -> BatchedGoalReach | BatchedAvoidCollisions | BatchedPathFollow | None:
    """The batched form of `tasks` (one per copy) when all are of one built-in task class (exactly, not a
    subclass) with equal kernel parameters (and, for PathFollow, the same path and lookahead); else None."""
    kinds = {GoalReach: BatchedGoalReach, AvoidCollisions: BatchedAvoidCollisions, PathFollow: BatchedPathFollow}
    first = tasks[0]
    batched = kinds.get(type(first))
    if batched is None or any(type(task) is not type(first) for task in tasks):
        return None
    parameters = first.kernel_parameters()
    if any(task.kernel_parameters() != parameters for task in tasks):
        return None
    if isinstance(first, PathFollow) and not all(_same_path(first, task) for task in tasks):
        return None
    return batched(tasks)
