"""MvsimEnv: a Gymnasium environment over any world file, one controlled vehicle, no ROS.

Each `step(action)` sets the vehicle's command (held for the whole step: the command watchdog is off), advances
the simulation exactly round(step_s / dt) physics steps (`Simulation.step_many`), then measures the vehicle's
sensors. `reset(seed=...)` rebuilds the simulation from the world spec, and the sensors with noise generators
drawn from the env's seeded generator: the same seed and the same actions give a bit-identical episode.

Actions are normalised to [-1, 1] by default (control.py); `render_mode` 'rgb_array' gives a top-down picture of
the world (rendering/top_view.py), 'human' shows it in a window (rendering/window.py; offered where a display
exists).
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from mvsim_ros.gym import arguments
from mvsim_ros.gym.control import ACTION_UNITS, CONTROL_MODES, VehicleControl, action_limits_argument
from mvsim_ros.gym.observe import ODOMETRY_KEY, POSE_KEY, Observer, clip_into
from mvsim_ros.gym.rendering import HumanWindow, TopView, display_available, path_points
from mvsim_ros.gym.task import FreeDrive, Task, as_pose
from mvsim_ros.gym.worlds import resolve_world
from mvsim_ros.physics import Simulation
from mvsim_ros.world import load_world
from mvsim_ros.world.specs import WorldSpec

#: Simulated seconds per env step by default [s].
DEFAULT_STEP_S = 0.05
#: Env steps before an episode is truncated by default (50 s of simulated time at the default step).
DEFAULT_MAX_EPISODE_STEPS = 1000
#: Accepted `step_s` [s] (also at least one physics step of the world once rounded).
STEP_S_RANGE = arguments.Interval(0.0, arguments.MAX_STEP_S, low_open=True, unit="s")
#: Render modes: a top-down picture as an array, or shown in a window (where a display exists).
RENDER_MODES = ("rgb_array", "human")


def render_modes() -> list[str]:
    """The render modes offered here: 'human' only where a window can be shown (rendering.display_available)."""
    return [mode for mode in RENDER_MODES if mode != "human" or display_available()]


def render_mode_argument(render_mode) -> str | None:
    """`render_mode` checked: None or one of render_modes(); 'human' without a display is a ValueError saying
    so."""
    if render_mode is None:
        return None
    arguments.choice("render_mode", render_mode, RENDER_MODES)
    if render_mode not in render_modes():
        raise ValueError("Expected `render_mode` to be one of this machine's render modes ['rgb_array'], actual: "
                         "'human', which shows frames in a window and needs a display (neither DISPLAY nor "
                         "WAYLAND_DISPLAY is set); use render_mode='rgb_array' (e.g. with "
                         "gymnasium.wrappers.RecordVideo)")
    return render_mode


def load_world_spec(world: str | os.PathLike | WorldSpec, world_seed: int) -> WorldSpec:
    """The world spec: given, or loaded from a file (see worlds.resolve_world for where it is looked for).
    TypeError for a `world` that is none of these or a `world_seed` that is no integer, ValueError for a negative
    `world_seed`."""
    world_seed = arguments.integer("world_seed", world_seed, 0)
    if isinstance(world, WorldSpec):
        return world
    if not isinstance(world, (str, os.PathLike)):
        raise TypeError(f"Expected `world` to be a world file (str or path) or a WorldSpec, actual type: "
                        f"{type(world).__name__} ({world!r})")
    return load_world(resolve_world(world), random_seed=world_seed)


def task_spaces(task: Task) -> dict[str, spaces.Space]:
    """The task's observation entries; TypeError unless a dict of Spaces, ValueError for a key the env uses."""
    extra = task.observation_spaces()
    if not isinstance(extra, dict) or not all(isinstance(space, spaces.Space) for space in extra.values()):
        raise TypeError(f"Expected `task.observation_spaces()` to return a dict of gymnasium Spaces, actual: {extra!r}")
    taken = sorted(set(extra) & {POSE_KEY, ODOMETRY_KEY})
    if taken:
        raise ValueError(f"Expected `task`'s observation keys to differ from the env's own ({POSE_KEY!r}, "
                         f"{ODOMETRY_KEY!r}), actual: {sorted(extra)}")
    return extra


