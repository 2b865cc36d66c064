"""Commands as the vehicle's controller saw them: the node's command watchdog (`base_watchdog_timeout`, 1 s by
default; docs/ros-interface.md) stops a vehicle whose commands are not renewed within the timeout, so a command is
in force from its arrival until the next one or until the timeout runs out, whichever comes first; after an expiry
the speed and yaw rate commanded are zero until the next command. The steering angle of an Ackermann command is
not zeroed (the watchdog stops the wheels only). The timeout comes from watchdog.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mvsim_ros.report.reading import Series


@dataclass
class EffectiveCommand:
    """A command column as the controller saw it, to draw as steps held after each point ('post'): times t [s]
    and values; `expiries` [s]: the instants the watchdog stopped a command that was not zero."""

    t: np.ndarray
    value: np.ndarray
    expiries: np.ndarray


def effective_command(series: Series, columns: tuple[str, ...], column: str, end_s: float,
                      timeout_s: float) -> EffectiveCommand:
    """Column `column` of a command series as the controller saw it up to `end_s` [s]: each command in force from
    its time until the next command or until `timeout_s` [s] later (then zero), the last one until `end_s` at
    most. `columns` are the columns the watchdog zeroes; a command expires (is marked) when one of them is not
    zero. A timeout <= 0 holds every command until the next one. The column is zeroed after an expiry only when
    it is one of `columns` (a steering angle stays)."""
    times, values = series.t, series[column]
    count = len(times)
    if count == 0:
        return EffectiveCommand(np.zeros(0), np.zeros(0), np.zeros(0))
    ends = np.append(times[1:], max(end_s, float(times[-1])))
    moving = np.zeros(count, dtype=bool)
    for name in columns:
        moving |= series[name] != 0.0
    expired = (ends - times > timeout_s) & (timeout_s > 0.0) & moving
    zeroed = column in columns
    out_t, out_v = [], []
    for k in range(count):
        out_t.append(times[k])
        out_v.append(values[k])
        if expired[k] and zeroed:
            out_t.append(times[k] + timeout_s)
            out_v.append(0.0)
    if end_s > out_t[-1]:
        out_t.append(end_s)
        out_v.append(out_v[-1])
    return EffectiveCommand(np.array(out_t), np.array(out_v), times[expired] + timeout_s)


def compress_steps(t: np.ndarray, value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The same step curve ('post') without the points that repeat the value before them (the first and the last
    points kept): fewer points to draw, the same picture."""
    if len(t) < 3:
        return t, value
    keep = np.ones(len(t), dtype=bool)
    keep[1:-1] = value[1:-1] != value[:-2]
    return t[keep], value[keep]
