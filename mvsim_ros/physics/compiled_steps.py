"""Many steps in one compiled call: `run_steps` is `Simulation.step()`'s phases 1-7 for worlds whose step needs
no Python (flat ground, one friction model, wheel-controlled vehicles, no keyframe movers, articulations,
drivetrains, friction regions or kinematic twist_ideal control), calling the same phase kernels (step_phases.py and
the vehicle, wheel and controller kernels) on the same arrays, and Box2D through our C shim (box2d_native) instead of
pybox2d's Python API. Bit for bit the same states as that many `step()` calls (test_compiled_steps.py).

The GIL stays held: Box2D calls the contact listener (Python) from inside its step.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mvsim_ros.physics.box2d_native import mvb_apply_wrenches, mvb_read_bodies, mvb_world_step
from mvsim_ros.physics.controllers import pid_torque_law
from mvsim_ros.physics.step_phases import (
    advance_spin_angles,
    applied_torque,
    reference_point_state,
    solve_wheels,
    stop_stale_commands,
)
from mvsim_ros.physics.vehicles.differential import integrate_differential_odometry
from mvsim_ros.physics.vehicles.fleet import wheel_setpoints
from mvsim_ros.physics.wheels import body_wrenches, contact_velocities

#: run_steps' return codes.
RAN, DIVERGED, BOX2D_FAILED = 0, 1, 2


@njit(cache=True)
def run_steps(count, steps, dt, wrap_every, spin, body_pose, body_velocity, world, velocity_iterations,
              position_iterations, bodies, com_local, vehicle_count, commands, steering, wheels, controllers, friction,
              odometry):
    """Up to `count` steps from step number `steps`; stops early after a step whose number is a multiple of
    `wrap_every` (the caller wraps the wheel angles), or after a non-finite state or a failed Box2D step.

    spin: the wheels' spin rates [rad/s]; body_pose, body_velocity: the bodies' reference-point state after the last
    step; then the Box2D world and bodies (addresses) and argument groups (tuples of arrays, see
    Simulation._compiled_arguments) that are updated in place: commands, steering, wheels, controllers, friction,
    odometry.
    Returns (steps run, RAN / DIVERGED / BOX2D_FAILED, body_pose, body_velocity, acceleration of the vehicles,
    wheel spin omega, motor torque, wheel cos(yaw), sin(yaw)).
    """
    v, omega, steer, steer_mode, steer_rate, timeout, watched, last_command_time = commands
    st_vehicle, st_fl, st_fr, wheelbase, track, max_steer, max_rate, delta = steering
    (wheel_vehicle, wheel_body, x, y, yaw_mount, radius, phi, force_x, force_y, normal, inertia_yy, wheel_mass,
     arm_x, arm_y, casters) = wheels
    pid, kp, ki, kd, i_max, max_torque, raw_torque, integral, last_error = controllers
    code, params, slope_x, slope_y, limit, max_spin, gravity = friction
    odometry_vehicles, left, right, odom_pose, odom_twist = odometry
    rows = np.empty((bodies.size, 6))
    acceleration = np.zeros((vehicle_count, 3))
    torque = np.zeros(radius.size)
    wheel_cos = np.cos(yaw_mount)
    wheel_sin = np.sin(yaw_mount)
    status = RAN
    done = 0
    while done < count:
        # 1. Inputs.
        stop_stale_commands(steps * dt, timeout, watched, last_command_time, v, omega)
        # 2. Steering and controllers.
        wanted, wheel_cos, wheel_sin, _ = wheel_setpoints(v, omega, steer, steer_mode, steer_rate, st_vehicle, st_fl,
                                                          st_fr, wheelbase, track, max_steer, max_rate, delta,
                                                          wheel_vehicle, x, y, yaw_mount, dt)
        const, slope = pid_torque_law(wanted, spin, radius, dt, pid, kp, ki, kd, i_max, max_torque, raw_torque,
                                      integral, last_error)
        # 3. Wheel kinematics.
        yaw = body_pose[:, 2]
        local_vx, local_vy = contact_velocities(yaw, body_velocity, wheel_body, x, y, wheel_cos, wheel_sin)
        # 4. Friction.
        force_lon, force_lat, spin, _ = solve_wheels(code, local_vx, local_vy, spin, const, slope, normal, slope_x,
                                                     slope_y, radius, inertia_yy, wheel_mass, limit, params, gravity,
                                                     dt)
        for c in casters:
            force_lat[c] = 0.0
        torque = applied_torque(const, slope, spin, limit, max_spin)
        # 5. Forces onto bodies.
        world_fx, world_fy, torque_z = body_wrenches(force_lon, force_lat, wheel_cos, wheel_sin, arm_x, arm_y,
                                                     wheel_body, yaw, force_x, force_y)
        mvb_apply_wrenches(bodies.ctypes, bodies.size, world_fx.ctypes, world_fy.ctypes, torque_z.ctypes)
        # 6. Box2D step.
        if mvb_world_step(world, dt, velocity_iterations, position_iterations) != 0:
            status = BOX2D_FAILED
            break
        # 7. Snapshot.
        mvb_read_bodies(bodies.ctypes, bodies.size, rows.ctypes)
        previous_velocity = body_velocity
        body_pose, body_velocity = reference_point_state(rows, com_local)
        acceleration = (body_velocity[:vehicle_count] - previous_velocity[:vehicle_count]) / dt
        advance_spin_angles(phi, spin, dt)
        integrate_differential_odometry(spin, radius, y, odometry_vehicles, left, right, odom_pose, odom_twist, dt)
        steps += 1
        done += 1
        if not (np.isfinite(body_pose.sum()) and np.isfinite(spin.sum())):
            status = DIVERGED
            break
        if steps % wrap_every == 0:
            break
    return done, status, body_pose, body_velocity, acceleration, spin, torque, wheel_cos, wheel_sin
