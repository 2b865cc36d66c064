"""CSV logs of every vehicle's state, as MVSim's CsvLogger writes them (pure Python/numpy, no ROS).

Per vehicle, in `<log_dir>/<session>/`:
  `<vehicle>_pose.csv`: t_s, x_m, y_m, yaw_rad (world frame), vx_mps, vy_mps, omega_radps (vehicle frame, as
  Simulation.body_twist);
  `<vehicle>_<wheel>.csv` (one per wheel, named as in the world file, e.g. `car1_fl_wheel.csv`):
  t_s, torque_Nm (drive torque, positive drives forwards: the motor's, plus on terrain the torque holding the
  slope force at the contact patch, Simulation.drive_torque), normal_force_N (load on the wheel), omega_radps
  (spin rate), phi_rad (spin angle), force_x_N, force_y_N (ground force on the wheel, vehicle frame).
MVSim's loggers hold the same quantities (its `logger_pose` adds z/pitch/roll: on the ground-truth topic here; its
wheel torque has the opposite sign; it writes 6 significant digits, these files 15).

Cost on the simulation thread: `record()` copies the state into a preallocated array (one compiled call for all
vehicles and wheels). Every `flush_period_s` of simulated time (or when the buffer fills) the rows go to a
formatter thread that turns them into text (numpy.savetxt with printf's '%.15g', one call per file and block:
about 0.6 us per value; it holds the GIL, so the thread overlaps the simulation only while that waits, as
it does when paced to real time or publishing); the text is appended to the files at the next flush (or `wait()`,
`new_session()`, `close()`), whole rows only, from the calling thread.

Removed files: before writing each block, one stat of the session directory tells whether anything was removed from
it (or the directory itself). Files removed while logging (the whole session folder, or some of its files) are
created again with their headers, the directory too, and `on_recreated` is told once per such event: the rows
that were in them are lost, the rows from then on are kept. When they cannot be created again, the OSError of that
write says so (the node then stops logging).
"""

from __future__ import annotations

import math
import os
import re
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import numpy as np

from mvsim_ros.core.jit import kernel
from mvsim_ros.output.printf_rows import rows_text

POSE_COLUMNS = ("t_s", "x_m", "y_m", "yaw_rad", "vx_mps", "vy_mps", "omega_radps")
WHEEL_COLUMNS = ("t_s", "torque_Nm", "normal_force_N", "omega_radps", "phi_rad", "force_x_N", "force_y_N")
#: Significant digits written per value (DBL_DIG: every value reads back within 5e-15 relative).
SIGNIFICANT_DIGITS = 15
#: Beyond this many files the logs are opened for each block write instead of being kept open.
MAX_OPEN_FILES = 256
#: Most file names listed in the message about log files removed while logging.
MAX_NAMED_FILES = 3
#: A directory modified less than this long ago [s] is checked file by file at the next write: file systems stamp
#: modification times with a coarse clock, so a removal right after the files were created may leave it unchanged.
STAMP_SETTLE_S = 1.0
_SESSION_RE = re.compile(r"^session-(\d+)")
_UNSAFE_CHARS = re.compile(r"[^A-Za-z0-9._-]")


