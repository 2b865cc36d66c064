"""The copies' task outcomes: rewards, terminations, observation entries (floating Box entries clipped into their
spaces, observe.clip_into) and infos, the numbers MvsimEnv's task gives after a step or a reset. Copies whose task
is FreeDrive cost nothing here.

When every copy's task is the same built-in task (batched_tasks.py), one compiled kernel call computes them for
all copies from the batch's arrays; a copy's reset stays its task's own, whose state then fills the copy's rows.
Any other tasks (a user's Task) are called per copy as MvsimEnv calls them (observe, reward, terminated, info
after a step; observe and info after a reset).

This is the one place MvsimBatchEnv asks for rewards.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from gymnasium import spaces

from mvsim_ros.gym.batch.batched_tasks import batched_tasks
from mvsim_ros.gym.batch.layout import Outputs
from mvsim_ros.gym.observe import clip_into
from mvsim_ros.gym.task import FreeDrive


class TaskOutcomes:
    """Rewards, terminations, observation entries and infos of the tasks of `copies` (batch.copies.BatchCopy),
    whose entries `keys` of `observation_space` (the single observation space) are the tasks'; `outputs`: the
    batch's step outputs (the copies' poses and collision flags the batched tasks read)."""

    def __init__(self, copies: list, observation_space: spaces.Dict, keys: list[str], num_envs: int,
                 outputs: Outputs):
        self.copies = copies
        self.outputs = outputs
        #: The tasks' observation entries, one row per copy.
        self.buffers = {key: np.zeros((num_envs, *observation_space[key].shape), dtype=observation_space[key].dtype)
                        for key in keys}
        self._boxes = {key: observation_space[key] for key in keys
                       if isinstance(observation_space[key], spaces.Box)
                       and np.issubdtype(observation_space[key].dtype, np.floating)}
        #: Whether every copy's task is FreeDrive (reward 0, never terminated, no entries, no info).
        self.free = all(type(copy.task) is FreeDrive for copy in copies)
        #: The copies' tasks as one batched task (batched_tasks.py), or None: each copy's task is called.
        self.batched = None if self.free else batched_tasks([copy.task for copy in copies])
        self._infos: list[tuple[int, dict[str, Any]]] = []

    def _observe(self, k: int) -> None:
        copy = self.copies[k]
        for key, value in copy.task.observe(copy).items():
            box = self._boxes.get(key)
            self.buffers[key][k] = value if box is None else clip_into(value, box)

    def _observe_all(self) -> None:
        """Every copy's entries from the batched task."""
        for key, value in self.batched.observe(self.outputs.exact_pose).items():
            box = self._boxes.get(key)
            self.buffers[key][:] = value if box is None else clip_into(value, box)

    def after_reset(self, resets: np.ndarray) -> None:
        """The reset copies' task entries and infos (the batched task: every copy's entries, the reset copies' state
        rows from their tasks)."""
        self._infos = []
        if self.free:
            return
        if self.batched is not None:
            self.batched.reset_rows(resets, self.outputs.exact_pose)
            self._observe_all()
            return
        for k in resets.tolist():
            self._observe(k)
            self._infos.append((k, self.copies[k].task.info(self.copies[k])))

    def after_step(self, stepped: np.ndarray, resets: np.ndarray, outputs: Outputs,
                   elapsed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rewards float64, terminations bool) over all copies after a step of the `stepped` copies (the `resets`
        copies were reset instead: reward 0, not terminated), with their entries and infos. The stepped and the
        reset copies are all the copies."""
        count = len(self.copies)
        if self.batched is not None:
            self.batched.step(outputs.exact_pose, outputs.collided)  # the reset copies' rows are then replaced
            rewards, terminations = self.batched.reward.copy(), self.batched.terminated.copy()
            rewards[resets] = 0.0
            terminations[resets] = False
            self.after_reset(resets)
            return rewards, terminations
        rewards, terminations = np.zeros(count), np.zeros(count, dtype=bool)
        self.after_reset(resets)
        if self.free:
            return rewards, terminations
        for k in stepped.tolist():
            copy, task = self.copies[k], self.copies[k].task
            copy.catch_up(int(outputs.steps[k]), bool(outputs.collided[k]), int(elapsed[k]))
            self._observe(k)
            rewards[k] = float(task.reward(copy))
            terminations[k] = bool(task.terminated(copy))
            self._infos.append((k, task.info(copy)))
        return rewards, terminations

    def add_infos(self, infos: dict[str, Any], add_info: Callable[[dict, dict, int], dict]) -> dict[str, Any]:
        """`infos` with the task's info entries of every copy reset or stepped by the last call, batched as
        `add_info` (VectorEnv._add_info) batches one copy's info (the batched task: its arrays, every copy's)."""
        if self.batched is not None:
            everyone = np.ones(len(self.copies), dtype=bool)
            for key, value in self.batched.infos().items():
                infos[key], infos[f"_{key}"] = value, everyone.copy()
            return infos
        for k, info in sorted(self._infos, key=lambda item: item[0]):
            infos = add_info(infos, info, k)
        return infos
