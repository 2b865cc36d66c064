"""Rewards, terminations and task observations as compiled kernels over arrays of copies.

Each kernel takes arrays with a leading copy axis (N copies of one task), reads the state each copy keeps (its
goal, its distance or pose at the previous step, its arc length along a path), updates that state in place and
writes its results into preallocated outputs: one call handles every copy without Python per copy. The Python
tasks (GoalReach, AvoidCollisions, PathFollow) call the same kernels with N = 1, so a single env and a batched
copy compute bit-identical rewards.
"""

from mvsim_ros.gym.rewards.avoid import avoid_collisions_step
from mvsim_ros.gym.rewards.goal import goal_distance, goal_observation, goal_reach_step
from mvsim_ros.gym.rewards.path import (CIRCLE, POLYLINE, PathArrays, path_follow_step, path_observation,
                                        path_point_at, path_project, path_start)

__all__ = ["avoid_collisions_step", "goal_distance", "goal_observation", "goal_reach_step", "CIRCLE", "POLYLINE",
           "PathArrays", "path_follow_step", "path_observation", "path_point_at", "path_project", "path_start"]
