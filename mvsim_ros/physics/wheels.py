"""Wheel state for all vehicles as one struct of arrays; each vehicle owns a contiguous index range."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mvsim_ros.core.jit import kernel
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
def contact_velocities(yaw, velocity, vehicle, x, y, wheel_cos, wheel_sin):
    """Velocity of each wheel's contact point in the wheel's own frame [m/s] (physics seed 001, section 1).

    yaw[b] [rad] and velocity[b] = (vx, vy, omega) of each body's reference point (world frame);
    vehicle[w] (the carrying body), x[w], y[w]: each wheel's body and position in the body frame;
    wheel_cos/sin: of its yaw.
    The wheel centre moves at v_ref + omega x r_w; rotating by -yaw gives the vehicle frame, then by the
    wheel's mounting angle its own frame. Returns (v_x, v_y).
    """
    v_x = np.empty(vehicle.size)
    v_y = np.empty(vehicle.size)
    contact_velocities_into(yaw, velocity, vehicle, x, y, wheel_cos, wheel_sin, v_x, v_y)
    return v_x, v_y


@kernel
def contact_velocities_into(yaw, velocity, vehicle, x, y, wheel_cos, wheel_sin, v_x, v_y):
    """contact_velocities writing (v_x, v_y) [m/s] into the given arrays (no allocation: the compiled steps)."""
    for i in range(vehicle.size):
        k = vehicle[i]
        c, s = np.cos(yaw[k]), np.sin(yaw[k])
        omega = velocity[k, 2]
        body_vx = c * velocity[k, 0] + s * velocity[k, 1] - omega * y[i]
        body_vy = -s * velocity[k, 0] + c * velocity[k, 1] + omega * x[i]
        v_x[i] = wheel_cos[i] * body_vx + wheel_sin[i] * body_vy
        v_y[i] = -wheel_sin[i] * body_vx + wheel_cos[i] * body_vy


@kernel
def body_wrenches(force_lon, force_lat, wheel_cos, wheel_sin, arm_x, arm_y, vehicle, yaw, force_x, force_y):
    """Sum wheel ground forces into one world-frame force and one torque per vehicle body.

    force_lon/lat[w]: ground force in the wheel frame [N]; arm_x/y[w]: wheel position relative to the body's
    centre of mass, vehicle frame [m]; yaw[v] [rad]. Writes each wheel's force in the vehicle frame into
    force_x/force_y [N] and returns (Fx_world[v], Fy_world[v], torque_z[v]) [N, N, N m] about the centre of mass.
    """
    world_fx = np.empty(yaw.size)
    world_fy = np.empty(yaw.size)
    torque_z = np.empty(yaw.size)
    body_wrenches_into(force_lon, force_lat, wheel_cos, wheel_sin, arm_x, arm_y, vehicle, yaw, force_x, force_y,
                       world_fx, world_fy, torque_z)
    return world_fx, world_fy, torque_z


@kernel
def body_wrenches_into(force_lon, force_lat, wheel_cos, wheel_sin, arm_x, arm_y, vehicle, yaw, force_x, force_y,
                       world_fx, world_fy, torque_z):
    """body_wrenches writing (Fx_world, Fy_world, torque_z) [N, N, N m] into the given arrays (no allocation)."""
    count = yaw.size
    for k in range(count):  # first the sums in the vehicle frame, rotated into the world frame below
        world_fx[k] = 0.0
        world_fy[k] = 0.0
        torque_z[k] = 0.0
    for i in range(vehicle.size):
        k = vehicle[i]
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
