"""MvsimBatchEnv for the registered ids (registration.py): the id's world, vehicle, action limits, task and episode
length, N copies."""

from __future__ import annotations

from typing import Any

from mvsim_ros.gym.batch.env import MvsimBatchEnv
from mvsim_ros.gym.registration import SETUPS


def make_batch(env_id: str, num_envs: int, task_kwargs: dict[str, Any] | None = None,
               **kwargs: Any) -> MvsimBatchEnv:
    """A batch of `num_envs` copies of a registered id (each truncated at max_episode_steps, the id's by default);
    `task_kwargs` go to the task, the other keyword arguments to MvsimBatchEnv. KeyError for an unknown id."""
    if env_id not in SETUPS:
        raise KeyError(f"no registered id {env_id!r}; ids: {', '.join(SETUPS)}")
    task_class, defaults, env_kwargs, episode = SETUPS[env_id]
    kwargs.setdefault("max_episode_steps", episode)
    options = {**defaults, **(task_kwargs or {})}
    return MvsimBatchEnv(num_envs=num_envs, task_factory=lambda: task_class(**options), **{**env_kwargs, **kwargs})
