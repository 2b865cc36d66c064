"""When periodic work is due on the simulated clock (sensor samples, message streams)."""

from __future__ import annotations


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
        if self.period is None or now + 1e-9 < self.next_time:
            return False
        self.next_time += self.period * (1 + int((now - self.next_time) / self.period))
        return True
