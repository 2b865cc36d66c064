"""MvsimBatchEnv: copy k of the batch runs exactly the episodes a single MvsimEnv given the same seed runs (bit for
bit, through resets), autoresets at the next step as Gymnasium 1.x does by default, follows the vector env API,
and refuses bad arguments and worlds it cannot batch."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from gym_support import robot_world, wall_block
from mvsim_ros.gym import GoalReach, MvsimBatchEnv, MvsimEnv
from mvsim_ros.gym.batch.registered import make_batch
from mvsim_ros.gym.registration import PATH_FOLLOW_ID, make_env

#: The test robot with its noisy 181-ray lidar and a wall 1.5 m ahead (collisions happen).
WORLD = robot_world(extra=wall_block(1.5))


def random_actions(env: VectorEnv, count: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.0, 1.0, env.action_space.shape).astype(np.float32) for _ in range(count)]


def assert_copies_equal_single_envs(batch: MvsimBatchEnv, make_single, actions: list[np.ndarray], seed: int) -> int:
    """Step `batch` and one single env per copy (made by make_single, reset with seed + k, autoreset at the next
    step) through `actions`; every observation, reward, flag and info time bit for bit the same. Returns the
    number of autoresets."""
    singles = [make_single() for _ in range(batch.num_envs)]
    observations, infos = batch.reset(seed=seed)
    for k, env in enumerate(singles):
        observation, info = env.reset(seed=seed + k)
        assert all(observations[key][k].tobytes() == observation[key].tobytes() for key in observation)
        assert infos["time"][k] == info["time"]
    done, resets = [False] * batch.num_envs, 0
    for action in actions:
        observations, rewards, terminations, truncations, infos = batch.step(action)
        for k, env in enumerate(singles):
            if done[k]:
                (observation, info), reward, terminated, truncated = env.reset(), 0.0, False, False
                resets += 1
            else:
                observation, reward, terminated, truncated, info = env.step(action[k])
            for key in observation:
                assert observations[key][k].tobytes() == observation[key].tobytes(), (key, k)
            assert (rewards[k], terminations[k], truncations[k]) == (reward, terminated, truncated)
            assert (infos["time"][k], infos["collision"][k]) == (info["time"], info["collision"])
            done[k] = terminated or truncated
    for k, env in enumerate(singles):
        assert batch.copies[k].sim.wheels.phi.tobytes() == env.sim.wheels.phi.tobytes()
    return resets


def test_copy_k_equals_a_single_env_with_the_same_seed_over_1000_steps_with_resets():
    batch = MvsimBatchEnv(WORLD, 2, max_episode_steps=150, threads=1)
    actions = random_actions(batch, 1000, seed=3)
    resets = assert_copies_equal_single_envs(batch, lambda: MvsimEnv(WORLD, max_episode_steps=150), actions, 11)
    assert resets >= 12  # episodes of 150 steps, longer than the 100 steps after which the wheel angles wrap


def test_copies_without_sensor_noise_equal_single_envs_without_it():
    batch = MvsimBatchEnv(WORLD, 2, max_episode_steps=30, sensor_noise=False, threads=1)
    actions = random_actions(batch, 70, seed=8)
    make_single = lambda: MvsimEnv(WORLD, max_episode_steps=30, sensor_noise=False)  # noqa: E731
    assert assert_copies_equal_single_envs(batch, make_single, actions, 40) >= 2


def test_copies_with_a_task_equal_single_envs_with_that_task():
    batch = MvsimBatchEnv(WORLD, 2, task_factory=GoalReach, max_episode_steps=60, threads=1)
    actions = random_actions(batch, 150, seed=4)
    make_single = lambda: MvsimEnv(WORLD, task=GoalReach(), max_episode_steps=60)  # noqa: E731
    assert assert_copies_equal_single_envs(batch, make_single, actions, 30) >= 2


def test_an_ackermann_car_with_physical_actions_equals_single_envs():
    batch = make_batch("mvsim/PathFollow-v0", 2, max_episode_steps=25, action_units="physical", threads=1)
    actions = [1.5 * action * batch.single_action_space.high for action in random_actions(batch, 60, seed=6)]  # clipped
    make_single = lambda: make_env(PATH_FOLLOW_ID, max_episode_steps=25, action_units="physical")  # noqa: E731
    assert assert_copies_equal_single_envs(batch, make_single, actions, 2) >= 2


def test_two_threads_give_the_same_numbers_as_one():
    records = []
    for threads in (1, 2):
        batch = MvsimBatchEnv(WORLD, 5, max_episode_steps=20, threads=threads)
        observations, _ = batch.reset(seed=1)
        record = [observations]
        for action in random_actions(batch, 45, seed=5):
            record.append(batch.step(action)[0])
        batch.close()
        records.append(record)
    for a, b in zip(*records):
        assert all(a[key].tobytes() == b[key].tobytes() for key in a)


def test_an_ended_episode_is_reset_at_the_next_step():
    batch = MvsimBatchEnv(WORLD, 2, max_episode_steps=3)
    assert batch.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    first, _ = batch.reset(seed=7)
    action = np.full((2, 2), 0.8, dtype=np.float32)
    for _ in range(2):
        _, _, _, truncations, _ = batch.step(action)
        assert not truncations.any()
    _, _, terminations, truncations, infos = batch.step(action)
    assert truncations.all() and not terminations.any() and (infos["time"] > 0).all()
    observations, rewards, terminations, truncations, infos = batch.step(action)  # the action is ignored
    assert not truncations.any() and not terminations.any() and (rewards == 0).all() and (infos["time"] == 0).all()
    assert observations["pose"].tobytes() == first["pose"].tobytes()
    _, _, _, truncations, infos = batch.step(action)
    assert not truncations.any() and (infos["time"] > 0).all()


def test_the_batch_follows_the_vector_env_api():
    batch = MvsimBatchEnv(WORLD, 3)
    single = MvsimEnv(WORLD)
    assert isinstance(batch, VectorEnv) and batch.num_envs == 3
    assert batch.single_observation_space == single.observation_space
    assert batch.single_action_space == single.action_space and batch.action_space.shape == (3, 2)
    observations, infos = batch.reset(seed=0)
    assert batch.observation_space.contains(observations) and set(infos) >= {"time", "_time", "collision"}
    again, _ = batch.reset(seed=0)
    assert all(again[key].tobytes() == observations[key].tobytes() for key in again)
    assert not np.shares_memory(again["front"], observations["front"])  # copy=True: new arrays every call
    listed, _ = batch.reset(seed=[0, 1, 2])
    assert listed["front"].tobytes() == observations["front"].tobytes()
    observations, rewards, terminations, truncations, infos = batch.step(batch.action_space.sample())
    assert batch.observation_space.contains(observations)
    assert rewards.dtype == np.float64 and terminations.dtype == bool and truncations.dtype == bool
    assert infos["action_limits"].shape == (3, 2) and infos["_action_limits"].all()
    statistics = RecordEpisodeStatistics(MvsimBatchEnv(WORLD, 2, max_episode_steps=4, copy=False))
    statistics.reset(seed=0)
    buffers = [statistics.step(np.zeros((2, 2), dtype=np.float32))[0] for _ in range(4)]
    assert np.shares_memory(buffers[0]["pose"], buffers[-1]["pose"])  # copy=False: the env's own buffers
    assert list(statistics.episode_lengths) == [4, 4]
    statistics.close()


def test_a_registered_id_batches():
    batch = make_batch("mvsim/GoalReach-v0", 2)
    observations, _ = batch.reset(seed=0)
    assert "goal" in observations and batch.observation_space.contains(observations)
    _, rewards, *_ = batch.step(np.zeros((2, 2), dtype=np.float32))
    assert rewards.shape == (2,) and np.isfinite(rewards).all()


@pytest.mark.parametrize("kwargs, error, words", [
    ({"num_envs": 0}, ValueError, "num_envs"),
    ({"num_envs": 2.0}, TypeError, "num_envs"),
    ({"threads": 3}, ValueError, "threads"),
    ({"threads": "two"}, TypeError, "threads"),
    ({"task_factory": GoalReach()}, TypeError, "task_factory"),
    ({"task_factory": lambda: 3}, TypeError, "Task"),
    ({"task_factory": lambda task=GoalReach(): task}, ValueError, "new Task"),
    ({"copy": 1}, TypeError, "copy"),
    ({"step_s": 0.0}, ValueError, "step_s"),
    ({"world": "articulated.world.xml"}, ValueError, "articulated vehicles"),
])
def test_bad_arguments_are_refused(kwargs, error, words):
    arguments = {"world": WORLD, "num_envs": 2, **kwargs}
    with pytest.raises(error, match=words):
        MvsimBatchEnv(**arguments)


def test_bad_calls_are_refused():
    batch = MvsimBatchEnv(WORLD, 2)
    with pytest.raises(RuntimeError, match="reset"):
        batch.step(np.zeros((2, 2), dtype=np.float32))
    batch.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        batch.step(np.zeros((3, 2), dtype=np.float32))
    with pytest.raises(ValueError, match="finite"):
        batch.step(np.array([[0.0, 0.0], [np.nan, 0.0]], dtype=np.float32))
    with pytest.raises(ValueError, match="seed"):
        batch.reset(seed=[1, 2, 3])


def test_the_batch_steps_as_gymnasiums_own_sync_vector_env_of_single_envs():
    """Gymnasium's SyncVectorEnv over single envs (its seeding, next-step autoreset and batched infos) is the
    reference: the batch returns the same arrays, bit for bit, through episode ends."""
    from gymnasium.vector import SyncVectorEnv

    batch = MvsimBatchEnv(WORLD, 3, max_episode_steps=20, threads=1)
    reference = SyncVectorEnv([lambda: MvsimEnv(WORLD, max_episode_steps=20) for _ in range(3)],
                              autoreset_mode=AutoresetMode.NEXT_STEP)
    assert batch.metadata["autoreset_mode"] == reference.metadata["autoreset_mode"]
    ours, theirs = batch.reset(seed=5), reference.reset(seed=5)
    episode_ends = 0
    for step, action in enumerate([None] + random_actions(batch, 60, seed=8)):
        if action is not None:
            ours, theirs = batch.step(action), reference.step(action)
        observations, expected = ours[0], theirs[0]
        assert set(observations) == set(expected)
        assert all(observations[key].tobytes() == expected[key].tobytes() for key in expected), step
        for mine, gymnasiums in zip(ours[1:-1], theirs[1:-1]):  # rewards, terminations, truncations
            assert np.asarray(mine).tobytes() == np.asarray(gymnasiums).tobytes(), step
        for key in ("time", "_time", "collision", "_collision"):
            assert np.asarray(ours[-1][key]).tobytes() == np.asarray(theirs[-1][key]).tobytes(), (step, key)
        if action is not None:
            episode_ends += int(np.sum(theirs[2] | theirs[3]))
    assert episode_ends >= 6  # 20-step episodes over 60 steps: every copy ended and was reset at least twice
    reference.close()
