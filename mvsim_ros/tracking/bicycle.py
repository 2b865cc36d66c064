"""Parameters of the single-track (bicycle) model and its steady-state cornering, in closed form.

Notation: mass M [kg]; a, b [m]: centre of gravity to the front and rear axle (wheelbase
L = a + b); C_f, C_r [N/rad]: cornering stiffness of the front and rear axle (lateral force per radian of slip
angle, both tyres of the axle together); I_z [kg m^2]: yaw inertia about the centre of gravity.

Steady-state cornering of the linear-tyre model on a radius R at lateral acceleration a_y = v^2 / R: the axles
carry F_f = M a_y b / L and F_r = M a_y a / L, so their slip angles are F_f / C_f and F_r / C_r, and the steering
angle is

    delta = L / R + K a_y,      K = M / L (b / C_f - a / C_r)     [rad per m/s^2]

K is the understeer gradient (ISO 4138 reads it as the slope of delta against a_y at constant radius): K > 0
understeer, K < 0 oversteer (unstable above v_crit = sqrt(-L / K)), K = 0 neutral (the kinematic model,
delta = L / R). With the same cornering stiffness per unit of axle load on both axles K is 0 whatever the weight
distribution; with the same stiffness on both axles (MVSim gives every wheel the same load), K has the sign of
b - a: front-heavy (a < b) understeers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mvsim_ros.tracking.values import non_negative, positive


@dataclass(frozen=True)
class BicycleParameters:
    """Single-track model parameters (see the module docstring); all > 0 except iz (>= 0, 0: unknown; needed
    by the dynamic model only). max_steering_angle [rad]: the vehicle's steering limit."""

    mass: float
    a: float
    b: float
    cf: float
    cr: float
    iz: float = 0.0
    max_steering_angle: float = 0.5 * math.pi

    def __post_init__(self) -> None:
        for name, label in (("mass", "M"), ("a", "a"), ("b", "b"), ("cf", "C_f"), ("cr", "C_r"),
                            ("max_steering_angle", "max_steering_angle")):
            object.__setattr__(self, name, positive(label, getattr(self, name)))
        object.__setattr__(self, "iz", non_negative("I_z", self.iz))

    @property
    def wheelbase(self) -> float:
        """L = a + b [m]."""
        return self.a + self.b

    @property
    def front_weight_fraction(self) -> float:
        """Share of the weight on the front axle by statics, b / L."""
        return self.b / self.wheelbase

    @property
    def understeer_gradient(self) -> float:
        """K = M / L (b / C_f - a / C_r) [rad / (m/s^2)]."""
        return self.mass / self.wheelbase * (self.b / self.cf - self.a / self.cr)


def kinematic_yaw_rate(speed: float, steering_angle: float, wheelbase: float) -> float:
    """Yaw rate of the kinematic bicycle v tan(delta) / L [rad/s] (speed of the rear-axle point [m/s])."""
    return speed * math.tan(steering_angle) / wheelbase


def steady_state_steering(params: BicycleParameters, radius: float, lateral_acceleration: float) -> float:
    """delta = L / R + K a_y [rad] (radius [m], a_y [m/s^2]); small-angle linear-tyre model."""
    return params.wheelbase / radius + params.understeer_gradient * lateral_acceleration


def steady_state_yaw_rate(params: BicycleParameters, speed: float, steering_angle: float) -> float:
    """Yaw rate [rad/s] of the linear-tyre model turning steadily at `speed` [m/s] with `steering_angle` [rad]:
    r = v delta / (L + K v^2) (infinite past the critical speed of an oversteering vehicle)."""
    denominator = params.wheelbase + params.understeer_gradient * speed * speed
    return speed * steering_angle / denominator if denominator > 0 else math.inf


def steady_state_side_slip(params: BicycleParameters, speed: float, yaw_rate: float) -> float:
    """Side-slip angle beta [rad] at the centre of gravity in steady cornering: beta = b r / v - alpha_r with
    alpha_r = M a_y a / (L C_r) (a_y = v r); positive to the left."""
    lateral = speed * yaw_rate
    return params.b * yaw_rate / speed - params.mass * lateral * params.a / (params.wheelbase * params.cr)


__all__ = ["BicycleParameters", "kinematic_yaw_rate", "steady_state_side_slip", "steady_state_steering",
           "steady_state_yaw_rate"]
