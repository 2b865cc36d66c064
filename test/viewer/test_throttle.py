"""Rate limits of the viewer's warnings and of page messages (throttle.py), on a fake clock."""

from __future__ import annotations

import pytest

from mvsim_ros.viewer.throttle import LogThrottle, TokenBucket


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_bucket_allows_a_burst_then_one_per_period():
    clock = FakeClock()
    bucket = TokenBucket(3, 0.5, clock)
    assert [bucket.take() for _ in range(5)] == [True, True, True, False, False]
    clock.now = 0.49
    assert not bucket.take()
    clock.now = 0.51
    assert bucket.take() and not bucket.take()
    clock.now = 100.0  # refills to the burst, not beyond
    assert sum(bucket.take() for _ in range(10)) == 3
    with pytest.raises(ValueError):
        TokenBucket(0, 1.0)


def test_log_throttle_counts_what_it_holds_back():
    clock, lines = FakeClock(), []
    log = LogThrottle(lines.append, period=1.0, burst=2, clock=clock)
    written = [log.warn("invalid", f"bad {k}") for k in range(10)]
    assert written == [True, True] + [False] * 8 and lines == ["bad 0", "bad 1"]
    assert log.held("invalid") == 8
    assert log.warn("refused", "other kind")  # kinds are limited apart
    clock.now = 1.0
    log.warn("invalid", "bad 10")
    assert lines[-1] == "bad 10 (8 more like this not shown)" and log.held("invalid") == 0
    log.warn("invalid", "bad 11")
    log.flush()
    assert lines[-1] == "viewer: 1 more warning(s) about invalid not shown"
    log.flush()
    assert len(lines) == 5


def accounted(line: str) -> int:
    """Warnings a written line stands for: itself and those it says were held back."""
    if line.startswith("viewer: "):  # flush(): "viewer: N more warning(s) ..."
        return int(line.split()[1])
    return 1 + (int(line.split("(")[1].split()[0]) if "more like this" in line else 0)


def test_twenty_thousand_warnings_over_ten_seconds_write_few_lines():
    clock, lines = FakeClock(), []
    log = LogThrottle(lines.append, period=1.0, burst=20, clock=clock)
    for k in range(20000):
        clock.now = k * 0.0005
        log.warn("invalid", "bad")
    log.flush()
    assert 20 <= len(lines) <= 32, len(lines)
    assert sum(accounted(line) for line in lines) == 20000  # every one counted, none lost silently
