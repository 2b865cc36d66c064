"""MvsimVectorEnv: N simulations stepped in one call equal N separate envs with the same seeds, autoreset at the
next step as Gymnasium 1.x does by default."""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

import mvsim_ros.gym  # noqa: F401 (registers the ids)
from mvsim_ros.gym import MvsimVectorEnv
from mvsim_ros.gym.registration import goal_reach_env, make_vector

N, STEPS, EPISODE = 3, 30, 8


def test_the_vector_equals_separate_envs_with_the_same_seeds():
    vector = make_vector("mvsim/GoalReach-v0", N, max_episode_steps=EPISODE)
    assert isinstance(vector, MvsimVectorEnv) and vector.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    singles = [goal_reach_env(max_episode_steps=EPISODE) for _ in range(N)]
    rng = np.random.default_rng(0)
    actions = [(rng.uniform(vector.action_space.low, vector.action_space.high) * 0.1).astype(np.float32)
               for _ in range(STEPS)]
    observations, infos = vector.reset(seed=20)
    expected = [env.reset(seed=20 + i) for i, env in enumerate(singles)]
    for i, (observation, info) in enumerate(expected):
        for key in observation:
            assert observations[key][i].tobytes() == observation[key].tobytes()
        assert infos["goal"][i].tolist() == list(info["goal"])
    done = [False] * N
    resets = 0
    for action in actions:
        observations, rewards, terminated, truncated, infos = vector.step(action)
        for i, env in enumerate(singles):
            if done[i]:  # next-step autoreset: the reset observation, reward 0, not done
                observation, info = env.reset()
                reward, term, trunc = 0.0, False, False
                resets += 1
            else:
                observation, reward, term, trunc, info = env.step(action[i])
            for key in observation:
                assert observations[key][i].tobytes() == observation[key].tobytes(), key
            assert (rewards[i], terminated[i], truncated[i]) == (reward, term, trunc)
            assert infos["time"][i] == info["time"]
            done[i] = term or trunc
    assert resets >= N  # every copy went through an autoreset (episodes of 8 steps)


def test_the_vector_spaces_are_batched():
    vector = gymnasium.make_vec("mvsim/PathFollow-v0", num_envs=4)
    assert vector.num_envs == 4 and vector.action_space.shape == (4, 2)
    assert vector.single_action_space == gymnasium.make("mvsim/PathFollow-v0").action_space
    observations, _ = vector.reset(seed=0)
    assert observations["path"].shape == (4, 4) and observations["pose"].dtype == np.float32
    observations, rewards, *_ = vector.step(np.zeros((4, 2), dtype=np.float32))
    assert vector.observation_space.contains(observations) and rewards.dtype == np.float64
    vector.close()