class MvsimEnv(gymnasium.Env):
    """One vehicle of a world, driven by actions, observed through its sensors.

    world: a world file (str or path, or a name under the repository's worlds/) or a loaded WorldSpec.
    vehicle: the controlled vehicle's name (str) or index (int in [0, vehicles - 1]); None: the first.
    task: reward, termination and extra observations (task.Task; default: FreeDrive, reward 0).
    step_s: simulated seconds per env step [s], in (0, MAX_STEP_S]; rounded to a whole number of physics steps,
    at least one.
    max_episode_steps: env steps after which an episode is truncated (an int >= 1; None: never).
    control: 'twist' (v [m/s], omega [rad/s]) or 'ackermann' (speed [m/s], steering angle [rad]); None: Ackermann
    for Ackermann vehicles, twist for the others.
    cameras: observe the vehicle's RGB cameras too (needs OpenGL).
    sensor_noise: False turns the lidars' noise off.
    world_seed: seed of the world file's rand()/randn() expressions (an int >= 0).
    render_mode: None, 'rgb_array' (render() returns a top-down picture, uint8 (H, W, 3)) or 'human' (shown in a
    window at every reset and step; offered where a display exists).
    action_units: 'normalized' (Box(-1, 1): an action is a fraction of the limits) or 'physical' (the command's
    own units, m/s and rad/s or rad).
    action_limits: (speed [m/s], yaw rate [rad/s] or steering [rad]) limits a normalised action scales to and a
    physical one is clipped to, each None or a positive number, at most the simulator's command bounds (None: those
    bounds; control.py). `env.action_limits` and every info's 'action_limits' hold them.
    Arguments of the wrong type raise a TypeError, values out of range a ValueError, both naming the argument
    (mvsim_ros.gym.arguments). The task's observation entries are clipped into their Box spaces.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1.0 / DEFAULT_STEP_S}

    def __init__(self, world: str | os.PathLike | WorldSpec, vehicle: str | int | None = None,
                 task: Task | None = None, step_s: float = DEFAULT_STEP_S,
                 max_episode_steps: int | None = DEFAULT_MAX_EPISODE_STEPS,
                 control: str | None = None, cameras: bool = False, sensor_noise: bool = True, world_seed: int = 0,
                 render_mode: str | None = None, action_units: str = "normalized",
                 action_limits: tuple[float | None, float | None] | None = None):
        arguments.vehicle_type(vehicle)
        self.render_mode = render_mode_argument(render_mode)
        arguments.choice("action_units", action_units, ACTION_UNITS)
        action_limits = action_limits_argument(action_limits)
        if task is not None and not isinstance(task, Task):
            raise TypeError("Expected `task` to be a Task (observation_spaces, reset, observe, reward, terminated "
                            f"and info methods) or None, actual type: {type(task).__name__} ({task!r})")
        step_s = arguments.real("step_s", step_s, STEP_S_RANGE)
        max_episode_steps = arguments.optional_integer("max_episode_steps", max_episode_steps, 1)
        if control is not None:
            arguments.choice("control", control, CONTROL_MODES)
        cameras = arguments.flag("cameras", cameras)
        sensor_noise = arguments.flag("sensor_noise", sensor_noise)
        self.world = load_world_spec(world, world_seed)
        if not self.world.vehicles:
            raise ValueError("the world has no vehicle to control")
        self.sim = Simulation(self.world, command_timeout=0.0)  # no watchdog: an action holds for its whole step
        self.vehicle = arguments.vehicle_index(vehicle, list(self.sim.vehicle_names))
        self.dt = self.sim.dt
        self.steps_per_action = int(round(step_s / self.dt))
        if self.steps_per_action < 1:
            raise ValueError(f"Expected `step_s` to be at least one physics step (rounded to whole steps of "
                             f"dt = {self.dt:g} s) and at most {arguments.MAX_STEP_S:g} s, actual: {step_s!r} "
                             "(less than one physics step)")
        #: Simulated seconds per env step [s]: step_s rounded to whole physics steps.
        self.step_s = self.steps_per_action * self.dt
        self.max_episode_steps = max_episode_steps
        self.task = task if task is not None else FreeDrive()
        self.control = VehicleControl(self.sim, self.vehicle, control, action_units, action_limits)
        self.action_space = self.control.action_space
        #: The action limits [m/s; rad/s or rad] (what a normalised action of 1 commands), float64.
        self.action_limits = self.control.high.copy()
        self.metadata = {"render_modes": render_modes(), "render_fps": 1.0 / self.step_s}
        extra = task_spaces(self.task)
        self._task_boxes = {key: space for key, space in extra.items()
                            if isinstance(space, spaces.Box) and np.issubdtype(space.dtype, np.floating)}
        self.observer = Observer(self.world, self.vehicle, cameras=cameras, sensor_noise=sensor_noise,
                                 reserved=tuple(extra))
        self.observation_space = spaces.Dict({**self.observer.spaces, **extra})
        self.elapsed_steps = 0
        self.collided = False
        self.view = TopView(self.world, self.vehicle, path_points(getattr(self.task, "path", None)))
        self.window = None

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
        observation, info = self._observe(), self._info()
        if self.render_mode == "human":
            self._show()
        return observation, info

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
        info = self._info()
        if self.render_mode == "human":
            self._show()
        return observation, reward, terminated, bool(truncated), info

    def render(self) -> np.ndarray | None:
        """'rgb_array': the top-down picture now, uint8 (H, W, 3) (rendering/top_view.py); 'human': shows it in the
        window and returns None (reset and step show every frame already); None: a warning, as Gymnasium's environments
        give, and None."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode. Give "
                                  "render_mode='rgb_array' or 'human' to the constructor (or gymnasium.make).")
            return None
        if self.render_mode == "human":
            self._show()
            return None
        return self.picture()

    def picture(self) -> np.ndarray:
        """The top-down picture of the simulation now (the controlled vehicle's lidar rays, the task's goal when
        it has one), uint8 (H, W, 3)."""
        goal = getattr(self.task, "goal", None)
        try:
            goal = None if goal is None else as_pose(goal, "the task's goal")
        except (TypeError, ValueError):
            goal = None  # a task's own attribute of another kind: not drawn
        return self.view.frame(self.sim, self.observer.scan_rays(), goal)

    def close(self) -> None:
        """Close the window of render_mode='human' (nothing else holds resources)."""
        if self.window is not None:
            self.window.close()
            self.window = None

    def _show(self) -> None:
        if self.window is None:
            self.window = HumanWindow(f"mvsim: {self.sim.vehicle_names[self.vehicle]}", self.metadata["render_fps"])
        self.window.show(self.picture())

    def _observe(self) -> dict[str, np.ndarray]:
        """The observer's entries (bounded as measured) and the task's, clipped into their spaces."""
        observation = self.observer.measure(self.sim)
        for key, value in self.task.observe(self).items():
            box = self._task_boxes.get(key)
            observation[key] = value if box is None else clip_into(value, box)
        return observation

    def _info(self) -> dict[str, Any]:
        return {"time": float(self.sim.time), "collision": self.collided, "action_limits": self.action_limits.copy(),
                **self.task.info(self)}
