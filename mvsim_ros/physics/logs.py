"""CSV logs of every vehicle's state, as MVSim's CsvLogger writes them (pure Python/numpy, no ROS).

Per vehicle, in `<log_dir>/<session>/`:
  `<vehicle>_pose.csv`: t_s, x_m, y_m, yaw_rad (world frame), vx_mps, vy_mps, omega_radps (vehicle frame);
  `<vehicle>_<wheel>.csv` (one per wheel, named as in the world file, e.g. `car1_fl_wheel.csv`):
  t_s, torque_Nm (motor torque, positive drives forwards), normal_force_N (load on the wheel), omega_radps
  (spin rate), phi_rad (spin angle), force_x_N, force_y_N (ground force on the wheel, vehicle frame).
MVSim's loggers hold the same quantities (its `logger_pose` adds z/pitch/roll, always 0 here; its wheel torque
has the opposite sign).

Cost: `record()` copies the state into preallocated arrays (one compiled call for all vehicles and wheels);
rows are turned into text (15 significant digits, compiled) and written in blocks, every `flush_period_s` of
simulated time, when the buffer fills, and on `new_session()`/`close()`. Files only ever receive whole rows.
"""

from __future__ import annotations

import math
import re
import time
from pathlib import Path

import numpy as np

from mvsim_ros.physics.jit import kernel

POSE_COLUMNS = ("t_s", "x_m", "y_m", "yaw_rad", "vx_mps", "vy_mps", "omega_radps")
WHEEL_COLUMNS = ("t_s", "torque_Nm", "normal_force_N", "omega_radps", "phi_rad", "force_x_N", "force_y_N")
#: Significant digits written per value (DBL_DIG: every value reads back within 1e-15 relative).
SIGNIFICANT_DIGITS = 15
#: Beyond this many files the logs are opened for each block write instead of being kept open.
MAX_OPEN_FILES = 256
_SESSION_RE = re.compile(r"^session-(\d+)")
_UNSAFE_CHARS = re.compile(r"[^A-Za-z0-9._-]")


