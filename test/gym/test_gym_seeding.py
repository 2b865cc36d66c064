"""Seeding: the same seed and actions give a bit-identical episode (sensor noise included), another seed another
one when the sensors are noisy; every reset rebuilds the simulation."""

from __future__ import annotations

import gymnasium
import numpy as np

import mvsim_ros.gym  # noqa: F401 (registers the ids)
from gym_support import play, random_actions, robot_world, same_bits, wall_block
from mvsim_ros.gym import GoalReach, MvsimEnv


def test_same_seed_same_episode_bit_for_bit():
    env = gymnasium.make("mvsim/GoalReach-v0").unwrapped
    actions = random_actions(env.action_space, 40, seed=5, scale=0.1)
    first = play(env, actions, seed=7)
    second = play(env, actions, seed=7)  # the same env after an episode: the reset rebuilds everything
    fresh = play(gymnasium.make("mvsim/GoalReach-v0").unwrapped, actions, seed=7)
    assert len(first) > 10
    assert same_bits(first, second) and same_bits(first, fresh)
    assert any(reward != 0 for _, reward, _, _ in first)


def test_another_seed_another_episode_when_noisy():
    env = gymnasium.make("mvsim/GoalReach-v0").unwrapped
    actions = random_actions(env.action_space, 5, seed=5, scale=0.1)
    goal = {"goal": (2.0, 0.0, 0.0)}
    a, b = play(env, actions, seed=1, options=goal), play(env, actions, seed=2, options=goal)
    assert not np.array_equal(a[0][0]["scan"], b[0][0]["scan"])  # the lidar's noise
    assert np.array_equal(a[0][0]["goal"], b[0][0]["goal"])  # the goal was given
    assert not same_bits(a, b)


def test_without_noise_the_seed_changes_nothing_but_random_choices():
    world = robot_world(extra=wall_block(3.0))  # noise shows on returns only
    env = MvsimEnv(world, task=GoalReach(goal=(2.0, 1.0, 0.0)), sensor_noise=False)
    actions = random_actions(env.action_space, 20, seed=9, scale=0.05)
    assert same_bits(play(env, actions, seed=1), play(env, actions, seed=2))
    noisy = MvsimEnv(world, task=GoalReach(goal=(2.0, 1.0, 0.0)))
    assert not same_bits(play(noisy, actions, seed=1), play(noisy, actions, seed=2))


def test_random_goals_follow_the_seed():
    env = gymnasium.make("mvsim/GoalReach-v0").unwrapped
    goals = [env.reset(seed=s)[1]["goal"].tolist() for s in (4, 4, 5)]
    assert goals[0] == goals[1] != goals[2]
    options_goal = env.reset(seed=4, options={"goal": (1.0, 2.0)})[1]["goal"]
    assert options_goal.tolist() == [1.0, 2.0, 0.0]
