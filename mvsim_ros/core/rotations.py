"""Rotations as unit quaternions (w, x, y, z) in plain floats, with MRPT's yaw-pitch-roll convention
(R = Rz(yaw) Ry(pitch) Rx(roll), angles in radians). No ROS here: the ROS layer wraps them in messages."""

from __future__ import annotations

import math

import numpy as np


def ypr_quaternion(yaw: float, pitch: float = 0.0, roll: float = 0.0) -> tuple[float, float, float, float]:
    """Unit quaternion (w, x, y, z) of R = Rz(yaw) Ry(pitch) Rx(roll) [rad]."""
    cy, sy = math.cos(0.5 * yaw), math.sin(0.5 * yaw)
    cp, sp = math.cos(0.5 * pitch), math.sin(0.5 * pitch)
    cr, sr = math.cos(0.5 * roll), math.sin(0.5 * roll)
    return (cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy)


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


__all__ = ["matrix_quaternion", "quaternion_product", "quaternion_yaw_pitch_roll", "slerp", "ypr_quaternion"]