class VehicleLogs:
    """CSV logs of all vehicles of a Simulation, in numbered sessions under `log_dir`.

    Call `record()` after each `sim.step()`. period_s [s of simulated time]: record at most once per period
    (on the grid t0 + k * period_s; 0 = every call). flush_period_s [s of simulated time]: how long rows wait
    in memory before being written. The first session directory is created at construction:
    `<log_dir>/session-001_<YYYYmmdd-HHMMSS>` (the number follows the highest one already in log_dir).
    """

    def __init__(self, sim, log_dir: str | Path, period_s: float = 0.0, flush_period_s: float = 0.5):
        if not (math.isfinite(period_s) and period_s >= 0.0):
            raise ValueError(f"period_s must be >= 0, got {period_s!r}")
        if not (math.isfinite(flush_period_s) and flush_period_s >= 0.0):
            raise ValueError(f"flush_period_s must be >= 0, got {flush_period_s!r}")
        self.sim = sim
        self.log_dir = Path(log_dir)
        self.period_s = float(period_s)
        self.flush_period_s = float(flush_period_s)
        names = [_safe_name(n) for n in sim.vehicle_names]
        wheel_names = [f"{names[k]}_{_safe_name(wheel.name)}"
                       for k, vehicle in enumerate(sim.spec.vehicles) for wheel in vehicle.wheels]
        #: File names (without directory): one pose file per vehicle, then one per wheel in sim.wheels order.
        self.file_names = [f"{n}_pose.csv" for n in names] + [f"{n}.csv" for n in wheel_names]
        self._headers = ([(",".join(POSE_COLUMNS) + "\n").encode()] * len(names)
                         + [(",".join(WHEEL_COLUMNS) + "\n").encode()] * len(wheel_names))
        self._vehicles, self._wheels = len(names), len(wheel_names)
        rows_per_flush = self.flush_period_s / max(sim.dt, self.period_s, 1e-9)
        self._capacity = max(1, min(4096, int(rows_per_flush) + 2))
        self._buffer = np.zeros((self._capacity, self._vehicles + self._wheels, len(POSE_COLUMNS)))
        self._count = 0
        self._next_due = sim.time + self.period_s
        self._next_flush = sim.time + self.flush_period_s
        self._keep_open = len(self.file_names) <= MAX_OPEN_FILES
        self._handles: list = []
        self.session = 0
        self.session_dir: Path | None = None
        self.closed = False
        self._open_session()

    # -- public API -----------------------------------------------------------------------------------------
    @property
    def files(self) -> list[Path]:
        """Paths of the current session's files."""
        return [self.session_dir / name for name in self.file_names]

    def record(self) -> bool:
        """Buffer one row per vehicle and wheel with the simulation's current state (if due). True if recorded."""
        if self.closed:
            raise RuntimeError("VehicleLogs.record() after close()")
        sim = self.sim
        now = sim.time
        if self.period_s > 0.0:
            if now + 1e-9 < self._next_due:
                return False
            self._next_due += self.period_s * (1 + int((now - self._next_due) / self.period_s))
        w = sim.wheels
        _fill_row(self._buffer[self._count], round(now, 9), sim.pose, sim.velocity, w.torque, w.normal_force,
                  w.omega, w.phi, w.force_x, w.force_y)
        self._count += 1
        if self._count == self._capacity or now + 1e-9 >= self._next_flush:
            self.flush()
        return True

    def flush(self) -> None:
        """Write the buffered rows to the current session's files."""
        if self.closed:
            return
        self._next_flush = self.sim.time + self.flush_period_s
        if self._count == 0:
            return
        text, offsets = format_blocks(np.ascontiguousarray(self._buffer[:self._count].transpose(1, 0, 2)),
                                      SIGNIFICANT_DIGITS)
        self._count = 0
        data = memoryview(text)
        bounds = offsets.tolist()
        for k in range(len(bounds) - 1):
            self._write(k, data[bounds[k]:bounds[k + 1]])

    def clear(self) -> None:
        """Truncate the current session's files to their headers; rows not written yet are dropped too."""
        self._check_open()
        self._count = 0
        self._close_handles()
        self._create_files()

    def new_session(self) -> Path:
        """Write what is buffered, close the files and start a new session directory. Returns its path."""
        self._check_open()
        self.flush()
        self._close_handles()
        self._open_session()
        return self.session_dir

    def close(self) -> None:
        """Write what is buffered and close the files (idempotent)."""
        if self.closed:
            return
        self.flush()
        self._close_handles()
        self.closed = True

    def __enter__(self) -> "VehicleLogs":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- internals ------------------------------------------------------------------------------------------
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
        self._handles = []
        for path, header in zip(self.files, self._headers):
            handle = open(path, "wb")
            handle.write(header)
            handle.flush()
            if self._keep_open:
                self._handles.append(handle)
            else:
                handle.close()

    def _write(self, k: int, data) -> None:
        if self._keep_open:
            handle = self._handles[k]
            handle.write(data)
            handle.flush()
        else:
            with open(self.session_dir / self.file_names[k], "ab") as handle:
                handle.write(data)

    def _close_handles(self) -> None:
        for handle in self._handles:
            handle.close()
        self._handles = []


def _safe_name(name: str) -> str:
    """A file-name-safe version of a vehicle or wheel name (other characters become '_')."""
    return _UNSAFE_CHARS.sub("_", name) or "_"


@kernel
def _fill_row(row, t, pose, velocity, torque, normal_force, omega, phi, force_x, force_y):
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


#: Exact powers of ten (all of 1e0..1e22 are exact doubles).
_POW10 = np.array([10.0 ** k for k in range(23)])


@kernel
def _scaled(a, k, pow10):
    """a * 10**k with one rounding where 10**|k| is exact."""
    if k >= 0:
        while k > 22:
            a *= 1e22
            k -= 22
        return a * pow10[k]
    k = -k
    while k > 22:
        a /= 1e22
        k -= 22
    return a / pow10[k]


