"""What recording a run costs the node (`python -m mvsim_ros.bench --record`): the node's real-time factor on a row's
world without and with `record:=FILE.mcap`, run alternately, and what the recording wrote.

Each pair of runs measures the node as `--node` does (node_rtf: /clock over a span of wall time at
realtime_factor 0); the recording goes to a temporary folder (lz4 chunks, every topic), removed after each run.
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

from mvsim_ros.bench.node import BenchRow
from mvsim_ros.bench.node_process import default_domain_id
from mvsim_ros.bench.node_rtf import node_rtf

#: The rows measured by default: 1 and 10 robots with a noisy 2D lidar each.
DEFAULT_ROWS = (BenchRow(1, "differential", True), BenchRow(10, "differential", True))


def recorded_run(row: BenchRow, wall_seconds: float, compression: str = "lz4") -> tuple[float, int, int]:
    """One run recording into a temporary file: (real-time factor, bytes written, messages in the file)."""
    from mcap.reader import make_reader

    with tempfile.TemporaryDirectory(prefix="mvsim_bench_record_") as folder:
        path = Path(folder) / "run.mcap"
        rtf = node_rtf(row, wall_seconds, params=(f"record:={path}", f"record_compression:={compression}")).rtf
        size = path.stat().st_size
        with path.open("rb") as stream:
            summary = make_reader(stream).get_summary()
        messages = summary.statistics.message_count if summary is not None and summary.statistics else 0
    return rtf, size, messages


def record_table(wall_seconds: float, repeat: int = 3, rows=DEFAULT_ROWS, compression: str = "lz4",
                 out=print) -> list[tuple[BenchRow, float, float]]:
    """Print (through `out`) and return, per row: the median real-time factor without and with recording over
    `repeat` alternating pairs of runs."""
    default_domain_id()
    out(f"recording cost: node at realtime_factor 0, without and with record:=FILE.mcap ({compression}, every topic), "
        f"runs alternating, median of {repeat} runs of {wall_seconds:g} s each")
    out(f"\n{'world':<26} {'plain':>9} {'recording':>10} {'cost':>7} {'MB/s (wall)':>12} {'msgs/s (wall)':>14}")
    results = []
    for row in rows:
        plain, recording, rates, message_rates = [], [], [], []
        for _ in range(repeat):
            plain.append(node_rtf(row, wall_seconds).rtf)
            rtf, size, messages = recorded_run(row, wall_seconds, compression)
            recording.append(rtf)
            span = wall_seconds + 2.0  # node_rtf's warm-up and measured span; the file holds the start-up too
            rates.append(size / span / 1e6)
            message_rates.append(messages / span)
        a, b = statistics.median(plain), statistics.median(recording)
        out(f"{row.name:<26} {a:8.1f}x {b:9.1f}x {100 * (1 - b / a):6.1f}% {statistics.median(rates):11.1f} "
            f"{statistics.median(message_rates):14,.0f}")
        results.append((row, a, b))
    return results


__all__ = ["DEFAULT_ROWS", "record_table", "recorded_run"]
