"""Sweep throughput (`python -m mvsim_ros.bench --sweep`): one sweep of 40 CPU-bound runs (two example worlds x
2 x 2 parameter values x 5 seeds, 400 s of simulated time each) on a local Ray cluster of 1 and of 2 workers, and
what N machines would give.

Each run is independent (no data passes between runs), so N machines of W cores run about N x W times the runs
per second of one worker, less Ray's start and the last runs' tail; the printed line works it out from the
measured rate.
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

import yaml

from mvsim_ros.bench.paths import WORLDS as WORLDS_DIR

WORLDS = ("demo_2robots.world.xml", "office_yaml_map.world.xml")
SWEEP = {"seconds": 400.0, "seeds": 5, "parameters": {"friction.mu": [0.5, 0.8], "controller.KP": [50.0, 100.0]},
         "program": {"schedule": [[0.0, 0.5, 0.0], [2.0, 0.5, 0.3]]}}


def sweep_seconds(workers: int) -> tuple[float, int]:
    """Wall seconds [s] of the sweep on a local Ray cluster of `workers` CPUs (Ray's start included), and its
    number of runs."""
    import ray

    from mvsim_ros.sweep.engine import run_sweep
    from mvsim_ros.sweep.spec import load_sweep

    with tempfile.TemporaryDirectory(prefix="mvsim_bench_sweep_") as folder:
        path = Path(folder) / "sweep.yaml"
        path.write_text(yaml.safe_dump({"worlds": [str(WORLDS_DIR / w) for w in WORLDS], **SWEEP}))
        try:
            outcome = run_sweep(load_sweep(path), Path(folder) / "out", workers=workers, progress=None)
        finally:
            ray.shutdown()
    return outcome.wall_seconds, outcome.total


def sweep_table(repeat: int = 1, out=print) -> dict[int, float]:
    """Print (through `out`) and return the median sweep time [s] with 1 and 2 workers over `repeat` runs."""
    times = {}
    for workers in (1, 2):
        runs = [sweep_seconds(workers) for _ in range(max(1, repeat))]
        times[workers] = statistics.median(t for t, _ in runs)
        count = runs[0][1]
        out(f"sweep of {count} runs ({SWEEP['seconds']:g} s simulated each), {workers} worker(s): "
            f"{times[workers]:6.1f} s, {count / times[workers]:5.2f} runs/s")
    rate = runs[0][1] / times[1]
    out(f"2 workers / 1 worker: {times[2] / times[1]:.2f} of the time; N machines of W cores: about N x W x "
        f"{rate:.2f} runs/s (e.g. 8 machines of 16 cores: {128 * rate:.0f} runs/s), less Ray's start")
    return times
