"""`step_copies`: one compiled call that advances copies of a world by one env step each and measures their
observations, doing for each copy exactly what MvsimEnv.step does through Python: the action's command
(VehicleControl.command, Simulation.set_twist / set_ackermann), the physics steps (Simulation.step_many: the same
compiled_steps.run_steps runs, the wheel spin angles wrapped where run_compiled wraps them), the collision flag
(Simulation.take_collisions) and the Observer's entries (Lidar2D.scan's pose, bearing and noise arithmetic, the
Box2D shim's ray scan, limit_ranges, the range clip; the odometry and pose bounds), bit for bit.

Compiled with nogil: Box2D's contact listener is the shim's (C++), so two threads may each step their own copies
(each copy has its own Box2D world; the shim's scan scratch is per thread). Only the loop over the typed list of
copies runs with numba's runtime (the list holds uncounted views, copy_list.py); the work on one copy (`step_copy`
and below) is compiled without it, as the physics kernels are (core.jit.allocation_free_kernel): a copy's named
data holds some hundred arrays, and reading them with the runtime would cost an atomic increment and decrement
each.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mvsim_ros.gym.batch.layout import OBSERVE, SKIP
from mvsim_ros.gym.observe import POSITION_BOUND, SPEED_BOUND, YAW_RATE_BOUND
from mvsim_ros.physics.box2d_native import mvb_ray_scan
from mvsim_ros.physics.compiled_steps import RAN, advance_steps, load_state
from mvsim_ros.physics.step_data import StartState
from mvsim_ros.sensors.lidar2d import limit_ranges

#: status of a copy whose ray scan failed in the shim, and of one whose noise drawn ahead was used up (the caller
#: draws more before each call: never expected).
SCAN_FAILED, NOISE_USED_UP = 3, 4


#: Decorator of the per-copy kernels: allocation free, without numba's runtime, releasing the GIL.
copy_kernel = njit(cache=True, nogil=True, _nrt=False)


@copy_kernel
def clamp(value, bound):
    """`value` within +/- `bound`, as Python's min(max(value, -bound), bound) gives it (value itself, bit for bit,
    when inside)."""
    low = -bound
    if low > value:
        value = low
    if bound < value:
        value = bound
    return value


@copy_kernel
def apply_action(first, second, now, shared, commands):
    """Set the controlled vehicle's command from the action (first, second) (float64) at simulated time `now` [s],
    as VehicleControl.apply and VehicleCommands.set_twist / set_ackermann do."""
    if shared.normalized:
        first = clamp(first, 1.0) * shared.high[0]
        second = clamp(second, 1.0) * shared.high[1]
    else:
        first = clamp(first, shared.bounds[0])
        second = clamp(second, shared.bounds[1])
    k = shared.vehicle
    first = clamp(first, shared.max_speed)
    second = clamp(second, shared.max_second)
    commands.v[k] = first
    if shared.ackermann:
        commands.steer[k] = second
        commands.steer_mode[k] = True
        commands.steer_rate[k] = abs(clamp(0.0, shared.max_steer_rate))
    else:
        commands.omega[k] = second
        commands.steer_mode[k] = False
        commands.steer_rate[k] = 0.0
    commands.last_command_time[k] = now
    commands.watched[k] = True


@copy_kernel
def advance(copy, steps, shared):
    """Run the env step's physics steps of one copy from physics step `steps`, as Simulation.step_many runs them;
    returns (steps run, status)."""
    work, phi = copy.work, copy.model.wheels.phi
    remaining, done_all, status = shared.physics_steps, 0, RAN
    while remaining > 0:
        load_state(work, StartState(work.spin, work.pose, work.velocity), copy.model)  # as run_steps starts
        done, status = advance_steps(remaining, steps + done_all, shared.dt, shared.wrap_every, copy.engine,
                                     copy.model, work)
        done_all += done
        remaining -= done
        if status != RAN:
            break
        if done > 0 and (steps + done_all) % shared.wrap_every == 0:
            for i in range(phi.size):  # Simulation's wrap: np.remainder(phi + pi, 2 pi) - pi (Python's float %)
                phi[i] = (phi[i] + math.pi) % (2.0 * math.pi) - math.pi
    return done_all, status


@copy_kernel
def take_collision(copy, vehicle):
    """Whether `vehicle` touched something since the last call or touches now (Simulation.take_collisions), and
    the copy's contact memory cleared."""
    hit = copy.since_reset[vehicle] or copy.touching[vehicle] > 0
    for i in range(copy.since_reset.size):
        copy.since_reset[i] = False
    return hit


