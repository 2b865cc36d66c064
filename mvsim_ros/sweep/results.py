"""A sweep's results on disk: one Parquet file per finished run (`rows/<run_id>.parquet`, written to a temporary
file, synced and renamed over, so a killed sweep never leaves half a row), the runs already there (to resume: a
row file that does not read back whole is not one of them), and at the end all rows in `results.parquet`, a
summary table (`summary.txt`) and plots (`plots/*.png`)."""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from mvsim_ros.sweep.errors import SweepError
from mvsim_ros.sweep.run import METRICS

#: Columns every row file has.
ROW_COLUMNS = ("run_id", "world", "seed", "status", "reason", *METRICS, "sim_seconds", "wall_seconds")


def rows_dir(out: Path) -> Path:
    return out / "rows"


def prepare_out(out: Path) -> None:
    """Make the results folder `out` (and its rows folder) and check that a file can be written there; SweepError
    (one line) when `out` is not a folder or cannot be written."""
    for folder in (out, rows_dir(out)):
        if folder.exists() and not folder.is_dir():
            raise SweepError(f"--out {out}: {folder} exists and is not a folder")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SweepError(f"--out {out}: cannot create {folder}: {exc.strerror or exc}") from None
    try:
        handle, probe = tempfile.mkstemp(prefix=".write-test-", dir=rows_dir(out))
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        raise SweepError(f"--out {out}: cannot write there: {exc.strerror or exc}") from None


def read_row(path: Path) -> dict | None:
    """The row in the row file `path`, or None when the file does not read back whole: a Parquet error, not one
    row, a missing column, or a run id other than its name."""
    try:
        table = pq.read_table(path)
    except (OSError, ValueError, pa.ArrowException):
        return None
    if table.num_rows != 1 or set(ROW_COLUMNS) - set(table.column_names):
        return None
    row = table.to_pylist()[0]
    return row if row["run_id"] == path.stem else None


def finished_ids(out: Path) -> set[str]:
    """Ids of the runs with a whole row on disk (a resumed sweep skips them)."""
    folder = rows_dir(out)
    return {p.stem for p in folder.glob("*.parquet") if read_row(p) is not None} if folder.is_dir() else set()


def discard_broken(out: Path) -> list[Path]:
    """Remove the row files that do not read back whole and the temporary files of writes cut short (their runs
    are run again); returns the row files removed."""
    folder = rows_dir(out)
    if not folder.is_dir():
        return []
    for partial in folder.glob("*.tmp"):
        partial.unlink(missing_ok=True)
    broken = [p for p in sorted(folder.glob("*.parquet")) if read_row(p) is None]
    for path in broken:
        path.unlink(missing_ok=True)
    return broken


def write_row(out: Path, row: dict) -> Path:
    """Write one run's row atomically (a temporary file, synced, renamed over the row file); returns its file."""
    folder = rows_dir(out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{row['run_id']}.parquet"
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        with open(partial, "wb") as stream:
            pq.write_table(pa.Table.from_pylist([row]), stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return path


def read_rows(out: Path) -> list[dict]:
    """Every row on disk, in run-id order; SweepError naming a row file that does not read back whole."""
    folder = rows_dir(out)
    rows = []
    for path in sorted(folder.glob("*.parquet")) if folder.is_dir() else []:
        row = read_row(path)
        if row is None:
            raise SweepError(f"{path}: not a whole row file (run the sweep again to redo its run)")
        rows.append(row)
    return rows


def combine(out: Path) -> Path:
    """All rows into `results.parquet` (columns: the union of every row's)."""
    rows = read_rows(out)
    path = out / "results.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def _group_key(row: dict) -> tuple:
    return (Path(row["world"]).name, *sorted((k, str(v)) for k, v in row.items() if k.startswith("param:")))


def summary_table(rows: list[dict]) -> str:
    """A text table: per world and parameter combination, runs, failed runs and the mean of each metric over the
    runs that finished."""
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault(_group_key(row), []).append(row)
    shown = [m for m in METRICS if any(not _missing(r.get(m)) for r in rows)]
    head = f"{'world / parameters':<60} {'runs':>5} {'failed':>6} " + " ".join(f"{m[:14]:>14}" for m in shown)
    lines = [head, "-" * len(head)]
    for key, members in sorted(groups.items()):
        ok = [r for r in members if r["status"] == "ok"]
        label = " ".join([key[0].removesuffix(".world.xml"), *(f"{k[6:]}={v}" for k, v in key[1:])])
        means = []
        for metric in shown:
            values = [r[metric] for r in ok if not _missing(r.get(metric))]
            means.append(f"{sum(values) / len(values):14.4g}" if values else f"{'-':>14}")
        lines.append(f"{label[:60]:<60} {len(members):>5} {len(members) - len(ok):>6} " + " ".join(means))
    failed = [r for r in rows if r["status"] != "ok"]
    if failed:
        lines += ["", f"{len(failed)} failed run(s):"] + [f"  {r['run_id']} {Path(r['world']).name}: {r['reason']}"
                                                          for r in failed[:20]]
    return "\n".join(lines) + "\n"


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


#: Axis label of each metric in the plots: its name and unit (mvsim_ros.sweep.run documents each one).
METRIC_LABELS = {"path_length": "path length [m]", "final_x": "final x [m]", "final_y": "final y [m]",
                 "time_to_goal": "time to goal [s]", "collisions": "collisions [count]", "energy": "energy [J]",
                 "min_obstacle_distance": "nearest obstacle [m]", "path_error_mean": "mean path error [m]",
                 "path_error_max": "largest path error [m]"}


def metric_label(metric: str) -> str:
    """The y-axis label of a metric's plot, with its unit ('path length [m]'); the bare name when unknown."""
    return METRIC_LABELS.get(metric, metric)


def plot_metrics(rows: list[dict], folder: Path) -> list[Path]:
    """One PNG per metric: its value per run, grouped by world and parameters (box plot); the y axis names the
    metric and its unit, the x axis the run groups."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        if row["status"] == "ok":
            groups.setdefault(_group_key(row), []).append(row)
    written = []
    for metric in METRICS:
        data = [(key, [r[metric] for r in members if not _missing(r.get(metric))]) for key, members in groups.items()]
        data = [(key, values) for key, values in sorted(data) if values]
        if not data:
            continue
        figure, axes = plt.subplots(figsize=(max(6.0, 0.6 * len(data) + 3), 4.0))
        axes.boxplot([values for _, values in data])
        axes.set_xticks(range(1, len(data) + 1),
                        [" ".join([k[0].removesuffix(".world.xml"), *(f"{a[6:]}={b}" for a, b in k[1:])])
                         for k, _ in data], rotation=30, ha="right", fontsize=7)
        axes.set_title(metric)
        axes.set_ylabel(metric_label(metric))
        axes.set_xlabel("world and parameters (one box per group of runs)")
        axes.grid(alpha=0.3)
        figure.tight_layout()
        path = folder / f"{metric}.png"
        figure.savefig(path, dpi=100)
        plt.close(figure)
        written.append(path)
    return written
