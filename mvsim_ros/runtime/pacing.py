"""Keeping the simulated clock at a real-time factor of the wall clock, and measuring the factor reached.

The pace is anchored at a pair (wall time, simulated time); the simulated time aimed at is
`sim_anchor + (wall - wall_anchor) * realtime_factor`. A simulation that falls more than `max_lag_s` of wall time behind
keeps only that much backlog to catch up and slips behind the wall clock by the rest (instead of freezing while it
catches up). A real-time factor of 0 means as fast as possible: nothing is due by the wall clock, the runner steps
until its deadline.
"""

from __future__ import annotations

import math

#: Longest backlog [s of wall time] caught up at once; beyond it the simulation slips behind the wall clock.
MAX_LAG_S = 0.25
#: Wall-time window [s] over which RateMeter measures the real-time factor.
RATE_WINDOW_S = 1.0


class Pacer:
    """Steps due by the wall clock for `realtime_factor` simulated seconds per wall second (0: as fast as possible).

    Times are in seconds: wall times from time.monotonic(), simulated times from Simulation.time.
    """

    def __init__(self, realtime_factor: float, max_lag_s: float = MAX_LAG_S):
        if not (math.isfinite(realtime_factor) and realtime_factor >= 0.0):
            raise ValueError(f"realtime factor must be a finite number >= 0, got {realtime_factor!r}")
        self.realtime_factor = float(realtime_factor)
        self.max_lag_s = float(max_lag_s)
        self.wall_anchor = 0.0
        self.sim_anchor = 0.0

    @property
    def as_fast_as_possible(self) -> bool:
        """True for a real-time factor of 0."""
        return self.realtime_factor == 0.0

    def anchor(self, wall: float, sim_time: float) -> None:
        """Pace from here: simulated time `sim_time` [s] belongs to wall time `wall` [s]."""
        self.wall_anchor, self.sim_anchor = wall, sim_time

    def steps_due(self, wall: float, sim_time: float, dt: float) -> int:
        """Steps of dt [s] to run now so that the simulated time reaches the target of wall time `wall` (the steps
        with sim_time + dt/2 <= target, as stepping one at a time would run). More than `max_lag_s` of wall time
        behind: the pace is re-anchored so that only that much backlog is left. Not for a real-time factor of 0
        (then nothing paces)."""
        target = self.sim_anchor + (wall - self.wall_anchor) * self.realtime_factor
        backlog = self.max_lag_s * self.realtime_factor
        if target - sim_time > backlog:
            self.anchor(wall - self.max_lag_s, sim_time)
            target = sim_time + backlog
        return max(0, math.floor((target - sim_time) / dt + 0.5))

    def sleep_time(self, wall: float, sim_time: float, dt: float, at_most: float) -> float:
        """Wall seconds until the next step is due (between 0 and `at_most`; 0 at a real-time factor of 0)."""
        if self.as_fast_as_possible:
            return 0.0
        next_wall = self.wall_anchor + (sim_time + dt - self.sim_anchor) / self.realtime_factor
        return min(at_most, max(0.0, next_wall - wall))


class RateMeter:
    """The real-time factor reached: simulated seconds per wall second over windows of `window_s` wall seconds."""

    def __init__(self, window_s: float = RATE_WINDOW_S):
        self.window_s = window_s
        self.rate = 0.0
        self._wall = 0.0
        self._sim = 0.0

    def restart(self, wall: float, sim_time: float) -> None:
        """Start a new window at wall time `wall` [s] and simulated time `sim_time` [s]."""
        self._wall, self._sim = wall, sim_time

    def update(self, wall: float, sim_time: float, running: bool = True) -> float:
        """After a window has passed: `rate` becomes the factor over it (0 when not `running`, never below 0);
        returns `rate`."""
        span = wall - self._wall
        if span >= self.window_s:
            self.rate = max(0.0, sim_time - self._sim) / span if running else 0.0
            self.restart(wall, sim_time)
        return self.rate