@copy_kernel
def scan_into(copy, row, block, vehicle, rig, bearings, out):
    """The controlled vehicle's lidar scans of one copy (Lidar2D.scan each) into `out` (T,) float32, with the noise
    of block `block` of the copy's noise; False when the shim's ray scan failed."""
    pose = copy.work.pose
    x, y, yaw = pose[vehicle, 0], pose[vehicle, 1], pose[vehicle, 2]
    c, s = math.cos(yaw), math.sin(yaw)
    for i in range(rig.mount.shape[0]):
        origin_x = x + c * rig.mount[i, 0] - s * rig.mount[i, 1]
        origin_y = y + s * rig.mount[i, 0] + c * rig.mount[i, 1]
        heading = yaw + rig.mount[i, 2]
        first, count = rig.ray_start[i], rig.ray_start[i + 1] - rig.ray_start[i]
        for j in range(count):
            bearings[j] = heading + rig.angles[first + j]
        if rig.bearing_noise[i]:
            for j in range(count):
                bearings[j] = bearings[j] + copy.noise[block, 0, first + j]
        ranges = row[first:first + count]
        hidden = copy.hidden[copy.hidden_start[i]:copy.hidden_start[i + 1]]
        if mvb_ray_scan(copy.world, copy.scene_index, origin_x, origin_y, bearings.ctypes, count, rig.range_max[i],
                        hidden.ctypes, hidden.size, ranges.ctypes) != 0:
            return False
        if rig.range_noise[i]:
            for j in range(count):
                ranges[j] = ranges[j] + copy.noise[block, 1, first + j]
        limit_ranges(ranges, rig.range_min[i], rig.range_max[i])
        top = rig.range_max[i]
        for j in range(count):
            out[first + j] = np.float32(min(ranges[j], top))
    return True


@copy_kernel
def wrap_angle(angle):
    """`angle` [rad] wrapped into [-pi, pi) as observe.wrap_angle does."""
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


@copy_kernel
def observe_into(copy, k, shared, rig, scratch, outputs):
    """Copy k's observation (the Observer's entries) into row k of `outputs`; False when a ray scan failed or
    the copy's noise was used up (then status NOISE_USED_UP)."""
    vehicle = shared.vehicle
    if rig.mount.shape[0] > 0:
        block = outputs.noise_used[k]
        if block >= copy.noise.shape[0]:
            outputs.status[k] = NOISE_USED_UP
            return False
        if not scan_into(copy, scratch.ranges, block, vehicle, rig, scratch.bearings, outputs.scans[k]):
            return False
        outputs.noise_used[k] = block + 1
    twist = copy.model.odometry.twist
    outputs.odometry[k, 0] = np.float32(clamp(twist[vehicle, 0], SPEED_BOUND))
    outputs.odometry[k, 1] = np.float32(clamp(twist[vehicle, 1], YAW_RATE_BOUND))
    pose = copy.work.pose
    outputs.pose[k, 0] = np.float32(clamp(pose[vehicle, 0], POSITION_BOUND))
    outputs.pose[k, 1] = np.float32(clamp(pose[vehicle, 1], POSITION_BOUND))
    outputs.pose[k, 2] = np.float32(wrap_angle(pose[vehicle, 2]))
    for axis in range(3):
        outputs.exact_pose[k, axis] = pose[vehicle, axis]
    return True


@copy_kernel
def step_copy(copy, k, mode, actions, shared, rig, scratch, outputs):
    """step_copies' work on copy k (CopyArrays `copy`) in `mode` (STEP or OBSERVE)."""
    outputs.status[k] = RAN
    if mode != OBSERVE:
        steps = outputs.steps[k]
        apply_action(actions[k, 0], actions[k, 1], steps * shared.dt, shared, copy.model.commands)
        done, status = advance(copy, steps, shared)
        outputs.steps[k] = steps + done
        if status != RAN:
            outputs.status[k] = status
            return
        outputs.collided[k] = take_collision(copy, shared.vehicle)
    if not observe_into(copy, k, shared, rig, scratch, outputs) and outputs.status[k] == RAN:
        outputs.status[k] = SCAN_FAILED


@njit(cache=True, nogil=True)
def step_copies(copies, modes, actions, begin, end, shared, rig, scratch, outputs):
    """For each copy k in [begin, end): modes[k] STEP applies actions[k] (float64 (N, 2)), runs the env step's
    physics steps and takes its collision flag, then measures its observation; OBSERVE only measures it; SKIP
    leaves it. Each observed copy uses one block of its noise (outputs.noise_used[k] must be below its blocks).
    copies: a typed list of CopyArrays; shared: Shared; rig: LidarRig; scratch: Scratch (this thread's);
    outputs: Outputs (rows written in place). A copy whose steps or scans failed has a status other than RAN
    (compiled_steps' codes, SCAN_FAILED or NOISE_USED_UP) and is not observed."""
    for k in range(begin, end):
        if modes[k] != SKIP:
            step_copy(copies[k], k, modes[k], actions, shared, rig, scratch, outputs)
