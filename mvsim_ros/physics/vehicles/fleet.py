"""What differs between vehicle kinds, for all vehicles at once: steering (Ackermann kinds), drivetrains, and
ideal (kinematic) control. Differential kinds need nothing beyond the per-wheel controllers."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mvsim_ros.core.jit import kernel
from mvsim_ros.physics.controllers import WheelControllers, pid_torque_law
from mvsim_ros.physics.step_data import Setpoints, SteeringData
from mvsim_ros.physics.step_phases import copy_vector, inlined_kernel
from mvsim_ros.physics.vehicles.ackermann import (DRIVETRAIN_CODES, ackermann_wheel_angle_pair, drivetrain_fractions,
                                                  steer_toward)
from mvsim_ros.world.specs import VehicleSpec

ACKERMANN_KINDS = ("ackermann", "ackermann_drivetrain")
_DRIVETRAIN_PARAM_ORDER = ("front_rear_split", "front_rear_bias", "front_left_right_split", "front_left_right_bias",
                           "rear_left_right_split", "rear_left_right_bias")
#: Steering limit [rad] of an Ackermann vehicle whose spec gives none (MVSim's default max_steer_ang_deg, 30).
DEFAULT_MAX_STEER = math.radians(30.0)


def max_steer_angle(vehicle: VehicleSpec) -> float:
    """Largest equivalent steering angle [rad] of an Ackermann vehicle: its max_steer_ang, else DEFAULT_MAX_STEER."""
    return float(vehicle.dynamics_params.get("max_steer_ang", DEFAULT_MAX_STEER))


def _wheel_index(offsets: list[int], vehicle: VehicleSpec, k: int, name: str) -> int:
    return offsets[k] + [w.name for w in vehicle.wheels].index(name)


@dataclass
class Steering:
    """Ackermann vehicles: their indices, front/rear wheel indices, geometry, limits and current angle.

    wheelbase l = x_front - x_rear [m]; track w = y_FL - y_FR [m]; max_steer [rad]; max_rate [rad/s] (0: none);
    delta: current equivalent (bicycle-model) steering angle [rad].
    """

    vehicle: np.ndarray
    fl: np.ndarray
    fr: np.ndarray
    rl: np.ndarray
    wheelbase: np.ndarray
    track: np.ndarray
    max_steer: np.ndarray
    max_rate: np.ndarray
    delta: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @classmethod
    def build(cls, vehicles: list[VehicleSpec], offsets: list[int]) -> "Steering":
        rows = []
        for k, v in enumerate(vehicles):
            if v.dynamics not in ACKERMANN_KINDS:
                continue
            fl, fr = _wheel_index(offsets, v, k, "fl_wheel"), _wheel_index(offsets, v, k, "fr_wheel")
            rl = _wheel_index(offsets, v, k, "rl_wheel")
            wheels = {w.name: w for w in v.wheels}
            wheelbase = wheels["fl_wheel"].x - wheels["rl_wheel"].x
            track = wheels["fl_wheel"].y - wheels["fr_wheel"].y
            if wheelbase <= 0 or track <= 0:
                raise ValueError(f"vehicle '{v.name}': front wheels must be ahead of the rear ones and left of right")
            rows.append((k, fl, fr, rl, wheelbase, track, max_steer_angle(v),
                         v.dynamics_params.get("max_steer_rate", 0.0)))
        table = np.array(rows, dtype=float).reshape(-1, 8)
        ints = table[:, :4].astype(np.intp)
        steering = cls(ints[:, 0], ints[:, 1], ints[:, 2], ints[:, 3], table[:, 4].copy(), table[:, 5].copy(),
                       table[:, 6].copy(), table[:, 7].copy())
        steering.delta = np.zeros(len(rows))
        return steering

    def arrays(self) -> SteeringData:
        """The same arrays as the kernels take them (wheel_setpoints_into's `steering`)."""
        return SteeringData(self.vehicle, self.fl, self.fr, self.wheelbase, self.track, self.max_steer,
                            self.max_rate, self.delta)


@kernel
def steering_targets(v, omega, steer, steer_mode, wheelbase, max_steer):
    """Equivalent steering angle [rad] wanted by each Ackermann vehicle: the commanded angle in steering mode,
    else the angle that turns at omega [rad/s] when driving at v [m/s]: delta = atan(l omega / v) (at v = 0,
    full lock towards omega, or straight)."""
    out = np.empty(v.size)
    for k in range(v.size):
        out[k] = steering_target(v[k], omega[k], steer[k], steer_mode[k], wheelbase[k], max_steer[k])
    return out


@kernel
def steering_target(v, omega, steer, steer_mode, wheelbase, max_steer):
    """steering_targets for one vehicle (scalar arguments) [rad]."""
    if steer_mode:
        return steer
    if abs(v) > 1e-6:
        return math.atan(wheelbase * omega / v)
    if omega != 0.0:
        return math.copysign(max_steer, omega)
    return 0.0


@kernel
def wheel_setpoints(commands, steering, vehicle, x, y, yaw, dt):
    """Phase 2 of the step for all vehicles in one call: steering, then each wheel's ground-speed setpoint.

    commands: step_data.CommandData; steering: step_data.SteeringData; per wheel: its vehicle, position x, y [m]
    and yaw [rad] in its body's frame; dt [s].

    Ackermann vehicles (steering.vehicle[j], front wheels fl[j], fr[j]) move their equivalent angle delta[j]
    towards steering_target(...) within max_steer and the rate limit (steer_rate of the command if > 0, else
    max_rate; <= 0: none), and their front wheels' yaw is set by the Ackermann formulas; their yaw-rate setpoint
    becomes what the geometry allows at the commanded speed, v tan(delta) / l. steering.delta and `yaw` are updated
    in place. Each wheel's setpoint is the commanded twist's velocity at the wheel along its heading:
    cos(yaw) (v - omega y) + sin(yaw) omega x [m/s]. Returns (setpoint [m/s], cos(yaw), sin(yaw), omega_setpoint
    [rad/s]).
    """
    out = Setpoints(np.empty(vehicle.size), np.empty(vehicle.size), np.empty(vehicle.size),
                    np.empty(commands.omega.size))
    wheel_setpoints_into(commands, steering, vehicle, x, y, yaw, dt, out)
    return out.setpoint, out.cos_yaw, out.sin_yaw, out.omega


@inlined_kernel
def wheel_setpoints_into(commands, steering, vehicle, x, y, yaw, dt, out):
    """wheel_setpoints writing into `out` (step_data.Setpoints; no allocation: the compiled steps)."""
    v, omega, steer, steer_mode, steer_rate = (commands.v, commands.omega, commands.steer, commands.steer_mode,
                                               commands.steer_rate)
    delta = steering.delta
    setpoint, cos_yaw, sin_yaw, omega_set = out.setpoint, out.cos_yaw, out.sin_yaw, out.omega
    copy_vector(omega_set, omega)
    for j in range(steering.vehicle.size):
        k = steering.vehicle[j]
        wheelbase, max_steer = steering.wheelbase[j], steering.max_steer[j]
        target = steering_target(v[k], omega[k], steer[k], steer_mode[k], wheelbase, max_steer)
        rate = steer_rate[k] if steer_rate[k] > 0.0 else steering.max_rate[j]
        delta[j] = steer_toward(delta[j], target, max_steer, rate, dt)
        fl, fr = steering.fl[j], steering.fr[j]
        yaw[fl], yaw[fr] = ackermann_wheel_angle_pair(delta[j], steering.track[j], wheelbase, max_steer)
        omega_set[k] = v[k] * math.tan(delta[j]) / wheelbase
    for i in range(vehicle.size):
        k = vehicle[i]
        c, s = math.cos(yaw[i]), math.sin(yaw[i])
        cos_yaw[i], sin_yaw[i] = c, s
        setpoint[i] = c * (v[k] - omega_set[k] * y[i]) + s * omega_set[k] * x[i]


@dataclass
class Drivetrains:
    """ackermann_drivetrain vehicles: one motor torque from a PID on the odometry speed, split by differentials.

    Wheel indices per vehicle in the order FL, FR, RL, RR; code: DRIVETRAIN_CODES; params (n, 6) in
    _DRIVETRAIN_PARAM_ORDER; motor: the PID settings and state, one row per vehicle (raw_torque: the motor torque
    of raw-controlled ones) with the same options as the wheels' (controllers.py).
    """

    vehicle: np.ndarray
    wheels: np.ndarray
    code: np.ndarray
    params: np.ndarray
    motor: WheelControllers
    unit: np.ndarray = field(default_factory=lambda: np.zeros(0))  # ones: the PID measures speed directly

    @classmethod
    def build(cls, vehicles: list[VehicleSpec], offsets: list[int]) -> "Drivetrains":
        index, codes, wheel_rows, params, rows, raw = [], [], [], [], [], []
        for k, v in enumerate(vehicles):
            if v.dynamics != "ackermann_drivetrain":
                continue
            names = ("fl_wheel", "fr_wheel", "rl_wheel", "rr_wheel")
            wheel_rows.append([_wheel_index(offsets, v, k, n) for n in names])
            index.append(k)
            codes.append(DRIVETRAIN_CODES[v.drivetrain.type])
            is_pid = v.controller.kind in ("twist_front_steer_pid", "front_steer_pid")
            rows.append(v.controller.params if is_pid else None)
            raw.append(0.0 if is_pid else v.controller.params.get("torque", 0.0))
            params.append([v.drivetrain.params[name] for name in _DRIVETRAIN_PARAM_ORDER])
        trains = cls(np.array(index, dtype=np.intp), np.array(wheel_rows, dtype=np.intp).reshape(-1, 4),
                     np.array(codes, dtype=np.int64), np.array(params, dtype=float).reshape(-1, 6),
                     WheelControllers.from_rows(rows, raw, list(range(len(rows)))))
        trains.unit = np.ones(len(rows))
        return trains

    def wheel_torques(self, wanted_speed: np.ndarray, odometry_speed: np.ndarray, omega: np.ndarray,
                      dt: float) -> np.ndarray:
        """Torque [N m] for each drivetrain wheel (rows: vehicles, columns FL, FR, RL, RR).

        wanted_speed / odometry_speed [m/s] per drivetrain vehicle; omega: all wheels' spin [rad/s]."""
        # The same PID as the wheels', on the vehicle's speed; its law evaluated explicitly.
        m = self.motor
        const, slope = pid_torque_law(wanted_speed, odometry_speed, self.unit, dt, m.arrays())
        motor = np.clip(const - slope * odometry_speed, -m.max_torque, m.max_torque)
        w = self.wheels
        fractions = drivetrain_fractions(self.code, omega[w[:, 0]], omega[w[:, 1]], omega[w[:, 2]], omega[w[:, 3]],
                                         self.params)
        return motor[:, None] * fractions
