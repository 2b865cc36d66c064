"""Single-track (bicycle) models driven with the simulator's inputs: speed [m/s] and steering angle [rad].

Both report the pose and body-frame twist of the middle of the rear axle, the simulator's vehicle reference
point, so that their runs overlay the simulated car's.

KinematicBicycle (no slip): dx/dt = V cos psi, dy/dt = V sin psi, dpsi/dt = V tan(delta) / L, V the rear axle's
speed; each step is integrated exactly (an arc for constant inputs).

LinearDynamicBicycle (linear tyres, constant-speed lateral dynamics): longitudinal speed u follows the command
(at once, or as a first-order lag of `speed_time_constant` [s]); the lateral velocity v_y of the centre of gravity
and the yaw rate r obey

    M (dv_y/dt + u r) = C_f alpha_f + C_r alpha_r,        I_z dr/dt = a C_f alpha_f - b C_r alpha_r,
    alpha_f = sign(u) delta - (v_y + a r) / |u|,           alpha_r = -(v_y - b r) / |u|

(the tyre force opposes each axle's lateral sliding, also when reversing), integrated exactly over each step for
the step's u and delta (zero-order hold, matrix exponential), so stiff low-speed slip dynamics stay stable; |u| is
kept at least `min_speed` in the slip angles. Positions follow the
velocities with the midpoint rule.
"""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.tracking.bicycle import BicycleParameters
from mvsim_ros.tracking.values import finite, non_negative, positive


def expm(matrix: np.ndarray) -> np.ndarray:
    """Matrix exponential of a small square matrix (scaling and squaring with a 12-term Taylor series)."""
    norm = float(np.max(np.sum(np.abs(matrix), axis=1))) if matrix.size else 0.0
    squarings = max(0, int(math.ceil(math.log2(norm))) + 1) if norm > 0.5 else 0
    scaled = matrix / (2.0 ** squarings)
    result = np.eye(matrix.shape[0])
    term = np.eye(matrix.shape[0])
    for k in range(1, 13):
        term = term @ scaled / k
        result = result + term
    for _ in range(squarings):
        result = result @ result
    return result


