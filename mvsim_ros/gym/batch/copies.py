"""One copy of a batched world: its simulation, its controlled vehicle's lidars, its task and its seeded
generator, reset exactly as MvsimEnv.reset resets (so that copy k and a single env given the same seed run the
same episodes), and the arrays the compiled step (kernel.py) advances it through.

The copy is also what its task sees as the env (task.py lists what a task reads): `sim`, `vehicle`, `pose`,
`twist`, `place`, `collided`, `step_s`, `elapsed_steps`. A task places the vehicle only in its `reset`.

Between env steps the copy's state lives in its compiled-step workspace; `share_workspace` makes the simulation's
pose, velocity, acceleration, wheel spin and torque arrays those of the workspace, so that `sim.pose` and the
other state views read the copy's current state without copying.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import seeding

from mvsim_ros.gym.batch.layout import CopyArrays
from mvsim_ros.gym.observe import Observer
from mvsim_ros.gym.task import Task, as_pose
from mvsim_ros.physics import Simulation, box2d_native
from mvsim_ros.physics.compiled_steps import step_engine, step_model
from mvsim_ros.physics.step_data import StepWorkspace, step_workspace
from mvsim_ros.world.specs import WorldSpec

#: Scans of noise drawn ahead per copy by default: a copy's lidars draw their generators' numbers this many scans
#: at a time (sensors/lidar2d.Lidar2D.noise_ahead), in the order single scans draw them.
NOISE_BLOCKS = 16


def share_workspace(sim: Simulation, work: StepWorkspace) -> None:
    """Make `sim`'s state arrays those of `work` (filled from them first): body_pose, body_velocity (pose and
    velocity their vehicle rows), acceleration, wheels.omega, wheels.torque, wheel_cos and wheel_sin, the arrays
    compiled_steps.run_steps leaves the state in. Simulation.run_compiled would copy them out after each run;
    sharing them costs nothing and reads the same numbers."""
    n = len(sim.vehicle_names)
    pairs = ((work.pose, sim.body_pose), (work.velocity, sim.body_velocity), (work.acceleration, sim.acceleration),
             (work.spin, sim.wheels.omega), (work.torque, sim.wheels.torque), (work.wheel_cos, sim.wheel_cos),
             (work.wheel_sin, sim.wheel_sin))
    for target, source in pairs:
        target[:] = source
    sim.body_pose, sim.body_velocity, sim.acceleration = work.pose, work.velocity, work.acceleration
    sim.pose, sim.velocity = work.pose[:n], work.velocity[:n]
    sim.wheels.omega, sim.wheels.torque = work.spin, work.torque
    sim.wheel_cos, sim.wheel_sin = work.wheel_cos, work.wheel_sin


class BatchCopy:
    """Copy of `world` whose vehicle `vehicle` is controlled, with its own `task`; observed as an Observer of
    `sensor_noise` measures (lidars, odometry, pose; no cameras). `step_s` [s]: simulated seconds per env step.
    `noise_blocks`: scans of lidar noise drawn ahead at a time."""

    def __init__(self, world: WorldSpec, vehicle: int, task: Task, step_s: float, sensor_noise: bool,
                 reserved: tuple[str, ...], noise_blocks: int = NOISE_BLOCKS):
        self.world, self.vehicle, self.task, self.step_s = world, vehicle, task, step_s
        self.observer = Observer(world, vehicle, sensor_noise=sensor_noise, reserved=reserved)
        self.noise_blocks = noise_blocks
        self.np_random: np.random.Generator | None = None
        self.sim: Simulation | None = None
        self.elapsed_steps = 0
        self.collided = False
        self.arrays: CopyArrays | None = None

    # -- what a task reads ------------------------------------------------------------------------------------
    @property
    def pose(self) -> np.ndarray:
        """The controlled vehicle's (x [m], y [m], yaw [rad]) in the world frame (a copy)."""
        return self.sim.pose[self.vehicle].copy()

    @property
    def twist(self) -> np.ndarray:
        """The controlled vehicle's (vx [m/s], vy [m/s], omega [rad/s]) in its own frame (ground truth)."""
        return self.sim.body_twist()[self.vehicle].copy()

    def place(self, x: float, y: float, yaw: float) -> None:
        """Teleport the controlled vehicle to (x, y) [m] heading yaw [rad], at rest (during the task's reset)."""
        self.sim.set_vehicle_state(self.vehicle, x, y, yaw)

    # -- episodes ---------------------------------------------------------------------------------------------
    def reset(self, seed: int | None, options: dict[str, Any]) -> None:
        """MvsimEnv.reset's steps: the generator (re)seeded when `seed` is given, a new simulation, the start pose
        of options['start_pose'], fresh lidars seeded from the generator, the task's reset, the contacts cleared;
        then the copy's compiled-step arrays (`arrays`) and its lidars' noise drawn ahead."""
        if seed is not None or self.np_random is None:
            self.np_random, _ = seeding.np_random(seed)
        self.sim = Simulation(self.world, command_timeout=0.0)
        if options.get("start_pose") is not None:
            self.place(*as_pose(options["start_pose"], "options['start_pose']"))
        self.observer.reset(int(self.np_random.integers(0, 2**63 - 1)))
        self.task.reset(self, self.np_random, options)
        self.sim.take_collisions()
        self.elapsed_steps = 0
        self.collided = False
        self.arrays = self._build_arrays()

    def _build_arrays(self) -> CopyArrays:
        sim, groups, lidars = self.sim, self.sim.step_groups, self.observer.lidars
        work = step_workspace(len(sim.box2d.bodies), len(sim.vehicle_names), sim.wheels.count)
        share_workspace(sim, work)
        world = sim.box2d.world
        hidden = [lidar.hidden_bodies(world) for lidar in lidars]
        contacts = sim.box2d.contacts
        return CopyArrays(
            engine=step_engine(sim.box2d, sim.spec, groups.body_addresses), model=step_model(groups), work=work,
            touching=contacts.touching, since_reset=contacts.since_reset, world=box2d_native.address(world),
            scene_index=lidars[0].static_index_address(world) if lidars else 0,
            hidden=np.concatenate(hidden or [np.zeros(0, np.intp)]).astype(np.intp),
            hidden_start=np.concatenate([[0], np.cumsum([h.size for h in hidden])]).astype(np.intp),
            noise=self.noise_buffer())

    def noise_buffer(self) -> np.ndarray:
        """A zeroed noise buffer for the copy's lidars: (noise_blocks, 2, rays), or one block when none is noisy
        (or sensor_noise is off)."""
        lidars = self.observer.lidars
        rays = sum(lidar.params.rays for lidar in lidars)
        noisy = self.observer.sensor_noise and any(lidar.noisy for lidar in lidars)
        return np.zeros((self.noise_blocks if noisy else 1, 2, rays))

    def draw_noise(self) -> None:
        """Fill the copy's noise with its lidars' next scans' errors (Lidar2D.noise_ahead, marked used)."""
        noise, start = self.arrays.noise, 0
        for lidar in self.observer.lidars:
            rays = lidar.params.rays
            if lidar.noisy:
                noise[:, :, start:start + rays] = lidar.noise_ahead(len(noise))
                lidar.skip_noise(len(noise))
            start += rays

    def catch_up(self, physics_steps: int, collided: bool, elapsed_steps: int) -> None:
        """Bring the Python side of the copy up to the compiled step's counters (before its task reads it): the
        simulation's step count and time, the collision flag and the episode's env steps."""
        self.sim.steps = physics_steps
        self.sim.time = physics_steps * self.sim.dt
        self.collided = collided
        self.elapsed_steps = elapsed_steps
