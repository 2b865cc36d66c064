"""The trajectory generator's five reference shapes: closed-form position, velocity and acceleration.

Every shape starts at the origin at t = 0 (the car's start), time t in seconds since the trajectory started:

    line           x = a t                     y = b t                      (a, b): velocity [m/s]
    parabola       x = 2 a t                   y = a t^2                    a: focal length [m] (y = x^2 / 4a)
    circle         x = R cos(W t - pi/2)       y = R sin(W t - pi/2) + R    R: radius [m], W: rate [rad/s]
    figure eight   x = a sin(W t)              y = a sin(W t) cos(W t)      a: amplitude [m], W [rad/s]
    cycloid        x = r t - d sin t           y = d - d cos t              r: rolling radius [m], d < r [m]

The velocities are analytic (for the feed-forward); the accelerations are their derivatives
(for the point-P reference, which needs the reference's heading rate). The cycloid's t is the rolling angle
[rad] at 1 rad/s. All methods take a float or a numpy array of times and return (x, y) pairs of
the same shape.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import ClassVar, Union

import numpy as np

from mvsim_ros.tracking.values import finite as _finite
from mvsim_ros.tracking.values import positive as _positive

ArrayLike = Union[float, np.ndarray]


class Shape:
    """A reference trajectory r(t) = (x(t), y(t)) [m] starting at the origin; see the module docstring."""

    #: Name used by the tracker's `trajectory_type` parameter, and its numeric code (0..4).
    name: ClassVar[str] = ""
    code: ClassVar[int] = -1

    def position(self, t: ArrayLike) -> tuple[ArrayLike, ArrayLike]:
        """(x, y) [m] at time t [s]."""
        raise NotImplementedError

    def velocity(self, t: ArrayLike) -> tuple[ArrayLike, ArrayLike]:
        """(dx/dt, dy/dt) [m/s] at time t [s]."""
        raise NotImplementedError

    def acceleration(self, t: ArrayLike) -> tuple[ArrayLike, ArrayLike]:
        """(d2x/dt2, d2y/dt2) [m/s^2] at time t [s]."""
        raise NotImplementedError

    def period(self) -> float | None:
        """Time [s] after which the shape repeats, or None for open shapes."""
        return None

    def parameters(self) -> dict[str, float]:
        """The shape's parameters by field name."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Line(Shape):
    """x = a t, y = b t: a straight line along (a, b) at |(a, b)| m/s. a, b [m/s], not both zero."""

    a: float = 1.0
    b: float = 0.5
    name: ClassVar[str] = "line"
    code: ClassVar[int] = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "a", _finite("line a (a_coeff)", self.a))
        object.__setattr__(self, "b", _finite("line b (b_coeff)", self.b))
        if self.a == 0.0 and self.b == 0.0:
            raise ValueError("line: a and b are both 0 (a line needs a direction)")

    def position(self, t):
        return self.a * t, self.b * t

    def velocity(self, t):
        return self.a + 0.0 * t, self.b + 0.0 * t

    def acceleration(self, t):
        return 0.0 * t, 0.0 * t


@dataclass(frozen=True)
class Parabola(Shape):
    """x = 2 a t, y = a t^2 (the parabola y = x^2 / (4 a)); a: focal length [m], non-zero. Speed grows as t."""

    focal_length: float = 0.5
    name: ClassVar[str] = "parabola"
    code: ClassVar[int] = 1

    def __post_init__(self) -> None:
        value = _finite("parabola focal_length", self.focal_length)
        if value == 0.0:
            raise ValueError("parabola focal_length must not be 0")
        object.__setattr__(self, "focal_length", value)

    def position(self, t):
        a = self.focal_length
        return 2.0 * a * t, a * t * t

    def velocity(self, t):
        a = self.focal_length
        return 2.0 * a + 0.0 * t, 2.0 * a * t

    def acceleration(self, t):
        return 0.0 * t, 2.0 * self.focal_length + 0.0 * t


@dataclass(frozen=True)
class Circle(Shape):
    """x = R cos(W t - pi/2), y = R sin(W t - pi/2) + R: counter-clockwise around (0, R), starting along +x.

    R: radius [m] > 0; W: angular rate [rad/s] > 0 (speed R W)."""

    R: float = 2.0
    W: float = 0.5
    name: ClassVar[str] = "circle"
    code: ClassVar[int] = 2

    def __post_init__(self) -> None:
        object.__setattr__(self, "R", _positive("circle R", self.R))
        object.__setattr__(self, "W", _positive("circle W", self.W))

    def position(self, t):
        phase = self.W * t - 0.5 * math.pi
        return self.R * np.cos(phase), self.R * np.sin(phase) + self.R

    def velocity(self, t):
        phase = self.W * t - 0.5 * math.pi
        return -self.W * self.R * np.sin(phase), self.W * self.R * np.cos(phase)

    def acceleration(self, t):
        phase = self.W * t - 0.5 * math.pi
        w2r = self.W * self.W * self.R
        return -w2r * np.cos(phase), -w2r * np.sin(phase)

    def period(self) -> float:
        return 2.0 * math.pi / self.W


@dataclass(frozen=True)
class FigureEight(Shape):
    """x = a sin(W t), y = a sin(W t) cos(W t): an eight from -a to a [m] in x; a > 0 [m], W > 0 [rad/s]."""

    a: float = 3.0
    W: float = 0.5
    name: ClassVar[str] = "figure_eight"
    code: ClassVar[int] = 3

    def __post_init__(self) -> None:
        object.__setattr__(self, "a", _positive("figure eight a", self.a))
        object.__setattr__(self, "W", _positive("figure eight W", self.W))

    def position(self, t):
        s, c = np.sin(self.W * t), np.cos(self.W * t)
        return self.a * s, self.a * s * c

    def velocity(self, t):
        s, c = np.sin(self.W * t), np.cos(self.W * t)
        wa = self.W * self.a
        return wa * c, wa * (c * c - s * s)

    def acceleration(self, t):
        s, c = np.sin(self.W * t), np.cos(self.W * t)
        w2a = self.W * self.W * self.a
        return -w2a * s, -4.0 * w2a * s * c

    def period(self) -> float:
        return 2.0 * math.pi / self.W


