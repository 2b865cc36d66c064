"""Reference paths for path following: a circle or a polyline, with the projection of a point onto them."""

from __future__ import annotations

import math
from typing import NamedTuple, Protocol

import numpy as np

from mvsim_ros.gym.rewards.path import CIRCLE, POLYLINE, PathArrays, path_point_at, path_project


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

    def arrays(self) -> PathArrays:
        """The path as the compiled kernels of rewards.path read it."""


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
        no_points = np.zeros((0, 2))
        self._arrays = PathArrays(CIRCLE, True, self.length,
                                  np.array([self.cx, self.cy, self.radius, 1.0 if self.ccw else 0.0,
                                            self.start_angle]),
                                  no_points, no_points, np.zeros(0), np.zeros(0))

    def arrays(self) -> PathArrays:
        """The circle as the compiled kernels read it."""
        return self._arrays

    def project(self, x: float, y: float) -> Projection:
        """Nearest point: along the ray from the centre through (x, y) (the start point for the centre itself)."""
        return Projection(*path_project(*self._arrays, float(x), float(y)))

    def point_at(self, s: float) -> tuple[float, float]:
        """The point at arc length s [m]."""
        return path_point_at(*self._arrays, float(s))


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
        deltas = np.diff(p, axis=0)
        segments = np.hypot(deltas[:, 0], deltas[:, 1])
        if np.any(segments == 0):
            raise ValueError("a polyline's consecutive points must differ")
        starts = np.concatenate([[0.0], np.cumsum(segments)])
        self.length = float(starts[-1])
        self._arrays = PathArrays(POLYLINE, self.closed, self.length, np.zeros(5), np.ascontiguousarray(p),
                                  deltas, segments, starts)

    def arrays(self) -> PathArrays:
        """The polyline as the compiled kernels read it."""
        return self._arrays

    def project(self, x: float, y: float) -> Projection:
        """Nearest point over all segments (the first of equally near ones)."""
        return Projection(*path_project(*self._arrays, float(x), float(y)))

    def point_at(self, s: float) -> tuple[float, float]:
        """The point at arc length s [m]."""
        return path_point_at(*self._arrays, float(s))
