"""Differential drive: wheel odometry from the left and right wheels (MVSim docs, "Differential Drive").

With wheel ground speeds v_l = omega_l R_l and v_r = omega_r R_r at lateral positions y_l > y_r (left positive),
rigid-body kinematics v_i = v - omega * y_i give

    omega = (v_r - v_l) / (y_l - y_r),    v = v_l + omega * y_l,    v_y = 0 (no side slip assumed).

(MVSim's documentation writes the denominator as y_r - y_l, which flips the sign of omega for a left-positive y axis.)
"""

from __future__ import annotations


import numpy as np

from mvsim_ros.physics.step_phases import inlined_kernel
from mvsim_ros.physics.vehicles.odometry import advance_odometry
from mvsim_ros.physics.wheels import WheelArrays


def odometry_wheel_pairs(wheels: WheelArrays, vehicle_count: int) -> tuple[np.ndarray, np.ndarray]:
    """Index of the first left and the first right wheel of each vehicle."""
    left = np.full(vehicle_count, -1, dtype=np.intp)
    right = np.full(vehicle_count, -1, dtype=np.intp)
    for i in range(wheels.count - 1, -1, -1):
        if wheels.side[i] > 0:
            left[wheels.vehicle[i]] = i
        elif wheels.side[i] < 0:
            right[wheels.vehicle[i]] = i
    if np.any(left < 0) or np.any(right < 0):
        raise ValueError("every differential vehicle needs a left and a right wheel")
    return left, right


@inlined_kernel
def integrate_differential_odometry(omega, radius, y, odometry, dt):
    """Advance the odometry of the vehicles odometry.vehicles by dt [s] from their wheels' spin rates omega
    [rad/s] (midpoint heading); radius [m] and lateral position y [m] of every wheel.

    odometry: step_data.OdometryData, whose left[k], right[k] are vehicle k's odometry wheels and whose
    pose[k] = (x, y, yaw) [m, m, rad] and twist[k] = (v, omega) [m/s, rad/s] are updated in place; its scale: the
    odometry multipliers (advance_odometry).
    """
    vehicles, left, right = odometry.vehicles, odometry.left, odometry.right
    pose, twist, scale = odometry.pose, odometry.twist, odometry.scale
    for j in range(vehicles.size):
        k = vehicles[j]
        l, r = left[k], right[k]
        v_left = omega[l] * radius[l]
        yaw_rate = (omega[r] * radius[r] - v_left) / (y[l] - y[r])
        advance_odometry(pose, twist, k, v_left + yaw_rate * y[l], yaw_rate, dt, scale)
