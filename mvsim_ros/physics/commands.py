"""Latest valid command per vehicle, with a watchdog that stops vehicles whose commands went quiet.

A command is a twist (forward speed v [m/s], yaw rate omega [rad/s]) or, for Ackermann vehicles, a speed with an
equivalent steering angle [rad] (steering mode) and optionally a steering-rate limit [rad/s].
"""

from __future__ import annotations

import math

import numpy as np


class VehicleCommands:
    """Setpoints for N vehicles.

    A vehicle starts at its world-file setpoints. Once it has received a command through `set_twist` or
    `set_ackermann`, the watchdog zeroes its speed (and yaw rate) when no new command arrives within `timeout`
    seconds of simulated time (0 disables it).
    """

    def __init__(self, v: np.ndarray, omega: np.ndarray, steer: np.ndarray, steer_mode: np.ndarray,
                 timeout: float = 0.0):
        self.v = np.asarray(v, dtype=float).copy()
        self.omega = np.asarray(omega, dtype=float).copy()
        self.steer = np.asarray(steer, dtype=float).copy()
        self.steer_mode = np.asarray(steer_mode, dtype=bool).copy()
        self.steer_rate = np.zeros(self.v.size)
        self.timeout = float(timeout)
        self.last_command_time = np.full(self.v.size, -math.inf)
        self.watched = np.zeros(self.v.size, dtype=bool)

    def set_twist(self, index: int, v: float, omega: float, now: float) -> None:
        """Twist setpoint at simulated time `now` [s]. Non-finite values raise ValueError (nothing changes)."""
        if not (math.isfinite(v) and math.isfinite(omega)):
            raise ValueError(f"twist command must be finite, got v={v!r}, omega={omega!r}")
        self.v[index], self.omega[index] = v, omega
        self.steer_mode[index] = False
        self.steer_rate[index] = 0.0
        self._heard(index, now)

    def set_ackermann(self, index: int, speed: float, steering_angle: float, steering_rate: float,
                      now: float) -> None:
        """Speed [m/s] and equivalent steering angle [rad] (steering mode); steering_rate [rad/s] > 0 limits how
        fast the angle may change (0: the vehicle's own limit). Non-finite values raise ValueError."""
        if not all(math.isfinite(x) for x in (speed, steering_angle, steering_rate)):
            raise ValueError(f"Ackermann command must be finite, got speed={speed!r}, "
                             f"steering_angle={steering_angle!r}, steering_angle_velocity={steering_rate!r}")
        self.v[index], self.steer[index] = speed, steering_angle
        self.steer_mode[index] = True
        self.steer_rate[index] = abs(steering_rate)
        self._heard(index, now)

    def _heard(self, index: int, now: float) -> None:
        self.last_command_time[index] = now
        self.watched[index] = True

    def apply_watchdog(self, now: float) -> None:
        """Stop the watched vehicles whose last command is older than the timeout."""
        if self.timeout <= 0.0:
            return
        stale = self.watched & (now - self.last_command_time > self.timeout)
        if stale.any():
            self.v[stale] = 0.0
            self.omega[stale] = 0.0
            self.watched[stale] = False