class KinematicBicycle:
    """Kinematic single-track model; state: rear-axle point (x, y) [m], yaw psi [rad]. wheelbase L [m] > 0;
    max_steering_angle [rad] (None: no limit)."""

    def __init__(self, wheelbase: float, max_steering_angle: float | None = None,
                 pose: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> None:
        self.wheelbase = positive("wheelbase", wheelbase)
        self.max_steering_angle = (None if max_steering_angle is None
                                   else positive("max_steering_angle", max_steering_angle))
        self.x, self.y, self.yaw = (finite("pose", v) for v in pose)
        self.speed = 0.0
        self.steering = 0.0
        self.time = 0.0

    def command(self, speed: float, steering_angle: float) -> None:
        """Speed of the rear-axle point [m/s] and steering angle [rad] from now on (NaN/inf: ValueError)."""
        self.speed = finite("speed", speed)
        steering = finite("steering angle", steering_angle)
        if self.max_steering_angle is not None:
            steering = min(max(steering, -self.max_steering_angle), self.max_steering_angle)
        self.steering = steering

    @property
    def yaw_rate(self) -> float:
        """V tan(delta) / L [rad/s]."""
        return self.speed * math.tan(self.steering) / self.wheelbase

    def pose(self) -> tuple[float, float, float]:
        """(x, y, yaw) of the rear-axle point [m, m, rad]."""
        return self.x, self.y, self.yaw

    def twist(self) -> tuple[float, float, float]:
        """(v_x, v_y, r) of the rear-axle point in the body frame [m/s, m/s, rad/s]."""
        return self.speed, 0.0, self.yaw_rate

    def advance(self, duration: float) -> None:
        """Move for `duration` [s] with the current inputs (exact arc)."""
        duration = non_negative("duration", duration)
        r = self.yaw_rate
        turn = r * duration
        half = 0.5 * turn
        chord = self.speed * duration * (math.sin(half) / half if abs(half) > 1e-12 else 1.0)
        self.x += chord * math.cos(self.yaw + half)
        self.y += chord * math.sin(self.yaw + half)
        self.yaw += turn
        self.time += duration


class LinearDynamicBicycle:
    """Linear-tyre dynamic single-track model (module docstring). params: BicycleParameters with iz > 0;
    dt [s]: internal step; speed_time_constant [s] >= 0; min_speed [m/s] > 0."""

    def __init__(self, params: BicycleParameters, dt: float = 0.002, speed_time_constant: float = 0.0,
                 min_speed: float = 0.1, pose: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> None:
        if params.iz <= 0.0:
            raise ValueError("the dynamic model needs the yaw inertia I_z > 0")
        self.params = params
        self.dt = positive("dt", dt)
        self.speed_time_constant = non_negative("speed_time_constant", speed_time_constant)
        self.min_speed = positive("min_speed", min_speed)
        x, y, yaw = (finite("pose", v) for v in pose)
        self.yaw = yaw
        self.cog_x = x + params.b * math.cos(yaw)  # centre of gravity [m]
        self.cog_y = y + params.b * math.sin(yaw)
        self.u = 0.0  # longitudinal speed [m/s]
        self.v_y = 0.0  # lateral velocity of the centre of gravity, body frame [m/s]
        self.r = 0.0  # yaw rate [rad/s]
        self.speed_command = 0.0
        self.steering = 0.0
        self.time = 0.0
        self._transition: tuple[float, float, np.ndarray] | None = None  # (speed, dt, matrix) of the last step

    def command(self, speed: float, steering_angle: float) -> None:
        """Longitudinal speed [m/s] and steering angle [rad] from now on (clipped to the steering limit)."""
        self.speed_command = finite("speed", speed)
        limit = self.params.max_steering_angle
        self.steering = min(max(finite("steering angle", steering_angle), -limit), limit)

    def pose(self) -> tuple[float, float, float]:
        """(x, y, yaw) of the rear-axle point [m, m, rad]."""
        b, c, s = self.params.b, math.cos(self.yaw), math.sin(self.yaw)
        return self.cog_x - b * c, self.cog_y - b * s, self.yaw

    def twist(self) -> tuple[float, float, float]:
        """(v_x, v_y, r) of the rear-axle point in the body frame [m/s, m/s, rad/s]."""
        return self.u, self.v_y - self.params.b * self.r, self.r

    @property
    def side_slip(self) -> float:
        """Side-slip angle at the centre of gravity, atan2(v_y, u) [rad]."""
        return math.atan2(self.v_y, self.u) if (self.u or self.v_y) else 0.0

    def _lateral_step(self, u: float, dt: float) -> None:
        """Exact zero-order-hold step of (v_y, r) for speed u and the current steering."""
        if self._transition is None or self._transition[:2] != (u, dt):
            self._transition = (u, dt, self._transition_matrix(u, dt))
        phi = self._transition[2]
        state = phi[:2, :2] @ np.array([self.v_y, self.r]) + phi[:2, 2] * self.steering
        self.v_y, self.r = float(state[0]), float(state[1])

    def _transition_matrix(self, u: float, dt: float) -> np.ndarray:
        """exp([[A, B], [0, 0]] dt) for speed u: its top rows map (v_y, r, delta) to (v_y, r) after dt."""
        p = self.params
        m, a, b, cf, cr, iz = p.mass, p.a, p.b, p.cf, p.cr, p.iz
        speed = max(abs(u), self.min_speed)
        direction = -1.0 if u < 0.0 else 1.0
        # d/dt [v_y, r] = A [v_y, r] + B delta
        a_matrix = np.array([
            [-(cf + cr) / (m * speed), -(a * cf - b * cr) / (m * speed) - u],
            [-(a * cf - b * cr) / (iz * speed), -(a * a * cf + b * b * cr) / (iz * speed)],
        ])
        b_vector = direction * np.array([cf / m, a * cf / iz])
        augmented = np.zeros((3, 3))
        augmented[:2, :2] = a_matrix * dt
        augmented[:2, 2] = b_vector * dt
        return expm(augmented)

    def step(self, dt: float | None = None) -> None:
        """One internal step of dt [s] (default self.dt)."""
        dt = self.dt if dt is None else dt
        u0, vy0, r0, yaw0 = self.u, self.v_y, self.r, self.yaw
        tau = self.speed_time_constant
        if tau > 0.0:
            self.u = self.speed_command + (self.u - self.speed_command) * math.exp(-dt / tau)
        else:
            self.u = self.speed_command
        self._lateral_step(0.5 * (u0 + self.u), dt)
        self.yaw = yaw0 + 0.5 * (r0 + self.r) * dt
        mid_yaw = 0.5 * (yaw0 + self.yaw)
        u_mid, vy_mid = 0.5 * (u0 + self.u), 0.5 * (vy0 + self.v_y)
        c, s = math.cos(mid_yaw), math.sin(mid_yaw)
        self.cog_x += (u_mid * c - vy_mid * s) * dt
        self.cog_y += (u_mid * s + vy_mid * c) * dt
        self.time += dt

    def advance(self, duration: float) -> None:
        """Step for `duration` [s] (whole internal steps, the last one shortened to land on it)."""
        remaining = non_negative("duration", duration)
        while remaining > 1e-12:
            dt = min(self.dt, remaining)
            self.step(dt)
            remaining -= dt


__all__ = ["KinematicBicycle", "LinearDynamicBicycle", "expm"]
