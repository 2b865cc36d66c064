"""When periodic work is due on the simulated clock (sensor samples, message streams)."""

from __future__ import annotations

import math
from typing import Callable, Iterable

from mvsim_ros.core.jit import kernel

#: Tolerance [s] of every due check: work is due once the simulated time is within it of the due instant.
DUE_TOLERANCE_S = 1e-9


class Periodic:
    """Due at t = 0, period, 2 period, ... of simulated time [s]; a period <= 0 (or None) means never.

    Missed instants are skipped on the same grid, so the rate holds whatever the simulation step.
    """

    def __init__(self, period: float | None):
        self.period = period if period is not None and period > 0 else None
        self.next_time = 0.0

    @classmethod
    def at_rate(cls, rate_hz: float) -> "Periodic":
        """Due `rate_hz` times per second of simulated time (0: never)."""
        return cls(1.0 / rate_hz if rate_hz > 0 else None)

    def due(self, now: float) -> bool:
        """True (and the next instant scheduled) when the simulated time `now` [s] has reached it."""
        if self.period is None or now + DUE_TOLERANCE_S < self.next_time:
            return False
        self.next_time = next_grid_time(self.next_time, self.period, now)
        return True


class DueTimes:
    """Who does periodic work on the simulated clock, and when: each owner (a publisher, a sensor set) registers
    its Periodic schedules with the function that serves them. A loop runs the simulation straight up to
    `next_due()` and then calls `serve_due(now)`, which serves only the owners with a schedule due, in the order
    they registered."""

    def __init__(self):
        self._owners: list[tuple[Callable[[], None], list[Periodic]]] = []
        self._schedules: list[Periodic] = []

    def add(self, serve: Callable[[], None], schedules: Iterable[Periodic]) -> None:
        """Register `serve` (called when any of `schedules` is due; it consumes them with `Periodic.due`).
        Schedules that never fire are left out, and an owner without any is not registered."""
        active = [s for s in schedules if s.period is not None]
        if active:
            self._owners.append((serve, active))
            self._schedules.extend(active)

    def next_due(self) -> float:
        """Simulated time [s] at which the earliest schedule is next due (inf when none ever is)."""
        return min((s.next_time for s in self._schedules), default=math.inf)

    def serve_due(self, now: float) -> None:
        """Call every owner with a schedule due at simulated time `now` [s]."""
        reach = now + DUE_TOLERANCE_S
        for serve, schedules in self._owners:
            for s in schedules:
                if reach >= s.next_time:
                    serve()
                    break


@kernel
def next_grid_time(next_time: float, period: float, now: float) -> float:
    """After work due at `next_time` [s] was served at simulated time `now` [s]: the next instant of its grid
    (next_time + k period) later than now; missed instants are skipped."""
    return next_time + period * (1 + int((now - next_time) / period))


@kernel
def steps_until(due: float, steps: int, dt: float) -> int:
    """How many steps of dt [s] from step number `steps` until the simulated time (step number x dt, as the
    simulation computes it) reaches `due` [s] within DUE_TOLERANCE_S: at least 1 (something due now or in the past
    is served after the next step); a huge number for due = inf."""
    if not math.isfinite(due):
        return 1 << 62
    count = max(1, int(math.ceil((due - DUE_TOLERANCE_S) / dt)) - steps)
    while count > 1 and (steps + count - 1) * dt + DUE_TOLERANCE_S >= due:
        count -= 1
    while (steps + count) * dt + DUE_TOLERANCE_S < due:
        count += 1
    return count
