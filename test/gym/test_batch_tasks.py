"""MvsimBatchEnv with the built-in tasks: their rewards, terminations, observation entries and infos come from one
compiled kernel call over all copies (the copies' own task objects are only reset), and copy k still equals a
single MvsimEnv given the same seed, bit for bit, through resets; any other task is called per copy."""

from __future__ import annotations

import numpy as np
import pytest

from gym_support import robot_world, wall_block
from mvsim_ros.gym import AvoidCollisions, GoalReach, MvsimBatchEnv, MvsimEnv
from mvsim_ros.gym.batch.batched_tasks import BatchedGoalReach, batched_tasks
from mvsim_ros.gym.batch.registered import make_batch
from mvsim_ros.gym.path_task import PathFollow
from mvsim_ros.gym.registration import PATH_FOLLOW_ID, make_env

#: The test robot with its noisy 181-ray lidar and a wall 1.5 m ahead (collisions happen).
WORLD = robot_world(extra=wall_block(1.5))
#: The task methods MvsimEnv calls after a step.
STEP_METHODS = ("observe", "reward", "terminated", "info")


def random_actions(batch: MvsimBatchEnv, count: int, seed: int, forward: float = -1.0) -> list[np.ndarray]:
    """Random normalised actions, the first (speed) component at least `forward`."""
    rng = np.random.default_rng(seed)
    low = np.array([forward, -1.0])
    return [rng.uniform(low, 1.0, batch.action_space.shape).astype(np.float32) for _ in range(count)]


def same(a, b) -> bool:
    return np.asarray(a).tobytes() == np.asarray(b).tobytes()


def assert_copies_equal_single_envs(batch: MvsimBatchEnv, singles: list, actions: list[np.ndarray],
                                    seed: int) -> tuple[int, int]:
    """Step `batch` and `singles` (one per copy, reset with seed + k, autoreset at the next step) through
    `actions`: every observation, reward, flag and info entry bit for bit the same. Returns (autoresets,
    terminations)."""
    observations, infos = batch.reset(seed=seed)
    for k, env in enumerate(singles):
        observation, info = env.reset(seed=seed + k)
        assert all(same(observations[key][k], observation[key]) for key in observation)
        assert all(same(infos[key][k], info[key]) and infos[f"_{key}"][k] for key in info)
    done, resets, ended = [False] * batch.num_envs, 0, 0
    for action in actions:
        observations, rewards, terminations, truncations, infos = batch.step(action)
        for k, env in enumerate(singles):
            if done[k]:
                (observation, info), reward, terminated, truncated = env.reset(), 0.0, False, False
                resets += 1
            else:
                observation, reward, terminated, truncated, info = env.step(action[k])
            for key in observation:
                assert same(observations[key][k], observation[key]), (key, k)
            assert (rewards[k], terminations[k], truncations[k]) == (reward, terminated, truncated), k
            for key in info:
                assert same(infos[key][k], info[key]) and infos[f"_{key}"][k], (key, k)
                assert infos[key].dtype == np.asarray(info[key]).dtype, key
            done[k] = terminated or truncated
            ended += bool(terminated)
    return resets, ended


def test_goal_reach_copies_equal_single_envs():
    batch = MvsimBatchEnv(WORLD, 3, task_factory=GoalReach, max_episode_steps=60, threads=1)
    singles = [MvsimEnv(WORLD, task=GoalReach(), max_episode_steps=60) for _ in range(3)]
    actions = random_actions(batch, 300, seed=21, forward=0.3)
    resets, ended = assert_copies_equal_single_envs(batch, singles, actions, 50)
    assert resets >= 6 and ended >= 1


def test_avoid_collisions_copies_equal_single_envs_over_two_threads():
    make_task = lambda: AvoidCollisions(random_heading=True)  # noqa: E731
    batch = MvsimBatchEnv(WORLD, 4, task_factory=make_task, max_episode_steps=70, threads=2)
    singles = [MvsimEnv(WORLD, task=make_task(), max_episode_steps=70) for _ in range(4)]
    actions = random_actions(batch, 250, seed=22, forward=0.3)
    resets, ended = assert_copies_equal_single_envs(batch, singles, actions, 60)
    assert resets >= 8 and ended >= 1


def test_path_follow_copies_equal_single_envs():
    batch = make_batch(PATH_FOLLOW_ID, 3, max_episode_steps=70, threads=1)
    singles = [make_env(PATH_FOLLOW_ID, max_episode_steps=70) for _ in range(3)]
    resets, _ = assert_copies_equal_single_envs(batch, singles, random_actions(batch, 250, seed=23), 70)
    assert resets >= 6


@pytest.mark.parametrize("task_class, make_task", [
    (GoalReach, GoalReach), (AvoidCollisions, AvoidCollisions),
    (PathFollow, lambda: PathFollow({"circle": {"center": (0.0, 0.0), "radius": 2.0}}))])
def test_the_copies_tasks_are_not_called_during_steps(monkeypatch, task_class, make_task):
    batch = MvsimBatchEnv(WORLD, 3, task_factory=make_task, max_episode_steps=20, threads=1)

    def refuse(*args, **kwargs):
        raise AssertionError("a copy's task was called per copy")

    for name in STEP_METHODS:
        monkeypatch.setattr(task_class, name, refuse)
    batch.reset(seed=5)
    for action in random_actions(batch, 45, seed=6):  # through the autoresets after 20 steps
        batch.step(action)


def test_a_task_subclass_is_called_per_copy():
    calls = []

    class CountedGoalReach(GoalReach):
        def reward(self, env):
            calls.append(env)
            return super().reward(env)

    batch = MvsimBatchEnv(WORLD, 2, task_factory=CountedGoalReach, max_episode_steps=20, threads=1)
    assert batched_tasks([copy.task for copy in batch.copies]) is None
    batch.reset(seed=3)
    batch.step(random_actions(batch, 1, seed=4)[0])
    assert len(calls) == 2


def test_only_tasks_of_one_class_and_parameters_are_batched():
    assert isinstance(batched_tasks([GoalReach(), GoalReach(goal_distance=(1.0, 2.0))]), BatchedGoalReach)
    assert batched_tasks([GoalReach(), GoalReach(tolerance=0.5)]) is None
    assert batched_tasks([GoalReach(), AvoidCollisions()]) is None
    circle = {"circle": {"center": (0.0, 0.0), "radius": 2.0}}
    assert batched_tasks([PathFollow(circle), PathFollow(circle)]) is not None
    assert batched_tasks([PathFollow(circle), PathFollow({"circle": {"center": (0.0, 0.0), "radius": 3.0}})]) is None
    assert batched_tasks([PathFollow(circle), PathFollow(circle, lookahead=2.0)]) is None
