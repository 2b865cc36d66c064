"""Phase kernels of the step that `Simulation.step()` and the compiled multi-step loop (compiled_steps.py) share:
the same compiled code on the same arrays, hence the same bits. (The friction phase's driver is in friction/, the
steering, controller, wheel and odometry phases' kernels with their data.)"""

from __future__ import annotations

import numpy as np
from numba import njit

from mvsim_ros.core.jit import kernel

#: The phases of one step, numbered, and the order in which `Simulation.step()` and the compiled steps
#: (compiled_steps.advance_steps) both run them, each through its own code for a phase:
#:   INPUTS: the latest command of each vehicle, the watchdog applied;
#:   CONTROLLERS: steering (wheel angles), per-wheel ground-speed setpoints, the controllers' torque laws;
#:   WHEEL_KINEMATICS: the contact-point velocity of each wheel in its own frame;
#:   FRICTION: ground forces and new spins (one call per friction model), the motor torques applied;
#:   BODY_FORCES: one world-frame wrench per body about its centre of mass, handed to Box2D;
#:   BOX2D_STEP: kinematic movers steered onto their paths, then Box2D's step;
#:   SNAPSHOT: body states read once, acceleration, wheel spin angles, odometry, the clock;
#:   TERRAIN: z, pitch and roll under the new poses, the next step's slope loads (worlds with terrain only).
INPUTS, CONTROLLERS, WHEEL_KINEMATICS, FRICTION, BODY_FORCES, BOX2D_STEP, SNAPSHOT, TERRAIN = range(8)
STEP_PHASES = (INPUTS, CONTROLLERS, WHEEL_KINEMATICS, FRICTION, BODY_FORCES, BOX2D_STEP, SNAPSHOT, TERRAIN)

#: A kernel compiled into each of its callers (as well as on its own for calls from Python): a call would pass its
#: groups of arrays by value, for every step or every row. Nopython mode, cached, IEEE-exact as `kernel`.
inlined_kernel = njit(cache=True, nogil=True, inline="always")


@inlined_kernel
def copy_vector(out, values):
    """out[i] = values[i] for every element of the 1-D `values`. An element loop: numba's `out[:] = values` checks
    the two arrays for overlap and counts references at each call, which costs more than a few-element copy."""
    for i in range(values.size):
        out[i] = values[i]


@inlined_kernel
def copy_rows(out, values):
    """out[k, c] = values[k, c] for every element of the 2-D `values` (an element loop, as copy_vector)."""
    for k in range(values.shape[0]):
        for c in range(values.shape[1]):
            out[k, c] = values[k, c]


@inlined_kernel
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
def acceleration(velocity, previous, dt):
    """(velocity - previous) / dt row by row for the rows of `previous` [m/s^2, m/s^2, rad/s^2]: each vehicle's
    acceleration over a step of dt [s] (velocity may have more rows: the bodies after the vehicles)."""
    out = np.empty(previous.shape)
    acceleration_into(velocity, previous, dt, out)
    return out


@inlined_kernel
def acceleration_into(velocity, previous, dt, out):
    """acceleration writing into `out` (no allocation)."""
    for k in range(out.shape[0]):
        for c in range(out.shape[1]):
            out[k, c] = (velocity[k, c] - previous[k, c]) / dt


@inlined_kernel
def state_is_finite(pose, spin):
    """Whether the bodies' poses and the wheels' spin rates [rad/s] are all finite: NaN and infinities propagate into
    their sums."""
    return np.isfinite(pose.sum()) and np.isfinite(spin.sum())


@inlined_kernel
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


@inlined_kernel
def applied_torque_into(const, slope, omega, limit, max_spin, out):
    """applied_torque writing the torques [N m] into `out` (no allocation)."""
    for i in range(const.size):
        omega[i] = min(max(omega[i], -max_spin[i]), max_spin[i])
        out[i] = min(max(const[i] - slope[i] * omega[i], -limit[i]), limit[i])


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


@inlined_kernel
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
