"""The registered environment ids, on the repository's example worlds (found as worlds.resolve_world finds them).

  mvsim/GoalReach-v0        worlds/demo_2robots.world.xml, robot r1 (differential, 541-ray lidar): reach a goal
                            1.5-4 m away in a free straight line (GoalReach), 400 steps of 0.05 s
  mvsim/AvoidCollisions-v0  worlds/office_yaml_map.world.xml, its robot (differential, 541-ray lidar) in an office
                            map, a random start heading: drive forward without touching anything, 1000 steps
  mvsim/PathFollow-v0       worlds/seed002_car.world.xml, the 1/10-scale Ackermann racecar: follow a circle of
                            1.5 m radius through its start pose (counter-clockwise), 600 steps

Actions are normalised (Box(-1, 1)) to each id's ROBOT_LIMITS / CAR_LIMITS: an indoor robot's and a 1/10-scale
car's operating range, far inside what their motors could reach in the simulator (control.py).

Each id also has a vector entry point (gymnasium.make_vec(id, num_envs) gives an MvsimVectorEnv). Keyword
arguments of make / make_vec go to MvsimEnv, except `task_kwargs` (a dict) which go to the task.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import gymnasium

from mvsim_ros.gym.avoid_task import AvoidCollisions
from mvsim_ros.gym.env import MvsimEnv
from mvsim_ros.gym.goal_task import GoalReach
from mvsim_ros.gym.path_task import PathFollow
from mvsim_ros.gym.vector import MvsimVectorEnv, make_vector_env

GOAL_REACH_ID, AVOID_COLLISIONS_ID, PATH_FOLLOW_ID = "mvsim/GoalReach-v0", "mvsim/AvoidCollisions-v0", \
    "mvsim/PathFollow-v0"

#: PathFollow-v0's circle: 1.5 m radius through the car's start pose (0, 0) heading +x, counter-clockwise.
PATH_CIRCLE = {"center": (0.0, 1.5), "radius": 1.5, "start_angle": -0.5 * math.pi}
#: The differential robots' action limits: 1 m/s and 2 rad/s (twice the teleop's speed and turn rate).
ROBOT_LIMITS = (1.0, 2.0)
#: The racecar's action limits: 3 m/s (about 0.6 g of lateral acceleration on PathFollow's circle) and its own
#: max_steer_ang (None: the vehicle's bound, 25 degrees).
CAR_LIMITS = (3.0, None)
#: Per id: its task class, the task's arguments, the env's arguments, and its episode length [env steps].
SETUPS: dict[str, tuple[Callable[..., Any], dict[str, Any], dict[str, Any], int]] = {
    GOAL_REACH_ID: (GoalReach, {"goal_distance": (1.5, 4.0), "tolerance": 0.3},
                    {"world": "demo_2robots.world.xml", "vehicle": "r1", "action_limits": ROBOT_LIMITS}, 400),
    AVOID_COLLISIONS_ID: (AvoidCollisions, {"random_heading": True},
                          {"world": "office_yaml_map.world.xml", "action_limits": ROBOT_LIMITS}, 1000),
    PATH_FOLLOW_ID: (PathFollow, {"path": {"circle": PATH_CIRCLE}},
                     {"world": "seed002_car.world.xml", "action_limits": CAR_LIMITS}, 600),
}


def _task(env_id: str, task_kwargs: dict[str, Any] | None):
    task_class, defaults, _, _ = SETUPS[env_id]
    return task_class(**{**defaults, **(task_kwargs or {})})


def _env_kwargs(env_id: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    return {**SETUPS[env_id][2], **kwargs}


def make_env(env_id: str, task_kwargs: dict[str, Any] | None = None, **kwargs: Any) -> MvsimEnv:
    """The env of a registered id; episodes are not truncated inside (gymnasium.make's TimeLimit does it) unless
    max_episode_steps is given."""
    kwargs.setdefault("max_episode_steps", None)
    return MvsimEnv(task=_task(env_id, task_kwargs), **_env_kwargs(env_id, kwargs))


def make_vector(env_id: str, num_envs: int, task_kwargs: dict[str, Any] | None = None,
                **kwargs: Any) -> MvsimVectorEnv:
    """The vector env of a registered id (each copy truncated at max_episode_steps, the id's by default)."""
    kwargs.setdefault("max_episode_steps", SETUPS[env_id][3])
    return make_vector_env(num_envs, task_factory=lambda: _task(env_id, task_kwargs), **_env_kwargs(env_id, kwargs))


def goal_reach_env(**kwargs: Any) -> MvsimEnv:
    """Entry point of mvsim/GoalReach-v0."""
    return make_env(GOAL_REACH_ID, **kwargs)


def goal_reach_vector(num_envs: int = 1, **kwargs: Any) -> MvsimVectorEnv:
    """Vector entry point of mvsim/GoalReach-v0."""
    return make_vector(GOAL_REACH_ID, num_envs, **kwargs)


def avoid_collisions_env(**kwargs: Any) -> MvsimEnv:
    """Entry point of mvsim/AvoidCollisions-v0."""
    return make_env(AVOID_COLLISIONS_ID, **kwargs)


def avoid_collisions_vector(num_envs: int = 1, **kwargs: Any) -> MvsimVectorEnv:
    """Vector entry point of mvsim/AvoidCollisions-v0."""
    return make_vector(AVOID_COLLISIONS_ID, num_envs, **kwargs)


def path_follow_env(**kwargs: Any) -> MvsimEnv:
    """Entry point of mvsim/PathFollow-v0."""
    return make_env(PATH_FOLLOW_ID, **kwargs)


def path_follow_vector(num_envs: int = 1, **kwargs: Any) -> MvsimVectorEnv:
    """Vector entry point of mvsim/PathFollow-v0."""
    return make_vector(PATH_FOLLOW_ID, num_envs, **kwargs)


_ENTRY_POINTS = {GOAL_REACH_ID: "goal_reach", AVOID_COLLISIONS_ID: "avoid_collisions", PATH_FOLLOW_ID: "path_follow"}


def register_envs() -> list[str]:
    """Register every id with Gymnasium (those not registered yet); returns the ids."""
    for env_id, name in _ENTRY_POINTS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=f"{__name__}:{name}_env",
                               vector_entry_point=f"{__name__}:{name}_vector",
                               max_episode_steps=SETUPS[env_id][3])
    return list(_ENTRY_POINTS)
