"""Phase kernels of the step that `Simulation.step()` and the compiled multi-step loop (compiled_steps.py) share:
the same compiled code on the same arrays, hence the same bits."""

from __future__ import annotations

import numpy as np

from mvsim_ros.physics.friction import held_friction, held_friction_into
from mvsim_ros.core.jit import kernel


@kernel
def stop_stale_commands(now, timeout, watched, last_command_time, v, omega):
    """Watchdog (phase 1): zero the speed v [m/s] and yaw rate omega [rad/s] of watched vehicles whose last command
    is more than `timeout` [s] older than `now` [s] and stop watching them (in place; timeout <= 0: off)."""
    if timeout <= 0.0:
        return
    for k in range(v.size):
        if watched[k] and now - last_command_time[k] > timeout:
            v[k] = 0.0
            omega[k] = 0.0
            watched[k] = False


@kernel
def solve_wheels(code, v_x, v_y, omega, torque_const, torque_slope, normal_force, slope_x, slope_y, radius,
                 inertia_yy, wheel_mass, limit, params, gravity, dt):
    """Friction (phase 4) for wheels sharing one model (`code`, friction.FRICTION_CODES), honouring the motor torque
    limits `limit` [N m]: returns (F_x, F_y, omega_new, F_hold) as the model does.

    The motor law tau = const - slope * omega_new is solved implicitly by the model; a wheel whose solved torque
    exceeds its limit is solved again with the limit as a constant torque (the torque balance is monotonic in
    omega_new, so that is the saturated solution).
    """
    f_x, f_y, omega_new, held = np.empty(v_x.size), np.empty(v_x.size), np.empty(v_x.size), np.empty(v_x.size)
    solve_wheels_into(code, v_x, v_y, omega, torque_const, torque_slope, normal_force, slope_x, slope_y, radius,
                      inertia_yy, wheel_mass, limit, params, gravity, dt, f_x, f_y, omega_new, held)
    return f_x, f_y, omega_new, held


@kernel
def solve_wheels_into(code, v_x, v_y, omega, torque_const, torque_slope, normal_force, slope_x, slope_y, radius,
                      inertia_yy, wheel_mass, limit, params, gravity, dt, f_x, f_y, omega_new, held):
    """solve_wheels writing (F_x, F_y, omega_new, F_hold) into the given arrays, which must not be any of the inputs
    (allocates only for the default model's saturated wheels and for the other models)."""
    held_friction_into(code, v_x, v_y, omega, torque_const, torque_slope, normal_force, slope_x, slope_y, radius,
                       inertia_yy, wheel_mass, params, gravity, dt, f_x, f_y, omega_new, held)
    if not any_over_limit(torque_const, torque_slope, omega_new, limit):
        return
    over = over_limit(torque_const, torque_slope, omega_new, limit)
    saturated = np.empty(over.size)
    for j in range(over.size):
        i = over[j]
        saturated[j] = np.copysign(limit[i], torque_const[i] - torque_slope[i] * omega_new[i])
    again = held_friction(code, v_x[over], v_y[over], omega[over], saturated, np.zeros(over.size),
                          normal_force[over], slope_x[over], slope_y[over], radius[over], inertia_yy[over],
                          wheel_mass[over], params[over], gravity, dt)
    f_x[over] = again[0]
    f_y[over] = again[1]
    omega_new[over] = again[2]
    held[over] = again[3]


@kernel
def advance_spin_angles(phi, omega, dt):
    """Wheel spin angles phi [rad] += omega [rad/s] * dt [s], in place."""
    for i in range(phi.size):
        phi[i] += omega[i] * dt


@kernel
def applied_torque(const, slope, omega, limit, max_spin):
    """Motor torque [N m] each wheel got over the step: const - slope * omega within +/- limit, after holding each
    wheel's spin omega [rad/s] within +/- max_spin (in place: the motor's top speed, see command_limits)."""
    out = np.empty(const.size)
    applied_torque_into(const, slope, omega, limit, max_spin, out)
    return out


@kernel
def applied_torque_into(const, slope, omega, limit, max_spin, out):
    """applied_torque writing the torques [N m] into `out` (no allocation)."""
    for i in range(const.size):
        omega[i] = min(max(omega[i], -max_spin[i]), max_spin[i])
        out[i] = min(max(const[i] - slope[i] * omega[i], -limit[i]), limit[i])


@kernel
def torque_over_limit(const, slope, omega, limit):
    """Whether one wheel's motor torque const - slope * omega exceeds +/- limit [N m]."""
    return abs(const - slope * omega) > limit


@kernel
def any_over_limit(const, slope, omega, limit):
    """Whether any wheel's motor torque exceeds its limit (over_limit, no allocation)."""
    for i in range(const.size):
        if torque_over_limit(const[i], slope[i], omega[i], limit[i]):
            return True
    return False


@kernel
def over_limit(const, slope, omega, limit):
    """Indices of the wheels whose motor torque const - slope * omega exceeds +/- limit [N m]."""
    count = 0
    flags = np.zeros(const.size, dtype=np.bool_)
    for i in range(const.size):
        if torque_over_limit(const[i], slope[i], omega[i], limit[i]):
            flags[i] = True
            count += 1
    out = np.empty(count, dtype=np.intp)
    j = 0
    for i in range(const.size):
        if flags[i]:
            out[j] = i
            j += 1
    return out


@kernel
def reference_point_state(bodies, com_local):
    """(pose, velocity) of each vehicle's reference point from Box2D body states.

    bodies[v] = (x, y, angle, vx_com, vy_com, omega): body origin pose and centre-of-mass velocity, world frame;
    com_local[v]: centre of mass in the vehicle frame [m]. The reference point moves at
    v_com + omega x (p - com) = v_com + omega * (com_y, -com_x) with com rotated into the world frame.
    """
    pose = np.empty((bodies.shape[0], 3))
    velocity = np.empty((bodies.shape[0], 3))
    reference_point_state_into(bodies, com_local, pose, velocity)
    return pose, velocity


@kernel
def reference_point_state_into(bodies, com_local, pose, velocity):
    """reference_point_state writing (pose, velocity) rows into the given (N, 3) arrays (no allocation)."""
    for k in range(bodies.shape[0]):
        c, s = np.cos(bodies[k, 2]), np.sin(bodies[k, 2])
        com_x = c * com_local[k, 0] - s * com_local[k, 1]
        com_y = s * com_local[k, 0] + c * com_local[k, 1]
        omega = bodies[k, 5]
        pose[k, 0], pose[k, 1], pose[k, 2] = bodies[k, 0], bodies[k, 1], bodies[k, 2]
        velocity[k, 0] = bodies[k, 3] + omega * com_y
        velocity[k, 1] = bodies[k, 4] - omega * com_x
        velocity[k, 2] = omega
