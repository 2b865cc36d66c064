"""Gymnasium environments over the simulator's worlds (no ROS): MvsimEnv, its tasks, MvsimVectorEnv, MvsimBatchEnv
(many copies stepped in one compiled call), and the registered ids mvsim/GoalReach-v0, mvsim/AvoidCollisions-v0
and mvsim/PathFollow-v0 (registered on import).
Documentation: docs/gym.md."""

from mvsim_ros.gym.avoid_task import AvoidCollisions
from mvsim_ros.gym.batch import MvsimBatchEnv
from mvsim_ros.gym.env import MvsimEnv
from mvsim_ros.gym.goal_task import GoalReach
from mvsim_ros.gym.path_task import PathFollow
from mvsim_ros.gym.paths import Circle, Polyline
from mvsim_ros.gym.registration import register_envs
from mvsim_ros.gym.task import FreeDrive, Task
from mvsim_ros.gym.vector import MvsimVectorEnv, make_vector_env

#: The registered environment ids.
ENV_IDS = register_envs()

__all__ = ["AvoidCollisions", "Circle", "ENV_IDS", "FreeDrive", "GoalReach", "MvsimBatchEnv", "MvsimEnv",
           "MvsimVectorEnv", "PathFollow", "Polyline", "Task", "make_vector_env", "register_envs"]
