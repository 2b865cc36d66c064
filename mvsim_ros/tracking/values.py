"""Checks of numeric parameters for the tracking package: one clear ValueError naming the parameter."""

from __future__ import annotations

import math

import numpy as np


def finite(name: str, value: object) -> float:
    """`value` as a float, or ValueError naming `name` when it is not a finite real number (bool, NaN, inf,
    text)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise ValueError(f"{name} must be a number, got {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return number


def positive(name: str, value: object) -> float:
    """A finite number > 0, or ValueError naming `name`."""
    number = finite(name, value)
    if number <= 0.0:
        raise ValueError(f"{name} must be > 0, got {number:g}")
    return number


def non_negative(name: str, value: object) -> float:
    """A finite number >= 0, or ValueError naming `name`."""
    number = finite(name, value)
    if number < 0.0:
        raise ValueError(f"{name} must be >= 0, got {number:g}")
    return number


def all_finite(*values: float) -> bool:
    """Whether every value is a finite float."""
    return all(math.isfinite(v) for v in values)


__all__ = ["all_finite", "finite", "non_negative", "positive"]
