"""Dead reckoning shared by the odometry models: one step of planar motion at a measured speed and yaw rate."""

from __future__ import annotations

import math

from mvsim_ros.physics.jit import kernel


@kernel
def advance_odometry(odom_pose, odom_twist, k, speed, yaw_rate, dt):
    """Move vehicle k's odometry pose (x, y, yaw) [m, m, rad] by dt [s] at forward speed [m/s] and yaw rate
    [rad/s] along the midpoint heading (yaw kept in [-pi, pi)); store (speed, yaw_rate) as its twist."""
    heading = odom_pose[k, 2] + 0.5 * yaw_rate * dt
    odom_pose[k, 0] += speed * math.cos(heading) * dt
    odom_pose[k, 1] += speed * math.sin(heading) * dt
    odom_pose[k, 2] = (odom_pose[k, 2] + yaw_rate * dt + math.pi) % (2.0 * math.pi) - math.pi
    odom_twist[k, 0] = speed
    odom_twist[k, 1] = yaw_rate
