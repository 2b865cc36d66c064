"""MvsimVectorEnv: N copies of an MvsimEnv (N simulations of one world) stepped together, one call per step.

Autoreset follows Gymnasium 1.x's default (AutoresetMode.NEXT_STEP): a copy whose episode ended at one step is
reset by the next `step` call (its action is ignored; it returns the reset observation, reward 0, not terminated,
not truncated, and the reset's info). Seeds as SyncVectorEnv takes them: an int s seeds copy i with s + i.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array

from mvsim_ros.gym import arguments
from mvsim_ros.gym.env import MvsimEnv, load_world_spec


class MvsimVectorEnv(VectorEnv):
    """`num_envs` environments made by `make_env()` (MvsimEnv instances with equal spaces), stepped as one.
    Observations are the batched Dict (each entry with a leading axis of num_envs), rewards float64, terminations
    and truncations bool arrays, infos as VectorEnv batches them (each key with its '_key' mask)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int, make_env: Callable[[], MvsimEnv]):
        num_envs = arguments.integer("num_envs", num_envs, 1)
        if not callable(make_env):
            raise TypeError(f"Expected `make_env` to be a callable returning an MvsimEnv, actual type: "
                            f"{type(make_env).__name__} ({make_env!r})")
        self.envs = [make_env() for _ in range(num_envs)]
        self.num_envs = num_envs
        first = self.envs[0]
        for env in self.envs[1:]:
            if env.observation_space != first.observation_space or env.action_space != first.action_space:
                raise ValueError("the environments of a vector must have equal observation and action spaces")
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._autoreset = np.zeros(num_envs, dtype=bool)

    def _seeds(self, seed: int | Sequence[int | None] | None) -> list[int | None]:
        if seed is None:
            return [None] * self.num_envs
        if isinstance(seed, (int, np.integer)):
            return [int(seed) + i for i in range(self.num_envs)]
        seeds = list(seed)
        if len(seeds) != self.num_envs:
            raise ValueError(f"{len(seeds)} seeds for {self.num_envs} environments")
        return seeds

    def _batch(self, observations: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
        """The observations of every copy in one new batched Dict."""
        out = create_empty_array(self.single_observation_space, self.num_envs)
        return concatenate(self.single_observation_space, observations, out)

    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Reset every copy (copy i with the i-th seed, see the module docstring); returns (observations, infos)."""
        infos: dict[str, Any] = {}
        observations = []
        for i, (env, single_seed) in enumerate(zip(self.envs, self._seeds(seed))):
            observation, info = env.reset(seed=single_seed, options=options)
            observations.append(observation)
            infos = self._add_info(infos, info, i)
        self._autoreset[:] = False
        return self._batch(observations), infos

    def step(self, actions) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every copy with its row of `actions` (copies whose episode ended at the last step are reset
        instead); returns (observations, rewards, terminations, truncations, infos)."""
        actions = np.asarray(actions)
        if actions.shape != self.action_space.shape:
            raise ValueError(f"actions must have shape {self.action_space.shape}, got {actions.shape}")
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminations = np.zeros(self.num_envs, dtype=bool)
        truncations = np.zeros(self.num_envs, dtype=bool)
        infos: dict[str, Any] = {}
        observations = []
        for i, env in enumerate(self.envs):
            if self._autoreset[i]:
                observation, info = env.reset()
            else:
                observation, rewards[i], terminations[i], truncations[i], info = env.step(actions[i])
            observations.append(observation)
            infos = self._add_info(infos, info, i)
        self._autoreset = terminations | truncations
        return self._batch(observations), rewards, terminations, truncations, infos

    def close_extras(self, **kwargs: Any) -> None:
        """Close every copy."""
        for env in self.envs:
            env.close()


def make_vector_env(num_envs: int, **env_kwargs: Any) -> MvsimVectorEnv:
    """A vector of `num_envs` MvsimEnv(**env_kwargs) sharing one loaded world (env_kwargs as MvsimEnv takes them;
    a task given as `task_factory` (a callable returning a Task) gives each copy its own task)."""
    task_factory = env_kwargs.pop("task_factory", None)
    if "task" in env_kwargs:
        raise ValueError("give a vector's task as task_factory (each copy needs its own task object)")
    world = load_world_spec(env_kwargs.pop("world"), env_kwargs.get("world_seed", 0))

    def make_env() -> MvsimEnv:
        task = task_factory() if task_factory is not None else None
        return MvsimEnv(world, task=task, **env_kwargs)

    return MvsimVectorEnv(num_envs, make_env)
