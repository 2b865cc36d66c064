"""MvsimBatchEnv: N copies of one world (each its own simulation, Box2D world, seeds and task) advanced together,
one compiled call per env step (kernel.step_copies) for all copies' actions, physics steps, collision flags and
observations, written into preallocated arrays, then one compiled call for the built-in tasks' rewards of all
copies (task_outcomes.py; a user's own Task is called per copy); no Python per copy per step except the rare
resets and noise draws.

Copy k given seed s runs exactly the episode an MvsimEnv of the same arguments given seed s runs, bit for bit.
Autoreset follows Gymnasium 1.x's default (AutoresetMode.NEXT_STEP), as MvsimVectorEnv: a copy whose episode
ended at one step is reset by the next `step` call (its action ignored; the reset observation, reward 0, not
terminated, not truncated, the reset's info). Seeds as SyncVectorEnv takes them: an int s seeds copy k with s + k,
a list gives each copy its own (None: not reseeded).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Sequence

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numba.typed import List

from mvsim_ros.core.jit import FixedTypeCalls
from mvsim_ros.gym import arguments
from mvsim_ros.gym.batch.copies import NOISE_BLOCKS, BatchCopy
from mvsim_ros.gym.batch.copy_list import copy_list, replace_copy
from mvsim_ros.gym.batch.kernel import NOISE_USED_UP, SCAN_FAILED, step_copies
from mvsim_ros.gym.batch.layout import OBSERVE, STEP, Shared, empty_outputs, lidar_rig, scratch
from mvsim_ros.gym.batch.refusals import batch_refusals
from mvsim_ros.gym.batch.task_outcomes import TaskOutcomes
from mvsim_ros.gym.control import ACTION_UNITS, CONTROL_MODES, VehicleControl, action_limits_argument
from mvsim_ros.gym.env import DEFAULT_MAX_EPISODE_STEPS, DEFAULT_STEP_S, STEP_S_RANGE, load_world_spec, task_spaces
from mvsim_ros.gym.observe import ODOMETRY_KEY, POSE_KEY
from mvsim_ros.gym.task import FreeDrive, Task
from mvsim_ros.physics import Simulation
from mvsim_ros.physics.compiled_steps import DIVERGED, RAN
from mvsim_ros.physics.simulation import SimulationDiverged
from mvsim_ros.world.specs import WorldSpec

#: Copies from which two threads step half the copies each by default (where the machine has two cores or more).
THREAD_MIN_COPIES = 64


def default_threads(num_envs: int) -> int:
    """Threads that step the copies by default: 2 from THREAD_MIN_COPIES copies on a machine of >= 2 cores, else 1."""
    return 2 if num_envs >= THREAD_MIN_COPIES and (os.cpu_count() or 1) >= 2 else 1


class MvsimBatchEnv(VectorEnv):
    """`num_envs` copies of `world`, each with one controlled vehicle, stepped as one Gymnasium vector env.

    world, vehicle, step_s, max_episode_steps, control, sensor_noise, world_seed, action_units, action_limits: as
    MvsimEnv takes them (the same checks). task_factory: a callable returning a new Task for each copy (None:
    FreeDrive).
    threads: 1 or 2 threads step the copies (None: `default_threads`). copy: return new arrays from reset and
    step (True, as Gymnasium's vector envs do by default) or the env's own buffers, overwritten by the next call
    (False).

    Only worlds whose steps compile (Simulation.compiled_steps_refusals empty) and whose controlled vehicle's lidars
    ray cast in 2D qualify (no cameras, no raytrace_3d): others raise ValueError naming the reasons (MvsimVectorEnv
    steps any world).
    Observations: the batched Dict of MvsimEnv's space (each entry with a leading axis of num_envs); rewards
    float64, terminations and truncations bool; infos as VectorEnv batches them ('time' [s], 'collision',
    'action_limits' and the task's entries, each with its '_key' mask).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, world: str | os.PathLike | WorldSpec, num_envs: int, vehicle: str | int | None = None,
                 task_factory: Callable[[], Task] | None = None, step_s: float = DEFAULT_STEP_S,
                 max_episode_steps: int | None = DEFAULT_MAX_EPISODE_STEPS, control: str | None = None,
                 sensor_noise: bool = True, world_seed: int = 0, action_units: str = "normalized",
                 action_limits: tuple[float | None, float | None] | None = None, threads: int | None = None,
                 copy: bool = True):
        num_envs = arguments.integer("num_envs", num_envs, 1)
        arguments.vehicle_type(vehicle)
        if task_factory is not None and not callable(task_factory):
            raise TypeError(f"Expected `task_factory` to be None or a callable returning a Task, actual type: "
                            f"{type(task_factory).__name__} ({task_factory!r})")
        step_s = arguments.real("step_s", step_s, STEP_S_RANGE)
        max_episode_steps = arguments.optional_integer("max_episode_steps", max_episode_steps, 1)
        if control is not None:
            arguments.choice("control", control, CONTROL_MODES)
        sensor_noise = arguments.flag("sensor_noise", sensor_noise)
        arguments.choice("action_units", action_units, ACTION_UNITS)
        action_limits = action_limits_argument(action_limits)
        threads = default_threads(num_envs) if threads is None else arguments.integer("threads", threads, 1)
        if threads > 2:
            raise ValueError(f"Expected `threads` to be 1 or 2 (or None), actual: {threads!r}")
        self.copy = arguments.flag("copy", copy)
        self.world = load_world_spec(world, world_seed)
        if not self.world.vehicles:
            raise ValueError("the world has no vehicle to control")
        probe = Simulation(self.world, command_timeout=0.0)
        self.vehicle = arguments.vehicle_index(vehicle, list(probe.vehicle_names))
        steps_per_action = int(round(step_s / probe.dt))
        if steps_per_action < 1:
            raise ValueError(f"Expected `step_s` to be at least one physics step (rounded to whole steps of "
                             f"dt = {probe.dt:g} s) and at most {arguments.MAX_STEP_S:g} s, actual: {step_s!r} "
                             "(less than one physics step)")
        self.dt = probe.dt
        #: Simulated seconds per env step [s]: step_s rounded to whole physics steps.
        self.step_s = steps_per_action * probe.dt
        self.max_episode_steps = max_episode_steps
        control_ = VehicleControl(probe, self.vehicle, control, action_units, action_limits)
        #: The action limits [m/s; rad/s or rad] (what a normalised action of 1 commands), float64.
        self.action_limits = control_.high.copy()
        tasks = [task_factory() if task_factory is not None else FreeDrive() for _ in range(num_envs)]
        for task in tasks:
            if not isinstance(task, Task):
                raise TypeError(f"Expected `task_factory` to return a Task, actual type: {type(task).__name__} "
                                f"({task!r})")
        if len({id(task) for task in tasks}) < num_envs:
            raise ValueError("Expected `task_factory` to return a new Task on every call (each copy keeps its own "
                             "episode state), actual: the same object more than once")
        extra = task_spaces(tasks[0])
        first = BatchCopy(self.world, self.vehicle, tasks[0], self.step_s, sensor_noise, tuple(extra))
        observer = first.observer
        reasons = batch_refusals(probe, observer)
        if reasons:
            raise ValueError("MvsimBatchEnv steps only worlds whose steps compile and whose lidars ray cast in 2D; "
                             f"this one does not: {', '.join(reasons)} (MvsimVectorEnv steps any world)")
        self.copies = [first] + [BatchCopy(self.world, self.vehicle, task, self.step_s, sensor_noise, tuple(extra))
                                 for task in tasks[1:]]
        self.num_envs = num_envs
        self.single_observation_space = spaces.Dict({**observer.spaces, **extra})
        self.single_action_space = control_.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        limits = probe.limits
        ackermann = control_.mode == "ackermann"
        second = limits.max_steer[self.vehicle] if ackermann else limits.max_yaw_rate[self.vehicle]
        self._shared = Shared(self.vehicle, ackermann, control_.units == "normalized", control_.high.copy(),
                              control_.action_space.high.astype(np.float64), float(limits.max_speed[self.vehicle]),
                              float(second), float(limits.max_steer_rate[self.vehicle]), steps_per_action, self.dt,
                              probe.longest_compiled_run)
        self._rig = lidar_rig(observer.lidars, sensor_noise)
        rays = int(self._rig.ray_start[-1])
        self._noisy = bool(self._rig.bearing_noise.any() or self._rig.range_noise.any())
        self._outputs = empty_outputs(num_envs, rays)
        self._scratch = [scratch(rays) for _ in range(threads)]
        self._split = [(0, num_envs)] if threads == 1 else [(0, num_envs // 2), (num_envs // 2, num_envs)]
        self._pool = ThreadPoolExecutor(max_workers=1) if threads == 2 else None
        self.threads = threads
        self._arrays: List | None = None
        self._noise_blocks = len(first.noise_buffer())
        self._calls = FixedTypeCalls()  # step_copies' arguments keep their types for the env's life
        self._modes = np.zeros(num_envs, dtype=np.int64)
        self._actions = np.zeros((num_envs, 2))
        self._elapsed = np.zeros(num_envs, dtype=np.int64)
        self._autoreset = np.zeros(num_envs, dtype=bool)
        self._tasks = TaskOutcomes(self.copies, self.single_observation_space, list(extra), num_envs,
                                   self._outputs)
        self._observation = self._observation_views(observer)

    def _observation_views(self, observer) -> dict[str, np.ndarray]:
        """The batched observation's arrays: the compiled step's outputs (a lidar's columns of the scans) and the
        task's buffers, in the single observation space's key order."""
        out = self._outputs
        views = {ODOMETRY_KEY: out.odometry, POSE_KEY: out.pose, **self._tasks.buffers}
        for i, key in enumerate(observer.lidar_keys):
            views[key] = out.scans[:, self._rig.ray_start[i]:self._rig.ray_start[i + 1]]
        return {key: views[key] for key in self.single_observation_space.spaces}

    # -- Gymnasium API ---------------------------------------------------------------------------------------
    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Reset every copy (copy k with the k-th seed, see the module docstring; `options` as MvsimEnv.reset takes
        them, for every copy); returns (observations, infos)."""
        seeds = self._seeds(seed)
        options = dict(options or {})
        self._arrays = None  # the list views the copies' arrays: it goes before they do
        for k, copy in enumerate(self.copies):
            copy.reset(seeds[k], dict(options))
        self._arrays = copy_list([copy.arrays for copy in self.copies])
        everyone = np.arange(self.num_envs)
        self._after_resets(everyone)
        self._modes[:] = OBSERVE
        self._run()
        self._autoreset[:] = False
        self._tasks.after_reset(everyone)
        return self._observations(), self._infos(everyone)

    def step(self, actions) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every copy with its row of `actions` (copies whose episode ended at the last step are reset
        instead); returns (observations, rewards, terminations, truncations, infos)."""
        if self._arrays is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != self.action_space.shape:
            raise ValueError(f"actions must have shape {self.action_space.shape}, got {actions.shape}")
        self._actions[:] = actions
        if not np.isfinite(self._actions).all():
            bad = int(np.flatnonzero(~np.isfinite(self._actions).all(axis=1))[0])
            raise ValueError(f"an action is two finite numbers, got {actions[bad]!r} for copy {bad}")
        resets = np.flatnonzero(self._autoreset) if self._autoreset.any() else np.zeros(0, dtype=np.intp)
        for k in resets.tolist():
            try:
                self.copies[k].reset(None, {})
            except BaseException:
                self._arrays = None  # it views the arrays of copy k's last episode: call reset() again
                raise
            replace_copy(self._arrays, k, self.copies[k].arrays)
        if resets.size:
            self._after_resets(resets)
        self._modes[:] = STEP
        self._modes[resets] = OBSERVE
        self._elapsed += 1
        self._elapsed[resets] = 0
        self._run()
        stepped = np.flatnonzero(~self._autoreset)
        rewards, terminations = self._tasks.after_step(stepped, resets, self._outputs, self._elapsed)
        truncations = np.zeros(self.num_envs, dtype=bool)
        if self.max_episode_steps is not None:
            truncations[stepped] = self._elapsed[stepped] >= self.max_episode_steps
        self._autoreset = terminations | truncations
        return self._observations(), rewards, terminations, truncations, self._infos(resets)

    def close_extras(self, **kwargs: Any) -> None:
        """Stop the second thread."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    # -- internals -------------------------------------------------------------------------------------------
    def _seeds(self, seed: int | Sequence[int | None] | None) -> list[int | None]:
        if seed is None:
            return [None] * self.num_envs
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            return [int(seed) + k for k in range(self.num_envs)]
        if isinstance(seed, (str, bytes)) or not hasattr(seed, "__len__"):
            raise TypeError(f"Expected `seed` to be None, an int or a sequence of num_envs ints or None, actual "
                            f"type: {type(seed).__name__} ({seed!r})")
        seeds = list(seed)
        if len(seeds) != self.num_envs:
            raise ValueError(f"Expected `seed` to hold {self.num_envs} seeds (one per copy), actual: {len(seeds)}")
        return seeds

    def _after_resets(self, copies: np.ndarray) -> None:
        """The counters and noise of freshly reset copies."""
        out = self._outputs
        out.steps[copies] = 0
        out.collided[copies] = False
        self._draw_noise(copies)

    def _draw_noise(self, copies: np.ndarray) -> None:
        out = self._outputs
        if self._noisy:
            for k in copies.tolist():
                self.copies[k].draw_noise()
        out.noise_used[copies] = 0

    def _run(self) -> None:
        """One step_copies call over all copies, split over the threads, each thread then drawing the noise of its
        copies that used theirs up (numpy draws without the GIL); raises as Simulation.step_many does for a copy
        whose steps failed."""
        if self._pool is None:
            self._run_part(0, *self._split[0])
        else:
            other = self._pool.submit(self._run_part, 1, *self._split[1])
            self._run_part(0, *self._split[0])
            other.result()
        status = self._outputs.status
        if status.any():  # RAN is 0
            failed = int(np.flatnonzero(status != RAN)[0])
            self._raise_failure(failed, int(status[failed]))

    def _run_part(self, thread: int, begin: int, end: int) -> None:
        """step_copies over copies [begin, end) with thread `thread`'s scratch, then their used-up noise drawn."""
        self._calls.call(step_copies, thread, self._arrays, self._modes, self._actions, begin, end, self._shared,
                         self._rig, self._scratch[thread], self._outputs)
        used_up = self._outputs.noise_used[begin:end] >= self._noise_blocks
        if used_up.any():
            self._draw_noise(begin + np.flatnonzero(used_up))

    def _raise_failure(self, k: int, status: int) -> None:
        steps = int(self._outputs.steps[k])
        if status == DIVERGED:
            raise SimulationDiverged(f"copy {k}: non-finite state at t={steps * self.dt:.4f} s (step {steps}); "
                                     "try a smaller <simul_timestep> or check masses and controller gains")
        if status == SCAN_FAILED:
            raise MemoryError(f"copy {k}: the Box2D shim's ray scan failed")
        if status == NOISE_USED_UP:
            raise AssertionError(f"copy {k}: its lidar noise drawn ahead was used up")
        raise AssertionError(f"copy {k}: Box2D's step failed an internal check at step {steps + 1}")

    def _observations(self) -> dict[str, np.ndarray]:
        if self.copy:
            return {key: value.copy() for key, value in self._observation.items()}
        return self._observation

    def _infos(self, resets: np.ndarray) -> dict[str, Any]:
        """MvsimEnv's info entries of every copy, batched as VectorEnv._add_info batches them."""
        everyone = np.ones(self.num_envs, dtype=bool)
        times = self._outputs.steps * self.dt
        times[resets] = 0.0
        collision = self._outputs.collided.copy()
        collision[resets] = False
        infos = {"time": times, "_time": everyone, "collision": collision, "_collision": everyone.copy(),
                 "action_limits": np.tile(self.action_limits, (self.num_envs, 1)), "_action_limits": everyone.copy()}
        return self._tasks.add_infos(infos, self._add_info)


__all__ = ["MvsimBatchEnv", "NOISE_BLOCKS", "THREAD_MIN_COPIES", "default_threads"]
