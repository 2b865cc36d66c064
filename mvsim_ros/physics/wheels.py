"""Wheel state for all vehicles as one struct of arrays; each vehicle owns a contiguous index range."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mvsim_ros.core.jit import kernel
from mvsim_ros.physics.step_data import ContactVelocity, WheelData, WheelForces, Wrenches
from mvsim_ros.physics.step_phases import inlined_kernel
from mvsim_ros.world.specs import VehicleSpec


@dataclass
class WheelArrays:
    """Per-wheel constants and state, all wheels of all vehicles together (length W).

    Geometry is in the frame of the wheel's body (origin at the vehicle reference point, or at the front axle of
    an articulated vehicle's front unit): x, y [m], yaw [rad].
    vehicle: owning vehicle index; body: index of the body carrying it (the vehicle's own, or for a front unit
    vehicle_count + its rank among the articulated vehicles); side: +1 left, -1 right, 0 other.
    State: omega [rad/s] spin rate, phi [rad] spin angle, torque [N m] last motor torque (the controller's),
    normal_force [N] load (on terrain: the level-ground share times the cosine of the body's tilt),
    force_x/force_y [N] last ground force in the frame of the wheel's body, hold_torque [N m] the torque the
    wheel's drivetrain carried over the last step to hold the slope force at its contact patch (R F_hold, see
    physics/terrain; 0 on flat ground): torque + hold_torque is what the wheel's drive delivered.
    """

    vehicle: np.ndarray
    side: np.ndarray
    x: np.ndarray
    y: np.ndarray
    yaw: np.ndarray
    radius: np.ndarray
    mass: np.ndarray
    inertia_yy: np.ndarray
    normal_force: np.ndarray
    omega: np.ndarray
    phi: np.ndarray
    torque: np.ndarray
    force_x: np.ndarray
    force_y: np.ndarray
    body: np.ndarray
    hold_torque: np.ndarray

    def arrays(self, arm_x: np.ndarray, arm_y: np.ndarray, casters: np.ndarray) -> WheelData:
        """The constants and in-place state as the kernels take them (the same arrays), with each wheel's position
        relative to its body's centre of mass arm_x, arm_y [m] and the caster wheels' indices."""
        return WheelData(self.vehicle, self.body, self.x, self.y, self.yaw, self.radius, self.inertia_yy, self.mass,
                         self.normal_force, self.phi, self.force_x, self.force_y, arm_x, arm_y, casters)

    @property
    def count(self) -> int:
        """Number of wheels."""
        return int(self.vehicle.size)

    @classmethod
    def from_vehicles(cls, vehicles: list[VehicleSpec], gravity: float) -> "WheelArrays":
        """Build the arrays; loads are uniform per body: F_z = m_chassis * g / n_wheels (as MVSim)."""
        rows = []
        units = 0
        for index, vehicle in enumerate(vehicles):
            chassis_mass, bodies = [vehicle.chassis.mass], [index]
            if vehicle.articulation is not None:
                chassis_mass.append(vehicle.articulation.front_chassis.mass)
                bodies.append(len(vehicles) + units)
                units += 1
            on_unit = [sum(1 for w in vehicle.wheels if w.unit == unit) for unit in range(len(bodies))]
            for wheel in vehicle.wheels:  # in the vehicle's wheel order (indices elsewhere rely on it)
                load = chassis_mass[wheel.unit] * gravity / on_unit[wheel.unit]
                rows.append((index, wheel.side, wheel.x, wheel.y, wheel.yaw, wheel.radius, wheel.mass,
                             wheel.inertia_yy, load, bodies[wheel.unit]))
        table = np.array(rows, dtype=float).reshape(-1, 10)
        zeros = np.zeros(len(rows))
        return cls(
            vehicle=table[:, 0].astype(np.intp),
            side=table[:, 1].astype(np.intp),
            x=table[:, 2].copy(),
            y=table[:, 3].copy(),
            yaw=table[:, 4].copy(),
            radius=table[:, 5].copy(),
            mass=table[:, 6].copy(),
            inertia_yy=table[:, 7].copy(),
            normal_force=table[:, 8].copy(),
            omega=zeros.copy(),
            phi=zeros.copy(),
            torque=zeros.copy(),
            force_x=zeros.copy(),
            force_y=zeros.copy(),
            body=table[:, 9].astype(np.intp),
            hold_torque=zeros.copy(),
        )


@kernel
def contact_velocities(yaw, velocity, body, x, y, wheel_cos, wheel_sin):
    """Velocity of each wheel's contact point in the wheel's own frame [m/s] (MVSim docs, wheel kinematics).

    yaw[b] [rad] and velocity[b] = (vx, vy, omega) of each body's reference point (world frame); body[w]: each
    wheel's carrying body, x[w], y[w]: its position in the body frame [m]; wheel_cos/sin: of each wheel's yaw.
    The wheel centre moves at v_ref + omega x r_w; rotating by -yaw gives the body frame, then by the wheel's
    mounting angle its own frame. Returns (v_x, v_y).
    """
    out = ContactVelocity(np.empty(body.size), np.empty(body.size))
    contact_velocities_into(yaw, velocity, body, x, y, wheel_cos, wheel_sin, out)
    return out.v_x, out.v_y


@inlined_kernel
def contact_velocities_into(yaw, velocity, body, x, y, wheel_cos, wheel_sin, out):
    """contact_velocities writing into `out` (step_data.ContactVelocity; no allocation: the compiled steps)."""
    v_x, v_y = out.v_x, out.v_y
    for i in range(body.size):
        k = body[i]
        c, s = np.cos(yaw[k]), np.sin(yaw[k])
        omega = velocity[k, 2]
        body_vx = c * velocity[k, 0] + s * velocity[k, 1] - omega * y[i]
        body_vy = -s * velocity[k, 0] + c * velocity[k, 1] + omega * x[i]
        v_x[i] = wheel_cos[i] * body_vx + wheel_sin[i] * body_vy
        v_y[i] = -wheel_sin[i] * body_vx + wheel_cos[i] * body_vy


@kernel
def body_wrenches(force_lon, force_lat, wheel_cos, wheel_sin, mounts, yaw, force_x, force_y):
    """Sum wheel ground forces into one world-frame force and one torque per body.

    force_lon/lat[w]: ground force in the wheel frame [N]; wheel_cos/sin: of each wheel's yaw; mounts:
    step_data.WheelMounts (each wheel's body and its position relative to the body's centre of mass [m]); yaw[b]
    [rad]. Writes each wheel's force in its body's frame into force_x/force_y [N] and returns (Fx_world, Fy_world,
    torque_z) [N, N, N m] about each body's centre of mass, world frame.
    """
    out = Wrenches(np.empty(yaw.size), np.empty(yaw.size), np.empty(yaw.size))
    body_wrenches_into(force_lon, force_lat, wheel_cos, wheel_sin, mounts, yaw, WheelForces(force_x, force_y), out)
    return out.fx, out.fy, out.torque_z


@inlined_kernel
def body_wrenches_into(force_lon, force_lat, wheel_cos, wheel_sin, mounts, yaw, wheel_forces, out):
    """body_wrenches writing each wheel's force into `wheel_forces` (step_data.WheelForces) and the body wrenches
    into `out` (step_data.Wrenches); no allocation."""
    world_fx, world_fy, torque_z = out.fx, out.fy, out.torque_z
    body, arm_x, arm_y = mounts.body, mounts.arm_x, mounts.arm_y
    force_x, force_y = wheel_forces.force_x, wheel_forces.force_y
    count = yaw.size
    for k in range(count):  # first the sums in the body frame, rotated into the world frame below
        world_fx[k] = 0.0
        world_fy[k] = 0.0
        torque_z[k] = 0.0
    for i in range(body.size):
        k = body[i]
        f_x = wheel_cos[i] * force_lon[i] - wheel_sin[i] * force_lat[i]
        f_y = wheel_sin[i] * force_lon[i] + wheel_cos[i] * force_lat[i]
        force_x[i] = f_x
        force_y[i] = f_y
        world_fx[k] += f_x
        world_fy[k] += f_y
        torque_z[k] += arm_x[i] * f_y - arm_y[i] * f_x
    for k in range(count):
        c, s = np.cos(yaw[k]), np.sin(yaw[k])
        fx, fy = world_fx[k], world_fy[k]
        world_fx[k] = c * fx - s * fy
        world_fy[k] = s * fx + c * fy


@kernel
def wheel_world_positions(pose, vehicle, x, y):
    """World coordinates [m] of each wheel centre, from its vehicle's pose (x, y, yaw) and its position x, y."""
    count = vehicle.size
    world_x = np.empty(count)
    world_y = np.empty(count)
    for i in range(count):
        k = vehicle[i]
        c, s = np.cos(pose[k, 2]), np.sin(pose[k, 2])
        world_x[i] = pose[k, 0] + c * x[i] - s * y[i]
        world_y[i] = pose[k, 1] + s * x[i] + c * y[i]
    return world_x, world_y
