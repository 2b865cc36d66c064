"""GoalReach as compiled kernels: the goal seen from the vehicle, the reward and the termination of a step.

State a copy keeps: its goal (x, y, yaw) [m, m, rad] and its distance to the goal after the previous step [m]
(set by goal_distance at reset, updated by goal_reach_step).
"""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.core.jit import kernel


@kernel
def relative_goal(x: float, y: float, yaw: float, gx: float, gy: float, gyaw: float) -> tuple:
    """The goal (gx, gy, gyaw) seen from the pose (x, y, yaw): (dx, dy) [m] in the vehicle frame (x forward, y
    left) and dyaw [rad] in [-pi, pi)."""
    c, s = math.cos(yaw), math.sin(yaw)
    ex, ey = gx - x, gy - y
    dyaw = (gyaw - yaw + math.pi) % (2.0 * math.pi) - math.pi
    return c * ex + s * ey, -s * ex + c * ey, dyaw


@kernel
def goal_distance(pose: np.ndarray, goal: np.ndarray, distance_out: np.ndarray) -> None:
    """Distance [m] from each copy's position pose[k, :2] to its goal goal[k, :2], into distance_out[k]."""
    for k in range(pose.shape[0]):
        distance_out[k] = math.hypot(goal[k, 0] - pose[k, 0], goal[k, 1] - pose[k, 1])


@kernel
def goal_observation(pose: np.ndarray, goal: np.ndarray, observation_out: np.ndarray) -> None:
    """Each copy's goal in its vehicle frame (dx, dy [m], dyaw [rad]) into observation_out[k, :3] (float64 or
    float32; the env clips it to its space)."""
    for k in range(pose.shape[0]):
        dx, dy, dyaw = relative_goal(pose[k, 0], pose[k, 1], pose[k, 2], goal[k, 0], goal[k, 1], goal[k, 2])
        observation_out[k, 0] = dx
        observation_out[k, 1] = dy
        observation_out[k, 2] = dyaw


@kernel
def goal_reach_step(pose: np.ndarray, goal: np.ndarray, collided: np.ndarray, distance: np.ndarray,
                    tolerance: float, yaw_tolerance: float, progress_weight: float, step_penalty: float,
                    arrival_bonus: float, collision_penalty: float, end_on_collision: bool,
                    reward_out: np.ndarray, terminated_out: np.ndarray, arrived_out: np.ndarray) -> None:
    """One step of GoalReach for N copies.

    pose (N, 3) [m, m, rad] after the step; goal (N, 3); collided (N,) bool (touched something during the step);
    distance (N,) [m]: the distance before the step, replaced by the distance after it. yaw_tolerance [rad]:
    math.inf when the heading does not count. Reward: progress_weight * (distance before - after) - step_penalty,
    + arrival_bonus on arrival (within tolerance [m], and |heading error| <= yaw_tolerance), - collision_penalty
    on a collision; terminated on arrival, or on a collision when end_on_collision. Writes reward_out (N,) float64,
    terminated_out (N,) bool and arrived_out (N,) bool.
    """
    for k in range(pose.shape[0]):
        x, y, yaw = pose[k, 0], pose[k, 1], pose[k, 2]
        now = math.hypot(goal[k, 0] - x, goal[k, 1] - y)
        progress = distance[k] - now
        distance[k] = now
        dyaw = relative_goal(x, y, yaw, goal[k, 0], goal[k, 1], goal[k, 2])[2]
        arrived = now <= tolerance and abs(dyaw) <= yaw_tolerance
        reward = progress_weight * progress - step_penalty
        if arrived:
            reward += arrival_bonus
        if collided[k]:
            reward -= collision_penalty
        reward_out[k] = reward
        arrived_out[k] = arrived
        terminated_out[k] = arrived or (end_on_collision and collided[k])