class VehicleLogs:
    """CSV logs of all vehicles of a Simulation, in numbered sessions under `log_dir`.

    Call `record()` after each `sim.step()`. period_s [s of simulated time]: record at most once per period, on
    the grid t0 + k * period_s, k >= 1 (t0: the simulation time at construction; 0 = every call).
    flush_period_s [s of simulated time]: how long rows wait in memory before being written.
    background: turn rows into text in a formatter thread (False: in the calling thread).
    on_recreated: called with a one-line message each time files of the session were found removed and were
    created again (see the module docstring); None: nobody is told.
    The first session directory is created at construction: `<log_dir>/session-001_<YYYYmmdd-HHMMSS>` (the
    number follows the highest one already in log_dir), with a header line in each file.
    """

    def __init__(self, sim, log_dir: str | Path, period_s: float = 0.0, flush_period_s: float = 0.5,
                 background: bool = True, on_recreated: Callable[[str], None] | None = None):
        for name, value in (("period_s", period_s), ("flush_period_s", flush_period_s)):
            if not (math.isfinite(value) and value >= 0.0):
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        self.sim = sim
        self.log_dir = Path(log_dir)
        self.period_s = float(period_s)
        self.flush_period_s = float(flush_period_s)
        names = [_safe_name(n) for n in sim.vehicle_names]
        wheel_names = [f"{names[k]}_{_safe_name(wheel.name)}"
                       for k, vehicle in enumerate(sim.spec.vehicles) for wheel in vehicle.wheels]
        #: File names (no directory): one pose file per vehicle, then one per wheel in `sim.wheels` order.
        self.file_names = [f"{n}_pose.csv" for n in names] + [f"{n}.csv" for n in wheel_names]
        self._headers = ([(",".join(POSE_COLUMNS) + "\n").encode()] * len(names)
                         + [(",".join(WHEEL_COLUMNS) + "\n").encode()] * len(wheel_names))
        rows_per_flush = self.flush_period_s / max(sim.dt, self.period_s, 1e-9)
        self._capacity = max(1, min(4096, int(rows_per_flush) + 2))
        self._buffer = np.zeros((self._capacity, len(self.file_names), len(POSE_COLUMNS)))
        self._count = 0
        self._next_due = sim.time + self.period_s
        self._next_flush = sim.time + self.flush_period_s
        self._keep_open = len(self.file_names) <= MAX_OPEN_FILES
        self._handles: list = []
        self._formatter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mvsim-logs") if background else None
        self._pending: Future | None = None  # the block being formatted
        self._on_recreated = on_recreated
        self._dir_stamp: tuple[int, int, int] | None = None  # the session directory as last seen intact
        #: Number of the current session, its directory, and whether close() was called.
        self.session = 0
        self.session_dir: Path | None = None
        self.closed = False
        self._compile_kernels()
        self._open_session()

    # -- public API -----------------------------------------------------------------------------------------
    @property
    def files(self) -> list[Path]:
        """Paths of the current session's files, in `file_names` order."""
        return [self.session_dir / name for name in self.file_names]

    @property
    def next_due(self) -> float:
        """Simulated time [s] of the next row `record` writes (every step when the period is 0)."""
        return self.sim.time if self.period_s <= 0.0 else self._next_due

    def record(self) -> bool:
        """Buffer one row per vehicle and wheel with the simulation's current state, if due. True if recorded.

        The time column is the simulation time rounded to the nanosecond."""
        if self.closed:
            raise RuntimeError("VehicleLogs.record() after close()")
        sim = self.sim
        now = sim.time
        if self.period_s > 0.0:
            if now + 1e-9 < self._next_due:
                return False
            self._next_due += self.period_s * (1 + int((now - self._next_due) / self.period_s))
        w = sim.wheels
        torque = sim.drive_torque if sim.terrain.active else w.torque
        fill_log_row(self._buffer[self._count], round(now, 9), sim.pose, sim.velocity, torque, w.normal_force,
                     w.omega, w.phi, w.force_x, w.force_y)
        self._count += 1
        if self._count == self._capacity or now + 1e-9 >= self._next_flush:
            self.flush()
        return True

    def flush(self) -> None:
        """Hand the buffered rows to the formatter; write the previous block (done by then) to the files."""
        if self.closed:
            return
        self._next_flush = self.sim.time + self.flush_period_s
        if self._count == 0:
            return
        blocks = self._buffer[:self._count].transpose(1, 0, 2).copy()  # file, row, column; the formatter's own
        self._count = 0
        if self._formatter is None:
            self._write_block(*format_blocks(blocks))
            return
        self.wait()
        self._pending = self._formatter.submit(format_blocks, blocks)

    def wait(self) -> None:
        """Write the block being formatted, if any (re-raising the formatter's error): afterwards the files hold
        every row flushed so far."""
        if self._pending is not None:
            future, self._pending = self._pending, None
            self._write_block(*future.result())

    def clear(self) -> None:
        """Truncate the current session's files to their headers; rows not written yet are dropped too."""
        self._check_open()
        self._count = 0
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        self._close_handles()
        self._create_files()

    def new_session(self) -> Path:
        """Write what is buffered, close the files and start a new session directory. Returns its path."""
        self._check_open()
        self.flush()
        self.wait()
        self._close_handles()
        self._open_session()
        return self.session_dir

    def close(self) -> None:
        """Write what is buffered, close the files and stop the formatter thread (idempotent)."""
        if self.closed:
            return
        try:
            self.flush()
            self.wait()
        finally:
            self._close_handles()
            if self._formatter is not None:
                self._formatter.shutdown(wait=True)
            self.closed = True

    def __enter__(self) -> "VehicleLogs":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- internals ------------------------------------------------------------------------------------------
    def _compile_kernels(self) -> None:
        """Compile the row kernel (or load it from numba's disk cache) now rather than in the middle of a run."""
        w = self.sim.wheels
        fill_log_row(self._buffer[0], 0.0, self.sim.pose, self.sim.velocity, w.torque, w.normal_force, w.omega, w.phi,
                     w.force_x, w.force_y)

    def _check_open(self) -> None:
        if self.closed:
            raise RuntimeError("the logs are closed")

    def _open_session(self) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        number = 1 + max((int(m.group(1)) for p in self.log_dir.iterdir() if (m := _SESSION_RE.match(p.name))),
                         default=0)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        while True:
            path = self.log_dir / f"session-{number:03d}_{stamp}"
            try:
                path.mkdir()
                break
            except FileExistsError:
                number += 1
        self.session, self.session_dir = number, path
        self._count = 0
        self._next_flush = self.sim.time + self.flush_period_s
        self._create_files()

    def _create_files(self) -> None:
        """Every file of the session, new, holding its header (the session directory made when missing)."""
        self._handles = []
        self.session_dir.mkdir(parents=True, exist_ok=True)
        for k in range(len(self.file_names)):
            handle = self._new_file(k)
            if self._keep_open:
                self._handles.append(handle)
            else:
                handle.close()
        self._dir_stamp = _settled_stamp(self.session_dir)

    def _new_file(self, k: int):
        """File `k` created (or truncated) with its header; its open handle."""
        handle = open(self.session_dir / self.file_names[k], "wb", buffering=0)
        _write_all(handle, self._headers[k])
        return handle

    def _write_block(self, text: bytes, offsets: np.ndarray) -> None:
        """Append one formatted block to the files, creating again those removed since the last block."""
        self._restore_removed()
        self._write_text(self._sinks(), text, offsets)

    def _restore_removed(self) -> None:
        """Create again, with their headers, the session directory and the files removed from it (one stat when
        nothing was: removing a file changes the directory's modification time). Tells `on_recreated`."""
        try:
            stamp = _stamp(self.session_dir)
        except FileNotFoundError:
            stamp = None
        if stamp is not None and stamp == self._dir_stamp:
            return
        try:
            self.session_dir.mkdir(parents=True, exist_ok=True)
            missing = [k for k in range(len(self.file_names)) if self._removed(k)]
            for k in missing:
                handle = self._new_file(k)
                if self._keep_open:
                    self._handles[k].close()
                    self._handles[k] = handle
                else:
                    handle.close()
            self._dir_stamp = _settled_stamp(self.session_dir)
        except OSError as exc:
            raise OSError(exc.errno, f"log files removed while logging cannot be created again: "
                                     f"{exc.strerror or exc}", exc.filename) from exc
        if missing and self._on_recreated is not None:
            self._on_recreated(self._recreated_text(stamp is None, missing))

    def _removed(self, k: int) -> bool:
        """Whether file `k` is no longer in the session directory (an open one: no longer linked there)."""
        path = self.session_dir / self.file_names[k]
        if not self._keep_open:
            return not path.exists()
        try:
            return os.fstat(self._handles[k].fileno()).st_ino != path.stat().st_ino
        except FileNotFoundError:
            return True

    def _recreated_text(self, folder_removed: bool, missing: list[int]) -> str:
        """The one-line message for files created again."""
        if folder_removed:
            what = f"the log folder {self.session_dir} was removed while logging"
        else:
            names = [self.file_names[k] for k in missing[:MAX_NAMED_FILES]]
            more = f" and {len(missing) - MAX_NAMED_FILES} more" if len(missing) > MAX_NAMED_FILES else ""
            what = f"log files {', '.join(names)}{more} in {self.session_dir} were removed while logging"
        return (f"{what}: created {len(missing)} files again with their headers (the rows written before are lost; "
                "logging goes on)")

    def _sinks(self) -> list:
        """Open handles, or paths to append to (many files)."""
        return list(self._handles) if self._keep_open else self.files

    @staticmethod
    def _write_text(sinks: list, text: bytes, offsets: np.ndarray) -> None:
        data, bounds = memoryview(text), offsets.tolist()
        for k, sink in enumerate(sinks):
            chunk = data[bounds[k]:bounds[k + 1]]
            if isinstance(sink, Path):
                with open(sink, "ab", buffering=0) as handle:
                    _write_all(handle, chunk)
            else:
                _write_all(sink, chunk)

    def _close_handles(self) -> None:
        for handle in self._handles:
            handle.close()
        self._handles = []


