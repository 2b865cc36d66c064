"""The per-publisher wall-clock rate limit of Foxglove forwarding (node parameter `foxglove_max_rate`).

A live viewer needs the newest message of each stream at about its display rate, not every message: at
realtime_factor 0 the node publishes hundreds of thousands of messages per wall second. `RateGate` is the limit of
one Python publisher's stream (applied before serialization, ros/publishing/outlet.TopicTap.due); the compiled fast
path's streams have the same gate in C (output/recording/tee.c, `mvsim_tee_gate`), decided before any Python runs.

Rule (both sides): a message is due at or after the gate's next due time; forwarding it moves that time on by the
interval (1 / max rate), from one interval before the message's own time at the earliest. A stream faster than the
limit is forwarded at the limit on average (never more than two messages within one interval); a steady stream
slower than the limit is forwarded whole, even when the loop's jitter brings a message up to one interval early
(it takes the credit of the interval left unused before it).
Transient-local streams (/tf_static, the map, latched markers) are forwarded whole: a late joiner needs them.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable

#: [Hz] of wall time: default limit per stream (a display's refresh rate, the fastest a Foxglove panel draws).
DEFAULT_MAX_RATE_HZ = 60.0
#: [Hz] smallest limit other than 0 (one message per 10 s of wall time).
MIN_MAX_RATE_HZ = 0.1


def max_rate_problem(max_rate_hz: float) -> str | None:
    """What is wrong with a `foxglove_max_rate` value [Hz], or None when it is fine (0, or a finite number
    >= MIN_MAX_RATE_HZ)."""
    if max_rate_hz == 0.0 or (math.isfinite(max_rate_hz) and max_rate_hz >= MIN_MAX_RATE_HZ):
        return None
    return (f"must be 0 (forward every message) or a finite number of Hz >= {MIN_MAX_RATE_HZ:g} (messages per wall "
            f"second forwarded per publisher)")


def interval_ns(max_rate_hz: float) -> int:
    """[ns] of wall time between forwarded messages at `max_rate_hz` (0 Hz: 0, every message)."""
    return int(round(1e9 / max_rate_hz)) if max_rate_hz > 0 else 0


def is_transient_local(publisher: Any) -> bool:
    """Whether `publisher` (an rclpy Publisher) offers transient-local durability (a latched topic); False for a
    stand-in without a QoS profile."""
    durability = getattr(getattr(publisher, "qos_profile", None), "durability", None)
    return getattr(durability, "short_key", None) == "transient_local"


class RateGate:
    """One message per `interval_s` of wall time on average (`clock()` [s], monotonic; the module's rule): `due()`
    says whether the next message would be forwarded (it changes nothing), `passed()` records that one was."""

    def __init__(self, interval_s: float, clock: Callable[[], float] = time.monotonic):
        self.interval_s = interval_s
        self.clock = clock
        self._next_due = 0.0  # [s] of `clock()`, as the native gate starts (a fresh gate: the first message is due)

    def due(self) -> bool:
        """Whether a message forwarded now keeps within the limit."""
        return self.clock() >= self._next_due

    def passed(self) -> None:
        """A message was forwarded now: the next is due one interval after this one's due time, or after one
        interval before now when that is later (the credit of one unused interval at most)."""
        now = self.clock()
        self._next_due = max(self._next_due, now - self.interval_s) + self.interval_s


__all__ = ["DEFAULT_MAX_RATE_HZ", "MIN_MAX_RATE_HZ", "RateGate", "interval_ns", "is_transient_local",
           "max_rate_problem"]
