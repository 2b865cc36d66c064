"""Dead reckoning shared by the odometry models: one step of planar motion at a measured speed and yaw rate, with
MVSim's odometry error multipliers scaling each increment in the vehicle frame."""

from __future__ import annotations

import math

from mvsim_ros.core.jit import kernel


@kernel
def advance_odometry(odom_pose, odom_twist, k, speed, yaw_rate, dt, scale):
    """Move vehicle k's odometry pose (x, y, yaw) [m, m, rad] by dt [s] at forward speed [m/s] and yaw rate
    [rad/s] along the midpoint heading (yaw kept in [-pi, pi)); store (speed, yaw_rate) as its twist.

    scale[k] = (x_multiplier, y_multiplier, yaw_multiplier): the increment, in the frame of the pose before it
    (forward speed dt cos(yaw_rate dt / 2), sideways speed dt sin(yaw_rate dt / 2), yaw_rate dt), is scaled by
    them before it is added (all 1: the exact increment)."""
    sx, sy, syaw = scale[k, 0], scale[k, 1], scale[k, 2]
    yaw = odom_pose[k, 2]
    if sx == sy:  # the increment keeps its direction: along the midpoint heading
        heading = yaw + 0.5 * yaw_rate * dt
        odom_pose[k, 0] += sx * speed * math.cos(heading) * dt
        odom_pose[k, 1] += sx * speed * math.sin(heading) * dt
    else:
        half = 0.5 * yaw_rate * dt
        forward = sx * speed * math.cos(half) * dt
        sideways = sy * speed * math.sin(half) * dt
        c, s = math.cos(yaw), math.sin(yaw)
        odom_pose[k, 0] += c * forward - s * sideways
        odom_pose[k, 1] += s * forward + c * sideways
    odom_pose[k, 2] = (yaw + syaw * yaw_rate * dt + math.pi) % (2.0 * math.pi) - math.pi
    odom_twist[k, 0] = speed
    odom_twist[k, 1] = yaw_rate
