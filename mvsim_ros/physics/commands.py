"""Latest valid command per vehicle, with a watchdog that stops vehicles whose commands went quiet.

A command is a twist (forward speed v [m/s], yaw rate omega [rad/s]) or, for Ackermann vehicles, a speed with an
equivalent steering angle [rad] (steering mode) and optionally a steering-rate limit [rad/s]. Finite values beyond
the vehicle's bounds (command_limits.CommandLimits) are clamped to them when set, and the setter returns a short
note saying what was clamped (None when nothing was); non-finite values raise ValueError and change nothing.
"""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.physics.command_limits import CommandLimits, clamp
from mvsim_ros.physics.step_data import CommandData
from mvsim_ros.physics.step_phases import stop_stale_commands


class VehicleCommands:
    """Setpoints for N vehicles.

    A vehicle starts at its world-file setpoints. Once it has received a command through `set_twist` or
    `set_ackermann`, the watchdog zeroes its speed (and yaw rate) when no new command arrives within `timeout`
    seconds of simulated time (0 disables it). `limits`: the bounds commands are clamped to (None: no bounds);
    the initial setpoints are clamped too.
    """

    def __init__(self, v: np.ndarray, omega: np.ndarray, steer: np.ndarray, steer_mode: np.ndarray,
                 timeout: float = 0.0, limits: CommandLimits | None = None):
        self.limits = limits
        self.v = np.asarray(v, dtype=float).copy()
        self.omega = np.asarray(omega, dtype=float).copy()
        self.steer = np.asarray(steer, dtype=float).copy()
        if limits is not None:
            np.clip(self.v, -limits.max_speed, limits.max_speed, out=self.v)
            np.clip(self.omega, -limits.max_yaw_rate, limits.max_yaw_rate, out=self.omega)
            np.clip(self.steer, -limits.max_steer, limits.max_steer, out=self.steer)
        self.steer_mode = np.asarray(steer_mode, dtype=bool).copy()
        self.steer_rate = np.zeros(self.v.size)
        self.timeout = float(timeout)
        self.last_command_time = np.full(self.v.size, -math.inf)
        self.watched = np.zeros(self.v.size, dtype=bool)
        #: The same arrays as the kernels take them (the arrays are only ever written in place).
        self.data = CommandData(self.v, self.omega, self.steer, self.steer_mode, self.steer_rate, self.timeout,
                                self.watched, self.last_command_time)

    def set_twist(self, index: int, v: float, omega: float, now: float) -> str | None:
        """Twist setpoint at simulated time `now` [s], clamped to the vehicle's speed [m/s] and yaw-rate [rad/s]
        bounds; returns what was clamped, or None. Non-finite values raise ValueError (nothing changes)."""
        if not (math.isfinite(v) and math.isfinite(omega)):
            raise ValueError(f"twist command must be finite, got v={v!r}, omega={omega!r}")
        notes = []
        if self.limits is not None:
            v = self._bounded(notes, "speed", v, self.limits.max_speed[index], "m/s")
            omega = self._bounded(notes, "yaw rate", omega, self.limits.max_yaw_rate[index], "rad/s")
        self.v[index], self.omega[index] = v, omega
        self.steer_mode[index] = False
        self.steer_rate[index] = 0.0
        self._heard(index, now)
        return "; ".join(notes) or None

    def set_ackermann(self, index: int, speed: float, steering_angle: float, steering_rate: float,
                      now: float) -> str | None:
        """Speed [m/s] and equivalent steering angle [rad] (steering mode); steering_rate [rad/s] > 0 limits how
        fast the angle may change (0: the vehicle's own limit). Each is clamped to the vehicle's bound; returns
        what was clamped, or None. Non-finite values raise ValueError (nothing changes)."""
        if not all(math.isfinite(x) for x in (speed, steering_angle, steering_rate)):
            raise ValueError(f"Ackermann command must be finite, got speed={speed!r}, "
                             f"steering_angle={steering_angle!r}, steering_angle_velocity={steering_rate!r}")
        notes = []
        if self.limits is not None:
            speed = self._bounded(notes, "speed", speed, self.limits.max_speed[index], "m/s")
            steering_angle = self._bounded(notes, "steering angle", steering_angle, self.limits.max_steer[index],
                                           "rad")
            steering_rate = self._bounded(notes, "steering rate", steering_rate, self.limits.max_steer_rate[index],
                                          "rad/s")
        self.v[index], self.steer[index] = speed, steering_angle
        self.steer_mode[index] = True
        self.steer_rate[index] = abs(steering_rate)
        self._heard(index, now)
        return "; ".join(notes) or None

    @staticmethod
    def _bounded(notes: list[str], what: str, value: float, bound: float, unit: str) -> float:
        """value within +/- bound; appends a note to `notes` when it had to be clamped."""
        bounded = clamp(value, float(bound))
        if bounded != value:
            notes.append(f"{what} {value:.6g} {unit} clamped to {bounded:.6g} {unit}")
        return bounded

    def _heard(self, index: int, now: float) -> None:
        self.last_command_time[index] = now
        self.watched[index] = True

    def apply_watchdog(self, now: float) -> None:
        """Stop the watched vehicles whose last command is older than the timeout."""
        stop_stale_commands(now, self.timeout, self.watched, self.last_command_time, self.v, self.omega)