@dataclass(frozen=True)
class Cycloid(Shape):
    """Curtate cycloid x = r t - d sin t, y = d - d cos t: a point at d [m] from the centre of a circle of radius
    r [m] rolling along x at 1 rad/s; 0 <= d < r."""

    r: float = 1.5
    d: float = 0.5
    name: ClassVar[str] = "cycloid"
    code: ClassVar[int] = 4

    def __post_init__(self) -> None:
        object.__setattr__(self, "r", _positive("cycloid r (cycloid_radius)", self.r))
        object.__setattr__(self, "d", _finite("cycloid d (cycloid_distance)", self.d))
        if not 0.0 <= self.d < self.r:
            raise ValueError(f"cycloid d must be in [0, r) for a curtate cycloid, got d={self.d:g}, r={self.r:g}")

    def position(self, t):
        return self.r * t - self.d * np.sin(t), self.d - self.d * np.cos(t)

    def velocity(self, t):
        return self.r - self.d * np.cos(t), self.d * np.sin(t)

    def acceleration(self, t):
        return self.d * np.sin(t), self.d * np.cos(t)


class RampedShape(Shape):
    """A shape started smoothly: the same path, run on the warped time
    s(t) = t - tau (1 - exp(-t / tau)), so the reference starts at rest and reaches the shape's own speed after a
    few tau [s] (trailing it by tau in time from then on). velocity = v(s) ds/dt, acceleration = a(s) (ds/dt)^2 +
    v(s) d2s/dt2. tau = ramp_time > 0."""

    def __init__(self, base: Shape, ramp_time: float) -> None:
        self.base = base
        self.ramp_time = _positive("ramp_time", ramp_time)
        self.name = base.name
        self.code = base.code

    def warp(self, t: ArrayLike) -> tuple[ArrayLike, ArrayLike, ArrayLike]:
        """(s, ds/dt, d2s/dt2) at time t [s]."""
        decay = np.exp(-np.asarray(t, dtype=float) / self.ramp_time)
        if np.ndim(decay) == 0:
            decay = float(decay)
        return t - self.ramp_time * (1.0 - decay), 1.0 - decay, decay / self.ramp_time

    def position(self, t):
        return self.base.position(self.warp(t)[0])

    def velocity(self, t):
        s, rate, _ = self.warp(t)
        vx, vy = self.base.velocity(s)
        return vx * rate, vy * rate

    def acceleration(self, t):
        s, rate, rate_change = self.warp(t)
        vx, vy = self.base.velocity(s)
        ax, ay = self.base.acceleration(s)
        return ax * rate * rate + vx * rate_change, ay * rate * rate + vy * rate_change

    def period(self) -> float | None:
        return self.base.period()

    def parameters(self) -> dict[str, float]:
        return {**self.base.parameters(), "ramp_time": self.ramp_time}


#: The shapes by name, in the order of their codes (trajectory_type 0..4).
SHAPES: dict[str, type[Shape]] = {cls.name: cls for cls in (Line, Parabola, Circle, FigureEight, Cycloid)}
#: Other spellings accepted for the shape names.
SHAPE_ALIASES = {"linear": "line", "parabolic": "parabola", "circular": "circle", "eight": "figure_eight",
                 "figure8": "figure_eight", "curtate_cycloid": "cycloid", "cycloidal": "cycloid"}


def shape_name(kind: str | int) -> str:
    """The canonical name of a shape given by name, alias or code 0..4 (ValueError otherwise)."""
    if isinstance(kind, bool):
        raise ValueError(f"unknown trajectory type {kind!r}")
    if isinstance(kind, (int, np.integer)) or (isinstance(kind, str) and kind.strip().isdigit()):
        code = int(kind)
        for cls in SHAPES.values():
            if cls.code == code:
                return cls.name
        raise ValueError(f"unknown trajectory type {code}: the codes are 0 (line), 1 (parabola), 2 (circle), "
                         "3 (figure eight), 4 (cycloid)")
    if isinstance(kind, str):
        key = kind.strip().lower().replace("-", "_").replace(" ", "_")
        key = SHAPE_ALIASES.get(key, key)
        if key in SHAPES:
            return key
    raise ValueError(f"unknown trajectory type {kind!r}; valid: {', '.join(SHAPES)} (or 0..4)")


def make_shape(kind: str | int, ramp_time: float = 0.0, **params: float) -> Shape:
    """A shape by name or code with its parameters (the dataclass fields of its class), started smoothly over
    ramp_time [s] when > 0 (RampedShape); ValueError for an unknown shape, an unknown parameter or a bad value."""
    if _finite("ramp_time", ramp_time) < 0:
        raise ValueError(f"ramp_time must be >= 0, got {ramp_time:g}")
    cls = SHAPES[shape_name(kind)]
    known = {f.name for f in fields(cls)}
    unknown = set(params) - known
    if unknown:
        raise ValueError(f"{cls.name}: unknown parameter(s) {', '.join(sorted(unknown))}; "
                         f"valid: {', '.join(sorted(known))}")
    shape = cls(**params)
    return RampedShape(shape, ramp_time) if ramp_time > 0 else shape


__all__ = ["Circle", "Cycloid", "FigureEight", "Line", "Parabola", "RampedShape", "SHAPES", "Shape", "make_shape",
           "shape_name"]
