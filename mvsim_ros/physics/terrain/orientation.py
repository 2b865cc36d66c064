"""3D orientation of bodies from yaw, pitch, roll, vectorised: R = Rz(yaw) Ry(pitch) Rx(roll) (REP-103, MVSim's and
MRPT's yaw-pitch-roll). pitch > 0 turns the nose (x) down, roll > 0 lifts the left side (y)."""

from __future__ import annotations

import numpy as np

from mvsim_ros.core.rotations import ypr_quaternions_xyzw


#: Unit quaternions (x, y, z, w) — geometry_msgs order — of R = Rz(yaw) Ry(pitch) Rx(roll) [rad], arguments
#: broadcast together, result shape (..., 4): the shared rotations module's vectorised form.
orientation_quaternions = ypr_quaternions_xyzw


def rotation_matrices(yaw, pitch, roll) -> np.ndarray:
    """Rotation matrices R = Rz(yaw) Ry(pitch) Rx(roll) [rad], body frame to world frame; shape (..., 3, 3)."""
    yaw, pitch, roll = np.broadcast_arrays(np.asarray(yaw, dtype=float), np.asarray(pitch, dtype=float),
                                           np.asarray(roll, dtype=float))
    cy, sy = np.cos(yaw), np.sin(yaw)
    cp, sp = np.cos(pitch), np.sin(pitch)
    cr, sr = np.cos(roll), np.sin(roll)
    rows = [
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ]
    return np.stack([np.stack(row, axis=-1) for row in rows], axis=-2)


def gravity_in_body(pitch, roll, gravity: float = 9.81) -> np.ndarray:
    """What an accelerometer at rest reads, R^T (0, 0, g) in the body frame [m/s^2]: g (-sin(pitch),
    cos(pitch) sin(roll), cos(pitch) cos(roll)); shape (..., 3). Facing uphill on a slope theta (pitch = -theta)
    this is (g sin(theta), 0, g cos(theta))."""
    pitch, roll = np.broadcast_arrays(np.asarray(pitch, dtype=float), np.asarray(roll, dtype=float))
    cp, sp = np.cos(pitch), np.sin(pitch)
    return gravity * np.stack([-sp, cp * np.sin(roll), cp * np.cos(roll)], axis=-1)


def body_angular_velocity(yaw_rate, pitch, roll, pitch_rate, roll_rate) -> np.ndarray:
    """Angular velocity in the body frame [rad/s] (what a gyroscope reads) from the yaw-pitch-roll angles [rad] and
    their rates [rad/s]: (roll_rate - yaw_rate sin(pitch), pitch_rate cos(roll) + yaw_rate cos(pitch) sin(roll),
    -pitch_rate sin(roll) + yaw_rate cos(pitch) cos(roll)); shape (..., 3)."""
    yaw_rate, pitch, roll, pitch_rate, roll_rate = np.broadcast_arrays(
        *(np.asarray(a, dtype=float) for a in (yaw_rate, pitch, roll, pitch_rate, roll_rate)))
    cp, sp, cr, sr = np.cos(pitch), np.sin(pitch), np.cos(roll), np.sin(roll)
    return np.stack([roll_rate - yaw_rate * sp, pitch_rate * cr + yaw_rate * cp * sr,
                     -pitch_rate * sr + yaw_rate * cp * cr], axis=-1)


__all__ = ["body_angular_velocity", "gravity_in_body", "orientation_quaternions", "rotation_matrices"]
