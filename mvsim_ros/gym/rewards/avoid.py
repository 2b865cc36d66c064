"""AvoidCollisions as a compiled kernel: the forward progress of a step, its reward and its termination.

State a copy keeps: its pose (x, y, yaw) [m, m, rad] at the start of the step (set to the start pose at reset,
updated by avoid_collisions_step).
"""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.core.jit import kernel


@kernel
def avoid_collisions_step(pose: np.ndarray, collided: np.ndarray, last_pose: np.ndarray, progress_weight: float,
                          collision_penalty: float, reward_out: np.ndarray, terminated_out: np.ndarray,
                          forward_out: np.ndarray) -> None:
    """One step of AvoidCollisions for N copies.

    pose (N, 3) [m, m, rad] after the step; collided (N,) bool; last_pose (N, 3): the pose before the step,
    replaced by `pose`. Forward progress [m]: the step's displacement along the heading at its start (reversing
    counts negative), into forward_out (N,); reward progress_weight * forward, - collision_penalty on a collision,
    into reward_out (N,); terminated_out (N,): the collision flag.
    """
    for k in range(pose.shape[0]):
        x, y, yaw = pose[k, 0], pose[k, 1], pose[k, 2]
        x0, y0, yaw0 = last_pose[k, 0], last_pose[k, 1], last_pose[k, 2]
        forward = (x - x0) * math.cos(yaw0) + (y - y0) * math.sin(yaw0)
        last_pose[k, 0] = x
        last_pose[k, 1] = y
        last_pose[k, 2] = yaw
        forward_out[k] = forward
        reward_out[k] = progress_weight * forward - (collision_penalty if collided[k] else 0.0)
        terminated_out[k] = collided[k]
