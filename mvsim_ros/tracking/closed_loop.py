"""The tracker and a controller driving a plant (the simulated car or a single-track model), without ROS.

`run_tracking` samples the plant every `period` [s] (the nodes' control rate), runs the tracker and the
controller on the sample, holds the command until the next sample, and records everything in a `Run`;
`run_open_loop` records the plant under given inputs. A controller output with a non-finite value is refused and
the last valid command kept (CommandGuard), as in the ROS nodes. A run ends early, marked `diverged`, when the
plant's state becomes non-finite or its tracking error exceeds DIVERGED_ERROR_M.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from mvsim_ros.tracking.dynamic_controller import DynamicController
from mvsim_ros.tracking.guard import CommandGuard
from mvsim_ros.tracking.kinematic_controller import KinematicController
from mvsim_ros.tracking.plants import Plant
from mvsim_ros.tracking.tracker import TrajectoryTracker
from mvsim_ros.tracking.values import all_finite, positive

#: Tracking error [m] past which a run counts as diverged and stops.
DIVERGED_ERROR_M = 100.0
#: Columns of a Run: time [s]; pose and body twist of the reference point; the reference point and the vehicle
#: point the tracker uses (rear axle, or centre of gravity for the dynamic controller) [m]; error = distance
#: between them [m]; command speed [m/s] and steering [rad]; side slip at the centre of gravity [rad].
COLUMNS = ("t", "x", "y", "yaw", "vx", "vy", "r", "ref_x", "ref_y", "point_x", "point_y", "error", "speed_cmd",
           "steer_cmd", "beta")


@dataclass
class Run:
    """Recorded samples, one array per COLUMNS name (see there); `refused`: commands refused as non-finite;
    `diverged`: the run stopped early (module docstring)."""

    columns: dict[str, np.ndarray] = field(default_factory=dict)
    refused: int = 0
    diverged: bool = False

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    def after(self, t0: float) -> "Run":
        """The samples at t >= t0 [s]."""
        keep = self.columns["t"] >= t0
        return Run({k: v[keep] for k, v in self.columns.items()}, self.refused, self.diverged)

    def rms_error(self, t0: float = 0.0) -> float:
        """Root mean square of the tracking error [m] from t0 [s] on (inf for a diverged run)."""
        if self.diverged:
            return math.inf
        error = self.after(t0)["error"]
        return float(np.sqrt(np.mean(error * error))) if error.size else math.nan


def _row(t, pose, twist, ref, point, speed, steer, cog_offset) -> tuple[float, ...]:
    x, y, yaw = pose
    vx, vy, r = twist
    beta = math.atan2(vy + cog_offset * r, vx) if (vx or vy) else 0.0
    error = math.hypot(ref[0] - point[0], ref[1] - point[1])
    return (t, x, y, yaw, vx, vy, r, ref[0], ref[1], point[0], point[1], error, speed, steer, beta)


def _finish(rows: list[tuple[float, ...]], refused: int, diverged: bool = False) -> Run:
    table = np.array(rows, dtype=float).reshape(-1, len(COLUMNS))
    return Run({name: table[:, k].copy() for k, name in enumerate(COLUMNS)}, refused, diverged)


def _diverged(pose, twist, error: float) -> bool:
    return not (all_finite(*pose, *twist) and error < DIVERGED_ERROR_M)


def run_tracking(plant: Plant, tracker: TrajectoryTracker, controller: KinematicController | DynamicController,
                 duration: float, period: float = 0.02, cog_offset: float = 0.0) -> Run:
    """Track for `duration` [s] from the plant's current time, sampling every `period` [s].

    With a KinematicController the tracker sees the reference point (rear axle) and P lies along the yaw; with a
    DynamicController it sees the centre of gravity, `cog_offset` [m] ahead of the reference point, and P lies
    along its velocity (yaw + side slip). A tracker not running yet is started at the first sample with the shape
    placed at the tracked point's pose (the rear axle, or the centre of gravity)."""
    period = positive("period", period)
    dynamic = isinstance(controller, DynamicController)
    if not tracker.active:
        x, y, yaw = plant.pose()
        offset = cog_offset if dynamic else 0.0
        tracker.start(plant.time, (x + offset * math.cos(yaw), y + offset * math.sin(yaw), yaw), anchor=True)
    guard: CommandGuard = CommandGuard((0.0, 0.0))
    rows = []
    end = plant.time + duration - 1e-9
    while plant.time < end:
        t, pose, twist = plant.time, plant.pose(), plant.twist()
        x, y, yaw = pose
        vx, vy, r = twist
        if _diverged(pose, twist, rows[-1][COLUMNS.index("error")] if rows else 0.0):
            return _finish(rows, guard.refused, True)
        if dynamic:
            c, s = math.cos(yaw), math.sin(yaw)
            px, py = x + cog_offset * c, y + cog_offset * s
            beta = math.atan2(vy + cog_offset * r, vx) if (vx or vy) else 0.0
            out = tracker.update(t, px, py, yaw, p_direction=yaw + beta)
            cmd = controller.command(out.vpx, out.vpy, yaw, r, beta)
            wanted = (cmd.longitudinal_speed, cmd.steering_angle)
        else:
            px, py = x, y
            out = tracker.update(t, x, y, yaw)
            cmd = controller.command(out.vpx, out.vpy, yaw)
            wanted = (cmd.speed, cmd.steering_angle)
        (speed, steer), _ = guard.accept(wanted)
        plant.command(speed, steer)
        rows.append(_row(t, pose, twist, (out.ref_x, out.ref_y), (px, py), speed, steer, cog_offset))
        plant.advance(period)
    return _finish(rows, guard.refused)


def run_open_loop(plant: Plant, inputs: Callable[[float], tuple[float, float]], duration: float,
                  period: float = 0.02, cog_offset: float = 0.0) -> Run:
    """Drive the plant with inputs(t) -> (speed [m/s], steering angle [rad]), t from the run's start [s], held
    for `period` [s] each, and record it (the reference columns are the plant's own position: error 0)."""
    period = positive("period", period)
    start = plant.time
    rows = []
    end = start + duration - 1e-9
    while plant.time < end:
        t, pose, twist = plant.time, plant.pose(), plant.twist()
        speed, steer = inputs(t - start)
        plant.command(speed, steer)
        rows.append(_row(t, pose, twist, pose[:2], pose[:2], speed, steer, cog_offset))
        plant.advance(period)
        if not all_finite(*plant.pose()):
            return _finish(rows, 0, True)
    return _finish(rows, 0)


__all__ = ["COLUMNS", "Run", "run_open_loop", "run_tracking"]
