"""The numbers of each vehicle's odometry, odom -> base_link transform and ground truth at one instant, in the
column order of the front end's serialized fields (ros/publishing/state_publishers.py: ODOMETRY_FIELDS,
TRANSFORM_FIELDS): one compiled function for the Python path and the compiled fast path alike, so both write the
same bits."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mvsim_ros.core.jit import allocation_free_kernel, kernel
from mvsim_ros.core.rotations import write_ypr_quaternion_xyzw

#: Columns of an odometry / ground-truth row: stamp (sec, nanosec), position (x, y, z) [m], orientation (x, y, z, w),
#: linear velocity (x, y, z) [m/s], angular velocity (x, y, z) [rad/s].
ODOMETRY_COLUMNS = 15
#: Columns of a transform row: stamp (sec, nanosec), translation (x, y, z) [m], rotation (x, y, z, w).
TRANSFORM_COLUMNS = 9


class VehicleMotion(NamedTuple):
    """The vehicles' motion, row k for vehicle k (the simulation's arrays, read in place)."""

    #: Wheel odometry pose (x, y, yaw) [m, m, rad] in odom.
    odom_pose: np.ndarray
    #: Wheel odometry twist (v [m/s], omega [rad/s]).
    odom_twist: np.ndarray
    #: True reference-point pose (x, y, yaw) [m, m, rad] in the world.
    pose: np.ndarray
    #: True reference-point velocity (vx, vy [m/s], yaw rate [rad/s]) in the world.
    velocity: np.ndarray
    #: Height [m], pitch and roll [rad] of the terrain under each vehicle, and its vertical speed [m/s].
    z: np.ndarray
    pitch: np.ndarray
    roll: np.ndarray
    vz: np.ndarray


@kernel
def vehicle_values(motion, sec, nsec):
    """(odometry, transform, ground truth) rows of every vehicle of `motion` (a VehicleMotion) stamped (sec, nsec).

    The wheel odometry is planar (x, y, yaw, as MVSim integrates it); its pose also carries the height, pitch and
    roll of the terrain under the vehicle (all 0 on flat ground), as an odometry aided by an IMU would, so that
    base_link sits on the ground in odom as in map. The transform is the odometry's pose. The ground truth is the
    full 3D pose; its twist is the reference point's velocity (vx, vy, vz world) and yaw rate, rotated into the
    tilted body frame."""
    count = motion.pose.shape[0]
    odom = np.zeros((count, ODOMETRY_COLUMNS))
    tf = np.zeros((count, TRANSFORM_COLUMNS))
    truth = np.zeros((count, ODOMETRY_COLUMNS))
    vehicle_values_into(motion, sec, nsec, odom, tf, truth)
    return odom, tf, truth


@allocation_free_kernel
def vehicle_values_into(motion, sec, nsec, odom, tf, truth):
    """vehicle_values writing into `odom`, `tf` and `truth` (rows for at least the vehicles of `motion`; the
    columns vehicle_values leaves at zero must be zero)."""
    odom_pose, odom_twist, pose, velocity = motion.odom_pose, motion.odom_twist, motion.pose, motion.velocity
    z, pitch, roll, vz = motion.z, motion.pitch, motion.roll, motion.vz
    for k in range(pose.shape[0]):
        odom[k, 0], odom[k, 1], tf[k, 0], tf[k, 1], truth[k, 0], truth[k, 1] = sec, nsec, sec, nsec, sec, nsec
        odom[k, 2], odom[k, 3], odom[k, 4] = odom_pose[k, 0], odom_pose[k, 1], z[k]
        write_ypr_quaternion_xyzw(odom_pose[k, 2], pitch[k], roll[k], odom, k, 5)
        odom[k, 9], odom[k, 14] = odom_twist[k, 0], odom_twist[k, 1]
        for j in range(2, 9):
            tf[k, j] = odom[k, j]
        truth[k, 2], truth[k, 3], truth[k, 4] = pose[k, 0], pose[k, 1], z[k]
        write_ypr_quaternion_xyzw(pose[k, 2], pitch[k], roll[k], truth, k, 5)
        cy, sy = np.cos(pose[k, 2]), np.sin(pose[k, 2])
        cp, sp = np.cos(pitch[k]), np.sin(pitch[k])
        cr, sr = np.cos(roll[k]), np.sin(roll[k])
        # R^T v with R = Rz Ry Rx: first undo the yaw, then the pitch, then the roll.
        hx = cy * velocity[k, 0] + sy * velocity[k, 1]
        hy = -sy * velocity[k, 0] + cy * velocity[k, 1]
        hz = vz[k]
        px, pz = cp * hx - sp * hz, sp * hx + cp * hz
        truth[k, 9], truth[k, 10], truth[k, 11] = px, cr * hy + sr * pz, -sr * hy + cr * pz
        w = velocity[k, 2]  # world yaw rate, (0, 0, w) in the body frame
        truth[k, 12], truth[k, 13], truth[k, 14] = -sp * w, sr * cp * w, cr * cp * w
