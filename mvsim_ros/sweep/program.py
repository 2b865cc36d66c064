"""What drives the vehicle of a run: a command schedule, or a Python callable named in the sweep file."""

from __future__ import annotations

import bisect
import importlib
from typing import Callable

#: f(sim, vehicle_index, t [s]) -> (v [m/s], w [rad/s]).
Driver = Callable[[object, int, float], tuple[float, float]]


def schedule_driver(rows: list[list[float]]) -> Driver:
    """Commands held from each row's time on: rows of [t [s], v [m/s], w [rad/s]]; (0, 0) before the first."""
    rows = sorted((float(t), float(v), float(w)) for t, v, w in rows)
    times = [t for t, _, _ in rows]

    def drive(_sim, _vehicle: int, t: float) -> tuple[float, float]:
        k = bisect.bisect_right(times, t + 1e-12) - 1
        return (0.0, 0.0) if k < 0 else rows[k][1:]

    return drive


def callable_driver(name: str) -> Driver:
    """The function `module:function` (imported by name; ImportError/AttributeError name what is missing)."""
    module, _, function = name.partition(":")
    return getattr(importlib.import_module(module), function)


def driver_of(program: dict) -> Driver:
    """The driver a sweep file's `program` describes."""
    if "schedule" in program:
        return schedule_driver(program["schedule"])
    return callable_driver(program["callable"])
