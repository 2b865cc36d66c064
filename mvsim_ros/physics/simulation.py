"""The simulation: one fixed-step `step()` in numbered phases, all wheels of all vehicles at once."""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.physics.bodies import build_box2d_world
from mvsim_ros.physics.commands import TwistCommands
from mvsim_ros.physics.controllers import WheelControllers
from mvsim_ros.physics.friction import FRICTION_MODELS
from mvsim_ros.physics.vehicles.differential import differential_odometry, odometry_wheel_pairs
from mvsim_ros.physics.wheels import WheelArrays
from mvsim_ros.world.specs import WorldSpec

#: Wheel spin angles are wrapped into [-pi, pi) once they grow past this [rad] (seed 001 wraps at 1e4).
PHI_WRAP_RAD = 1.0e4


class SimulationDiverged(RuntimeError):
    """The state became non-finite (NaN or infinity); the simulation refuses to carry on."""


class Simulation:
    """Vehicles and blocks of a WorldSpec, advanced by `step()`.

    State after each step (arrays over vehicles, SI units, world frame unless said):
      pose[i] = (x, y, yaw) of the vehicle reference point [m, m, rad];
      velocity[i] = (vx, vy, omega) of the reference point, world frame [m/s, m/s, rad/s];
      odom_pose[i], odom_twist[i] = (v, omega): wheel odometry, starting at the initial pose;
      collision_now[i]: touching something solid; wheels.*: per-wheel state (see WheelArrays).
    `command_timeout` [s]: watchdog on twist commands given through `set_twist` (0: off).
    """

    def __init__(self, world: WorldSpec, command_timeout: float = 0.0):
        self.spec = world
        self.dt = float(world.timestep)
        self.time = 0.0
        self.steps = 0
        self.gravity = float(world.gravity)
        self.vehicle_names = [v.name for v in world.vehicles]
        self._index = {name: i for i, name in enumerate(self.vehicle_names)}
        n = len(world.vehicles)

        self.box2d = build_box2d_world(world)
        self.wheels = WheelArrays.from_vehicles(world.vehicles, self.gravity)
        self.controllers = WheelControllers.from_vehicles(world.vehicles)
        self.commands = TwistCommands(
            [v.controller.params.get("V", 0.0) for v in world.vehicles],
            [v.controller.params.get("W", 0.0) for v in world.vehicles],
            command_timeout,
        )
        self._left, self._right = odometry_wheel_pairs(self.wheels, n)
        self._friction_groups = self._group_wheels_by_friction(world)

        w = self.wheels
        self._wheel_cos, self._wheel_sin = np.cos(w.yaw), np.sin(w.yaw)
        com = self.box2d.vehicle_com_local
        self._arm_x = w.x - com[w.vehicle, 0]  # wheel position relative to the centre of mass [m]
        self._arm_y = w.y - com[w.vehicle, 1]
        self._n = n
        self._max_torque = np.where(self.controllers.pid, self.controllers.max_torque, np.inf)

        self.pose = np.zeros((n, 3))
        self.velocity = np.zeros((n, 3))
        self._read_bodies()
        self.odom_pose = self.pose.copy()
        body_v = self.body_twist()
        self.odom_twist = body_v[:, [0, 2]].copy()
        w.omega[:] = (body_v[w.vehicle, 0] - body_v[w.vehicle, 2] * w.y) / w.radius  # rolling at the start

    # -- inputs ---------------------------------------------------------------------------------------------
    def vehicle_index(self, name: str) -> int:
        """Index of the named vehicle (KeyError listing the valid names if unknown)."""
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"no vehicle named {name!r}; vehicles: {', '.join(self.vehicle_names)}") from None

    def set_twist(self, index: int, v: float, omega: float) -> None:
        """Twist setpoint for vehicle `index`: forward speed v [m/s], yaw rate omega [rad/s].

        Raises ValueError for NaN/inf (the previous setpoint is kept).
        """
        self.commands.set(index, float(v), float(omega), self.time)

    def set_wheel_torques(self, index: int, torques: list[float]) -> None:
        """Motor torques [N m] for the wheels of a raw-controlled vehicle, in world-file wheel order."""
        wheels = np.flatnonzero(self.wheels.vehicle == index)
        values = np.asarray(torques, dtype=float)
        if values.shape != wheels.shape or not np.all(np.isfinite(values)):
            raise ValueError(f"expected {wheels.size} finite torques, got {torques!r}")
        self.controllers.raw_torque[wheels] = values

    # -- the step -------------------------------------------------------------------------------------------
    def step(self) -> None:
        """Advance the world by one fixed time step dt."""
        dt, w, veh = self.dt, self.wheels, self.wheels.vehicle

        # 1. Inputs: latest valid command per vehicle, watchdog applied.
        self.commands.apply_watchdog(self.time)

        # 2. Controllers: per-wheel ground-speed setpoints -> motor torque laws (const - slope * omega_new).
        wanted = self.commands.v[veh] - self.commands.omega[veh] * w.y
        torque_const, torque_slope = self.controllers.torque_law(wanted, w.omega, w.radius, dt)

        # 3. Wheel kinematics: contact-point velocity of each wheel in its own frame.
        cos_yaw, sin_yaw = np.cos(self.pose[:, 2]), np.sin(self.pose[:, 2])
        vx_world, vy_world, omega = self.velocity[:, 0], self.velocity[:, 1], self.velocity[:, 2]
        body_vx = cos_yaw * vx_world + sin_yaw * vy_world
        body_vy = -sin_yaw * vx_world + cos_yaw * vy_world
        wheel_vx = body_vx[veh] - omega[veh] * w.y
        wheel_vy = body_vy[veh] + omega[veh] * w.x
        local_vx = self._wheel_cos * wheel_vx + self._wheel_sin * wheel_vy
        local_vy = -self._wheel_sin * wheel_vx + self._wheel_cos * wheel_vy

        # 4. Friction: one vectorised call per friction model -> ground force (wheel frame), new spin.
        force_lon = np.empty(w.count)
        force_lat = np.empty(w.count)
        for model, idx in self._friction_groups:
            force_lon[idx], force_lat[idx], w.omega[idx] = model(
                local_vx[idx], local_vy[idx], w.omega[idx], torque_const[idx], torque_slope[idx],
                w.normal_force[idx], w.radius[idx],
                w.inertia_yy[idx], w.mass[idx], w.mu[idx], w.c_damping[idx], w.c_rr[idx], self.gravity, dt,
            )

        w.torque = np.clip(torque_const - torque_slope * w.omega, -self._max_torque, self._max_torque)

        # 5. Forces onto bodies: wheel forces to the vehicle frame, summed to one force + torque per body.
        w.force_x = self._wheel_cos * force_lon - self._wheel_sin * force_lat
        w.force_y = self._wheel_sin * force_lon + self._wheel_cos * force_lat
        torque_z = self._arm_x * w.force_y - self._arm_y * w.force_x
        n = self._n
        fx = np.bincount(veh, w.force_x, n)
        fy = np.bincount(veh, w.force_y, n)
        tz = np.bincount(veh, torque_z, n)
        world_fx = (cos_yaw * fx - sin_yaw * fy).tolist()
        world_fy = (sin_yaw * fx + cos_yaw * fy).tolist()
        for body, f_x, f_y, t_z in zip(self.box2d.vehicles, world_fx, world_fy, tz.tolist()):
            body.ApplyForceToCenter((f_x, f_y), True)
            body.ApplyTorque(t_z, True)

        # 6. Box2D step.
        self.box2d.world.Step(dt, self.spec.b2d_vel_iters, self.spec.b2d_pos_iters)

        # 7. Snapshot: body states once, wheel spin angles, odometry; refuse to carry NaN on.
        self._read_bodies()
        w.phi += w.omega * dt
        if np.any(np.abs(w.phi) > PHI_WRAP_RAD):
            w.phi = np.mod(w.phi + math.pi, 2.0 * math.pi) - math.pi
        self._integrate_odometry(dt)
        self.time = (self.steps + 1) * dt
        self.steps += 1
        if not (np.isfinite(self.pose).all() and np.isfinite(w.omega).all()):
            raise SimulationDiverged(
                f"non-finite state at t={self.time:.4f} s (step {self.steps}); "
                "try a smaller <simul_timestep> or check masses and controller gains"
            )

    def run(self, duration: float) -> None:
        """Step for `duration` seconds of simulated time (rounded to whole steps)."""
        for _ in range(int(round(duration / self.dt))):
            self.step()

    # -- state access ---------------------------------------------------------------------------------------
    def body_twist(self) -> np.ndarray:
        """(vx, vy, omega) of each vehicle's reference point in its own frame [m/s, m/s, rad/s]."""
        c, s = np.cos(self.pose[:, 2]), np.sin(self.pose[:, 2])
        vx, vy = self.velocity[:, 0], self.velocity[:, 1]
        return np.stack([c * vx + s * vy, -s * vx + c * vy, self.velocity[:, 2]], axis=1)

    @property
    def collision_now(self) -> np.ndarray:
        """True for vehicles touching a wall, block or other vehicle now."""
        return self.box2d.contacts.touching > 0

    def take_collisions(self) -> np.ndarray:
        """True for vehicles that touched something since the last call (or are touching now); resets."""
        counter = self.box2d.contacts
        hit = counter.since_reset | (counter.touching > 0)
        counter.since_reset[:] = False
        return hit

    def block_poses(self) -> np.ndarray:
        """(x, y, yaw) of each block [m, m, rad]."""
        rows = [(*b.position, b.angle) for b in self.box2d.blocks]
        return np.array(rows, dtype=float).reshape(-1, 3)

    # -- internals ------------------------------------------------------------------------------------------
    def _group_wheels_by_friction(self, world: WorldSpec):
        models = np.array([world.vehicles[v].friction.model for v in self.wheels.vehicle.tolist()], dtype=object)
        groups = []
        for name in sorted(set(models.tolist())):
            idx = np.flatnonzero(models == name)
            groups.append((FRICTION_MODELS[name], slice(None) if idx.size == models.size else idx))
        return groups

    def _read_bodies(self) -> None:
        rows = [(*b.position, b.angle, *b.linearVelocity, b.angularVelocity) for b in self.box2d.vehicles]
        state = np.array(rows, dtype=float).reshape(-1, 6)
        self.pose = state[:, :3]
        # Box2D reports the centre-of-mass velocity; the reference point moves at v_com + omega x (p - com).
        omega = state[:, 5]
        com = self.box2d.vehicle_com_local
        c, s = np.cos(state[:, 2]), np.sin(state[:, 2])
        com_x, com_y = c * com[:, 0] - s * com[:, 1], s * com[:, 0] + c * com[:, 1]
        self.velocity = np.stack([state[:, 3] + omega * com_y, state[:, 4] - omega * com_x, omega], axis=1)

    def _integrate_odometry(self, dt: float) -> None:
        v, omega = differential_odometry(self.wheels, self._left, self._right)
        heading = self.odom_pose[:, 2] + 0.5 * omega * dt
        self.odom_pose[:, 0] += v * np.cos(heading) * dt
        self.odom_pose[:, 1] += v * np.sin(heading) * dt
        self.odom_pose[:, 2] = np.mod(self.odom_pose[:, 2] + omega * dt + math.pi, 2.0 * math.pi) - math.pi
        self.odom_twist[:, 0] = v
        self.odom_twist[:, 1] = omega
