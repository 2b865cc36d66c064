"""Ackermann steering and drivetrains (MVSim docs, "Ackermann Steering Dynamics" and "Ackermann with
Drivetrain"), vectorised over vehicles.

Steering: for an equivalent (bicycle-model) angle delta, wheelbase l and front track w, the outer and inner front
wheels turn by

    delta_outer = atan(1 / (cot|delta| + w / (2 l))),    delta_inner = atan(1 / (cot|delta| - w / (2 l))),

the inner wheel being the left one for delta > 0 (a left turn). Both then roll around the same centre, on the
rear-axle line at R = l / tan(delta) from the vehicle's reference point.

Drivetrain: one motor torque split by open or Torsen (torque-sensing, limited-slip) differentials. An open
differential splits by fixed ratios. A Torsen differential with bias ratio b and nominal split K_s, for output
shafts turning at omega_1, omega_2, locks progressively: delta_lock = omega_max - b * omega_min,
delta_t = delta_lock / omega_max (0 if delta_lock <= 0; MVSim's physics documentation; its older manuals print it
as a product), and the faster shaft gets K_s (1 - delta_t) (or (1 - K_s)(1 - delta_t)), the slower one the
complement (1 + delta_t), normalised to sum 1. With either shaft at rest it splits nominally.
"""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.core.jit import kernel

#: Drivetrain type names (world files) -> code used by the kernels.
DRIVETRAIN_CODES = {"open_front": 0, "open_rear": 1, "open_4wd": 2, "torsen_front": 3, "torsen_rear": 4,
                    "torsen_4wd": 5}


@kernel
def ackermann_wheel_angles(delta, track, wheelbase, max_steer):
    """Left and right front wheel angles [rad] for equivalent steering angles delta [rad] (per vehicle).

    delta is clamped to +/- max_steer first. track: front wheel separation w [m]; wheelbase: l [m].
    """
    count = delta.size
    left = np.zeros(count)
    right = np.zeros(count)
    for k in range(count):
        left[k], right[k] = ackermann_wheel_angle_pair(delta[k], track[k], wheelbase[k], max_steer[k])
    return left, right


@kernel
def ackermann_wheel_angle_pair(delta, track, wheelbase, max_steer):
    """(left, right) front wheel angles [rad] of one vehicle (ackermann_wheel_angles, scalar arguments)."""
    d = min(abs(delta), max_steer)
    if d < 1e-12:
        return 0.0, 0.0
    cot_outer = 1.0 / math.tan(d) + 0.5 * track / wheelbase
    cot_inner = cot_outer - track / wheelbase
    inner = math.atan2(1.0, cot_inner)  # atan(1/cot) that stays right when cot_inner <= 0
    outer = math.atan2(1.0, cot_outer)
    if delta > 0:  # left turn: the left wheel is the inner one
        return inner, outer
    return -outer, -inner


@kernel
def torsen_split(omega_1, omega_2, bias, split):
    """Torque fractions (t1, t2), t1 + t2 = 1, of a Torsen differential (see the module docstring)."""
    if omega_1 == 0.0 or omega_2 == 0.0:
        return split, 1.0 - split
    abs_1, abs_2 = abs(omega_1), abs(omega_2)
    omega_max, omega_min = max(abs_1, abs_2), min(abs_1, abs_2)
    lock = omega_max - bias * omega_min
    delta_t = lock / omega_max if lock > 0.0 else 0.0
    if abs_1 > abs_2:
        f1, f2 = split * (1.0 - delta_t), (1.0 - split) * (1.0 + delta_t)
    else:
        f1, f2 = split * (1.0 + delta_t), (1.0 - split) * (1.0 - delta_t)
    return f1 / (f1 + f2), f2 / (f1 + f2)


@kernel
def drivetrain_fractions(code, omega_fl, omega_fr, omega_rl, omega_rr, params):
    """Share of the motor torque for (FL, FR, RL, RR) of each vehicle.

    code[k]: DRIVETRAIN_CODES value; params[k] = (front_rear_split, front_rear_bias, front_left_right_split,
    front_left_right_bias, rear_left_right_split, rear_left_right_bias); splits are the front (resp. left) share.
    """
    count = code.size
    out = np.zeros((count, 4))
    for k in range(count):
        fr_split, fr_bias, f_split, f_bias, r_split, r_bias = (params[k, 0], params[k, 1], params[k, 2],
                                                               params[k, 3], params[k, 4], params[k, 5])
        c = code[k]
        if c == 0:  # open front
            out[k, 0], out[k, 1] = f_split, 1.0 - f_split
        elif c == 1:  # open rear
            out[k, 2], out[k, 3] = r_split, 1.0 - r_split
        elif c == 2:  # open 4wd
            out[k, 0], out[k, 1] = fr_split * f_split, fr_split * (1.0 - f_split)
            out[k, 2], out[k, 3] = (1.0 - fr_split) * r_split, (1.0 - fr_split) * (1.0 - r_split)
        elif c == 3:  # torsen front
            out[k, 0], out[k, 1] = torsen_split(omega_fl[k], omega_fr[k], f_bias, f_split)
        elif c == 4:  # torsen rear
            out[k, 2], out[k, 3] = torsen_split(omega_rl[k], omega_rr[k], r_bias, r_split)
        else:  # torsen 4wd: centre differential on the axle sums, then one per axle
            t_front, t_rear = torsen_split(omega_fl[k] + omega_fr[k], omega_rl[k] + omega_rr[k], fr_bias, fr_split)
            t_fl, t_fr = torsen_split(omega_fl[k], omega_fr[k], f_bias, f_split)
            t_rl, t_rr = torsen_split(omega_rl[k], omega_rr[k], r_bias, r_split)
            out[k, 0], out[k, 1], out[k, 2], out[k, 3] = t_front * t_fl, t_front * t_fr, t_rear * t_rl, t_rear * t_rr
    return out


@kernel
def steer_towards(current, target, max_steer, max_rate, dt):
    """New equivalent steering angles [rad]: target clamped to +/- max_steer, reached at most max_rate [rad/s]
    (<= 0: unlimited) per second."""
    out = np.empty(current.size)
    for k in range(current.size):
        out[k] = steer_toward(current[k], target[k], max_steer[k], max_rate[k], dt)
    return out


@kernel
def steer_toward(current, target, max_steer, max_rate, dt):
    """steer_towards for one vehicle (scalar arguments) [rad]."""
    goal = min(max(target, -max_steer), max_steer)
    if max_rate > 0.0:
        step = max_rate * dt
        goal = min(max(goal, current - step), current + step)
    return goal
