"""Running a sweep's runs on Ray: on a local cluster on 127.0.0.1 by default, on a cluster with `address`.

Each run is one Ray task (`execute_run`, one CPU); the sweep hands Ray at most as many runs as the cluster has
CPUs, so a run starts when it is handed over. A run that fails in itself comes back as a failed row. A run still
going `run_timeout` seconds after it was handed over is cancelled (its worker process is killed; Ray does not
retry a cancelled task) and is a failed row "timed out after N s". A task whose worker process or node dies is
retried by Ray (`max_retries`), and when the retries are spent the run is a failed row saying so: the sweep always
finishes. Rows are written as they arrive, so an interrupted sweep keeps them and a resumed one runs only the
others (a row file that does not read back whole is removed and its run done again). Progress (done, failed, ETA)
goes to `progress` once a second.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, TextIO

from mvsim_ros.sweep import cluster, results
from mvsim_ros.sweep.run import execute_run, results_row
from mvsim_ros.sweep.spec import RunSpec, SweepSpec

#: Attempts Ray makes after a worker process or node died under a task.
MAX_RETRIES = 3
#: How often the number of CPUs of the cluster is read again [s] (nodes join and leave).
_CAPACITY_PERIOD = 5.0


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
              progress: TextIO | None = sys.stderr, on_row: Callable[[dict], None] | None = None,
              run_timeout: float | None = None) -> SweepOutcome:
    """Run every run of `spec` without a whole row in `out`, on Ray (a local cluster on 127.0.0.1 of `workers`
    CPUs when `address` is None, else the cluster at `address`), writing each row as it arrives. A run is stopped
    after `run_timeout` [s] of wall time (default: the sweep file's). SweepError (one line) when `out` cannot be
    used, the sweep has too many runs or Ray cannot start."""
    start = time.monotonic()
    limit = spec.run_timeout if run_timeout is None else float(run_timeout)
    runs = spec.runs()
    results.prepare_out(out)
    results.discard_broken(out)
    done = results.finished_ids(out)
    todo = [run for run in runs if run.run_id not in done]
    cluster.connect(address, workers)
    meter = Progress(len(todo), progress)
    failed = 0
    for row in _rows(todo, limit):
        results.write_row(out, row)
        failed += row["status"] != "ok"
        meter.update(row["status"] != "ok")
        if on_row is not None:
            on_row(row)
    return SweepOutcome(len(runs), len(runs) - len(todo), len(todo), failed, time.monotonic() - start)


def _rows(todo: list[RunSpec], limit: float) -> Iterator[dict]:
    """The row of each run of `todo`, as they finish: at most the cluster's CPUs in flight, a run past `limit` [s]
    cancelled and given a timed-out row."""
    import ray

    task = ray.remote(num_cpus=1, max_retries=MAX_RETRIES)(execute_run)
    queue = list(reversed(todo))
    pending: dict = {}  # ObjectRef -> (run, when it was handed to Ray [monotonic s])
    capacity, capacity_at = cluster.cpu_count(), time.monotonic()
    while queue or pending:
        now = time.monotonic()
        if now - capacity_at > _CAPACITY_PERIOD:
            capacity, capacity_at = cluster.cpu_count(), now
        while queue and len(pending) < capacity:
            run = queue.pop()
            pending[task.remote(run)] = (run, time.monotonic())
        first_deadline = min(handed for _, handed in pending.values()) + limit
        wait = min(1.0, max(0.0, first_deadline - time.monotonic()))
        ready, _ = ray.wait(list(pending), num_returns=1, timeout=wait)
        for ref in ready:
            run, handed = pending.pop(ref)
            try:
                row = ray.get(ref)
            except Exception as exc:  # noqa: BLE001 (a task that died MAX_RETRIES + 1 times: its failed row)
                row = results_row(run, exc)
            yield row
        now = time.monotonic()
        for ref, (run, handed) in list(pending.items()):
            if now - handed >= limit:
                ray.cancel(ref, force=True)
                del pending[ref]
                row = results_row(run, f"timed out after {limit:g} s")
                row["wall_seconds"] = now - handed
                yield row


def finish(out: Path) -> tuple[Path, str, list[Path]]:
    """All rows into results.parquet, the summary table (also summary.txt) and the plots."""
    rows = results.read_rows(out)
    path = results.combine(out)
    table = results.summary_table(rows)
    (out / "summary.txt").write_text(table, encoding="utf-8")
    plots = results.plot_metrics(rows, out / "plots")
    return path, table, plots
