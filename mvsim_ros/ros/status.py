"""A one-line live status (sim time, real-time factor, vehicle poses) for terminals and logs."""

from __future__ import annotations

import math
import sys
import time

from mvsim_ros.physics import Simulation


class StatusLine:
    """Prints the status every `period` seconds of wall time (0 = never): in place on a terminal, else a line."""

    def __init__(self, sim: Simulation, period: float, stream=None):
        self.sim = sim
        self.period = period
        self.stream = stream or sys.stdout
        self._tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._last_wall = time.monotonic()
        self._last_sim = sim.time
        self._printed = False

    def text(self, realtime_factor: float) -> str:
        """The status text for a measured real-time factor."""
        poses = "  ".join(
            f"{name}=({x:+.2f},{y:+.2f},{math.degrees(yaw):+.0f}°)"
            for name, (x, y, yaw) in zip(self.sim.vehicle_names, self.sim.pose.tolist())
        )
        return f"t={self.sim.time:8.2f} s  rtf={realtime_factor:5.2f}x  {poses}"

    def update(self) -> None:
        """Print if a period has passed since the last print."""
        if self.period <= 0:
            return
        now = time.monotonic()
        if now - self._last_wall < self.period:
            return
        rtf = (self.sim.time - self._last_sim) / (now - self._last_wall)
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
