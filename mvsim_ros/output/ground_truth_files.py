"""Ground-truth trajectory files, as MVSim writes them for `<save_ground_truth_trajectory>` (pure Python, no ROS).

One text file per vehicle, named after the world's `save_ground_truth_trajectory` value with its extension replaced
by `<vehicle>.txt` (`out/gt.txt` -> `out/gt.r1.txt`; a name without extension gets `.r1.txt` appended), created on
the first row. Each row is the TUM trajectory format MVSim writes, values with 6 decimals, separated by spaces:

    t x y z qx qy qz qw

t [s]: the simulated time plus `time_offset_s` (MVSim adds the wall-clock time at which its simulation started);
x, y, z [m] and the unit quaternion (qx, qy, qz, qw) of the vehicle's reference frame in the world. A row is written
after a step when no row was written yet, or when at least 1 / ground_truth_rate seconds of simulated time passed
since the last one (MVSim's rule: rows follow the steps, not a fixed grid). Paths are used as given (relative ones
from the current directory, as MVSim does).

Like the CSV logs (csv_logs.py), this reads the simulation's snapshot after a step: call `record()` after each step.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import IO

import numpy as np

from mvsim_ros.output.printf_rows import rows_text

#: Columns of a row, in file order.
COLUMNS = ("t", "x", "y", "z", "qx", "qy", "qz", "qw")


def trajectory_file_name(base: str | Path, vehicle: str) -> Path:
    """The file of `vehicle`'s trajectory: `base` with its extension replaced by '<vehicle>.txt' (appended when the
    file name has none)."""
    base = Path(base)
    stem = base.name[:base.name.rfind(".")] if "." in base.name[1:] else base.name
    return base.with_name(f"{stem}.{vehicle}.txt")


def format_row(t: float, pose3: np.ndarray, quaternion: np.ndarray) -> str:
    """One row: t [s], x, y, z [m] from `pose3` (x, y, z, ...) and qx, qy, qz, qw, each with 6 decimals (printf's
    '%f')."""
    return rows_text(np.concatenate(([t], pose3[:3], quaternion[:4]))[np.newaxis], "%f", " ")


class GroundTruthFiles:
    """The trajectory files of every vehicle of a Simulation (see the module docstring).

    base: the world's save_ground_truth_trajectory; rate_hz [Hz]: its ground_truth_rate (> 0);
    time_offset_s [s]: added to the simulated time in each row.
    """

    def __init__(self, sim, base: str | Path, rate_hz: float, time_offset_s: float = 0.0):
        if not rate_hz > 0.0 or not math.isfinite(rate_hz):
            raise ValueError(f"ground_truth_rate must be > 0 Hz, got {rate_hz}")
        self.sim = sim
        self.base = Path(base)
        self.period_s = 1.0 / rate_hz
        self.time_offset_s = time_offset_s
        self._last: float | None = None
        self._files: dict[str, IO[str]] = {}

    @classmethod
    def for_world(cls, sim, time_offset_s: float = 0.0) -> "GroundTruthFiles | None":
        """The files the simulation's world asks for, or None when it sets no save_ground_truth_trajectory."""
        spec = sim.spec
        if not spec.ground_truth_trajectory:
            return None
        return cls(sim, spec.ground_truth_trajectory, spec.ground_truth_rate, time_offset_s)

    @property
    def next_due(self) -> float:
        """Simulated time [s] from which the next `record()` writes rows."""
        return self.sim.time if self._last is None else self._last + self.period_s

    @property
    def file_names(self) -> dict[str, Path]:
        """Vehicle name -> its trajectory file."""
        return {name: trajectory_file_name(self.base, name) for name in self.sim.vehicle_names}

    def record(self) -> bool:
        """Write one row per vehicle if one is due (see the module docstring); True when rows were written."""
        now = self.sim.time
        if self._last is not None and now - self._last < self.period_s:
            return False
        self._last = now
        poses, quaternions = self.sim.pose3, self.sim.orientation()
        t = now + self.time_offset_s
        for k, name in enumerate(self.sim.vehicle_names):
            handle = self._files.get(name)
            if handle is None:  # the first row of this vehicle (a spawned one too)
                handle = self._files[name] = open(trajectory_file_name(self.base, name), "w", encoding="ascii")
            handle.write(format_row(t, poses[k], quaternions[k]))
        return True

    def follow(self, sim) -> None:
        """Record `sim` from now on (the simulation was swapped: spawn, delete, reset): the vehicles that stay go on
        in their files, a new one starts its own."""
        self.sim = sim

    def flush(self) -> None:
        """Push the rows written so far to the files."""
        for handle in self._files.values():
            handle.flush()

    def close(self) -> None:
        """Flush and close the files (a later `record()` would start them again, empty)."""
        for handle in self._files.values():
            handle.close()
        self._files.clear()

    def __enter__(self) -> "GroundTruthFiles":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


__all__ = ["COLUMNS", "GroundTruthFiles", "format_row", "trajectory_file_name"]
