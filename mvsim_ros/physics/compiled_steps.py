"""Many steps in one compiled call: `run_steps` runs `Simulation.step()`'s phases (step_phases.STEP_PHASES, in
that order) for worlds whose step needs no Python (flat ground, one friction model, wheel-controlled vehicles, no
keyframe movers, articulations, drivetrains, friction regions or kinematic twist_ideal control:
`compiled_steps_refusals` says which apply), calling the same phase kernels (step_phases.py, friction/ and the
vehicle, wheel and controller kernels) on the same arrays (the simulation's sim_state.StepGroups), and Box2D
through our C shim (box2d_native) instead of pybox2d's Python API. Bit for bit the same states as that many
`step()` calls (test_compiled_steps.py).

The steps allocate nothing: every intermediate array lives in a workspace (step_data.StepWorkspace, built once per
simulation) and the phases use their kernels' `*_into` forms, which `step()`'s allocating forms wrap; at one robot,
allocating and freeing some thirty small arrays a step would cost as much as Box2D's own step. `advance_steps`
is therefore compiled without numba's runtime (core.jit.allocation_free_kernel): no reference counting either.

The steps call no Python: the compiled path needs the Box2D shim, whose contact listener (shim.cpp
VehicleContacts) counts contacts in C++ from inside Box2D's step. These kernels keep the GIL (one simulation is
stepped by one thread); the batched environments' kernel (gym/batch/kernel.py) releases it to step independent
copies on two threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mvsim_ros.core.jit import allocation_free_kernel
from mvsim_ros.physics import box2d_native
from mvsim_ros.physics.bodies import Box2DWorld
from mvsim_ros.physics.box2d_native import mvb_apply_wrenches, mvb_read_bodies, mvb_world_step
from mvsim_ros.physics.controllers import pid_torque_law_into
from mvsim_ros.physics.friction import FrictionInputs, FrictionOutputs, solve_wheels_into
from mvsim_ros.physics.sim_state import StepGroups
from mvsim_ros.physics.step_data import (ContactVelocity, Engine, FrictionData, Setpoints, StepModel, TorqueLaw,
                                         WheelForces, WheelMounts, Wrenches)
from mvsim_ros.physics.step_phases import (BODY_FORCES, BOX2D_STEP, CONTROLLERS, FRICTION, INPUTS, SNAPSHOT,
                                           STEP_PHASES, WHEEL_KINEMATICS, acceleration_into, advance_spin_angles,
                                           applied_torque_into, copy_rows, copy_vector, reference_point_state_into,
                                           state_is_finite, stop_stale_commands)
from mvsim_ros.physics.vehicles.differential import integrate_differential_odometry
from mvsim_ros.physics.vehicles.fleet import wheel_setpoints_into
from mvsim_ros.physics.wheels import body_wrenches_into, contact_velocities_into
from mvsim_ros.world.specs import WorldSpec

#: run_steps' and advance_steps' status codes.
RAN, DIVERGED, BOX2D_FAILED = 0, 1, 2
#: Why the compiled steps refuse a world whose bodies are driven through pybox2d's Python API by choice.
SHIM_OFF = "the Box2D shim is off for this simulation"


def compiled_steps_refusals(groups: StepGroups, terrain: bool, movers: int, articulations: int,
                            drivetrains: int) -> tuple[str, ...]:
    """Why a simulation's step needs Python between steps (what run_steps leaves out), one phrase per reason, or
    () when it compiles: from its step groups, whether it runs the terrain phase, and its numbers of kinematic
    movers, articulated vehicles and ackermann_drivetrain vehicles."""
    if groups.body_addresses is None:
        return (box2d_native.UNAVAILABLE_REASON or SHIM_OFF,)
    checks = [
        (terrain, "terrain under the wheels"),
        (movers > 0, "keyframe-animated blocks or actors"),
        (articulations > 0, "articulated vehicles"),
        (drivetrains > 0, "ackermann_drivetrain vehicles"),
        (bool(groups.ideal.any()), "twist_ideal vehicles"),
        (bool(groups.region_overrides), "friction regions"),
        (not groups.one_friction_model, "more than one friction model"),
    ]
    return tuple(why for needed, why in checks if needed)


def step_engine(box2d: Box2DWorld, spec: WorldSpec, body_addresses: np.ndarray) -> Engine:
    """The Box2D world and bodies of a simulation as run_steps drives them: its Box2DWorld, its WorldSpec (solver
    iterations, vehicles) and its bodies' addresses (StepGroups.body_addresses; needs the Box2D shim)."""
    return Engine(box2d_native.address(box2d.world), spec.b2d_vel_iters, spec.b2d_pos_iters, body_addresses,
                  box2d.body_com_local, len(spec.vehicles))


def step_model(groups: StepGroups) -> StepModel:
    """The arrays of a simulation's step groups that run_steps' phases read and update in place (the simulation's
    own arrays, which are never replaced), for a world with one friction model on all wheels."""
    group = groups.friction_groups[0]
    friction = FrictionData(group.code, group.params, groups.slope_x, groups.slope_y, groups.max_torque,
                            groups.max_spin, groups.gravity)
    return StepModel(groups.commands, groups.steering, groups.wheels, groups.controllers, friction, groups.odometry)


