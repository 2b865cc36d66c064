"""Articulated steering, vectorised over vehicles (kinematics as in whi_articulated_steering_controller).

A rear unit (base_link at its axle centre, heading theta) and a front unit (axle l_f ahead of the pivot, heading
theta + gamma) hinge on a pivot l_r ahead of the rear axle. With both axles rolling without side slip:

    rear-axle speed v, joint rate gamma_dot:   theta_dot = (v sin(gamma) - l_f gamma_dot) / (l_r cos(gamma) + l_f)
    front-axle speed v_f:                      theta_dot = (v_f sin(gamma) - l_f gamma_dot cos(gamma))
                                                           / (l_f cos(gamma) + l_r)          (its odometry)
    front-axle speed from the rear one:        v_f = v cos(gamma) + l_r theta_dot sin(gamma)

At a constant gamma both give the rigid turn of the pair; with l_f = l_r = L it is theta_dot = v tan(gamma/2) / L,
so a twist (v, omega) asks for gamma = 2 atan(omega L / v) (that controller's formula). For l_f != l_r the
steady-state relation v sin(gamma) - omega l_r cos(gamma) = omega l_f is solved exactly:
gamma = phi + asin(omega l_f / r) with r = hypot(v, omega l_r), phi = atan2(omega l_r, v), which reduces to that
formula when l_f = l_r.

The pivot is a Box2D revolute joint with a motor: its speed is the position error times a gain, within the rate
limit, its torque within the motor's limit; the joint's own limits stop it at +/- the maximum angle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mvsim_ros.core.jit import kernel
from mvsim_ros.physics.step_data import ArticulationData
from mvsim_ros.physics.vehicles.odometry import advance_odometry
from mvsim_ros.world.specs import VehicleSpec

#: Below this forward speed [m/s] a twist's yaw rate cannot be turned into an articulation angle (the formula
#: tends to +/-180 deg): the pivot goes to full lock towards omega, or holds still when omega is 0 too.
STANDSTILL_SPEED = 1e-3


@dataclass
class Articulations:
    """Articulated vehicles: their indices, pivot geometry (front_length l_f, rear_length l_r [m]) and limits
    (max_angle [rad], max_rate [rad/s], 0: no rate limit; gain [1/s]), wheel indices (rear/front: columns left,
    right), and the pivot state: gamma [rad], gamma_rate [rad/s] (measured), target [rad] (what the pivot
    controller aims at). The front units' bodies follow all vehicles' bodies, in this order (WheelArrays.body)."""

    vehicle: np.ndarray
    front_length: np.ndarray
    rear_length: np.ndarray
    max_angle: np.ndarray
    max_rate: np.ndarray
    gain: np.ndarray
    rear_wheels: np.ndarray
    front_wheels: np.ndarray
    gamma: np.ndarray = field(default_factory=lambda: np.zeros(0))
    gamma_rate: np.ndarray = field(default_factory=lambda: np.zeros(0))
    target: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @classmethod
    def build(cls, vehicles: list[VehicleSpec], offsets: list[int]) -> "Articulations":
        """From the world's vehicles; `offsets[k]` is the index of vehicle k's first wheel."""
        rows, rear, front = [], [], []
        for k, v in enumerate(vehicles):
            a = v.articulation
            if a is None:
                continue
            names = [w.name for w in v.wheels]
            rear.append([offsets[k] + names.index("rl_wheel"), offsets[k] + names.index("rr_wheel")])
            front.append([offsets[k] + names.index("fl_wheel"), offsets[k] + names.index("fr_wheel")])
            rows.append((k, a.front_length, a.rear_length, a.max_angle, a.max_rate, a.gain))
        t = np.array(rows, dtype=float).reshape(-1, 6)
        n = len(rows)
        return cls(t[:, 0].astype(np.intp), t[:, 1].copy(), t[:, 2].copy(), t[:, 3].copy(), t[:, 4].copy(),
                   t[:, 5].copy(), np.array(rear, dtype=np.intp).reshape(-1, 2),
                   np.array(front, dtype=np.intp).reshape(-1, 2), np.zeros(n), np.zeros(n), np.zeros(n))

    def arrays(self) -> ArticulationData:
        """The same arrays as the kernels take them (articulated_wheel_setpoints' `pivots`)."""
        return ArticulationData(*(getattr(self, name) for name in ArticulationData._fields))

    @property
    def count(self) -> int:
        """Number of articulated vehicles."""
        return int(self.vehicle.size)


@kernel
def articulation_targets(v, omega, steer, steer_mode, front_length, rear_length, max_angle, previous):
    """Pivot angle [rad] each articulated vehicle aims at: the commanded angle in steering mode, else the
    steady-state angle that turns base_link at omega [rad/s] when it drives at v [m/s] (module docstring; for a
    reversing vehicle the same angle as for (-v, -omega)); at standstill full lock towards omega, or the previous
    target when omega is 0 too. Clamped to +/- max_angle."""
    out = np.empty(v.size)
    for j in range(v.size):
        if steer_mode[j]:
            gamma = steer[j]
        elif abs(v[j]) > STANDSTILL_SPEED:
            speed, rate = abs(v[j]), omega[j] * (1.0 if v[j] > 0 else -1.0)
            r = math.hypot(speed, rate * rear_length[j])
            ratio = min(max(rate * front_length[j] / r, -1.0), 1.0)
            gamma = math.atan2(rate * rear_length[j], speed) + math.asin(ratio)
        elif omega[j] != 0.0:
            gamma = math.copysign(max_angle[j], omega[j])
        else:
            gamma = previous[j]
        out[j] = min(max(gamma, -max_angle[j]), max_angle[j])
    return out


@kernel
def pivot_motor_speeds(target, gamma, gain, max_rate):
    """Pivot motor speed [rad/s]: gain [1/s] times the angle error [rad], within +/- max_rate (0: no limit)."""
    out = np.empty(target.size)
    for j in range(target.size):
        speed = gain[j] * (target[j] - gamma[j])
        if max_rate[j] > 0.0:
            speed = min(max(speed, -max_rate[j]), max_rate[j])
        out[j] = speed
    return out


@kernel
def articulated_wheel_setpoints(v, pivots, y, setpoint):
    """Ground-speed setpoints [m/s] of the wheels of articulated vehicles, written into `setpoint` (all wheels):
    the rolling speeds of both axles at base_link speed v[j] [m/s] of articulated vehicle j with the present joint
    angle and rate (pivots: step_data.ArticulationData; module docstring), each wheel offset by its unit's yaw rate
    times its lateral position y [m]."""
    for j in range(v.size):
        c, s = math.cos(pivots.gamma[j]), math.sin(pivots.gamma[j])
        l_f, l_r, gamma_rate = pivots.front_length[j], pivots.rear_length[j], pivots.gamma_rate[j]
        rear_yaw_rate = (v[j] * s - l_f * gamma_rate) / (l_r * c + l_f)
        front_speed = v[j] * c + l_r * rear_yaw_rate * s
        front_yaw_rate = rear_yaw_rate + gamma_rate
        for side in range(2):
            i = pivots.rear_wheels[j, side]
            setpoint[i] = v[j] - rear_yaw_rate * y[i]
            i = pivots.front_wheels[j, side]
            setpoint[i] = front_speed - front_yaw_rate * y[i]


@kernel
def integrate_articulated_odometry(omega, radius, y, pivots, odometry, dt):
    """Advance the odometry of articulated vehicles by dt [s] (midpoint heading) from the wheels' spin omega
    [rad/s]: base_link speed from the rear wheels, yaw rate from the articulated kinematics (module docstring) with
    the front-axle speed from the front wheels and the joint's encoder (pivots.gamma [rad], pivots.gamma_rate
    [rad/s]); radius [m], y [m]: every wheel's radius and lateral position; pivots: step_data.ArticulationData;
    odometry:
    step_data.OdometryData, whose pose[k] = (x, y, yaw) and twist[k] = (v, omega) are updated in place. Each
    axle's speed is the mean of its two wheels' (omega R), corrected for the unit's yaw rate."""
    for j in range(pivots.vehicle.size):
        k = pivots.vehicle[j]
        rl, rr = pivots.rear_wheels[j, 0], pivots.rear_wheels[j, 1]
        fl, fr = pivots.front_wheels[j, 0], pivots.front_wheels[j, 1]
        v_rl, v_rr = omega[rl] * radius[rl], omega[rr] * radius[rr]
        v_fl, v_fr = omega[fl] * radius[fl], omega[fr] * radius[fr]
        # Axle-centre speeds: a wheel at lateral offset y turns at (v - yaw_rate * y); interpolate to y = 0.
        rear_speed = (v_rl * y[rr] - v_rr * y[rl]) / (y[rr] - y[rl])
        front_speed = (v_fl * y[fr] - v_fr * y[fl]) / (y[fr] - y[fl])
        c, s = math.cos(pivots.gamma[j]), math.sin(pivots.gamma[j])
        l_f, l_r = pivots.front_length[j], pivots.rear_length[j]
        yaw_rate = (front_speed * s - l_f * pivots.gamma_rate[j] * c) / (l_f * c + l_r)
        advance_odometry(odometry.pose, odometry.twist, k, rear_speed, yaw_rate, dt, odometry.scale)


def articulated_footprint(corners: dict[str, tuple[float, float]], pivot_x: float,
                          gamma: float) -> list[tuple[float, float]]:
    """Outline [m] of an articulated vehicle in base_link at joint angle gamma [rad], counter-clockwise.

    corners: the world file's trailer_top_left/right (front unit's front corners) and tractor_bottom_left/right (rear
    unit's rear corners), in base_link at gamma = 0. Each unit is the rectangle from its corners to the pivot's
    x (pivot_x [m]); the front unit's points turn by gamma about the pivot. Order: rear right, rear unit at the
    pivot (right), front unit at the pivot (right), front right, front left, front unit at the pivot (left), rear
    unit at the pivot (left), rear left.
    """
    (ftl_x, ftl_y), (ftr_x, ftr_y) = corners["trailer_top_left"], corners["trailer_top_right"]
    (rbl_x, rbl_y), (rbr_x, rbr_y) = corners["tractor_bottom_left"], corners["tractor_bottom_right"]
    c, s = math.cos(gamma), math.sin(gamma)

    def turned(x: float, y: float) -> tuple[float, float]:
        dx = x - pivot_x
        return pivot_x + c * dx - s * y, s * dx + c * y

    return [(rbr_x, rbr_y), (pivot_x, rbr_y), turned(pivot_x, ftr_y), turned(ftr_x, ftr_y), turned(ftl_x, ftl_y),
            turned(pivot_x, ftl_y), (pivot_x, rbl_y), (rbl_x, rbl_y)]


def chassis_corners(rear_shape: list[tuple[float, float]], front_shape: list[tuple[float, float]],
                    front_length: float, rear_length: float) -> dict[str, tuple[float, float]]:
    """Footprint corners (articulated_footprint's parameters) from the bounding boxes of the two chassis
    outlines: rear unit's in base_link, front unit's in its own frame (origin at the front axle) [m]."""
    rear, front = np.asarray(rear_shape, dtype=float), np.asarray(front_shape, dtype=float)
    front_x = rear_length + front_length + front[:, 0].max()
    return {
        "trailer_top_left": (float(front_x), float(front[:, 1].max())),
        "trailer_top_right": (float(front_x), float(front[:, 1].min())),
        "tractor_bottom_left": (float(rear[:, 0].min()), float(rear[:, 1].max())),
        "tractor_bottom_right": (float(rear[:, 0].min()), float(rear[:, 1].min())),
    }
