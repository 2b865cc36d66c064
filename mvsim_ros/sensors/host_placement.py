"""Where a sensor's host is: its pose as a 6-vector and as a 4x4 placement, whether it was given planar or 3D.

A host pose is either planar (x, y, yaw) — flat ground, the world, older callers — or 3D
(x, y, z, yaw, pitch, roll) [m, rad] with R = Rz(yaw) Ry(pitch) Rx(roll) (REP-103: pitch > 0 is nose down,
roll > 0 lifts the left side), as `Simulation.pose3` gives it on terrain.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np


def pose6(pose: Sequence[float]) -> tuple[float, float, float, float, float, float]:
    """(x, y, z, yaw, pitch, roll) [m, rad] of a planar (3) or 3D (6) host pose."""
    if len(pose) == 3:
        x, y, yaw = (float(v) for v in pose)
        return x, y, 0.0, yaw, 0.0, 0.0
    if len(pose) == 6:
        return tuple(float(v) for v in pose)
    raise ValueError(f"a host pose has 3 (x, y, yaw) or 6 (x, y, z, yaw, pitch, roll) values, got {len(pose)}")


def rotation_ypr(yaw: float, pitch: float, roll: float) -> np.ndarray:
    """3x3 rotation Rz(yaw) Ry(pitch) Rx(roll) [rad] (columns: the body axes in the parent frame)."""
    cy, sy = math.cos(yaw), math.sin(yaw)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cr, sr = math.cos(roll), math.sin(roll)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def host_matrix(pose: Sequence[float]) -> np.ndarray:
    """4x4 placement (world <- host frame) of a planar (3) or 3D (6) host pose."""
    x, y, z, yaw, pitch, roll = pose6(pose)
    m = np.eye(4)
    m[:3, :3] = rotation_ypr(yaw, pitch, roll)
    m[:3, 3] = (x, y, z)
    return m


def matrix_ypr(r: np.ndarray) -> tuple[float, float, float]:
    """(yaw, pitch, roll) [rad] of a rotation matrix R = Rz(yaw) Ry(pitch) Rx(roll)."""
    pitch = -math.asin(max(-1.0, min(1.0, float(r[2, 0]))))
    return math.atan2(float(r[1, 0]), float(r[0, 0])), pitch, math.atan2(float(r[2, 1]), float(r[2, 2]))


def matrix_pose6(m: np.ndarray) -> tuple[float, float, float, float, float, float]:
    """(x, y, z, yaw, pitch, roll) of a 4x4 placement."""
    yaw, pitch, roll = matrix_ypr(m[:3, :3])
    return float(m[0, 3]), float(m[1, 3]), float(m[2, 3]), yaw, pitch, roll


__all__ = ["pose6", "rotation_ypr", "host_matrix", "matrix_ypr", "matrix_pose6"]
