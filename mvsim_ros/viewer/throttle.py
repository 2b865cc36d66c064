"""Rate limits of the viewer: how many warning lines a kind of problem may write, and how many messages a page
may send. Both are token buckets: up to `burst` at once, then one per `period` seconds of wall time."""

from __future__ import annotations

import threading
import time
from typing import Callable


class TokenBucket:
    """Allows `burst` events at once and one more per `period` [s] of `clock` time after that."""

    __slots__ = ("burst", "period", "_tokens", "_last", "_clock")

    def __init__(self, burst: float, period: float, clock: Callable[[], float] = time.monotonic):
        if not (burst >= 1 and period > 0):
            raise ValueError(f"a token bucket needs burst >= 1 and period > 0, got {burst!r}, {period!r}")
        self.burst, self.period, self._clock = float(burst), float(period), clock
        self._tokens = self.burst
        self._last = clock()

    def take(self) -> bool:
        """True (and one event counted) when an event is allowed now."""
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) / self.period)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


class LogThrottle:
    """Writes warnings through `emit`, at most `burst` lines at once per kind and then one per `period` [s]; the
    lines held back are counted and the count is said with the next line of that kind (or by `flush()`).

    Thread-safe; `clock` [s] is for tests.
    """

    def __init__(self, emit: Callable[[str], None], period: float = 1.0, burst: int = 20,
                 clock: Callable[[], float] = time.monotonic):
        self._emit, self._period, self._burst, self._clock = emit, float(period), int(burst), clock
        self._buckets: dict[str, TokenBucket] = {}
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    def warn(self, kind: str, text: str) -> bool:
        """Write `text` unless lines of `kind` are over their rate; returns whether it was written."""
        with self._lock:
            bucket = self._buckets.get(kind)
            if bucket is None:
                bucket = self._buckets[kind] = TokenBucket(self._burst, self._period, self._clock)
            if not bucket.take():
                self._held[kind] = self._held.get(kind, 0) + 1
                return False
            held = self._held.pop(kind, 0)
        self._emit(text if not held else f"{text} ({held} more like this not shown)")
        return True

    def held(self, kind: str) -> int:
        """Lines of `kind` held back and not yet counted in a written line."""
        with self._lock:
            return self._held.get(kind, 0)

    def flush(self) -> None:
        """Write one line per kind with lines held back, saying how many (e.g. when the viewer stops)."""
        with self._lock:
            held, self._held = self._held, {}
        for kind, count in held.items():
            self._emit(f"viewer: {count} more warning(s) about {kind} not shown")


__all__ = ["LogThrottle", "TokenBucket"]
