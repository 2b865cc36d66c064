"""Kinematic controller: exact feedback linearization of the kinematic bicycle model.

The kinematic bicycle with its reference point in the middle of the rear axle, driving speed V [m/s], steering
angle phi [rad], wheelbase l [m] moves as dx/dt = V cos(theta), dy/dt = V sin(theta),
dtheta/dt = V tan(phi) / l. A point P at epsilon [m] ahead of it, P = (x, y) + epsilon (cos theta, sin theta),
then moves with

    dP/dt = [[cos theta, -epsilon sin theta], [sin theta, epsilon cos theta]] [V, dtheta/dt],

which is invertible for epsilon > 0: any desired velocity (V_Px, V_Py) of P is obtained with

    V   = V_Px cos(theta) + V_Py sin(theta)
    phi = atan( l / epsilon * (V_Py cos(theta) - V_Px sin(theta)) / (V_Px cos(theta) + V_Py sin(theta)) )

and the yaw rate omega = V tan(phi) / l [rad/s] (not sent: AckermannDrive has no field
for it). Where V = 0 the formula divides by zero: phi is then 0 when P's desired velocity is 0 too (a stop),
else +-pi/2 (the limit of atan), before the steering limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from mvsim_ros.tracking.values import positive


class KinematicCommand(NamedTuple):
    """speed V [m/s] of the rear-axle point, steering_angle phi [rad] (equivalent bicycle angle, within the
    limit), yaw_rate omega = V tan(phi) / l [rad/s] (with the limited angle)."""

    speed: float
    steering_angle: float
    yaw_rate: float


def kinematic_linearization(vpx: float, vpy: float, theta: float, wheelbase: float,
                            epsilon: float) -> tuple[float, float]:
    """(V [m/s], phi [rad]) from the desired velocity of P (vpx, vpy) [m/s], the yaw theta [rad], the wheelbase
    l [m] and epsilon [m] (no steering limit). Non-finite inputs give non-finite outputs."""
    if not math.isfinite(theta):
        return math.nan, math.nan
    c, s = math.cos(theta), math.sin(theta)
    speed = vpx * c + vpy * s
    lateral = vpy * c - vpx * s
    if speed == 0.0:
        return speed, (0.0 if lateral == 0.0 else math.copysign(0.5 * math.pi, lateral))
    return speed, math.atan(wheelbase / epsilon * lateral / speed)


@dataclass(frozen=True)
class KinematicController:
    """The kinematic linearization with its parameters: wheelbase l [m] > 0, epsilon [m] > 0 (distance from the
    rear-axle point to P, the tracker's PL_distance) and the vehicle's steering limit max_steering_angle [rad]
    in (0, pi/2]."""

    wheelbase: float = 0.325
    epsilon: float = 0.1
    max_steering_angle: float = math.radians(25.0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "wheelbase", positive("wheelbase (l)", self.wheelbase))
        object.__setattr__(self, "epsilon", positive("epsilon", self.epsilon))
        limit = positive("max_steering_angle", self.max_steering_angle)
        if limit > 0.5 * math.pi:
            raise ValueError(f"max_steering_angle must be <= pi/2 rad, got {limit:g}")
        object.__setattr__(self, "max_steering_angle", limit)

    def command(self, vpx: float, vpy: float, theta: float) -> KinematicCommand:
        """The command for the desired velocity of P (vpx, vpy) [m/s] at yaw theta [rad]; the steering angle is
        clipped to +-max_steering_angle. Non-finite inputs give a non-finite command (refuse it: CommandGuard)."""
        speed, phi = kinematic_linearization(vpx, vpy, theta, self.wheelbase, self.epsilon)
        if math.isfinite(phi):
            phi = min(max(phi, -self.max_steering_angle), self.max_steering_angle)
        return KinematicCommand(speed, phi, speed * math.tan(phi) / self.wheelbase)


__all__ = ["KinematicCommand", "KinematicController", "kinematic_linearization"]
