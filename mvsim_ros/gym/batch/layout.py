"""The named data `step_copies` (kernel.py) runs on: what every copy shares (the controlled vehicle, its action's
scaling and bounds, its lidars' geometry), each copy's own arrays (its simulation's compiled-step data, contact
counters, Box2D world and the noise drawn ahead for its lidars), and the batch's outputs, one row per copy.

Units are SI, angles in radians. T: the controlled vehicle's lidar rays in all (its lidars' rays back to back),
L: its lidars, N: the copies, B: scans of noise drawn ahead per copy.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

#: What the copies share.
#:   vehicle (int): the controlled vehicle's index; ackermann (bool): an action is (speed, steering angle), else
#:   (v, omega); normalized (bool): actions are fractions of `high`, else clipped to `bounds`; high (2,) float64:
#:   the action limits [m/s; rad/s or rad]; bounds (2,) float64: the physical action Box's bounds (float32 values);
#:   max_speed [m/s], max_second [rad/s or rad], max_steer_rate [rad/s]: the simulator's command bounds of the
#:   vehicle; physics_steps (int): physics steps per env step; dt [s]; wrap_every (int): the wheel spin angles
#:   are wrapped after every step whose number is a multiple of this (Simulation.longest_compiled_run).
Shared = namedtuple("Shared", "vehicle ackermann normalized high bounds max_speed max_second max_steer_rate "
                              "physics_steps dt wrap_every")

#: The controlled vehicle's 2D lidars (the observation's scans, in the Observer's order).
#:   mount (L, 3): each lidar's (x, y, yaw) on the vehicle; angles (T,): every ray's bearing from its lidar's
#:   heading; ray_start (L + 1,) intp: lidar i's rays are ray_start[i]:ray_start[i + 1]; range_min, range_max (L,)
#:   [m]; bearing_noise, range_noise (L,) bool: whether its bearing / range errors are added (each noise on).
LidarRig = namedtuple("LidarRig", "mount angles ray_start range_min range_max bearing_noise range_noise")

#: One copy's arrays.
#:   engine, model, work: its simulation's compiled-step data (physics/step_data.py Engine, StepModel,
#:   StepWorkspace; the workspace holds the copy's state between env steps); touching (V,) int64, since_reset (V,)
#:   bool: its contact counters (physics/bodies.ContactCounter); world (int): address of its b2World;
#:   scene_index (int): address of its static-body index (box2d_native.SceneIndex; 0 without lidars); hidden:
#:   addresses of the bodies its lidars do not see, lidar i's hidden[hidden_start[i]:hidden_start[i + 1]];
#:   noise (B, 2, T): bearing [rad] and range [m] errors of its lidars' next B scans.
CopyArrays = namedtuple("CopyArrays", "engine model work touching since_reset world scene_index hidden hidden_start "
                                      "noise")

#: The batch's outputs and per-copy counters, one row per copy.
#:   scans (N, T) float32 [m]: ranges within [0, range_max] (no return reads range_max); odometry (N, 2) float32:
#:   (v [m/s], omega [rad/s]); pose (N, 3) float32: (x, y [m], yaw [rad] in [-pi, pi)); collided (N,) bool: touched
#:   something during the step; steps (N,) int64: physics steps run since the copy's reset; status (N,) int64:
#:   compiled_steps' status of the copy's last run (RAN, DIVERGED, BOX2D_FAILED); noise_used (N,) int64: blocks of
#:   `CopyArrays.noise` used; exact_pose (N, 3) float64: (x, y [m], yaw [rad]) as the copy's simulation holds it
#:   (Simulation.pose: neither clamped nor wrapped), what its task reads.
Outputs = namedtuple("Outputs", "scans odometry pose collided steps status noise_used exact_pose")

#: One thread's scratch of the scans: bearings (T,) [rad], ranges (T,) [m].
Scratch = namedtuple("Scratch", "bearings ranges")

#: What a copy does in a call of step_copies: nothing, an env step then its observation, or only the observation
#: (after a reset).
SKIP, STEP, OBSERVE = 0, 1, 2


def empty_outputs(copies: int, rays: int) -> Outputs:
    """Zeroed Outputs for `copies` copies whose controlled vehicle's lidars have `rays` rays in all."""
    return Outputs(np.zeros((copies, rays), np.float32), np.zeros((copies, 2), np.float32),
                   np.zeros((copies, 3), np.float32), np.zeros(copies, bool), np.zeros(copies, np.int64),
                   np.zeros(copies, np.int64), np.zeros(copies, np.int64), np.zeros((copies, 3)))


def scratch(rays: int) -> Scratch:
    """A Scratch for lidars of `rays` rays in all."""
    return Scratch(np.zeros(rays), np.zeros(rays))


def lidar_rig(lidars, sensor_noise: bool = True) -> LidarRig:
    """The LidarRig of `lidars` (sensors.lidar2d.Lidar2D, all on the controlled vehicle); `sensor_noise` False: no
    noise added (Observer's sensor_noise)."""
    rays = [lidar.params.rays for lidar in lidars]
    return LidarRig(
        mount=np.array([[lidar.spec.pose.x, lidar.spec.pose.y, lidar.spec.pose.yaw] for lidar in lidars],
                       dtype=float).reshape(len(lidars), 3),
        angles=np.concatenate([lidar.params.angles for lidar in lidars] or [np.zeros(0)]).astype(float),
        ray_start=np.concatenate([[0], np.cumsum(rays)]).astype(np.intp),
        range_min=np.array([lidar.params.range_min for lidar in lidars], dtype=float),
        range_max=np.array([lidar.params.range_max for lidar in lidars], dtype=float),
        bearing_noise=np.array([sensor_noise and lidar.params.angle_noise > 0 for lidar in lidars], dtype=bool),
        range_noise=np.array([sensor_noise and lidar.params.range_noise > 0 for lidar in lidars], dtype=bool))
