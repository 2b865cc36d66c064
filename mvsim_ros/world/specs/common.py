"""Small types shared by every spec: points, poses, twists, where a spec came from, and tags kept verbatim.

Units are SI (m, kg, s, rad) unless a name says otherwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

Point2 = tuple[float, float]
Point3 = tuple[float, float, float]


@dataclass(frozen=True)
class SourceRef:
    """Where a spec came from, for error messages: file path, line number and tag."""

    file: str
    line: int | None
    tag: str

    def __str__(self) -> str:
        line = f":{self.line}" if self.line is not None else ""
        return f"{self.file}{line}: <{self.tag}>"


@dataclass
class Pose2:
    """A planar pose: x, y [m], yaw [rad] (counter-clockwise from +x, REP-103)."""

    x: float = 0.0
    y: float = 0.0
    yaw: float = 0.0


@dataclass
class Twist2:
    """A planar twist in the body frame: vx, vy [m/s], omega [rad/s]."""

    vx: float = 0.0
    vy: float = 0.0
    omega: float = 0.0


@dataclass
class Pose3:
    """A 3D pose: x, y, z [m]; yaw, pitch, roll [rad] (MRPT order: R = Rz(yaw) Ry(pitch) Rx(roll))."""

    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    yaw: float = 0.0
    pitch: float = 0.0
    roll: float = 0.0

    def rotation(self) -> np.ndarray:
        """The 3x3 rotation matrix of this pose (body axes expressed in the parent frame)."""
        cy, sy = math.cos(self.yaw), math.sin(self.yaw)
        cp, sp = math.cos(self.pitch), math.sin(self.pitch)
        cr, sr = math.cos(self.roll), math.sin(self.roll)
        return np.array([
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ])


@dataclass
class KeptTag:
    """A tag MVSim accepts but this simulator does not use, kept verbatim (text stripped) with its location."""

    tag: str
    attrib: dict[str, str]
    text: str
    children: list["KeptTag"]
    source: SourceRef


def polygon_area(points: Sequence[Point2]) -> float:
    """Signed area (shoelace): > 0 for a counter-clockwise polygon [m^2]."""
    n = len(points)
    return 0.5 * sum(points[i][0] * points[(i + 1) % n][1] - points[(i + 1) % n][0] * points[i][1] for i in range(n))


__all__ = ["Point2", "Point3", "SourceRef", "Pose2", "Twist2", "Pose3", "KeptTag", "polygon_area"]
