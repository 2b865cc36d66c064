"""Reference paths for path following: a circle or a polyline, with the projection of a point onto them."""

from __future__ import annotations

import math
from typing import NamedTuple, Protocol

import numpy as np


class Projection(NamedTuple):
    """A point seen from a path: `s` the arc length [m] of its nearest path point, `cross_track` its signed
    distance [m] from the path (> 0: left of the direction of travel), `heading` the path's direction there [rad]."""

    s: float
    cross_track: float
    heading: float


class Path(Protocol):
    """A path with a direction of travel; `closed` paths wrap around (arc length modulo `length`)."""

    length: float
    closed: bool

    def project(self, x: float, y: float) -> Projection:
        """The nearest path point to (x, y) [m]."""

    def point_at(self, s: float) -> tuple[float, float]:
        """The path point at arc length s [m] (wrapped on closed paths, clamped on open ones)."""


class Circle:
    """A circle of `radius` [m] around `center` (x, y) [m], travelled counter-clockwise (or clockwise when not
    `ccw`); arc length 0 at angle `start_angle` [rad] about the centre."""

    closed = True

    def __init__(self, center: tuple[float, float], radius: float, ccw: bool = True, start_angle: float = 0.0):
        if not radius > 0:
            raise ValueError(f"a circle's radius must be > 0, got {radius}")
        self.cx, self.cy = float(center[0]), float(center[1])
        self.radius, self.ccw, self.start_angle = float(radius), bool(ccw), float(start_angle)
        self.length = 2.0 * math.pi * self.radius

    def project(self, x: float, y: float) -> Projection:
        """Nearest point: along the ray from the centre through (x, y) (the start point for the centre itself)."""
        angle = math.atan2(y - self.cy, x - self.cx)
        distance = math.hypot(x - self.cx, y - self.cy)
        sweep = (angle - self.start_angle) if self.ccw else (self.start_angle - angle)
        s = self.radius * (sweep % (2.0 * math.pi))
        cross = (self.radius - distance) if self.ccw else (distance - self.radius)  # the centre is left when ccw
        heading = angle + (0.5 * math.pi if self.ccw else -0.5 * math.pi)
        return Projection(s, cross, heading)

    def point_at(self, s: float) -> tuple[float, float]:
        """The point at arc length s [m]."""
        angle = self.start_angle + (s / self.radius if self.ccw else -s / self.radius)
        return self.cx + self.radius * math.cos(angle), self.cy + self.radius * math.sin(angle)


class Polyline:
    """Straight segments through `points` (N x 2) [m], travelled in their order; `closed` adds the segment from the
    last point back to the first."""

    def __init__(self, points, closed: bool = False):
        p = np.asarray(points, dtype=float).reshape(-1, 2)
        if closed and len(p) >= 2 and not np.array_equal(p[0], p[-1]):
            p = np.vstack([p, p[:1]])
        if len(p) < 2 or not np.all(np.isfinite(p)):
            raise ValueError("a polyline needs at least two finite points")
        self.points, self.closed = p, bool(closed)
        self._d = np.diff(p, axis=0)
        self._seg = np.hypot(self._d[:, 0], self._d[:, 1])
        if np.any(self._seg == 0):
            raise ValueError("a polyline's consecutive points must differ")
        self._start = np.concatenate([[0.0], np.cumsum(self._seg)])
        self.length = float(self._start[-1])

    def project(self, x: float, y: float) -> Projection:
        """Nearest point over all segments (the first of equally near ones)."""
        rel = np.array([x, y]) - self.points[:-1]
        t = np.clip((rel * self._d).sum(axis=1) / self._seg ** 2, 0.0, 1.0)
        nearest = self.points[:-1] + t[:, None] * self._d
        gaps = np.hypot(x - nearest[:, 0], y - nearest[:, 1])
        k = int(np.argmin(gaps))
        dx, dy = self._d[k]
        side = dx * (y - nearest[k, 1]) - dy * (x - nearest[k, 0])  # > 0: left of the segment's direction
        cross = float(gaps[k]) if side >= 0 else -float(gaps[k])
        return Projection(float(self._start[k] + t[k] * self._seg[k]), cross, math.atan2(dy, dx))

    def point_at(self, s: float) -> tuple[float, float]:
        """The point at arc length s [m]."""
        s = s % self.length if self.closed else min(max(s, 0.0), self.length)
        k = min(int(np.searchsorted(self._start, s, side="right")) - 1, len(self._seg) - 1)
        t = (s - self._start[k]) / self._seg[k]
        px, py = self.points[k] + t * self._d[k]
        return float(px), float(py)