def _stamp(path: Path) -> tuple[int, int, int]:
    """Identity and modification time of a directory: (device, inode, mtime [ns])."""
    info = path.stat()
    return info.st_dev, info.st_ino, info.st_mtime_ns


def _settled_stamp(path: Path) -> tuple[int, int, int] | None:
    """`_stamp(path)`, or None while its modification time is within STAMP_SETTLE_S of now."""
    stamp = _stamp(path)
    return stamp if time.time_ns() - stamp[2] >= STAMP_SETTLE_S * 1e9 else None


def _write_all(handle, data) -> None:
    """Write all of data to an unbuffered file (a raw write may take only part of it)."""
    view = memoryview(data)
    while view:
        view = view[handle.write(view):]


def _safe_name(name: str) -> str:
    """A file-name-safe version of a vehicle or wheel name (other characters become '_')."""
    return _UNSAFE_CHARS.sub("_", name) or "_"


@kernel
def fill_log_row(row, t, pose, velocity, torque, normal_force, omega, phi, force_x, force_y):
    """One buffer row: row[v] = (t, x, y, yaw, vx, vy, omega) per vehicle, velocity rotated into the vehicle frame
    (as Simulation.body_twist); row[n + j] = (t, torque, normal force, omega, phi, force_x, force_y) per wheel."""
    n = pose.shape[0]
    for k in range(n):
        c, s = np.cos(pose[k, 2]), np.sin(pose[k, 2])
        row[k, 0], row[k, 1], row[k, 2], row[k, 3] = t, pose[k, 0], pose[k, 1], pose[k, 2]
        row[k, 4] = c * velocity[k, 0] + s * velocity[k, 1]
        row[k, 5] = -s * velocity[k, 0] + c * velocity[k, 1]
        row[k, 6] = velocity[k, 2]
    for j in range(torque.size):
        r = row[n + j]
        r[0], r[1], r[2], r[3], r[4], r[5], r[6] = (t, torque[j], normal_force[j], omega[j], phi[j], force_x[j],
                                                    force_y[j])


def format_blocks(blocks: np.ndarray, digits: int = SIGNIFICANT_DIGITS) -> tuple[bytes, np.ndarray]:
    """CSV text of each blocks[f] (rows x columns), all in one byte string, and offsets: block f is
    text[offsets[f]:offsets[f + 1]].

    Values are written as printf's `%.<digits>g` writes them (1 <= digits <= 15: no more than a double's DBL_DIG
    decimal digits, so every digit written is significant), -0 as 0; NaN and infinities as nan, inf, -inf.
    """
    if not 1 <= digits <= 15:
        raise ValueError(f"digits must be in 1..15, got {digits}")
    blocks = np.asarray(blocks, dtype=np.float64)
    blocks = blocks.reshape(blocks.shape[0], -1, blocks.shape[-1]) + 0.0  # + 0.0 turns -0 into 0
    chunks = [rows_text(block, f"%.{digits}g", ",").encode("ascii") for block in blocks]
    offsets = np.zeros(len(chunks) + 1, dtype=np.int64)
    np.cumsum([len(chunk) for chunk in chunks], out=offsets[1:])
    return b"".join(chunks), offsets
