"""Due times on the simulated clock: `steps_until` finds exactly the step at which `Periodic.due` first fires, and
`DueTimes` serves only the owners that are due, in order."""

from __future__ import annotations

import math
import random

from mvsim_ros.core.schedule import DueTimes, Periodic, steps_until


def first_due_step_by_stepping(schedule: Periodic, steps: int, dt: float) -> int:
    """How many single steps until `schedule.due` fires (checked after each step, as the node used to)."""
    count = 0
    while True:
        count += 1
        if (steps + count) * dt + 1e-9 >= schedule.next_time:
            return count


def test_steps_until_matches_stepping_for_many_rates_and_time_steps():
    rng = random.Random(7)
    for _ in range(3000):
        dt = rng.choice([0.001, 0.002, 0.005, 0.01, 1 / 60, 0.003])
        period = rng.choice([0.01, 0.02, 0.05, 0.1, 1 / 30, 0.0333, 0.5, 0.007])
        schedule = Periodic(period)
        steps = rng.randrange(0, 100000)
        while schedule.next_time <= steps * dt:  # consume to "now", as a running loop would have
            schedule.due(steps * dt)
        assert steps_until(schedule.next_time, steps, dt) == first_due_step_by_stepping(schedule, steps, dt)


def test_steps_until_is_at_least_one_and_large_for_never():
    assert steps_until(0.0, 100, 0.005) == 1  # already due: served after the next step
    assert steps_until(math.inf, 0, 0.005) > 10 ** 15


def test_due_times_serve_only_due_owners_in_order():
    served = []
    fast, slow, never = Periodic(0.01), Periodic(0.05), Periodic(None)
    due = DueTimes()
    due.add(lambda: (served.append("slow"), slow.due(now)), [slow])
    due.add(lambda: (served.append("fast"), fast.due(now)), [fast])
    due.add(lambda: served.append("never"), [never])
    now = 0.0
    due.serve_due(now)
    assert served == ["slow", "fast"]
    served.clear()
    assert due.next_due() == 0.01
    now = 0.01
    due.serve_due(now)
    assert served == ["fast"] and due.next_due() == 0.02
    served.clear()
    now = 0.05
    due.serve_due(now)
    assert served == ["slow", "fast"] and due.next_due() == 0.06
    assert DueTimes().next_due() == math.inf
