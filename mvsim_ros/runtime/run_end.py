"""Ending a run by itself: after a fixed span of simulated time, or once the vehicles have been driven and then
left alone.

Both end the run at a step boundary the runtime Runner never steps past: `end_step` gives the step number at which
a run of a given duration ends (the Runner's `end_step`: every batch, compiled ones included, is cut there), and
`IdleWatch` is a runtime Sink due at the instants the idle condition is checked, so the Runner stops at such an
instant and the watch can end the run there (its `on_idle` sets the Runner's `end_step` to the current step).

The idle condition (the node's `stop_when_idle`): at least one command has reached a vehicle since the simulation
was built, no vehicle has been commanded for `quiet_s` seconds of simulated time (the command watchdog's timeout),
and every vehicle is at rest (speed below REST_SPEED_M_S, yaw rate below REST_YAW_RATE_RAD_S). It is checked at
the instant the last command is `quiet_s` old and every IDLE_CHECK_PERIOD_S after that, until a new command comes.
Animated blocks, actors and pushed blocks do not count: only vehicles.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from mvsim_ros.core.schedule import DUE_TOLERANCE_S, steps_until

#: Simulated seconds [s] between two checks of the idle condition once the commands have gone quiet.
IDLE_CHECK_PERIOD_S = 0.1
#: A vehicle is at rest below this speed [m/s] ...
REST_SPEED_M_S = 1e-3
#: ... and this yaw rate [rad/s].
REST_YAW_RATE_RAD_S = 1e-3
#: How long [s] the commands must have been quiet when the command watchdog is off (timeout 0).
QUIET_WITHOUT_WATCHDOG_S = 1.0


def end_step(stop_after: float, dt: float) -> int | None:
    """The step number at which a run of `stop_after` seconds of simulated time ends (the first step whose time,
    step number x `dt` [s], reaches it; exactly stop_after / dt when it is a whole number of steps); None for 0
    (no end)."""
    if stop_after <= 0.0:
        return None
    return steps_until(stop_after, 0, dt)


def quiet_time(watchdog_timeout: float) -> float:
    """Seconds [s] of simulated time without commands after which vehicles count as left alone: the command
    watchdog's timeout, or QUIET_WITHOUT_WATCHDOG_S when the watchdog is off (0)."""
    return watchdog_timeout if watchdog_timeout > 0.0 else QUIET_WITHOUT_WATCHDOG_S


class IdleWatch:
    """A runtime Sink that calls `on_idle()` at the first instant the idle condition (module docstring) holds for
    `sim` (a physics Simulation), with commands quiet for `quiet_s` [s]; checked every `period_s` [s] of simulated
    time once the commands have been quiet that long."""

    def __init__(self, sim, quiet_s: float, on_idle: Callable[[], None], period_s: float = IDLE_CHECK_PERIOD_S):
        self.sim = sim
        self.quiet_s = float(quiet_s)
        self.period_s = float(period_s)
        self.on_idle = on_idle
        #: Simulated time [s] of the last check (-inf before the first).
        self.checked = -math.inf

    def next_due(self) -> float:
        """Simulated time [s] of the next check: never before the last command is `quiet_s` old, nor sooner than
        `period_s` after the last check; math.inf while no vehicle has received a command."""
        heard = self.sim.commands.last_command_time
        last = float(heard.max()) if heard.size else -math.inf
        if not math.isfinite(last):
            return math.inf
        return max(last + self.quiet_s, self.checked + self.period_s)

    def serve_due(self) -> None:
        """When a check is due at the simulation's current time: `on_idle()` if every vehicle is at rest."""
        now = self.sim.time
        if now + DUE_TOLERANCE_S < self.next_due():
            return
        self.checked = now
        if self.at_rest():
            self.on_idle()

    def at_rest(self) -> bool:
        """Whether every vehicle moves slower than REST_SPEED_M_S and turns slower than REST_YAW_RATE_RAD_S."""
        velocity = self.sim.velocity  # (vx [m/s], vy [m/s], omega [rad/s]) of each vehicle
        speed = np.hypot(velocity[:, 0], velocity[:, 1])
        return bool(np.all(speed < REST_SPEED_M_S) and np.all(np.abs(velocity[:, 2]) < REST_YAW_RATE_RAD_S))


__all__ = ["IDLE_CHECK_PERIOD_S", "IdleWatch", "QUIET_WITHOUT_WATCHDOG_S", "REST_SPEED_M_S", "REST_YAW_RATE_RAD_S",
           "end_step", "quiet_time"]
