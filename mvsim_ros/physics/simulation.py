"""The simulation: one fixed-step `step()` running the phases of step_phases.STEP_PHASES in their order, all
wheels of all vehicles at once, or many steps in one compiled call (`step_many`, compiled_steps.py)."""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.core.jit import FixedTypeCalls
from mvsim_ros.physics import box2d_native
from mvsim_ros.physics.kinematic.actor_paths import ActorPath
from mvsim_ros.physics.bodies import Box2DWorld, build_box2d_world
from mvsim_ros.physics.command_limits import CommandLimits
from mvsim_ros.physics.commands import VehicleCommands
from mvsim_ros.physics.compiled_steps import (DIVERGED, RAN, compiled_steps_refusals, run_steps, step_engine,
                                              step_model)
from mvsim_ros.physics.controllers import WheelControllers, pid_torque_law
from mvsim_ros.physics.entity_state import checked_state, joined_set, place_rigidly
from mvsim_ros.physics.friction.groups import apply_region_overrides, friction_groups, region_overrides
from mvsim_ros.physics.kinematic.movers import KinematicMovers, actor_path, block_path
from mvsim_ros.physics.kinematic.twist_ideal import follow_twists
from mvsim_ros.physics.friction import FrictionInputs, solve_wheels
from mvsim_ros.physics.sim_state import SimulationState, StateRows, StepGroups
from mvsim_ros.physics.state_views import SimulationViews, local_twist
from mvsim_ros.physics.step_data import OdometryData, StartState, StepFrame, WheelMounts, step_workspace
from mvsim_ros.physics.step_phases import (BODY_FORCES, BOX2D_STEP, CONTROLLERS, FRICTION, INPUTS, SNAPSHOT,
                                           STEP_PHASES, TERRAIN, WHEEL_KINEMATICS, acceleration, advance_spin_angles,
                                           applied_torque, reference_point_state, state_is_finite)
from mvsim_ros.physics.terrain import Terrain
from mvsim_ros.physics.terrain.contacts import add_body_gravity, wheel_frame_slopes
from mvsim_ros.physics.vehicles.articulated import (Articulations, articulated_wheel_setpoints, articulation_targets,
                                                    integrate_articulated_odometry, pivot_motor_speeds)
from mvsim_ros.physics.vehicles.differential import integrate_differential_odometry, odometry_wheel_pairs
from mvsim_ros.physics.vehicles.fleet import Drivetrains, Steering, wheel_setpoints
from mvsim_ros.physics.wheels import WheelArrays, body_wrenches, contact_velocities, wheel_world_positions
from mvsim_ros.world.specs import WorldSpec

#: Wheel spin angles are wrapped into [-pi, pi) every this many steps (MVSim wraps them past 1e4 rad; a wheel at
#: 1,000 rad/s turns 5e3 rad in 1,000 steps of 5 ms); a compiled run stops there (`longest_compiled_run`).
PHI_WRAP_CHECK_STEPS = 1000


class SimulationDiverged(RuntimeError):
    """The state became non-finite (NaN or infinity); the simulation refuses to carry on."""


def _c_float_arrays(start: StartState) -> bool:
    """Whether the start state is three C-contiguous float64 arrays (the types the compiled runners were typed for)."""
    return all(a.dtype == np.float64 and a.flags.c_contiguous for a in start)


