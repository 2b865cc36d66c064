"""Trajectory tracker: generator + point-P transformations + the two PIDs, without ROS.

Each `update(now, x, y, yaw)` (vehicle point and yaw [m, m, rad] at time `now` [s]) gives the desired velocity
of P, (v_Px, v_Py) [m/s] in the world frame, for the bicycle-model controllers. The trajectory runs from the
moment it is started (`start`; the node's `active` parameter); while stopped the command is (0, 0). The shape is placed
at `origin` (x0, y0, yaw0) [m, m, rad]: by default the world origin, or the vehicle's pose when started with
`anchor=True` (the shape then starts where the vehicle stands, along its heading).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mvsim_ros.tracking.pid import PidGains, PointPid
from mvsim_ros.tracking.point_p import HEADING_MODES, output_point, reference_point
from mvsim_ros.tracking.shapes import Shape
from mvsim_ros.tracking.values import finite, non_negative


@dataclass(frozen=True)
class TrackerOutput:
    """One tracker update. t: trajectory time [s] (0 while stopped); (vpx, vpy): command [m/s];
    (ref_x, ref_y, ref_heading): the reference point and the direction of its velocity [m, m, rad];
    (pref_x, pref_y), (p_x, p_y): setpoint and measured P [m]; (error_x, error_y) = P_ref - P [m];
    (position_error_x, position_error_y) = reference point - vehicle point [m]."""

    t: float
    vpx: float
    vpy: float
    ref_x: float
    ref_y: float
    ref_heading: float
    pref_x: float
    pref_y: float
    p_x: float
    p_y: float
    error_x: float
    error_y: float
    position_error_x: float
    position_error_y: float

    @property
    def position_error(self) -> float:
        """Distance [m] between the vehicle point and the reference point."""
        return math.hypot(self.position_error_x, self.position_error_y)


class TrajectoryTracker:
    """Generator, point-P transformations and PIDs (see the module docstring).

    shape: the reference; gains: PidGains (None: the defaults); pl_distance: PL [m] >= 0, the distance from the
    vehicle point to P (the controller's epsilon); reference_heading: "trajectory" or "vehicle" (point_p.py).
    """

    def __init__(self, shape: Shape, gains: PidGains | None = None, pl_distance: float = 0.1,
                 reference_heading: str = "trajectory") -> None:
        self.shape = shape
        self.pid = PointPid(gains)
        self.pl_distance = non_negative("PL_distance", pl_distance)
        if reference_heading not in HEADING_MODES:
            raise ValueError(f"reference_heading must be one of {', '.join(HEADING_MODES)}, got {reference_heading!r}")
        self.reference_heading = reference_heading
        self.origin = (0.0, 0.0, 0.0)
        self.start_time: float | None = None
        self._last_time: float | None = None
        self._heading = 0.0

    @property
    def gains(self) -> PidGains:
        """The PID gains (settable: the state of the PIDs is kept)."""
        return self.pid.gains

    @gains.setter
    def gains(self, gains: PidGains) -> None:
        self.pid.gains = gains

    @property
    def active(self) -> bool:
        """Whether the trajectory runs."""
        return self.start_time is not None

    def start(self, now: float, pose: tuple[float, float, float] | None = None, anchor: bool = False) -> None:
        """Start the trajectory at time `now` [s]; with `anchor`, place it at `pose` (x, y, yaw) of the vehicle
        (else at the world origin). The PIDs start afresh."""
        now = finite("start time", now)
        self.origin = tuple(float(v) for v in pose) if anchor and pose is not None else (0.0, 0.0, 0.0)
        self.start_time = now
        self._last_time = None
        self._heading = self.origin[2]
        self.pid.reset()

    def stop(self) -> None:
        """Stop: the command becomes (0, 0) until the next start."""
        self.start_time = None
        self._last_time = None
        self.pid.reset()

    def reference(self, t: float) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float]]:
        """Position [m], velocity [m/s] and acceleration [m/s^2] of the reference at trajectory time t [s], in the
        world frame (the shape placed at `origin`)."""
        x0, y0, yaw0 = self.origin
        c, s = math.cos(yaw0), math.sin(yaw0)

        def turn(v: tuple[float, float]) -> tuple[float, float]:
            return c * float(v[0]) - s * float(v[1]), s * float(v[0]) + c * float(v[1])

        px, py = turn(self.shape.position(t))
        return (x0 + px, y0 + py), turn(self.shape.velocity(t)), turn(self.shape.acceleration(t))

    def update(self, now: float, x: float, y: float, yaw: float, p_direction: float | None = None) -> TrackerOutput:
        """Desired velocity of P for the vehicle point (x, y) [m] with yaw [rad] at time `now` [s].

        p_direction [rad]: the direction P lies in from the vehicle point (default: the yaw; the dynamic
        controller's P lies along the velocity, yaw + side slip). Non-finite inputs raise ValueError."""
        for name, value in (("time", now), ("x", x), ("y", y), ("yaw", yaw)):
            finite(name, value)
        direction = yaw if p_direction is None else finite("P direction", p_direction)
        p_x, p_y = output_point(x, y, direction, self.pl_distance)
        if self.start_time is None:
            return TrackerOutput(0.0, 0.0, 0.0, x, y, yaw, p_x, p_y, p_x, p_y, 0.0, 0.0, 0.0, 0.0)
        t = max(now - self.start_time, 0.0)
        dt = 0.0 if self._last_time is None else now - self._last_time
        self._last_time = now
        position, velocity, acceleration = self.reference(t)
        ref = reference_point(position, velocity, acceleration, self.pl_distance, self.reference_heading,
                              vehicle_yaw=direction, fallback=self._heading)
        self._heading = ref.heading
        error = (ref.x - p_x, ref.y - p_y)
        vpx, vpy = self.pid.update(error, (ref.vx, ref.vy), dt)
        return TrackerOutput(t, vpx, vpy, position[0], position[1], ref.heading, ref.x, ref.y, p_x, p_y,
                             error[0], error[1], position[0] - x, position[1] - y)


__all__ = ["TrackerOutput", "TrajectoryTracker"]
