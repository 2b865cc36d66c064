"""Point-P transformations: the tracker controls a point P at distance PL ahead of the vehicle.

Output transformation (the measured P): x_P = x + PL cos(theta), y_P = y + PL sin(theta), with (x, y) the
vehicle's point the linearization is written for (the middle of the rear axle for the kinematic bicycle, the
centre of gravity for the dynamic one) and theta the direction P lies in (the yaw; for the dynamic model the
direction of the velocity, yaw + side slip).

Reference transformation (the setpoint of P), two ways:

- "trajectory" (default): theta_ref is the direction of the reference's own velocity, so P_ref is where P is
  when the vehicle is exactly on the reference and heading along it:
      P_ref = r_ref + PL (cos theta_ref, sin theta_ref),   theta_ref = atan2(dy_ref, dx_ref),
      dP_ref/dt = dr_ref/dt + PL dtheta_ref/dt (-sin theta_ref, cos theta_ref),
      dtheta_ref/dt = (dx_ref ddy_ref - dy_ref ddx_ref) / (dx_ref^2 + dy_ref^2).
  With this reference and dP_ref/dt as feed-forward, the P error obeys de/dt = -Kp e exactly under the exact
  linearization, and the vehicle's point converges onto the reference (the vehicle trails P as a towed trailer
  does, which is stable going forward).
- "vehicle": theta_ref is the vehicle's own yaw, so P_ref - P = r_ref - (x, y): the error is
  the vehicle point's own, while the feed-forward is the generator's velocity dr_ref/dt. On a curve this leaves a
  steady error of about PL * (turn rate) / Kp (1 cm for PL = 0.1 m, 0.5 rad/s, Kp = 5).
Where the reference stands still its direction is undefined: the last defined one is kept (`fallback`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

#: Reference heading modes of `reference_point`.
HEADING_MODES = ("trajectory", "vehicle")
#: Reference speed [m/s] below which the reference's direction counts as undefined.
MIN_REFERENCE_SPEED = 1e-9


class PointReference(NamedTuple):
    """Setpoint of P: position (x, y) [m], velocity (vx, vy) [m/s] and the direction used, heading [rad]."""

    x: float
    y: float
    vx: float
    vy: float
    heading: float


def output_point(x: float, y: float, theta: float, distance: float) -> tuple[float, float]:
    """P from the vehicle point (x, y) [m] and the direction theta [rad]: (x + PL cos theta, y + PL sin theta)."""
    return x + distance * math.cos(theta), y + distance * math.sin(theta)


def reference_point(position: tuple[float, float], velocity: tuple[float, float],
                    acceleration: tuple[float, float], distance: float, mode: str = "trajectory",
                    vehicle_yaw: float = 0.0, fallback: float = 0.0) -> PointReference:
    """The setpoint of P for a reference point r with the given position [m], velocity [m/s] and acceleration
    [m/s^2] (see the module docstring). `mode`: "trajectory" or "vehicle" (then `vehicle_yaw` [rad] is the
    direction, and the feed-forward is the reference's velocity). `fallback` [rad]: the direction when the
    reference stands still (trajectory mode)."""
    x, y = float(position[0]), float(position[1])
    vx, vy = float(velocity[0]), float(velocity[1])
    if mode == "vehicle":
        px, py = output_point(x, y, vehicle_yaw, distance)
        return PointReference(px, py, vx, vy, vehicle_yaw)
    if mode != "trajectory":
        raise ValueError(f"unknown reference heading mode {mode!r}; valid: {', '.join(HEADING_MODES)}")
    speed2 = vx * vx + vy * vy
    if speed2 <= MIN_REFERENCE_SPEED ** 2:
        px, py = output_point(x, y, fallback, distance)
        return PointReference(px, py, vx, vy, fallback)
    heading = math.atan2(vy, vx)
    heading_rate = (vx * float(acceleration[1]) - vy * float(acceleration[0])) / speed2
    c, s = math.cos(heading), math.sin(heading)
    return PointReference(x + distance * c, y + distance * s, vx - distance * heading_rate * s,
                          vy + distance * heading_rate * c, heading)


__all__ = ["HEADING_MODES", "PointReference", "output_point", "reference_point"]
