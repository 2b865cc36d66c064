"""A one-line live status (sim time, real-time factor, run state, vehicle poses) for terminals and logs.

The real-time factor is measured over a window: simulated seconds gained divided by wall seconds passed since the
window began. A window holds one continuous run of one simulation: a reset or a swap of the simulation (spawn,
delete), a pause and a resume each start a new window (`restart`), so the factor never mixes two timelines (a
reset sets simulated time back to 0, which would read as a negative factor) nor counts paused wall time.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Callable, TextIO

from mvsim_ros.physics import Simulation


class StatusLine:
    """Prints the status every `period` seconds of wall time (0 = never): in place on a terminal, else a line.

    sim: the simulation to report (the node replaces it after a reset or swap, then calls `restart`).
    period: [s] of wall time between two lines; 0 or less = never.
    stream: where the lines go (stdout by default).
    clock: wall clock [s], monotonic (time.monotonic by default; tests pass their own).
    """

    def __init__(self, sim: Simulation, period: float, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.sim = sim
        self.period = period
        self.stream = stream or sys.stdout
        self._clock = clock
        self._tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._printed = False
        #: "paused" while the run state is paused (shown in the line), else "".
        self.state = ""
        self._last_wall = self._clock()
        self._last_sim = sim.time
        self._window_sim: Simulation = sim

    def restart(self, state: str = "") -> None:
        """Start a new measuring window now, from the current simulation and its time (after a reset, a swap, a
        pause or a resume); `state` is shown in the line ("paused" or "" while running)."""
        self.state = state
        self._last_wall = self._clock()
        self._last_sim = self.sim.time
        self._window_sim = self.sim

    def text(self, realtime_factor: float) -> str:
        """The status text for a measured real-time factor."""
        poses = "  ".join(
            f"{name}=({x:+.2f},{y:+.2f},{math.degrees(yaw):+.0f}°)"
            for name, (x, y, yaw) in zip(self.sim.vehicle_names, self.sim.pose.tolist())
        )
        state = f"  [{self.state}]" if self.state else ""
        return f"t={self.sim.time:8.2f} s  rtf={realtime_factor:5.2f}x{state}  {poses}"

    def realtime_factor(self, now: float) -> float:
        """Simulated s per wall s over the current window up to `now` [s of the clock], >= 0. A window whose
        simulation was replaced, or whose simulated time went back, without a `restart` counts from `now` (0)."""
        if self.sim is not self._window_sim or self.sim.time < self._last_sim:
            self.restart(self.state)
            return 0.0
        elapsed = now - self._last_wall
        return (self.sim.time - self._last_sim) / elapsed if elapsed > 0 else 0.0

    def update(self) -> None:
        """Print if a period has passed since the last print."""
        if self.period <= 0:
            return
        now = self._clock()
        if now - self._last_wall < self.period:
            return
        if self.sim is not self._window_sim or self.sim.time < self._last_sim:  # replaced without a restart
            self.restart(self.state)
            return
        rtf = self.realtime_factor(now)
        self._last_wall, self._last_sim = now, self.sim.time
        line = self.text(rtf)
        if self._tty:
            self.stream.write("\r\033[K" + line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
        self._printed = True

    def finish(self) -> None:
        """End the in-place line so the shell prompt starts clean."""
        if self._printed and self._tty:
            self.stream.write("\n")
            self.stream.flush()
