"""Driving programs of the sweep tests, imported by name in Ray's worker processes (the tests put this folder on
the PYTHONPATH the workers inherit)."""

from __future__ import annotations

import os
import time

#: Environment variable naming the file where every run's start is logged (one line per start: pid, start x).
LOG_VARIABLE = "MVSIM_SWEEP_TEST_STARTS"


def stand_still_or_hang(sim, vehicle: int, t: float) -> tuple[float, float]:
    """(0, 0) [m/s, rad/s]; a vehicle that starts more than 0.5 m along x never returns (a sleep that swallows
    every exception, as a program stuck in a loop would). Each run's first call is logged to $LOG_VARIABLE."""
    x = float(sim.pose[vehicle][0])
    log = os.environ.get(LOG_VARIABLE)
    if t == 0.0 and log:
        with open(log, "a", encoding="utf-8") as stream:
            stream.write(f"{os.getpid()} {x:.3f}\n")
    while x > 0.5:
        try:
            time.sleep(0.1)
        except BaseException:  # on purpose: a program that cannot be stopped from inside
            pass
    return 0.0, 0.0
