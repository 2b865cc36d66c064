"""Constructor arguments of the environments and tasks: a wrong type is a TypeError, a value out of range a
ValueError, raised at construction and naming the argument; observations stay inside their space however far the
goal is."""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import pytest

from gym_support import robot_world
from mvsim_ros.gym import AvoidCollisions, GoalReach, MvsimEnv, MvsimVectorEnv, PathFollow, Polyline


@pytest.fixture(scope="module")
def world():
    return robot_world()


@pytest.mark.parametrize("kwargs, error, name", [
    ({"step_s": 1e9}, ValueError, "step_s"),
    ({"step_s": 1e30}, ValueError, "step_s"),
    ({"step_s": math.nan}, ValueError, "step_s"),
    ({"step_s": -0.05}, ValueError, "step_s"),
    ({"step_s": 0.0001}, ValueError, "step_s"),  # less than one physics step
    ({"step_s": "0.05"}, TypeError, "step_s"),
    ({"max_episode_steps": math.nan}, TypeError, "max_episode_steps"),
    ({"max_episode_steps": 0}, ValueError, "max_episode_steps"),
    ({"max_episode_steps": 10.0}, TypeError, "max_episode_steps"),
    ({"vehicle": 1.7}, TypeError, "vehicle"),
    ({"vehicle": True}, TypeError, "vehicle"),
    ({"vehicle": 3}, ValueError, "vehicle"),
    ({"vehicle": "r9"}, ValueError, "vehicle"),
    ({"control": "tank"}, ValueError, "control"),
    ({"cameras": "yes"}, TypeError, "cameras"),
    ({"sensor_noise": 1}, TypeError, "sensor_noise"),
    ({"world_seed": -1}, ValueError, "world_seed"),
    ({"world_seed": 0.5}, TypeError, "world_seed"),
    ({"task": "GoalReach"}, TypeError, "task"),
])
def test_a_bad_env_argument_is_refused_at_construction(world, kwargs, error, name):
    with pytest.raises(error, match=f"`{name}`"):
        MvsimEnv(world, **kwargs)


@pytest.mark.parametrize("make, error, name", [
    (lambda: GoalReach(goal_distance=(math.nan, 4.0)), ValueError, "goal_distance"),
    (lambda: GoalReach(goal_distance=(4.0, 1.5)), ValueError, "goal_distance"),
    (lambda: GoalReach(goal_distance=(1.0, 2.0, 3.0)), ValueError, "goal_distance"),
    (lambda: GoalReach(goal_distance=5.0), TypeError, "goal_distance"),
    (lambda: GoalReach(tolerance=math.nan), ValueError, "tolerance"),
    (lambda: GoalReach(tolerance=0.0), ValueError, "tolerance"),
    (lambda: GoalReach(yaw_tolerance=-1.0), ValueError, "yaw_tolerance"),
    (lambda: GoalReach(clearance=math.inf), ValueError, "clearance"),
    (lambda: GoalReach(arrival_bonus=math.nan), ValueError, "arrival_bonus"),
    (lambda: GoalReach(end_on_collision="no"), TypeError, "end_on_collision"),
    (lambda: AvoidCollisions(progress_weight=math.inf), ValueError, "progress_weight"),
    (lambda: AvoidCollisions(random_heading=None), TypeError, "random_heading"),
    (lambda: PathFollow(Polyline([(0, 0), (5, 0)]), lookahead=0.0), ValueError, "lookahead"),
    (lambda: PathFollow(Polyline([(0, 0), (5, 0)]), max_cross_track=math.nan), ValueError, "max_cross_track"),
])
def test_a_bad_task_argument_is_refused_at_construction(make, error, name):
    with pytest.raises(error, match=f"`{name}[`\\[]"):  # the argument, or one of its elements
        make()


def test_the_registered_ids_and_the_vector_check_at_construction(world):
    with pytest.raises(ValueError, match="`goal_distance`"):
        gymnasium.make("mvsim/GoalReach-v0", task_kwargs={"goal_distance": (3.0, 1.0)})
    with pytest.raises(ValueError, match="`num_envs`"):
        MvsimVectorEnv(0, lambda: MvsimEnv(world))
    with pytest.raises(TypeError, match="`make_env`"):
        MvsimVectorEnv(2, None)


def test_a_goal_far_away_gives_an_observation_inside_the_space(world):
    env = MvsimEnv(world, task=GoalReach(goal=(1e39, -1e39, 0.0)))
    observation, _ = env.reset(seed=3)
    assert env.observation_space.contains(observation), observation["goal"]
    assert np.all(np.isfinite(observation["goal"]))
    observation, *_ = env.step(env.action_space.sample())
    assert env.observation_space.contains(observation)
    near = MvsimEnv(world, task=GoalReach(goal=(2.0, 1.0, 0.5)))
    observation, _ = near.reset(seed=3)
    assert near.observation_space.contains(observation)
    assert observation["goal"][:2] == pytest.approx([2.0, 1.0], abs=0.05)
