"""The registered ids: Gymnasium's checker passes on each, make / make_vec build them, their spaces."""

from __future__ import annotations

import math
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mvsim_ros.gym
from mvsim_ros.gym import MvsimEnv, MvsimVectorEnv
from mvsim_ros.gym.worlds import REPO_WORLDS, resolve_world

IDS = ["mvsim/GoalReach-v0", "mvsim/AvoidCollisions-v0", "mvsim/PathFollow-v0"]


def test_every_id_is_registered_on_import():
    assert mvsim_ros.gym.ENV_IDS == IDS
    assert all(env_id in gymnasium.registry for env_id in IDS)


@pytest.mark.parametrize("env_id", IDS)
def test_check_env_passes(env_id):
    env = gymnasium.make(env_id)
    assert isinstance(env.unwrapped, MvsimEnv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []  # not one remark (normalised actions, render modes declared)
    observation, info = env.reset(seed=3)
    assert env.observation_space.contains(observation)
    observation, reward, terminated, truncated, info = env.step(env.action_space.sample())
    assert env.observation_space.contains(observation)
    assert isinstance(reward, float) and info["time"] == pytest.approx(0.05)
    env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_random_actions_keep_observations_in_their_space(env_id):
    env = gymnasium.make(env_id)
    env.action_space.seed(1)
    observation, _ = env.reset(seed=1)
    for _ in range(60):
        observation, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        assert env.observation_space.contains(observation) and np.isfinite(reward)
        if terminated or truncated:
            observation, _ = env.reset()


@pytest.mark.parametrize("env_id", IDS)
def test_truncation_at_the_ids_episode_length(env_id):
    env = gymnasium.make(env_id, max_episode_steps=3)
    env.reset(seed=0)
    stop = np.zeros(2, dtype=np.float32)  # standing still ends no episode
    ends = [env.step(stop)[2:4] for _ in range(3)]
    assert ends == [(False, False), (False, False), (False, True)]


def test_make_vec_uses_the_vector_entry_point():
    vector = gymnasium.make_vec("mvsim/GoalReach-v0", num_envs=2)
    assert isinstance(vector.unwrapped, MvsimVectorEnv)
    assert [env.max_episode_steps for env in vector.unwrapped.envs] == [400, 400]
    observations, infos = vector.reset(seed=1)
    assert observations["scan"].shape == (2, 541) and vector.observation_space.contains(observations)
    observations, rewards, terminated, truncated, infos = vector.step(vector.action_space.sample())
    assert rewards.shape == (2,) and terminated.dtype == bool and infos["_time"].all()
    vector.close()


def test_ids_worlds_and_spaces():
    goal = gymnasium.make("mvsim/GoalReach-v0").unwrapped
    assert goal.sim.vehicle_names[goal.vehicle] == "r1" and goal.control.mode == "twist"
    assert set(goal.observation_space.spaces) == {"scan", "odometry", "pose", "goal"}
    scan = goal.observation_space["scan"]
    assert scan.shape == (541,) and scan.dtype == np.float32 and scan.low.min() == 0 and scan.high.max() == 20.0
    car = gymnasium.make("mvsim/PathFollow-v0").unwrapped
    assert car.control.mode == "ackermann" and car.steps_per_action == 25  # dt = 2 ms
    assert set(car.observation_space.spaces) == {"odometry", "pose", "path"}
    office = gymnasium.make("mvsim/AvoidCollisions-v0").unwrapped
    assert set(office.observation_space.spaces) == {"scan", "odometry", "pose"}


def test_action_bounds_are_the_vehicles_limits():
    physical = {"action_units": "physical", "action_limits": None}  # the simulator's bounds, in m/s and rad/s
    goal = gymnasium.make("mvsim/GoalReach-v0", **physical).unwrapped
    limits, k = goal.sim.limits, goal.vehicle
    assert np.array_equal(goal.action_space.high, np.float32([limits.max_speed[k], limits.max_yaw_rate[k]]))
    assert np.array_equal(goal.action_space.low, -goal.action_space.high)
    # demo_diff_robot: R T_max / C_damping = 0.1 m * 6.5 N m / 0.05 N m s = 13 m/s, 2 * 13 m/s / 0.5 m track
    assert goal.action_space.high.tolist() == [13.0, 52.0] and goal.action_space.dtype == np.float32
    car = gymnasium.make("mvsim/PathFollow-v0", **physical).unwrapped
    assert np.array_equal(car.action_space.high, np.float32([car.sim.limits.max_speed[0],
                                                             car.sim.limits.max_steer[0]]))
    assert car.action_space.high[1] == np.float32(math.radians(25.0))  # max_steer_ang_deg
    twist_car = MvsimEnv("seed002_car.world.xml", control="twist", action_units="physical")
    assert twist_car.action_space.high[1] == np.float32(twist_car.sim.limits.max_yaw_rate[0])


def test_world_files_are_found_like_the_node_finds_them(tmp_path, monkeypatch):
    assert resolve_world("demo_2robots.world.xml") == REPO_WORLDS / "demo_2robots.world.xml"
    assert resolve_world("worlds/bench/differential_1_lidar.world.xml").is_file()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "demo_2robots.world.xml").write_text("<mvsim_world/>")
    assert resolve_world("demo_2robots.world.xml") == tmp_path / "demo_2robots.world.xml"  # the current folder first
    with pytest.raises(FileNotFoundError, match="nowhere.world.xml"):
        resolve_world("nowhere.world.xml")


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="less than one physics step"):
        MvsimEnv("demo_2robots.world.xml", step_s=0.001)
    with pytest.raises(ValueError, match="does not steer"):
        MvsimEnv("demo_2robots.world.xml", control="ackermann")
    with pytest.raises(ValueError, match="wheel torques"):
        MvsimEnv("gridmap_yard.world.xml", vehicle="cart")
    with pytest.raises(KeyError, match="r9"):
        MvsimEnv("demo_2robots.world.xml", vehicle="r9")
    env = MvsimEnv("demo_2robots.world.xml")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="two finite numbers"):
        env.step(np.array([np.nan, 0.0]))
