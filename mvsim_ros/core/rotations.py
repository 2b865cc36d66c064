"""Rotations as unit quaternions with MRPT's yaw-pitch-roll convention (R = Rz(yaw) Ry(pitch) Rx(roll), REP-103;
angles in radians). No ROS here: the ROS layer wraps them in messages.

Three forms of the same yaw-pitch-roll -> quaternion formula, with the same floating-point operations in the same
order (so all give the same bits): `ypr_quaternion` (plain floats, (w, x, y, z)), `ypr_quaternions_xyzw`
(numpy arrays, (x, y, z, w) as geometry_msgs orders them) and `write_ypr_quaternion_xyzw` (a compiled kernel, for
callers in compiled code). Yaw alone (`yaw_quaternion`, `yaw_quaternions_xyzw`) gives exact zeros for x and y.
"""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.core.jit import allocation_free_kernel


def ypr_quaternion(yaw: float, pitch: float = 0.0, roll: float = 0.0) -> tuple[float, float, float, float]:
    """Unit quaternion (w, x, y, z) of R = Rz(yaw) Ry(pitch) Rx(roll) [rad]."""
    cy, sy = math.cos(0.5 * yaw), math.sin(0.5 * yaw)
    cp, sp = math.cos(0.5 * pitch), math.sin(0.5 * pitch)
    cr, sr = math.cos(0.5 * roll), math.sin(0.5 * roll)
    return (cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy)


def yaw_quaternion(yaw: float) -> tuple[float, float, float, float]:
    """Unit quaternion (w, x, y, z) of a rotation by `yaw` [rad] about +z: (cos(yaw / 2), 0, 0, sin(yaw / 2))."""
    return math.cos(0.5 * yaw), 0.0, 0.0, math.sin(0.5 * yaw)


def ypr_quaternions_xyzw(yaw, pitch, roll) -> np.ndarray:
    """Unit quaternions (x, y, z, w) of R = Rz(yaw) Ry(pitch) Rx(roll) [rad], vectorised: the arguments broadcast
    together, result shape (..., 4). The same values as `ypr_quaternion`, reordered."""
    yaw, pitch, roll = np.broadcast_arrays(np.asarray(yaw, dtype=float), np.asarray(pitch, dtype=float),
                                           np.asarray(roll, dtype=float))
    cy, sy = np.cos(0.5 * yaw), np.sin(0.5 * yaw)
    cp, sp = np.cos(0.5 * pitch), np.sin(0.5 * pitch)
    cr, sr = np.cos(0.5 * roll), np.sin(0.5 * roll)
    return np.stack([sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy,
                     cr * cp * cy + sr * sp * sy], axis=-1)


def yaw_quaternions_xyzw(yaw) -> np.ndarray:
    """Unit quaternions (x, y, z, w) = (0, 0, sin(yaw / 2), cos(yaw / 2)) of rotations by `yaw` [rad] about +z,
    vectorised: result shape yaw.shape + (4,)."""
    half = 0.5 * np.asarray(yaw, dtype=float)
    out = np.zeros(half.shape + (4,))
    out[..., 2], out[..., 3] = np.sin(half), np.cos(half)
    return out


@allocation_free_kernel
def write_ypr_quaternion_xyzw(yaw, pitch, roll, out, row, col):
    """Compiled form of `ypr_quaternion`: the unit quaternion (x, y, z, w) of Rz(yaw) Ry(pitch) Rx(roll) [rad]
    written into out[row, col:col + 4]."""
    cy, sy = np.cos(0.5 * yaw), np.sin(0.5 * yaw)
    cp, sp = np.cos(0.5 * pitch), np.sin(0.5 * pitch)
    cr, sr = np.cos(0.5 * roll), np.sin(0.5 * roll)
    out[row, col] = sr * cp * cy - cr * sp * sy
    out[row, col + 1] = cr * sp * cy + sr * cp * sy
    out[row, col + 2] = cr * cp * sy - sr * sp * cy
    out[row, col + 3] = cr * cp * cy + sr * sp * sy


def matrix_quaternion(r: np.ndarray) -> tuple[float, float, float, float]:
    """Unit quaternion (w, x, y, z) of a 3x3 rotation matrix (Shepperd's method), with w >= 0."""
    trace = r[0, 0] + r[1, 1] + r[2, 2]
    if trace > 0:
        s = 2.0 * math.sqrt(1.0 + trace)
        q = [0.25 * s, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s]
    else:
        i = int(np.argmax([r[0, 0], r[1, 1], r[2, 2]]))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * math.sqrt(1.0 + r[i, i] - r[j, j] - r[k, k])
        q = [0.0, 0.0, 0.0, 0.0]
        q[1 + i] = 0.25 * s
        q[1 + j] = (r[j, i] + r[i, j]) / s
        q[1 + k] = (r[k, i] + r[i, k]) / s
        q[0] = (r[k, j] - r[j, k]) / s
    sign = 1.0 if q[0] >= 0 else -1.0
    return tuple(float(sign * c) for c in q)


def quaternion_product(a, b) -> tuple[float, float, float, float]:
    """Hamilton product a b of quaternions (w, x, y, z): the rotation b, then a."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (float(aw * bw - ax * bx - ay * by - az * bz), float(aw * bx + ax * bw + ay * bz - az * by),
            float(aw * by - ax * bz + ay * bw + az * bx), float(aw * bz + ax * by - ay * bx + az * bw))


def slerp(q0, q1, u: float) -> tuple[float, float, float, float]:
    """Spherical linear interpolation between unit quaternions (w, x, y, z), u in [0, 1], along the shorter arc."""
    dot = sum(a * b for a, b in zip(q0, q1))
    if dot < 0.0:
        q1, dot = tuple(-c for c in q1), -dot
    if dot > 0.9995:  # nearly equal: linear interpolation, renormalised
        q = [a + u * (b - a) for a, b in zip(q0, q1)]
        norm = math.sqrt(sum(c * c for c in q))
        return tuple(c / norm for c in q)
    theta = math.acos(dot)
    wa, wb = math.sin((1 - u) * theta) / math.sin(theta), math.sin(u * theta) / math.sin(theta)
    return tuple(wa * a + wb * b for a, b in zip(q0, q1))


def quaternion_yaw_pitch_roll(q) -> tuple[float, float, float]:
    """(yaw, pitch, roll) [rad] of a unit quaternion (w, x, y, z), R = Rz(yaw) Ry(pitch) Rx(roll)."""
    w, x, y, z = q
    r00, r10 = 1 - 2 * (y * y + z * z), 2 * (x * y + z * w)
    r20, r21, r22 = 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)
    pitch = math.atan2(-r20, math.hypot(r00, r10))
    if abs(math.cos(pitch)) < 1e-12:  # gimbal lock: put it all in yaw
        return math.atan2(-2 * (x * y - z * w), 1 - 2 * (x * x + z * z)), pitch, 0.0
    return math.atan2(r10, r00), pitch, math.atan2(r21, r22)


__all__ = ["matrix_quaternion", "quaternion_product", "quaternion_yaw_pitch_roll", "slerp", "write_ypr_quaternion_xyzw",
           "yaw_quaternion", "yaw_quaternions_xyzw", "ypr_quaternion", "ypr_quaternions_xyzw"]
