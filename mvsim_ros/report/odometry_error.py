"""How far the wheel odometry is from the truth over time: the node starts each vehicle's odometry at its true
initial pose (docs/ros-interface.md), so the odometry pose and the true pose, at the same simulated time, differ by
the drift accumulated so far (and by any teleport since, which odometry does not follow)."""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.report.reading import Series, VehicleSeries


def wrap(angle: np.ndarray) -> np.ndarray:
    """Angles [rad] wrapped into [-pi, pi)."""
    return (np.asarray(angle, dtype=float) + math.pi) % (2.0 * math.pi) - math.pi


def odometry_error(vehicle: VehicleSeries) -> Series | None:
    """At each odometry sample within the true path's time span: 'position' = distance from the odometry position
    to the true position [m] and 'yaw' = odometry yaw - true yaw, wrapped [rad]; the true pose is interpolated
    linearly in time (its yaw unwrapped first). None without both series or without a common time."""
    truth, odom = vehicle.truth, vehicle.odom
    if truth is None or odom is None or len(truth) < 2 or not len(odom):
        return None
    inside = (odom.t >= truth.t[0]) & (odom.t <= truth.t[-1])
    if not inside.any():
        return None
    t = odom.t[inside]
    x = np.interp(t, truth.t, truth["x"])
    y = np.interp(t, truth.t, truth["y"])
    yaw = np.interp(t, truth.t, np.unwrap(truth["yaw"]))
    position = np.hypot(odom["x"][inside] - x, odom["y"][inside] - y)
    return Series(t, {"position": position, "yaw": wrap(odom["yaw"][inside] - yaw)})


def break_wraps(t: np.ndarray, angle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A wrapped angle [rad] to draw as a line: a NaN inserted where it jumps by more than pi between samples, so
    the line breaks at the wrap instead of crossing the plot."""
    if len(angle) < 2:
        return t, angle
    jumps = np.flatnonzero(np.abs(np.diff(angle)) > math.pi) + 1
    return (np.insert(t.astype(float), jumps, np.nan), np.insert(angle.astype(float), jumps, np.nan))