@allocation_free_kernel
def load_state(work, start, model):
    """Start a run of advance_steps from `start` (step_data.StartState, copied into the workspace `work`): the
    wheels' spin rates and the bodies' reference-point pose and velocity; no step run yet (zero acceleration and
    torques, cos/sin of the wheels' current mounting angles model.wheels.yaw)."""
    copy_rows(work.pose, start.body_pose)
    copy_rows(work.velocity, start.body_velocity)
    copy_vector(work.spin, start.spin)
    work.acceleration[:] = 0.0
    work.torque[:] = 0.0
    yaw = model.wheels.yaw
    for i in range(yaw.size):
        work.wheel_cos[i] = np.cos(yaw[i])
        work.wheel_sin[i] = np.sin(yaw[i])


@njit(cache=True)
def run_steps(count, steps, dt, wrap_every, start, engine, model, work):
    """Up to `count` steps of `dt` [s] from step number `steps`, starting from `start` (step_data.StartState);
    stops early after a step whose number is a multiple of `wrap_every` (the caller wraps the wheel angles), or
    after a non-finite state or a failed Box2D step.

    engine: step_data.Engine; model: step_data.StepModel, updated in place; work: step_data.StepWorkspace, which
    holds the state after the run (work.pose, work.velocity, work.acceleration, work.spin, work.torque,
    work.wheel_cos, work.wheel_sin). Returns (steps run, RAN / DIVERGED / BOX2D_FAILED).
    """
    load_state(work, start, model)
    return advance_steps(count, steps, dt, wrap_every, engine, model, work)


@allocation_free_kernel
def advance_steps(count, steps, dt, wrap_every, engine, model, work):
    """run_steps' steps on the state in the workspace (load_state), which they leave there; returns (steps run,
    status)."""
    commands, wheels, friction = model.commands, model.wheels, model.friction
    yaw = work.pose[:, 2]
    setpoints = Setpoints(work.wanted, work.wheel_cos, work.wheel_sin, work.omega_set)
    law = TorqueLaw(work.const, work.slope)
    contact_velocity = ContactVelocity(work.local_vx, work.local_vy)
    contact = FrictionInputs(work.local_vx, work.local_vy, work.spin, work.const, work.slope, wheels.normal_force,
                             friction.slope_x, friction.slope_y, wheels.radius, wheels.inertia_yy, wheels.mass)
    forces = FrictionOutputs(work.force_lon, work.force_lat, work.spin_next, work.held)
    wrenches = Wrenches(work.world_fx, work.world_fy, work.torque_z)
    mounts = WheelMounts(wheels.body, wheels.arm_x, wheels.arm_y)
    wheel_forces = WheelForces(wheels.force_x, wheels.force_y)
    bodies = engine.bodies
    status = RAN
    done = 0
    while done < count:
        for phase in STEP_PHASES:  # each phase as Simulation.step() runs it (step_phases.STEP_PHASES)
            if phase == INPUTS:
                stop_stale_commands(steps * dt, commands.timeout, commands.watched, commands.last_command_time,
                                    commands.v, commands.omega)
            elif phase == CONTROLLERS:
                wheel_setpoints_into(commands, model.steering, wheels.vehicle, wheels.x, wheels.y, wheels.yaw, dt,
                                     setpoints)
                pid_torque_law_into(work.wanted, work.spin, wheels.radius, dt, model.controllers, law)
            elif phase == WHEEL_KINEMATICS:
                contact_velocities_into(yaw, work.velocity, wheels.body, wheels.x, wheels.y, work.wheel_cos,
                                        work.wheel_sin, contact_velocity)
            elif phase == FRICTION:
                solve_wheels_into(friction.code, contact, friction.params, friction.limit, friction.gravity, dt,
                                  forces)
                copy_vector(work.spin, work.spin_next)
                for c in wheels.casters:
                    work.force_lat[c] = 0.0
                applied_torque_into(work.const, work.slope, work.spin, friction.limit, friction.max_spin,
                                    work.torque)
            elif phase == BODY_FORCES:
                body_wrenches_into(work.force_lon, work.force_lat, work.wheel_cos, work.wheel_sin, mounts, yaw,
                                   wheel_forces, wrenches)
                mvb_apply_wrenches(bodies.ctypes, bodies.size, work.world_fx.ctypes, work.world_fy.ctypes,
                                   work.torque_z.ctypes)
            elif phase == BOX2D_STEP:  # no kinematic movers here
                if mvb_world_step(engine.world, dt, engine.velocity_iterations, engine.position_iterations) != 0:
                    status = BOX2D_FAILED
                    break
            elif phase == SNAPSHOT:
                mvb_read_bodies(bodies.ctypes, bodies.size, work.rows.ctypes)
                reference_point_state_into(work.rows, engine.com_local, work.pose_next, work.velocity_next)
                acceleration_into(work.velocity_next, work.velocity, dt, work.acceleration)
                copy_rows(work.pose, work.pose_next)
                copy_rows(work.velocity, work.velocity_next)
                advance_spin_angles(wheels.phi, work.spin, dt)
                integrate_differential_odometry(work.spin, wheels.radius, wheels.y, model.odometry, dt)
                steps += 1
            # TERRAIN: none (worlds with terrain do not compile, see compiled_steps_refusals).
        if status != RAN:
            break
        done += 1
        if not state_is_finite(work.pose, work.spin):
            status = DIVERGED
            break
        if steps % wrap_every == 0:
            break
    return done, status
