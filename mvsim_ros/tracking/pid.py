"""Tracking PIDs: one per coordinate of P, identical gains, with the reference velocity as feed-forward.

For each axis (x shown):

    v_Px = [FFWD] dx_Pref/dt + Kp e + Ki e_int + Kd e_der,    e = x_Pref - x_P,
    e_int(t) = e_int(t - 1) + e dt            (Riemann sum),
    e_der(t) = (e(t) - e(t - 1)) / dt         (finite difference; 0 at the first update).

Defaults (an empirical tuning): Kp = 5, Ki = Kd = 0, feed-forward on.
"""

from __future__ import annotations

from dataclasses import dataclass

from mvsim_ros.tracking.values import non_negative

#: Default gains: P with feed-forward (Kp = 5 [1/s], Ki = Kd = 0).
SEED_KP, SEED_KI, SEED_KD, SEED_FEED_FORWARD = 5.0, 0.0, 0.0, True


@dataclass(frozen=True)
class PidGains:
    """Gains shared by both axes: kp [1/s], ki [1/s^2], kd [-] (all >= 0), feed_forward: add the reference
    velocity."""

    kp: float = SEED_KP
    ki: float = SEED_KI
    kd: float = SEED_KD
    feed_forward: bool = SEED_FEED_FORWARD

    def __post_init__(self) -> None:
        for name in ("kp", "ki", "kd"):
            object.__setattr__(self, name, non_negative(name.capitalize(), getattr(self, name)))
        if not isinstance(self.feed_forward, bool):
            raise ValueError(f"FFWD must be a boolean, got {self.feed_forward!r}")


class AxisPid:
    """One axis: integral and previous error as state; `update` gives the velocity command [m/s]."""

    def __init__(self) -> None:
        self.integral = 0.0
        self.previous_error: float | None = None

    def reset(self) -> None:
        """Forget the integral and the previous error."""
        self.integral = 0.0
        self.previous_error = None

    def update(self, gains: PidGains, error: float, feed_forward: float, dt: float) -> float:
        """Command for position error [m] and reference velocity [m/s] after dt [s] since the previous update
        (dt <= 0: no integration and no derivative this time)."""
        derivative = 0.0
        if dt > 0.0:
            self.integral += error * dt
            if self.previous_error is not None:
                derivative = (error - self.previous_error) / dt
        self.previous_error = error
        command = gains.kp * error + gains.ki * self.integral + gains.kd * derivative
        return command + feed_forward if gains.feed_forward else command


class PointPid:
    """The two PIDs of P (x and y) with shared gains."""

    def __init__(self, gains: PidGains | None = None) -> None:
        self.gains = gains or PidGains()
        self.x = AxisPid()
        self.y = AxisPid()

    def reset(self) -> None:
        """Forget both axes' state."""
        self.x.reset()
        self.y.reset()

    def update(self, error: tuple[float, float], feed_forward: tuple[float, float],
               dt: float) -> tuple[float, float]:
        """(v_Px, v_Py) [m/s] for the P error [m] and the reference velocity of P [m/s]."""
        return (self.x.update(self.gains, error[0], feed_forward[0], dt),
                self.y.update(self.gains, error[1], feed_forward[1], dt))


__all__ = ["AxisPid", "PidGains", "PointPid", "SEED_FEED_FORWARD", "SEED_KD", "SEED_KI", "SEED_KP"]
