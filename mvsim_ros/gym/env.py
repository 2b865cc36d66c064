"""MvsimEnv: a Gymnasium environment over any world file, one controlled vehicle, no ROS.

Each `step(action)` sets the vehicle's command (held for the whole step: the command watchdog is off), advances
the simulation exactly round(step_s / dt) physics steps (`Simulation.step_many`), then measures the vehicle's
sensors. `reset(seed=...)` rebuilds the simulation from the world spec, and the sensors with noise generators
drawn from the env's seeded generator: the same seed and the same actions give a bit-identical episode.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from mvsim_ros.gym.control import VehicleControl
from mvsim_ros.gym.observe import Observer
from mvsim_ros.gym.task import FreeDrive, Task, as_pose
from mvsim_ros.gym.worlds import resolve_world
from mvsim_ros.physics import Simulation
from mvsim_ros.world import load_world
from mvsim_ros.world.specs import WorldSpec

#: Simulated seconds per env step by default [s].
DEFAULT_STEP_S = 0.05
#: Env steps before an episode is truncated by default (50 s of simulated time at the default step).
DEFAULT_MAX_EPISODE_STEPS = 1000


def load_world_spec(world: str | Path | WorldSpec, world_seed: int) -> WorldSpec:
    """The world spec: given, or loaded from a file (see worlds.resolve_world for where it is looked for)."""
    if isinstance(world, WorldSpec):
        return world
    return load_world(resolve_world(world), random_seed=world_seed)


class MvsimEnv(gymnasium.Env):
    """One vehicle of a world, driven by actions, observed through its sensors.

    world: a world file (path, or a name under the repository's worlds/) or a loaded WorldSpec.
    vehicle: the controlled vehicle's name or index (default: the first).
    task: reward, termination and extra observations (task.Task; default: FreeDrive, reward 0).
    step_s: simulated seconds per env step [s] (a whole number of physics steps, at least one).
    max_episode_steps: env steps after which an episode is truncated (None: never).
    control: 'twist' (v [m/s], omega [rad/s]) or 'ackermann' (speed [m/s], steering angle [rad]); None: Ackermann
    for Ackermann vehicles, twist for the others.
    cameras: observe the vehicle's RGB cameras too (needs OpenGL).
    sensor_noise: False turns the lidars' noise off.
    world_seed: seed of the world file's rand()/randn() expressions.
    """

    metadata = {"render_modes": []}

    def __init__(self, world: str | Path | WorldSpec, vehicle: str | int | None = None, task: Task | None = None,
                 step_s: float = DEFAULT_STEP_S, max_episode_steps: int | None = DEFAULT_MAX_EPISODE_STEPS,
                 control: str | None = None, cameras: bool = False, sensor_noise: bool = True, world_seed: int = 0):
        self.world = load_world_spec(world, world_seed)
        if not self.world.vehicles:
            raise ValueError("the world has no vehicle to control")
        self.sim = Simulation(self.world, command_timeout=0.0)  # no watchdog: an action holds for its whole step
        if vehicle is None:
            vehicle = 0
        self.vehicle = self.sim.vehicle_index(vehicle) if isinstance(vehicle, str) else int(vehicle)
        if not 0 <= self.vehicle < len(self.sim.vehicle_names):
            raise ValueError(f"no vehicle with index {vehicle}; vehicles: {', '.join(self.sim.vehicle_names)}")
        self.dt = self.sim.dt
        if not math.isfinite(step_s):
            raise ValueError(f"step_s must be finite, got {step_s}")
        self.steps_per_action = int(round(float(step_s) / self.dt))
        if self.steps_per_action < 1:
            raise ValueError(f"step_s={step_s} s is less than one physics step (dt={self.dt} s)")
        #: Simulated seconds per env step [s]: step_s rounded to whole physics steps.
        self.step_s = self.steps_per_action * self.dt
        if max_episode_steps is not None and max_episode_steps < 1:
            raise ValueError(f"max_episode_steps must be >= 1 or None, got {max_episode_steps}")
        self.max_episode_steps = max_episode_steps
        self.task = task if task is not None else FreeDrive()
        self.control = VehicleControl(self.sim, self.vehicle, control)
        self.action_space = self.control.action_space
        extra = self.task.observation_spaces()
        self.observer = Observer(self.world, self.vehicle, cameras=cameras, sensor_noise=sensor_noise,
                                 reserved=tuple(extra))
        self.observation_space = spaces.Dict({**self.observer.spaces, **extra})
        self.elapsed_steps = 0
        self.collided = False

    # -- state a task reads ----------------------------------------------------------------------------------
    @property
    def pose(self) -> np.ndarray:
        """The controlled vehicle's (x [m], y [m], yaw [rad]) in the world frame (a copy)."""
        return self.sim.pose[self.vehicle].copy()

    @property
    def twist(self) -> np.ndarray:
        """The controlled vehicle's (vx [m/s], vy [m/s], omega [rad/s]) in its own frame (ground truth)."""
        return self.sim.body_twist()[self.vehicle].copy()

    def place(self, x: float, y: float, yaw: float) -> None:
        """Teleport the controlled vehicle to (x, y) [m] heading yaw [rad], at rest (Simulation.set_vehicle_state)."""
        self.sim.set_vehicle_state(self.vehicle, x, y, yaw)

    # -- Gymnasium API ---------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start an episode on a new simulation of the world. options: 'start_pose' (x, y[, yaw]) [m, m, rad]
        places the vehicle; the task reads the rest (e.g. 'goal'). Returns (observation, info)."""
        super().reset(seed=seed)
        options = dict(options or {})
        self.sim = Simulation(self.world, command_timeout=0.0)
        if options.get("start_pose") is not None:
            self.place(*as_pose(options["start_pose"], "options['start_pose']"))
        self.observer.reset(int(self.np_random.integers(0, 2**63 - 1)))
        self.task.reset(self, self.np_random, options)
        self.sim.take_collisions()
        self.elapsed_steps = 0
        self.collided = False
        return self._observe(), self._info()

    def step(self, action) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Apply `action` for step_s simulated seconds; returns (observation, reward, terminated, truncated,
        info). info: 'time' [s], 'collision' (touched something during the step), and the task's entries."""
        self.control.apply(self.sim, action)
        self.sim.step_many(self.steps_per_action)
        self.collided = bool(self.sim.take_collisions()[self.vehicle])
        self.elapsed_steps += 1
        observation = self._observe()
        reward = float(self.task.reward(self))
        terminated = bool(self.task.terminated(self))
        truncated = self.max_episode_steps is not None and self.elapsed_steps >= self.max_episode_steps
        return observation, reward, terminated, bool(truncated), self._info()

    def _observe(self) -> dict[str, np.ndarray]:
        return {**self.observer.measure(self.sim), **self.task.observe(self)}

    def _info(self) -> dict[str, Any]:
        return {"time": float(self.sim.time), "collision": self.collided, **self.task.info(self)}
