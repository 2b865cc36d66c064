"""Checks of the Gymnasium environments' and tasks' constructor arguments, raised as Gymnasium raises them: a
TypeError for a value of the wrong type, a ValueError for one outside its accepted range, each message naming the
argument, the value given and what is accepted (docs/gym.md has the table of every argument's range).
"""

from __future__ import annotations

import math
import numbers
from typing import Any, NamedTuple

import numpy as np

#: The longest env step accepted [s] (`step_s`): a minute of simulated time per action.
MAX_STEP_S = 60.0


class Interval(NamedTuple):
    """An accepted range of a real number, each end open or closed, in `unit` (SI)."""

    low: float
    high: float
    low_open: bool = False
    high_open: bool = False
    unit: str = ""

    def contains(self, value: float) -> bool:
        """Whether `value` lies in the range."""
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below

    def text(self) -> str:
        """The range as the messages write it, e.g. '(0, 60] s'."""
        unit = f" {self.unit}" if self.unit else ""
        return f"{'(' if self.low_open else '['}{self.low:g}, {self.high:g}{')' if self.high_open else ']'}{unit}"


#: Any finite real number (weights, bonuses and penalties of the rewards).
ANY = Interval(-math.inf, math.inf, low_open=True, high_open=True)


def positive(unit: str = "") -> Interval:
    """(0, inf)."""
    return Interval(0.0, math.inf, low_open=True, high_open=True, unit=unit)


def non_negative(unit: str = "") -> Interval:
    """[0, inf)."""
    return Interval(0.0, math.inf, high_open=True, unit=unit)


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def real(name: str, value: Any, interval: Interval) -> float:
    """`value` as a float: TypeError unless a real number (a bool is not one), ValueError unless finite and within
    `interval`."""
    if not _is_real(value):
        raise TypeError(f"Expected `{name}` to be a real number in {interval.text()}, actual type: "
                        f"{type(value).__name__} ({value!r})")
    number = float(value)
    if not math.isfinite(number) or not interval.contains(number):
        raise ValueError(f"Expected `{name}` to be a finite number in {interval.text()}, actual: {value!r}")
    return number


def integer(name: str, value: Any, low: int, high: int | None = None) -> int:
    """`value` as an int: TypeError unless an integer (not a bool, not a float), ValueError outside [low, high]."""
    accepted = f"[{low}, inf)" if high is None else f"[{low}, {high}]"
    if not _is_int(value):
        raise TypeError(f"Expected `{name}` to be an integer in {accepted}, actual type: {type(value).__name__} "
                        f"({value!r})")
    number = int(value)
    if number < low or (high is not None and number > high):
        raise ValueError(f"Expected `{name}` to be an integer in {accepted}, actual: {value!r}")
    return number


def optional_integer(name: str, value: Any, low: int) -> int | None:
    """None, or an integer >= low (see `integer`)."""
    return None if value is None else integer(name, value, low)


def flag(name: str, value: Any) -> bool:
    """`value` as a bool: TypeError unless True or False."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"Expected `{name}` to be True or False, actual type: {type(value).__name__} ({value!r})")
    return bool(value)


def choice(name: str, value: Any, options: tuple[str, ...]) -> str:
    """`value`, one of the strings `options`: TypeError unless a str, ValueError unless one of them."""
    if not isinstance(value, str):
        raise TypeError(f"Expected `{name}` to be one of {options}, actual type: {type(value).__name__} ({value!r})")
    if value not in options:
        raise ValueError(f"Expected `{name}` to be one of {options}, actual: {value!r}")
    return value


def real_pair(name: str, value: Any, interval: Interval, ordered: bool = False) -> tuple[float, float]:
    """Two real numbers in `interval` (see `real`); `ordered`: the first not above the second. TypeError unless a
    sequence, ValueError unless of two numbers in range."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or not hasattr(value, "__getitem__"):
        raise TypeError(f"Expected `{name}` to be a pair of numbers in {interval.text()}, actual type: "
                        f"{type(value).__name__} ({value!r})")
    if len(value) != 2:
        raise ValueError(f"Expected `{name}` to be a pair of numbers in {interval.text()}, actual: {value!r}")
    first, second = (real(f"{name}[{k}]", value[k], interval) for k in range(2))
    if ordered and first > second:
        raise ValueError(f"Expected `{name}` to be (min, max) with min <= max, both in {interval.text()}, "
                         f"actual: {value!r}")
    return first, second


def callable_or_none(name: str, value: Any) -> Any:
    """`value` when None or callable; TypeError otherwise."""
    if value is not None and not callable(value):
        raise TypeError(f"Expected `{name}` to be a callable or None, actual type: {type(value).__name__} "
                        f"({value!r})")
    return value


class UnknownVehicleError(ValueError, KeyError):
    """A vehicle name the world does not have (a ValueError, and a KeyError as a failed name lookup)."""

    def __str__(self) -> str:
        return ValueError.__str__(self)


def vehicle_type(value: Any) -> None:
    """TypeError unless `value` (the `vehicle` argument) is None, a name (str) or an index (int, not bool)."""
    if value is not None and not isinstance(value, str) and not _is_int(value):
        raise TypeError(f"Expected `vehicle` to be a vehicle name (str), an index (int) or None, actual type: "
                        f"{type(value).__name__} ({value!r})")


def vehicle_index(value: str | int | None, names: list[str]) -> int:
    """The index of the vehicle `value` names among `names` (None: the first): UnknownVehicleError for a name
    not there, ValueError for an index outside [0, len(names) - 1]."""
    vehicle_type(value)
    if value is None:
        return 0
    if isinstance(value, str):
        if value not in names:
            raise UnknownVehicleError(f"Expected `vehicle` to be one of the world's vehicles ({', '.join(names)}), "
                                      f"actual: {value!r}")
        return names.index(value)
    return integer("vehicle", value, 0, len(names) - 1)
