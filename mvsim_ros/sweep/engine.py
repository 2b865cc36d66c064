"""Running a sweep's runs on Ray: on this machine by default, on a cluster with `address`.

Each run is one Ray task (`execute_run`, one CPU). A run that fails in itself comes back as a failed row; a task
whose worker process or node dies is retried by Ray (`max_retries`), and when the retries are spent the run is a
failed row saying so: the sweep always finishes. Rows are written as they arrive, so an interrupted sweep keeps
them and a resumed one runs only the others. Progress (done, failed, ETA) goes to `progress` once a second.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TextIO

from mvsim_ros.sweep import results
from mvsim_ros.sweep.run import execute_run, results_row
from mvsim_ros.sweep.spec import SweepSpec

#: Attempts Ray makes after a worker process or node died under a task.
MAX_RETRIES = 3


@dataclass
class SweepOutcome:
    """What a sweep did: runs in the sweep, skipped (already on disk), run now, failed now, wall seconds."""

    total: int
    skipped: int
    ran: int
    failed: int
    wall_seconds: float


class Progress:
    """One line of progress: runs done of total, failed, elapsed and estimated time left."""

    def __init__(self, total: int, stream: TextIO | None):
        self.total, self.stream, self.start = total, stream, time.monotonic()
        self.done, self.failed, self._last = 0, 0, 0.0

    def update(self, failed: bool, force: bool = False) -> None:
        self.done += 1
        self.failed += failed
        now = time.monotonic()
        if self.stream is None or (now - self._last < 1.0 and not force and self.done < self.total):
            return
        self._last = now
        elapsed = now - self.start
        eta = elapsed / self.done * (self.total - self.done) if self.done else math.inf
        end = "\n" if self.done >= self.total else ""
        self.stream.write(f"\rsweep: {self.done}/{self.total} runs, {self.failed} failed, {elapsed:6.1f} s, "
                          f"ETA {eta:6.1f} s{end}")
        self.stream.flush()


def run_sweep(spec: SweepSpec, out: Path, address: str | None = None, workers: int | None = None,
              progress: TextIO | None = sys.stderr, on_row: Callable[[dict], None] | None = None) -> SweepOutcome:
    """Run every run of `spec` without a row in `out`, on Ray (a local cluster of `workers` CPUs when `address`
    is None, else the cluster at `address`), writing each row as it arrives."""
    import ray

    start = time.monotonic()
    out.mkdir(parents=True, exist_ok=True)
    runs = spec.runs()
    done = results.finished_ids(out)
    todo = [run for run in runs if run.run_id not in done]
    if not ray.is_initialized():
        if address is None:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
                     configure_logging=False)
        else:
            ray.init(address=address, log_to_driver=False, logging_level="ERROR", configure_logging=False)
    task = ray.remote(num_cpus=1, max_retries=MAX_RETRIES)(execute_run)
    pending = {task.remote(run): run for run in todo}
    meter = Progress(len(todo), progress)
    failed = 0
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
        for ref in ready:
            run = pending.pop(ref)
            try:
                row = ray.get(ref)
            except Exception as exc:  # noqa: BLE001 (a task that died MAX_RETRIES + 1 times: its failed row)
                row = results_row(run, exc)
            results.write_row(out, row)
            failed += row["status"] != "ok"
            meter.update(row["status"] != "ok")
            if on_row is not None:
                on_row(row)
    return SweepOutcome(len(runs), len(runs) - len(todo), len(todo), failed, time.monotonic() - start)


def finish(out: Path) -> tuple[Path, str, list[Path]]:
    """All rows into results.parquet, the summary table (also summary.txt) and the plots."""
    rows = results.read_rows(out)
    path = results.combine(out)
    table = results.summary_table(rows)
    (out / "summary.txt").write_text(table, encoding="utf-8")
    plots = results.plot_metrics(rows, out / "plots")
    return path, table, plots
