"""Latest valid twist command per vehicle, with a watchdog that zeroes commands that went quiet."""

from __future__ import annotations

import math

import numpy as np


class TwistCommands:
    """Twist setpoints (v [m/s], omega [rad/s]) for N vehicles.

    A vehicle starts at its world-file setpoint. Once it has received a command through `set`, the watchdog
    zeroes its setpoint when no new command arrives within `timeout` seconds of simulated time (0 disables it).
    """

    def __init__(self, initial_v: np.ndarray, initial_omega: np.ndarray, timeout: float = 0.0):
        self.v = np.asarray(initial_v, dtype=float).copy()
        self.omega = np.asarray(initial_omega, dtype=float).copy()
        self.timeout = float(timeout)
        self.last_command_time = np.full(self.v.size, -math.inf)
        self.watched = np.zeros(self.v.size, dtype=bool)

    def set(self, index: int, v: float, omega: float, now: float) -> None:
        """Set vehicle `index`'s setpoint at simulated time `now` [s]. Non-finite values raise ValueError."""
        if not (math.isfinite(v) and math.isfinite(omega)):
            raise ValueError(f"twist command must be finite, got v={v!r}, omega={omega!r}")
        self.v[index] = v
        self.omega[index] = omega
        self.last_command_time[index] = now
        self.watched[index] = True

    def apply_watchdog(self, now: float) -> None:
        """Zero the setpoints of watched vehicles whose last command is older than the timeout."""
        if self.timeout <= 0.0:
            return
        stale = self.watched & (now - self.last_command_time > self.timeout)
        if stale.any():
            self.v[stale] = 0.0
            self.omega[stale] = 0.0
            self.watched[stale] = False
