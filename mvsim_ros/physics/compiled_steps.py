"""Many steps in one compiled call: `run_steps` is `Simulation.step()`'s phases 1-7 for worlds whose step needs
no Python (flat ground, one friction model, wheel-controlled vehicles, no keyframe movers, articulations,
drivetrains, friction regions or kinematic twist_ideal control), calling the same phase kernels (step_phases.py and
the vehicle, wheel and controller kernels) on the same arrays, and Box2D through our C shim (box2d_native) instead of
pybox2d's Python API. Bit for bit the same states as that many `step()` calls (test_compiled_steps.py).

The steps allocate nothing: every intermediate array lives in a workspace (`step_workspace`, built once per
simulation) and the phases use their kernels' `*_into` forms, which `step()`'s allocating forms wrap. (At one
robot, allocating and freeing some thirty small arrays a step cost as much as Box2D's own step.)

The GIL stays held: Box2D calls the contact listener (Python) from inside its step.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mvsim_ros.physics.box2d_native import mvb_apply_wrenches, mvb_read_bodies, mvb_world_step
from mvsim_ros.physics.controllers import pid_torque_law_into
from mvsim_ros.physics.step_phases import (advance_spin_angles, applied_torque_into, reference_point_state_into,
                                           solve_wheels_into, stop_stale_commands)
from mvsim_ros.physics.vehicles.differential import integrate_differential_odometry
from mvsim_ros.physics.vehicles.fleet import wheel_setpoints_into
from mvsim_ros.physics.wheels import body_wrenches_into, contact_velocities_into

#: run_steps' return codes.
RAN, DIVERGED, BOX2D_FAILED = 0, 1, 2


def step_workspace(body_count: int, vehicle_count: int, wheel_count: int) -> tuple:
    """The arrays run_steps works in (see `advance_steps` for their order and meaning), for `body_count` Box2D
    bodies, of which the first `vehicle_count` are vehicles, and `wheel_count` wheels."""
    def bodies(columns):
        return np.zeros((body_count, columns))

    def wheels():
        return np.zeros(wheel_count)

    return (bodies(6), bodies(3), bodies(3), bodies(3), bodies(3), np.zeros((vehicle_count, 3)), wheels(), wheels(),
            wheels(), wheels(), wheels(), np.zeros(vehicle_count), wheels(), wheels(), wheels(), wheels(), wheels(),
            wheels(), wheels(), wheels(), np.zeros(body_count), np.zeros(body_count), np.zeros(body_count))


@njit(cache=True)
def load_state(work, spin, body_pose, body_velocity, yaw_mount):
    """Start a run of advance_steps from these states (copied into the workspace): the wheels' spin rates [rad/s]
    and the bodies' reference-point pose and velocity; no step run yet (zero acceleration and torques, the wheels'
    current mounting angles)."""
    pose, velocity, acceleration, current_spin = work[1], work[2], work[5], work[6]
    wheel_cos, wheel_sin, torque = work[9], work[10], work[19]
    pose[:] = body_pose
    velocity[:] = body_velocity
    current_spin[:] = spin
    acceleration[:] = 0.0
    torque[:] = 0.0
    for i in range(yaw_mount.size):
        wheel_cos[i] = np.cos(yaw_mount[i])
        wheel_sin[i] = np.sin(yaw_mount[i])


@njit(cache=True)
def unload_state(work):
    """Copies of what run_steps returns after its status: (body_pose, body_velocity, acceleration, spin, torque,
    wheel_cos, wheel_sin)."""
    return (work[1].copy(), work[2].copy(), work[5].copy(), work[6].copy(), work[19].copy(), work[9].copy(),
            work[10].copy())


@njit(cache=True)
def run_steps(count, steps, dt, wrap_every, spin, body_pose, body_velocity, world, velocity_iterations,
              position_iterations, bodies, com_local, vehicle_count, commands, steering, wheels, controllers, friction,
              odometry, work):
    """Up to `count` steps from step number `steps`; stops early after a step whose number is a multiple of
    `wrap_every` (the caller wraps the wheel angles), or after a non-finite state or a failed Box2D step.

    spin: the wheels' spin rates [rad/s]; body_pose, body_velocity: the bodies' reference-point state after the last
    step; then the Box2D world and bodies (addresses) and argument groups (tuples of arrays, see
    Simulation._compiled_argument_groups) that are updated in place: commands, steering, wheels, controllers,
    friction, odometry; and the workspace (step_workspace).
    Returns (steps run, RAN / DIVERGED / BOX2D_FAILED, body_pose, body_velocity, acceleration of the vehicles,
    wheel spin omega, motor torque, wheel cos(yaw), sin(yaw)), all new arrays.
    """
    load_state(work, spin, body_pose, body_velocity, wheels[4])
    done, status = advance_steps(count, steps, dt, wrap_every, world, velocity_iterations, position_iterations,
                                 bodies, com_local, vehicle_count, commands, steering, wheels, controllers, friction,
                                 odometry, work)
    return (done, status) + unload_state(work)


@njit(cache=True)
def advance_steps(count, steps, dt, wrap_every, world, velocity_iterations, position_iterations, bodies, com_local,
                  vehicle_count, commands, steering, wheels, controllers, friction, odometry, work):
    """run_steps' steps on the state in the workspace (load_state), which they leave there; returns (steps run,
    status).

    work = (rows: Box2D body states as read; pose, velocity: the bodies' reference-point state; pose_next,
    velocity_next; acceleration of the vehicles; spin: the wheels' spin rates; spin_next; wanted: wheel speed
    setpoints; wheel_cos, wheel_sin; omega_set: yaw-rate setpoints; const, slope: torque laws; local_vx, local_vy:
    contact velocities; force_lon, force_lat, held: friction forces; torque: applied motor torques; world_fx,
    world_fy, torque_z: body wrenches).
    """
    v, omega, steer, steer_mode, steer_rate, timeout, watched, last_command_time = commands
    st_vehicle, st_fl, st_fr, wheelbase, track, max_steer, max_rate, delta = steering
    (wheel_vehicle, wheel_body, x, y, yaw_mount, radius, phi, force_x, force_y, normal, inertia_yy, wheel_mass,
     arm_x, arm_y, casters) = wheels
    code, params, slope_x, slope_y, limit, max_spin, gravity = friction
    odometry_vehicles, left, right, odom_pose, odom_twist, odom_scale = odometry
    (rows, pose, velocity, pose_next, velocity_next, acceleration, spin, spin_next, wanted, wheel_cos, wheel_sin,
     omega_set, const, slope, local_vx, local_vy, force_lon, force_lat, held, torque, world_fx, world_fy,
     torque_z) = work
    yaw = pose[:, 2]
    status = RAN
    done = 0
    while done < count:
        # 1. Inputs.
        stop_stale_commands(steps * dt, timeout, watched, last_command_time, v, omega)
        # 2. Steering and controllers.
        wheel_setpoints_into(v, omega, steer, steer_mode, steer_rate, st_vehicle, st_fl, st_fr, wheelbase, track,
                             max_steer, max_rate, delta, wheel_vehicle, x, y, yaw_mount, dt, wanted, wheel_cos,
                             wheel_sin, omega_set)
        pid_torque_law_into(wanted, spin, radius, dt, controllers, const, slope)
        # 3. Wheel kinematics.
        contact_velocities_into(yaw, velocity, wheel_body, x, y, wheel_cos, wheel_sin, local_vx, local_vy)
        # 4. Friction.
        solve_wheels_into(code, local_vx, local_vy, spin, const, slope, normal, slope_x, slope_y, radius,
                          inertia_yy, wheel_mass, limit, params, gravity, dt, force_lon, force_lat, spin_next, held)
        spin[:] = spin_next
        for c in casters:
            force_lat[c] = 0.0
        applied_torque_into(const, slope, spin, limit, max_spin, torque)
        # 5. Forces onto bodies.
        body_wrenches_into(force_lon, force_lat, wheel_cos, wheel_sin, arm_x, arm_y, wheel_body, yaw, force_x,
                           force_y, world_fx, world_fy, torque_z)
        mvb_apply_wrenches(bodies.ctypes, bodies.size, world_fx.ctypes, world_fy.ctypes, torque_z.ctypes)
        # 6. Box2D step.
        if mvb_world_step(world, dt, velocity_iterations, position_iterations) != 0:
            status = BOX2D_FAILED
            break
        # 7. Snapshot.
        mvb_read_bodies(bodies.ctypes, bodies.size, rows.ctypes)
        reference_point_state_into(rows, com_local, pose_next, velocity_next)
        for k in range(vehicle_count):
            for c in range(3):
                acceleration[k, c] = (velocity_next[k, c] - velocity[k, c]) / dt
        pose[:] = pose_next
        velocity[:] = velocity_next
        advance_spin_angles(phi, spin, dt)
        integrate_differential_odometry(spin, radius, y, odometry_vehicles, left, right, odom_pose, odom_twist, dt,
                                        odom_scale)
        steps += 1
        done += 1
        if not (np.isfinite(pose.sum()) and np.isfinite(spin.sum())):
            status = DIVERGED
            break
        if steps % wrap_every == 0:
            break
    return done, status