@kernel
def _put_special(out, pos, x):
    """'nan' or 'inf' (the sign is already written)."""
    if x != x:
        out[pos], out[pos + 1], out[pos + 2] = 110, 97, 110
    else:
        out[pos], out[pos + 1], out[pos + 2] = 105, 110, 102
    return pos + 3


@kernel
def _put_value(out, pos, x, digits, pow10, scratch):
    """Write x like printf's %.<digits>g (trailing zeros dropped); returns the new position."""
    if x != x:
        return _put_special(out, pos, x)
    if x == 0.0:
        out[pos] = 48
        return pos + 1
    if x < 0.0:
        out[pos] = 45  # '-'
        pos += 1
        x = -x
    if x == np.inf:
        return _put_special(out, pos, x)
    exp = int(math.floor(math.log10(x)))
    top = 10 ** digits
    m = int(math.floor(_scaled(x, digits - 1 - exp, pow10) + 0.5))
    if m >= top:  # log10 rounded down past a power of ten, or the mantissa rounded up to one
        exp += 1
        m = int(math.floor(_scaled(x, digits - 1 - exp, pow10) + 0.5))
    elif m < top // 10:
        exp -= 1
        m = int(math.floor(_scaled(x, digits - 1 - exp, pow10) + 0.5))
    if m >= top:
        m = top // 10
        exp += 1
    for i in range(digits - 1, -1, -1):
        scratch[i] = m % 10
        m //= 10
    used = digits
    while used > 1 and scratch[used - 1] == 0:
        used -= 1
    if -5 <= exp < digits:  # fixed notation
        if exp < 0:
            out[pos], out[pos + 1] = 48, 46  # "0."
            pos += 2
            for _ in range(-exp - 1):
                out[pos] = 48
                pos += 1
            for i in range(used):
                out[pos] = 48 + scratch[i]
                pos += 1
            return pos
        for i in range(exp + 1):
            out[pos] = 48 + scratch[i]
            pos += 1
        if used > exp + 1:
            out[pos] = 46
            pos += 1
            for i in range(exp + 1, used):
                out[pos] = 48 + scratch[i]
                pos += 1
        return pos
    out[pos] = 48 + scratch[0]  # scientific notation: d[.ddd]e[+-]XX
    pos += 1
    if used > 1:
        out[pos] = 46
        pos += 1
        for i in range(1, used):
            out[pos] = 48 + scratch[i]
            pos += 1
    out[pos] = 101  # 'e'
    out[pos + 1] = 45 if exp < 0 else 43
    pos += 2
    e = -exp if exp < 0 else exp
    if e >= 100:
        out[pos] = 48 + e // 100
        pos += 1
    out[pos], out[pos + 1] = 48 + (e // 10) % 10, 48 + e % 10
    return pos + 2


@kernel
def _format_blocks(blocks, digits, pow10):
    files, rows, cols = blocks.shape
    out = np.empty(files * rows * cols * (digits + 10), dtype=np.uint8)
    offsets = np.empty(files + 1, dtype=np.int64)
    scratch = np.empty(digits, dtype=np.int64)
    pos = 0
    for f in range(files):
        offsets[f] = pos
        for r in range(rows):
            for c in range(cols):
                pos = _put_value(out, pos, blocks[f, r, c], digits, pow10, scratch)
                out[pos] = 44 if c + 1 < cols else 10  # ',' or '\n'
                pos += 1
    offsets[files] = pos
    return out[:pos], offsets


def format_blocks(blocks: np.ndarray, digits: int = SIGNIFICANT_DIGITS) -> tuple[np.ndarray, np.ndarray]:
    """CSV text of blocks[f] (rows x columns) for each f, as one uint8 array, and where each block starts/ends.

    Values are written like printf's `%.<digits>g` (1 <= digits <= 17); NaN and infinities as nan/inf/-inf.
    """
    if not 1 <= digits <= 17:
        raise ValueError(f"digits must be in 1..17, got {digits}")
    return _format_blocks(np.ascontiguousarray(blocks, dtype=np.float64).reshape(blocks.shape[0], -1,
                                                                                 blocks.shape[-1]),
                          digits, _POW10)
