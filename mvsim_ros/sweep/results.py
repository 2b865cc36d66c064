"""A sweep's results on disk: one Parquet file per finished run (`rows/<run_id>.parquet`, written whole then
renamed, so a killed sweep never leaves half a row), the runs already there (to resume), and at the end all rows in
`results.parquet`, a summary table (`summary.txt`) and plots (`plots/*.png`)."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from mvsim_ros.sweep.run import METRICS


def rows_dir(out: Path) -> Path:
    return out / "rows"


def finished_ids(out: Path) -> set[str]:
    """Ids of the runs with a row on disk (a resumed sweep skips them)."""
    folder = rows_dir(out)
    return {p.stem for p in folder.glob("*.parquet")} if folder.is_dir() else set()


def write_row(out: Path, row: dict) -> Path:
    """Write one run's row atomically; returns its file."""
    folder = rows_dir(out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{row['run_id']}.parquet"
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    pq.write_table(pa.Table.from_pylist([row]), partial)
    partial.replace(path)
    return path


def read_rows(out: Path) -> list[dict]:
    """Every row on disk, in run-id order."""
    folder = rows_dir(out)
    tables = [pq.read_table(p) for p in sorted(folder.glob("*.parquet"))] if folder.is_dir() else []
    return [row for table in tables for row in table.to_pylist()]


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


def plot_metrics(rows: list[dict], folder: Path) -> list[Path]:
    """One PNG per metric: its value per run, grouped by world and parameters (box plot)."""
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
        axes.grid(alpha=0.3)
        figure.tight_layout()
        path = folder / f"{metric}.png"
        figure.savefig(path, dpi=100)
        plt.close(figure)
        written.append(path)
    return written
