"""mvsim_view --record: the viewer's run recorded into an MCAP file that reads back whole; a recording path that
cannot be created is one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import dds_probe  # noqa: F401  (a per-run ROS_DOMAIN_ID)

WORLD = Path(__file__).resolve().parents[2] / "worlds" / "demo_2robots.world.xml"


def view(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mvsim_ros.cli.view", str(WORLD), "--no-open", "--port", "0", *args],
                          capture_output=True, text=True, timeout=timeout)


def test_a_viewer_run_is_recorded_at_its_real_time_factor(tmp_path):
    from mcap.reader import make_reader

    record = tmp_path / "view.mcap"
    result = view("--record", str(record), "--seconds", "4", "--realtime-factor", "2")
    assert result.returncode == 0, result.stderr
    assert "viewer at http://127.0.0.1:" in result.stdout and f"the run is in {record}" in result.stdout
    with record.open("rb") as stream:
        reader = make_reader(stream)
        summary = reader.get_summary()
        clock = [m.log_time for _, _, m in reader.iter_messages(topics=["/clock"])]
    topics = {c.topic for c in summary.channels.values()}
    assert {"/clock", "/r1/odom", "/r2/scan", "/simul_map", "/r1/cmd_vel"} <= topics
    # 4 s of wall time at 2x, less the start-up, plus at most the pace's catch-up (0.25 s of wall time): between
    # 2 and 8.5 s of simulated time, the clock at 100 Hz.
    assert 2e9 <= clock[-1] <= 8.5e9 and len(clock) == summary.statistics.channel_message_counts[
        next(c.id for c in summary.channels.values() if c.topic == "/clock")]
    assert all(b - a == 10_000_000 for a, b in zip(clock[1:], clock[2:]))


def test_a_recording_path_that_cannot_be_created_is_one_line(tmp_path):
    target = tmp_path / "missing" / "view.mcap"
    result = view("--record", str(target), "--seconds", "1")
    assert result.returncode == 2
    assert result.stderr.strip() == f"mvsim_view: error: cannot record to '{target}': No such file or directory"