class Simulation(SimulationViews):
    """Vehicles and blocks of a WorldSpec, advanced by `step()`.

    State after each step (arrays over vehicles, SI units, world frame unless said):
      pose[i] = (x, y, yaw) of the vehicle reference point [m, m, rad];
      velocity[i] = (vx, vy, omega) of the reference point, world frame [m/s, m/s, rad/s];
      acceleration[i] = (ax, ay, alpha): its change over the last step [m/s^2, m/s^2, rad/s^2];
      odom_pose[i], odom_twist[i] = (v, omega): wheel odometry, starting at the initial pose;
      collision_now[i]: touching something solid; wheels.*: per-wheel state (see WheelArrays);
      body_pose, body_velocity: the same as pose/velocity for every body, vehicles first, then the front units
      of articulated vehicles (see `articulations` for their pivot angles);
      vehicle_z, vehicle_pitch, vehicle_roll, vehicle_vz (and body_* for every body): the third dimension, from the
      terrain under the wheels [m, rad, rad, m/s]; pose3 / body_pose3 = (x, y, z, yaw, pitch, roll);
      orientation(): quaternions (x, y, z, w). Angles follow REP-103 with R = Rz(yaw) Ry(pitch) Rx(roll):
      pitch > 0 is nose DOWN (a vehicle facing uphill has pitch < 0), roll > 0 lifts the left side. On flat
      ground (no terrain in the world) they are all 0 and cost nothing.
    `terrain`: the terrain phase (physics/terrain): `ground_height(x, y, z_ref)`, surfaces, slope loads.
    `command_timeout` [s]: watchdog on twist commands given through `set_twist` (0: off).
    `limits`: the bounds every command is clamped to when it is set (see command_limits), fixed at construction.
    `box2d`: the Box2D bodies to simulate, already in the world's order (world_edit.py hands over a running
    world's bodies this way); None builds them from the spec. `box2d_shim`: False drives the bodies through
    pybox2d's Python API even where the Box2D shim is loaded (the same numbers; no compiled steps then).

    What the step runs on and carries: `step_groups` (sim_state.StepGroups: the named groups of arrays the phases
    take, for this step and the compiled steps alike) and `get_state()` / `set_state()` (sim_state.SimulationState:
    everything a step carries to the next besides Box2D's bodies); `compiled_steps_refusals` says why `step_many`
    cannot compile this world's steps, `longest_compiled_run` how many steps one compiled run takes at most.
    """

    def __init__(self, world: WorldSpec, command_timeout: float = 0.0, box2d: Box2DWorld | None = None,
                 box2d_shim: bool = True):
        self.spec = world
        self.command_timeout = float(command_timeout)
        self.dt = float(world.timestep)
        self.time = 0.0
        self.steps = 0
        self.gravity = float(world.gravity)
        self.vehicle_names = [v.name for v in world.vehicles]
        self._index = {name: i for i, name in enumerate(self.vehicle_names)}
        n = len(world.vehicles)

        self.actor_paths = [ActorPath(actor) for actor in world.actors]
        self.box2d = build_box2d_world(world) if box2d is None else box2d
        self._animated = np.array([i for i, b in enumerate(world.blocks) if b.animation is not None], dtype=np.intp)
        self.movers = KinematicMovers(
            [self.box2d.blocks[i] for i in self._animated.tolist()] + self.box2d.actors,
            [block_path(world.blocks[i]) for i in self._animated.tolist()] + [actor_path(p) for p in self.actor_paths])
        #: (x, y, z, yaw, pitch, roll) of each block [m, rad] as last written: z by the terrain phase (with x, y, yaw
        #: of the blocks that move), x, y, yaw of every block by block_poses3().
        self.block_pose3 = np.array([(b.init_pose.x, b.init_pose.y, b.init_pose.z, b.init_pose.yaw,
                                      b.init_pose.pitch, b.init_pose.roll) for b in world.blocks],
                                    dtype=float).reshape(-1, 6)
        self.wheels = WheelArrays.from_vehicles(world.vehicles, self.gravity)
        self.controllers = WheelControllers.from_vehicles(world.vehicles)
        self.limits = CommandLimits.from_world(world)
        self.controllers.raw_torque[:] = self.limits.clamp_torques(np.arange(self.wheels.count),
                                                                   self.controllers.raw_torque)
        self.commands = VehicleCommands(
            [v.controller.params.get("V", 0.0) for v in world.vehicles],
            [v.controller.params.get("W", 0.0) for v in world.vehicles],
            [v.controller.params.get("STEER_ANG", v.controller.params.get("steer_ang_deg", 0.0))
             for v in world.vehicles],
            [v.controller.kind in ("front_steer_pid", "raw") for v in world.vehicles],
            command_timeout,
            self.limits,
        )
        offsets = np.cumsum([0] + [len(v.wheels) for v in world.vehicles]).tolist()
        self.steering = Steering.build(world.vehicles, offsets)
        self.drivetrains = Drivetrains.build(world.vehicles, offsets)
        self.articulations = Articulations.build(world.vehicles, offsets)
        self._bodies = self.box2d.bodies
        differential = np.array([k for k, v in enumerate(world.vehicles) if v.articulation is None], dtype=np.intp)
        ideal = np.array([v.controller.kind == "twist_ideal" for v in world.vehicles], dtype=bool)
        self._casters = np.array([i for i, wheel in enumerate(w for v in world.vehicles for w in v.wheels)
                                  if wheel.name == "caster_wheel"], dtype=np.intp)
        self._ideal_wheels = ideal[self.wheels.vehicle] if n else np.zeros(0, dtype=bool)
        self._any_ideal = bool(ideal.any())

        w = self.wheels
        #: cos and sin of each wheel's yaw in its body's frame, as the last steering phase set them.
        self.wheel_cos, self.wheel_sin = np.cos(w.yaw), np.sin(w.yaw)
        com = self.box2d.body_com_local
        self._arm_x = w.x - com[w.body, 0]  # wheel position relative to its body's centre of mass [m]
        self._arm_y = w.y - com[w.body, 1]
        self._n = n
        self._feedforward = self._feedforward_coefficients()
        self.terrain = Terrain(world, w, self._arm_x, self._arm_y, self.gravity)
        self._wheel_mounts = WheelMounts(w.body, self._arm_x, self._arm_y)
        self._pivot_data = self.articulations.arrays()
        self.acceleration = np.zeros((n, 3))  # (ax, ay, alpha) of the reference point, world frame
        self.odom_pose = np.zeros((n, 3))  # the initial pose, set below
        self.odom_twist = np.zeros((n, 2))
        #: Odometry error multipliers (x, y, yaw) of each vehicle's increments (see vehicles/odometry.py).
        keys = ("x_multiplier", "y_multiplier", "yaw_multiplier")
        self.odom_scale = np.array([[v.odometry.get(key, 1.0) for key in keys] for v in world.vehicles],
                                   dtype=float).reshape(n, 3)
        left, right = odometry_wheel_pairs(w, n)
        self.step_groups = StepGroups(
            commands=self.commands.data, steering=self.steering.arrays(),
            wheels=w.arrays(self._arm_x, self._arm_y, self._casters), controllers=self.controllers.arrays(),
            odometry=OdometryData(differential, left, right, self.odom_pose, self.odom_twist, self.odom_scale),
            friction_groups=friction_groups(world, w.vehicle), region_overrides=region_overrides(world),
            slope_x=np.zeros(w.count), slope_y=np.zeros(w.count),
            max_torque=np.where(self.controllers.pid, self.controllers.max_torque, np.inf),
            max_spin=self.limits.max_spin, gravity=self.gravity, ideal=ideal,
            body_addresses=box2d_native.addresses(self._bodies) if box2d_native.AVAILABLE and box2d_shim else None)
        self._refusals = compiled_steps_refusals(self.step_groups, self.terrain.active, self.movers.count,
                                                 self.articulations.count, self.drivetrains.vehicle.size)
        self._compiled: tuple | None = None  # (Engine, StepModel, StepWorkspace), built at the first compiled run
        self._fixed_type_calls = FixedTypeCalls()
        code = {INPUTS: self._inputs, CONTROLLERS: self._controllers, WHEEL_KINEMATICS: self._kinematics,
                FRICTION: self._friction, BODY_FORCES: self._body_forces, BOX2D_STEP: self._box2d_step,
                SNAPSHOT: self._snapshot, TERRAIN: self._terrain_phase}
        self._phases = tuple(code[phase] for phase in STEP_PHASES)  # this Python step's code of each phase, in order
        self._read_bodies()
        self.terrain.seat(self.body_pose, w.normal_force, self.box2d.blocks, self.block_pose3, self.movers, 0.0)
        self.odom_pose[:] = self.pose
        body_v = local_twist(self.body_pose, self.body_velocity)
        self.odom_twist[:] = body_v[:n][:, [0, 2]]
        w.omega[:] = (body_v[w.body, 0] - body_v[w.body, 2] * w.y) / w.radius  # rolling at the start

    # -- state ----------------------------------------------------------------------------------------------
    def get_state(self) -> SimulationState:
        """A copy of the simulation's state: everything a step carries to the next besides Box2D's bodies (see
        sim_state.SimulationState)."""
        return SimulationState.read(self)

    def set_state(self, state: SimulationState) -> None:
        """Write `state` (of this simulation's world: get_state, or a state carried over by a world edit) into the
        simulation, in place. Raises ValueError, changing nothing, for a state whose arrays have other shapes."""
        state.write(self)

    def state_rows(self) -> StateRows:
        """What each row of each of the state's row spaces belongs to (which vehicle, wheel, block, ...), for
        carrying a state over to a simulation with other vehicles or blocks (sim_state.RowMap)."""
        return StateRows.build(self._n, self.wheels.vehicle, self.steering.vehicle, self.drivetrains.vehicle,
                               self.articulations.vehicle, len(self.spec.blocks), self._animated,
                               len(self.actor_paths), self.terrain.points.start)

    @property
    def compiled_steps_refusals(self) -> tuple[str, ...]:
        """Why `step_many` cannot run this world's steps in one compiled call, one phrase per reason (see
        compiled_steps.compiled_steps_refusals); () when it can."""
        return self._refusals

    @property
    def compiled_steps_unavailable(self) -> str:
        """compiled_steps_refusals as one line ("" when the steps compile)."""
        return ", ".join(self._refusals)

    @property
    def longest_compiled_run(self) -> int:
        """The most steps one compiled run takes (`run_compiled`): it stops after every step whose number is a
        multiple of this, for the wheel spin angles' wrap."""
        return PHI_WRAP_CHECK_STEPS

    # -- inputs ---------------------------------------------------------------------------------------------
    def vehicle_index(self, name: str) -> int:
        """Index of the named vehicle (KeyError listing the valid names if unknown)."""
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"no vehicle named {name!r}; vehicles: {', '.join(self.vehicle_names)}") from None

    def set_twist(self, index: int, v: float, omega: float) -> str | None:
        """Twist setpoint for vehicle `index`: forward speed v [m/s], yaw rate omega [rad/s].

        Ackermann vehicles steer to the angle that gives omega at v. Finite values beyond the vehicle's bounds
        (`limits.max_speed`, `limits.max_yaw_rate`) are clamped to them; returns a note saying what was clamped, or
        None. Raises ValueError for NaN/inf (the previous setpoint is kept).
        """
        return self.commands.set_twist(index, float(v), float(omega), self.time)

    def set_ackermann(self, index: int, speed: float, steering_angle: float,
                      steering_rate: float = 0.0) -> str | None:
        """Speed [m/s] and equivalent front steering angle [rad] for an Ackermann vehicle, or base_link speed and
        pivot angle gamma [rad] for an articulated one; steering_rate [rad/s] > 0 limits how fast the steering
        moves (within the vehicle's own limit for articulated ones). Finite values beyond the vehicle's bounds
        are clamped (returns a note saying what was, or None). Raises ValueError for NaN/inf (the previous
        command is kept) or a vehicle that cannot steer."""
        if index not in self.steering.vehicle and index not in self.articulations.vehicle:
            raise ValueError(f"vehicle '{self.vehicle_names[index]}' has no Ackermann or articulated steering")
        return self.commands.set_ackermann(index, float(speed), float(steering_angle), float(steering_rate),
                                           self.time)

    @property
    def steering_angles(self) -> dict[str, float]:
        """Current equivalent steering angle [rad] of each Ackermann vehicle, by name."""
        return {self.vehicle_names[k]: float(d) for k, d in zip(self.steering.vehicle.tolist(), self.steering.delta)}

    @property
    def articulation_angles(self) -> dict[str, float]:
        """Current pivot angle gamma = front yaw - rear yaw [rad] of each articulated vehicle, by name."""
        a = self.articulations
        return {self.vehicle_names[k]: float(g) for k, g in zip(a.vehicle.tolist(), a.gamma)}

    def set_wheel_torques(self, index: int, torques: list[float]) -> str | None:
        """Motor torques [N m] for the wheels of a raw-controlled vehicle, in world-file wheel order.

        Finite torques beyond a wheel's bound (`limits.max_torque`) are clamped to it; returns a note saying what
        was clamped, or None. Raises ValueError for the wrong count or NaN/inf (the previous torques are kept).
        """
        wheels = np.flatnonzero(self.wheels.vehicle == index)
        values = np.asarray(torques, dtype=float)
        if values.shape != wheels.shape or not np.all(np.isfinite(values)):
            raise ValueError(f"expected {wheels.size} finite torques, got {torques!r}")
        bounded = self.limits.clamp_torques(wheels, values)
        self.controllers.raw_torque[wheels] = bounded
        if np.array_equal(bounded, values):
            return None
        changed = np.flatnonzero(bounded != values)
        return "; ".join(f"wheel {int(j)} torque {values[j]:.6g} N m clamped to {bounded[j]:.6g} N m"
                         for j in changed.tolist())

    def set_vehicle_state(self, index: int, x: float, y: float, yaw: float, vx: float = 0.0, vy: float = 0.0,
                          omega: float = 0.0) -> None:
        """Teleport vehicle `index`: its reference point to (x, y) [m] with heading yaw [rad] and world-frame
        velocity (vx, vy) [m/s], yaw rate omega [rad/s], all in the world frame.

        Its articulated front unit and everything joined to it by world-file joints (trailers) move with it as one
        rigid set. Its wheels spin at the rolling rate of the new velocity, its controllers forget their history
        (integral and error terms); the current command stays. Wheel odometry (`odom_pose`) does not jump: it
        continues from where it was; `odom_twist` reports the new velocity. Raises ValueError (nothing changes)
        for an unknown index, a non-finite value or one beyond the world bounds, or a keyframe-animated block in
        the joined set.
        """
        self._place("vehicle", index, x, y, yaw, vx, vy, omega)

    def set_block_state(self, index: int, x: float, y: float, yaw: float, vx: float = 0.0, vy: float = 0.0,
                        omega: float = 0.0) -> None:
        """Teleport block `index` (world-file order): its origin to (x, y) [m], heading yaw [rad], with
        world-frame velocity (vx, vy) [m/s] and yaw rate omega [rad/s]; bodies joined to it move with it.

        Raises ValueError (nothing changes) as `set_vehicle_state` does, for a keyframe-animated block (its path
        drives it), and for a non-zero velocity when the set contains a static block.
        """
        self._place("block", index, x, y, yaw, vx, vy, omega)

    def _place(self, kind: str, index: int, x: float, y: float, yaw: float, vx: float, vy: float,
               omega: float) -> None:
        """set_vehicle_state / set_block_state: checks, the rigid move of the joined set, then its vehicles'
        wheels, controllers and twists brought in line with the new motion."""
        names = self.vehicle_names if kind == "vehicle" else [b.name for b in self.spec.blocks]
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < len(names):
            raise ValueError(f"no {kind} with index {index!r} (the world has {len(names)} {kind}s)")
        what = f"{kind} '{names[index]}'"
        state = checked_state(what, x, y, yaw, vx, vy, omega)
        group = joined_set(self.spec, kind, int(index))
        for b in group.blocks:
            block = self.spec.blocks[b]
            if b in self._animated:
                raise ValueError(f"{what}: block '{block.name}' follows its keyframe animation and cannot be placed")
            if block.static and any(state[3:]):
                raise ValueError(f"{what}: block '{block.name}' is static and cannot be given a velocity")
        unit_of = {k: j for j, k in enumerate(self.articulations.vehicle.tolist())}
        bodies = [self.box2d.vehicles[k] for k in group.vehicles]
        bodies += [self.box2d.units[unit_of[k]] for k in group.vehicles if k in unit_of]
        bodies += [self.box2d.blocks[b] for b in group.blocks]
        reference = self.box2d.vehicles[index] if kind == "vehicle" else self.box2d.blocks[index]
        place_rigidly(bodies, reference, *state)
        self._read_bodies()
        if self.terrain.active:
            moved_bodies = list(group.vehicles) + [self._n + unit_of[k] for k in group.vehicles if k in unit_of]
            self.terrain.settle(self.body_pose, self.wheels.normal_force, self.box2d.blocks, self.block_pose3,
                                self.movers, self.time, np.array(moved_bodies, dtype=np.intp),
                                np.array(group.blocks, dtype=np.intp))
        if self.articulations.count:
            self._read_pivots()
        moved = np.array(group.vehicles, dtype=np.intp)
        if moved.size:
            self.acceleration[moved] = 0.0
            body_v = local_twist(self.body_pose, self.body_velocity)
            self.odom_twist[moved] = body_v[moved][:, [0, 2]]
            w = self.wheels
            on = np.isin(w.vehicle, moved)
            w.omega[on] = (body_v[w.body[on], 0] - body_v[w.body[on], 2] * w.y[on]) / w.radius[on]
            self.controllers.reset(on)
            trains = self.drivetrains
            trains.motor.reset(np.isin(trains.vehicle, moved))

    # -- the step -------------------------------------------------------------------------------------------
    def step(self) -> None:
        """Advance the world by one fixed time step dt: the phases of step_phases.STEP_PHASES in their order;
        refuses to carry a non-finite state on (SimulationDiverged)."""
        frame = StepFrame()
        for phase in self._phases:
            phase(frame)
        if not state_is_finite(self.body_pose, self.wheels.omega):
            self._diverged()
        if self.steps % PHI_WRAP_CHECK_STEPS == 0:
            self._wrap_spin_angles()

    def _inputs(self, frame: StepFrame) -> None:
        """Latest valid command per vehicle, watchdog applied."""
        self.commands.apply_watchdog(self.time)

    def _controllers(self, frame: StepFrame) -> None:
        """Wheel angles, then per-wheel ground-speed setpoints -> torque laws (const - slope * omega_new);
        drivetrains split one motor torque over their wheels."""
        dt, w, commands, groups = self.dt, self.wheels, self.commands, self.step_groups
        frame.wanted, self.wheel_cos, self.wheel_sin, frame.omega_cmd = wheel_setpoints(
            commands.data, groups.steering, w.vehicle, w.x, w.y, w.yaw, dt)
        if self.articulations.count:
            self._steer_articulations(frame.wanted)
        if self._feedforward is not None and self.terrain.active:
            self._slope_feedforward()
        frame.torque_const, frame.torque_slope = pid_torque_law(frame.wanted, w.omega, w.radius, dt,
                                                                groups.controllers)
        trains = self.drivetrains
        if trains.vehicle.size:
            torques = trains.wheel_torques(commands.v[trains.vehicle], self.odom_twist[trains.vehicle, 0], w.omega,
                                           dt)
            frame.torque_const[trains.wheels] = torques
            frame.torque_slope[trains.wheels] = 0.0

    def _kinematics(self, frame: StepFrame) -> None:
        """Contact-point velocity of each wheel in its own frame."""
        w = self.wheels
        frame.yaw = self.body_pose[:, 2]
        frame.local_vx, frame.local_vy = contact_velocities(frame.yaw, self.body_velocity, w.body, w.x, w.y,
                                                            self.wheel_cos, self.wheel_sin)

    def _friction(self, frame: StepFrame) -> None:
        """One vectorised call per friction model -> ground force (wheel frame), new spin; on terrain the slope
        gravity of each wheel (from the last terrain phase) is turned into its steered frame first."""
        w, groups = self.wheels, self.step_groups
        if self.terrain.active:
            wheel_frame_slopes(self.terrain.slope, self.wheel_cos, self.wheel_sin, groups.slope_x, groups.slope_y)
        if groups.region_overrides:
            wheel_x, wheel_y = wheel_world_positions(self.body_pose, w.body, w.x, w.y)
            apply_region_overrides(groups.friction_groups, groups.region_overrides, wheel_x, wheel_y)
        if groups.one_friction_model:
            frame.force_lon, frame.force_lat, w.omega, frame.held = self._solve_wheels(groups.friction_groups[0],
                                                                                       None, frame)
        else:
            frame.force_lon, frame.force_lat, frame.held = np.zeros(w.count), np.zeros(w.count), np.zeros(w.count)
            for group in groups.friction_groups:
                i = group.index
                solved = self._solve_wheels(group, i, frame)
                frame.force_lon[i], frame.force_lat[i], w.omega[i], frame.held[i] = solved
        if self._casters.size:  # a caster swivels freely: it carries load and rolls, but takes no side force
            frame.force_lat[self._casters] = 0.0
        w.torque = applied_torque(frame.torque_const, frame.torque_slope, w.omega, groups.max_torque,
                                  groups.max_spin)
        if self.terrain.active:  # the slope force held at the contact patch, as the torque the drivetrain carries
            np.multiply(w.radius, frame.held, out=w.hold_torque)

    def _body_forces(self, frame: StepFrame) -> None:
        """One world-frame force and one torque about the centre of mass per body, handed to Box2D."""
        w = self.wheels
        world_fx, world_fy, torque_z = body_wrenches(frame.force_lon, frame.force_lat, self.wheel_cos, self.wheel_sin,
                                                     self._wheel_mounts, frame.yaw, w.force_x, w.force_y)
        if self.terrain.active:  # gravity along the ground, at each wheel (what the friction above holds back)
            add_body_gravity(world_fx, world_fy, torque_z, self.terrain.body_force, frame.yaw)
        if self._any_ideal:  # kinematic control: no wheel forces, the body gets its velocity directly
            for wrench in (world_fx, world_fy, torque_z):
                wrench[:self._n][self.step_groups.ideal] = 0.0
            self._drive_ideal(frame.omega_cmd, frame.wanted, self.dt)
        self._push_wrenches(world_fx, world_fy, torque_z)

    def _box2d_step(self, frame: StepFrame) -> None:
        """Animated blocks and actors get the velocities that land them on their paths, then Box2D steps."""
        if self.movers.count:
            self.movers.steer(self.time, self.dt)
        self._step_box2d(self.dt)

    def _snapshot(self, frame: StepFrame) -> None:
        """Body states read once, acceleration, wheel spin angles, odometry, the clock."""
        dt, w, odometry = self.dt, self.wheels, self.step_groups.odometry
        previous_velocity = self.velocity
        self._read_bodies()
        self.acceleration = acceleration(self.velocity, previous_velocity, dt)
        advance_spin_angles(w.phi, w.omega, dt)
        integrate_differential_odometry(w.omega, w.radius, w.y, odometry, dt)
        if self.articulations.count:
            self._read_pivots()
            integrate_articulated_odometry(w.omega, w.radius, w.y, self._pivot_data, odometry, dt)
        self.steps += 1
        self.time = self.steps * dt

    def _terrain_phase(self, frame: StepFrame) -> None:
        """The terrain under the new poses: z, pitch, roll, and the next step's slope loads."""
        if self.terrain.active:
            self.terrain.follow(self.body_pose, self.wheels.normal_force, self.box2d.blocks, self.block_pose3,
                                self.movers, self.time, self.dt)

    def _push_wrenches(self, world_fx: np.ndarray, world_fy: np.ndarray, torque_z: np.ndarray) -> None:
        """Each body's world-frame force [N] at its centre of mass and torque [N m], for the next Box2D step."""
        addresses = self.step_groups.body_addresses
        if addresses is not None:
            box2d_native.apply_wrenches(addresses, world_fx, world_fy, torque_z)
            return
        for body, f_x, f_y, t_z in zip(self._bodies, world_fx.tolist(), world_fy.tolist(), torque_z.tolist()):
            body.ApplyForceToCenter((f_x, f_y), True)
            body.ApplyTorque(t_z, True)

    def _step_box2d(self, dt: float) -> None:
        self.box2d.world.Step(dt, self.spec.b2d_vel_iters, self.spec.b2d_pos_iters)

    def _diverged(self) -> None:
        raise SimulationDiverged(
            f"non-finite state at t={self.time:.4f} s (step {self.steps}); "
            "try a smaller <simul_timestep> or check masses and controller gains"
        )

    def _wrap_spin_angles(self) -> None:
        phi = self.wheels.phi
        np.remainder(phi + math.pi, 2.0 * math.pi, out=phi)
        phi -= math.pi

    def _steer_articulations(self, wanted: np.ndarray) -> None:
        """Articulated vehicles: new pivot targets, the pivot motors' speeds, and their wheels' setpoints (the
        no-slip rolling speeds at the commanded base_link speed, written into `wanted`)."""
        a, commands = self.articulations, self.commands
        k = a.vehicle
        a.target[:] = articulation_targets(commands.v[k], commands.omega[k], commands.steer[k],
                                           commands.steer_mode[k], a.front_length, a.rear_length, a.max_angle,
                                           a.target)
        asked = commands.steer_rate[k]  # a command's steering-rate limit, within the vehicle's own
        rate = np.where(asked > 0, np.where(a.max_rate > 0, np.minimum(asked, a.max_rate), asked), a.max_rate)
        speeds = pivot_motor_speeds(a.target, a.gamma, a.gain, rate)
        for joint, speed in zip(self.box2d.pivots, speeds.tolist()):
            joint.motorSpeed = speed
        articulated_wheel_setpoints(commands.v[k], self._pivot_data, self.wheels.y, wanted)

    def _slope_feedforward(self) -> None:
        """The PIDs' feed-forward torques [N m] for this step (MVSim's slope compensation): the torque that holds
        the chassis weight on the slope, m g sin(uphill angle) R_mean, shared by two driven wheels (the whole of
        it for a drivetrain's motor), times feedforward_gain. Uphill angle: -pitch (pitch > 0 is nose down)."""
        wheel_coef, motor_coef = self._feedforward
        pitch = self.terrain.pitch
        np.multiply(wheel_coef, -np.sin(pitch[self.wheels.body]), out=self.controllers.feedforward)
        trains = self.drivetrains
        if trains.vehicle.size:
            np.multiply(motor_coef, -np.sin(pitch[trains.vehicle]), out=trains.motor.feedforward)

    def _feedforward_coefficients(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Per wheel and per drivetrain: feedforward_gain m_chassis g R_mean / driven wheels [N m] (the feed-forward
        torque on a 90 deg slope), or None when no controller asks for feed-forward."""
        if not (self.controllers.ff_gain.any() or self.drivetrains.motor.ff_gain.any()):
            return None
        vehicles = self.spec.vehicles
        scale = np.array([v.chassis.mass * self.gravity * np.mean([w.radius for w in v.wheels]) for v in vehicles])
        wheel_coef = self.controllers.ff_gain * scale[self.wheels.vehicle] / 2.0
        motor_coef = self.drivetrains.motor.ff_gain * scale[self.drivetrains.vehicle]
        return wheel_coef, motor_coef

    def _read_pivots(self) -> None:
        a = self.articulations
        for j, joint in enumerate(self.box2d.pivots):
            a.gamma[j], a.gamma_rate[j] = joint.angle, joint.speed

    def _solve_wheels(self, group, index, frame: StepFrame):
        """Friction model call for a group of wheels (index None: all wheels), honouring motor torque limits:
        (F_x, F_y, omega_new, F_hold), see friction.solve_wheels_into."""
        w, groups = self.wheels, self.step_groups
        inputs = FrictionInputs(frame.local_vx, frame.local_vy, w.omega, frame.torque_const, frame.torque_slope,
                                w.normal_force, groups.slope_x, groups.slope_y, w.radius, w.inertia_yy, w.mass)
        limit = groups.max_torque
        if index is not None:
            inputs, limit = FrictionInputs(*(a[index] for a in inputs)), limit[index]
        return solve_wheels(group.code, inputs, group.params, limit, self.gravity, self.dt)  # the group's params

    def _drive_ideal(self, omega_cmd: np.ndarray, wanted: np.ndarray, dt: float) -> None:
        """twist_ideal: the body follows the commanded twist exactly (kinematic/twist_ideal.py) and its wheels roll:
        they get their rolling spin and no ground force."""
        w = self.wheels
        follow_twists(self.box2d.vehicles, self.box2d.vehicle_com_local, self.pose, self.commands.v, omega_cmd,
                      np.flatnonzero(self.step_groups.ideal), dt)
        mask = self._ideal_wheels
        w.omega[mask] = wanted[mask] / w.radius[mask]
        w.force_x[mask] = 0.0
        w.force_y[mask] = 0.0
        w.hold_torque[mask] = 0.0

    def step_many(self, count: int) -> None:
        """Advance the world by `count` steps: the same states as `count` calls of `step()`, bit for bit.

        When the world allows (`compiled_steps_refusals` is empty) the steps run in compiled calls
        (compiled_steps.run_steps: the same phases and kernels, Box2D through the C shim); otherwise `step()` runs
        in a loop. Commands stay as they are during the call (the watchdog still applies at each step).
        Raises SimulationDiverged as `step()` does, at the step that diverged.
        """
        if count < 0:
            raise ValueError(f"step_many: count must be >= 0, got {count}")
        if self._refusals:
            for _ in range(count):
                self.step()
            return
        while count > 0:
            done, _ = self.run_compiled(count, run_steps)
            count -= done

    def run_compiled(self, count: int, runner, *extra) -> tuple[int, tuple]:
        """Up to `count` (>= 1) steps in one call of the compiled `runner`: run_steps, or a compiled function taking
        run_steps' arguments (count, steps, dt, wrap_every, start, engine, model, work) plus `extra` that calls it
        and does more between steps (e.g. ros/publishing/compiled/streams.py publishes), returning run_steps'
        (steps run, status) followed by its own results. The state the steps leave in the workspace is taken in as
        step_many does (and raises as it does); returns (steps run, the runner's own results). At most
        `longest_compiled_run` steps a run; only when `compiled_steps_refusals` is empty."""
        w, n, groups = self.wheels, self._n, self.step_groups
        if self._compiled is None:
            self._compiled = (step_engine(self.box2d, self.spec, groups.body_addresses), step_model(groups),
                              step_workspace(len(self._bodies), n, w.count))
        engine, model, work = self._compiled
        start = StartState(w.omega, self.body_pose, self.body_velocity)
        # The named data keeps its types for the simulation's life, and the start state is three float64 C arrays:
        # after the first call, each runner (with its extra arguments' types) is called without numba's typing.
        key = (runner, *map(type, extra)) if _c_float_arrays(start) else None
        args = (count, self.steps, self.dt, self.longest_compiled_run, start, engine, model, work, *extra)
        if key is None:
            done, status, *more = runner(*args)
        else:
            done, status, *more = self._fixed_type_calls.call(runner, key, *args)
        self.body_pose, self.body_velocity = work.pose.copy(), work.velocity.copy()
        self.acceleration, w.omega, w.torque = work.acceleration.copy(), work.spin.copy(), work.torque.copy()
        self.wheel_cos, self.wheel_sin = work.wheel_cos.copy(), work.wheel_sin.copy()
        self.pose, self.velocity = self.body_pose[:n], self.body_velocity[:n]
        self.steps += done
        self.time = self.steps * self.dt
        if status != RAN:
            if status == DIVERGED:
                self._diverged()
            raise AssertionError(f"Box2D's step failed an internal check at step {self.steps + 1}")
        if done and self.steps % self.longest_compiled_run == 0:
            self._wrap_spin_angles()
        return done, tuple(more)

    def run(self, duration: float) -> None:
        """Step for `duration` seconds of simulated time (rounded to whole steps)."""
        for _ in range(int(round(duration / self.dt))):
            self.step()

    # -- internals ------------------------------------------------------------------------------------------
    def _read_bodies(self) -> None:
        addresses = self.step_groups.body_addresses
        if addresses is not None:
            rows = box2d_native.read_bodies(addresses)
        else:
            rows = np.array([b.position.tuple + (b.angle,) + b.linearVelocity.tuple + (b.angularVelocity,)
                             for b in self._bodies], dtype=float).reshape(-1, 6)
        self.body_pose, self.body_velocity = reference_point_state(rows, self.box2d.body_com_local)
        self.pose, self.velocity = self.body_pose[:self._n], self.body_velocity[:self._n]
