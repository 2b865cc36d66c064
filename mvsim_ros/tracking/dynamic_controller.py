"""Dynamic controller: feedback linearization of the linear-tyre dynamic bicycle model.

The point P is at epsilon [m] from the centre of gravity along the velocity, whose direction is yaw + side slip,
psi + beta. With V the speed of the centre of gravity and omega = d(beta + psi)/dt the turn rate of its
velocity, P moves with dP/dt = R(beta + psi) [V, epsilon omega], hence

    [V, omega] = [[cos(beta + psi), sin(beta + psi)], [-sin(beta + psi) / epsilon, cos(beta + psi) / epsilon]]
                 [V_Px, V_Py]

The linear-tyre lateral balance M V (dbeta/dt + r) = C_f alpha_f + C_r alpha_r, with alpha_f = delta - beta - a r / V
and alpha_r = -beta + b r / V (r = dpsi/dt), then gives the steering angle that makes omega so:

    delta = M V / C_f omega + (C_f + C_r) / C_f beta - (b C_r - a C_f) / C_f r / V

beta is the measured side-slip angle at the centre of gravity, atan2(v_y, v_x) of its body-frame velocity (the
model needs the vehicle's own side slip, not the direction atan(Vp_y / Vp_x) of P's desired velocity). The vehicle's
speed command is the longitudinal one, u = V cos(beta) (the same all along the body). V may be near 0 at a
start: the r / V term divides by max(|V|, min_speed) (0: the plain formula, non-finite at V = 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from mvsim_ros.tracking.bicycle import BicycleParameters
from mvsim_ros.tracking.values import non_negative, positive


class DynamicCommand(NamedTuple):
    """speed V [m/s] of the centre of gravity, steering_angle delta [rad] (within the limit), course_rate omega
    [rad/s] (turn rate of the velocity), longitudinal_speed u = V cos(beta) [m/s] (the vehicle's speed command)."""

    speed: float
    steering_angle: float
    course_rate: float
    longitudinal_speed: float


def dynamic_linearization(vpx: float, vpy: float, psi: float, psi_dot: float, beta: float,
                          params: BicycleParameters, epsilon: float, min_speed: float = 0.0) -> DynamicCommand:
    """The formulas of the module docstring without steering limit: desired velocity of P (vpx, vpy) [m/s],
    yaw psi [rad], yaw rate psi_dot [rad/s], side slip beta [rad], epsilon [m] > 0."""
    angle = beta + psi
    if not math.isfinite(angle):
        return DynamicCommand(math.nan, math.nan, math.nan, math.nan)
    c, s = math.cos(angle), math.sin(angle)
    speed = c * vpx + s * vpy
    course_rate = (-s * vpx + c * vpy) / epsilon
    m, a, b, cf, cr = params.mass, params.a, params.b, params.cf, params.cr
    divisor = speed if abs(speed) >= min_speed else math.copysign(min_speed, speed)
    yaw_term = psi_dot / divisor if divisor != 0.0 else (0.0 if psi_dot == 0.0 else math.nan)
    delta = m * speed / cf * course_rate + (cf + cr) / cf * beta - (b * cr - a * cf) / cf * yaw_term
    return DynamicCommand(speed, delta, course_rate, speed * math.cos(beta))


@dataclass(frozen=True)
class DynamicController:
    """The dynamic linearization with its parameters: `params` (M, a, b, C_f, C_r, steering limit), epsilon [m]
    > 0, min_speed [m/s] >= 0 (see the module docstring)."""

    params: BicycleParameters
    epsilon: float = 0.1
    min_speed: float = 0.1

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", positive("epsilon", self.epsilon))
        object.__setattr__(self, "min_speed", non_negative("min_speed", self.min_speed))

    def command(self, vpx: float, vpy: float, psi: float, psi_dot: float, beta: float) -> DynamicCommand:
        """The command, the steering angle clipped to the vehicle's limit; non-finite inputs give a non-finite
        command (refuse it: CommandGuard)."""
        cmd = dynamic_linearization(vpx, vpy, psi, psi_dot, beta, self.params, self.epsilon, self.min_speed)
        limit = self.params.max_steering_angle
        if math.isfinite(cmd.steering_angle):
            cmd = cmd._replace(steering_angle=min(max(cmd.steering_angle, -limit), limit))
        return cmd


__all__ = ["DynamicCommand", "DynamicController", "dynamic_linearization"]
