"""Physical bounds on commands, derived once from the world: arrays over vehicles (and over wheels for torques).

Commands are clamped to these bounds when they are set (VehicleCommands), so a finite command can never drive the
state out of what Box2D integrates or out of float32's range. Bounds, with dt the world's time step [s]:

  Box2D caps      Box2D moves a body at most b2_maxTranslation = 2 m and turns it at most b2_maxRotation = pi/2 rad
                  per step (and keeps float32 state). The caps used here are half of those:
                  v_box2d = BOX2D_MARGIN * 2 m / dt [m/s],  omega_box2d = BOX2D_MARGIN * (pi/2) / dt [rad/s]
                  (200 m/s and 157 rad/s at dt = 5 ms).
  speed           max_speed = min(v_box2d, min over motor-driven wheels of R * T_max / C_damping) [m/s]: a wheel of
                  radius R [m] whose motor gives at most T_max [N m] (max_torque; for a drivetrain the one motor's)
                  spins, even without any ground force, no faster than where bearing damping C_damping [N m s/rad]
                  takes the whole torque, T_max / C_damping [rad/s] (rolling resistance only lowers it). Wheels
                  without damping, and vehicles without motor torque limits (twist_ideal, raw), get v_box2d.
  yaw rate        max_yaw_rate = min(omega_box2d, 2 max_speed / track) [rad/s], track = the spread of the
                  vehicle's wheels across it (max y - min y) [m]: both sides at full speed in opposite directions
                  (for a differential robot exactly its fastest turn on the spot).
  steering        max_steer [rad]: an Ackermann vehicle's max_steer_ang, an articulated vehicle's pivot max_angle
                  (0 for vehicles that do not steer); max_steer_rate = omega_box2d [rad/s] for a commanded steering
                  rate.
  wheel torque    max_torque[w] [N m] per wheel: the controller's max_torque where it has one, else
                  RAW_TORQUE_TRACTION_FACTOR * N R with N = F_z + m_wheel g the load the wheel carries [N]: twice
                  the most torque the ground takes at a friction coefficient of 1 (torque beyond what friction takes
                  only spins the wheel up).
  wheel spin      max_spin[w] = 2 m / (dt R) [rad/s]: no wheel's rim outruns Box2D's own per-step translation limit
                  (twice v_box2d). The simulation holds the spin there (the motor's top speed), so a wheel driven past
                  its traction without bearing damping cannot spin up for ever. Normal driving never gets near it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mvsim_ros.physics.vehicles.fleet import ACKERMANN_KINDS, max_steer_angle
from mvsim_ros.world.specs import VehicleSpec, WorldSpec

#: Box2D's per-step caps (b2_maxTranslation [m], b2_maxRotation [rad]) and the fraction of them commands may use.
BOX2D_MAX_TRANSLATION = 2.0
BOX2D_MAX_ROTATION = 0.5 * math.pi
BOX2D_MARGIN = 0.5

#: Raw wheel torque bound without a max_torque: this many times the traction torque N R at friction coefficient 1.
RAW_TORQUE_TRACTION_FACTOR = 2.0

#: Friction parameter holding the bearing damping [N m s/rad], per friction model (all models have one).
_DAMPING_PARAM = "C_damping"


@dataclass
class CommandLimits:
    """Bounds for N vehicles (max_speed [m/s], max_yaw_rate [rad/s], max_steer [rad], max_steer_rate [rad/s]) and
    W wheels (max_torque [N m], max_spin [rad/s]); see the module docstring for how each is derived."""

    max_speed: np.ndarray
    max_yaw_rate: np.ndarray
    max_steer: np.ndarray
    max_steer_rate: np.ndarray
    max_torque: np.ndarray
    max_spin: np.ndarray

    @classmethod
    def from_world(cls, world: WorldSpec) -> "CommandLimits":
        """Bounds of every vehicle of the world, from its time step, wheels, controller and friction."""
        dt = float(world.timestep)
        v_box2d = BOX2D_MARGIN * BOX2D_MAX_TRANSLATION / dt
        omega_box2d = BOX2D_MARGIN * BOX2D_MAX_ROTATION / dt
        gravity = float(world.gravity)
        speed, yaw_rate, steer, torque, radius = [], [], [], [], []
        for vehicle in world.vehicles:
            v_max = min(v_box2d, wheel_speed_bound(vehicle))
            ys = [w.y for w in vehicle.wheels]
            track = max(ys) - min(ys) if ys else 0.0
            speed.append(v_max)
            yaw_rate.append(min(omega_box2d, 2.0 * v_max / track) if track > 0 else omega_box2d)
            steer.append(steering_bound(vehicle))
            torque.extend(wheel_torque_bounds(vehicle, gravity))
            radius.extend(w.radius for w in vehicle.wheels)
        n = len(speed)
        return cls(np.array(speed, dtype=float), np.array(yaw_rate, dtype=float), np.array(steer, dtype=float),
                   np.full(n, omega_box2d), np.array(torque, dtype=float),
                   BOX2D_MAX_TRANSLATION / dt / np.array(radius, dtype=float))

    def clamp_torques(self, wheels: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Torques [N m] for the given wheel indices, within +/- their bounds."""
        bound = self.max_torque[wheels]
        return np.minimum(np.maximum(values, -bound), bound)


def wheel_speed_bound(vehicle: VehicleSpec) -> float:
    """min over the motor-driven wheels of R T_max / C_damping [m/s] (inf without a motor torque limit or
    damping): the fastest rim speed the motor can hold against bearing damping."""
    t_max = vehicle.controller.params.get("max_torque", math.inf)
    damping = float(vehicle.friction.params.get(_DAMPING_PARAM, 0.0))
    if vehicle.controller.kind in ("twist_ideal", "raw") or not math.isfinite(t_max) or damping <= 0.0:
        return math.inf
    radii = [w.radius for w in vehicle.wheels if w.driven] or [w.radius for w in vehicle.wheels]
    return min(radii) * t_max / damping if radii else math.inf


def steering_bound(vehicle: VehicleSpec) -> float:
    """Largest steering command [rad]: max_steer_ang (Ackermann), the pivot's max_angle (articulated), else 0."""
    if vehicle.articulation is not None:
        return float(vehicle.articulation.max_angle)
    return max_steer_angle(vehicle) if vehicle.dynamics in ACKERMANN_KINDS else 0.0


def wheel_torque_bounds(vehicle: VehicleSpec, gravity: float) -> list[float]:
    """Per-wheel torque bound [N m], in the vehicle's wheel order: max_torque if the controller has one, else
    RAW_TORQUE_TRACTION_FACTOR * N R with N = m_chassis g / n_wheels_on_its_unit + m_wheel g."""
    t_max = vehicle.controller.params.get("max_torque", math.inf)
    if math.isfinite(t_max):
        return [float(t_max)] * len(vehicle.wheels)
    masses = [vehicle.chassis.mass]
    if vehicle.articulation is not None:
        masses.append(vehicle.articulation.front_chassis.mass)
    on_unit = [max(1, sum(1 for w in vehicle.wheels if w.unit == u)) for u in range(len(masses))]
    return [RAW_TORQUE_TRACTION_FACTOR * (masses[w.unit] * gravity / on_unit[w.unit] + w.mass * gravity) * w.radius
            for w in vehicle.wheels]


def clamp(value: float, bound: float) -> float:
    """value within +/- bound (value itself, bit for bit, when inside; -0.0 stays -0.0)."""
    return min(max(value, -bound), bound)
