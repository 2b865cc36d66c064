"""Sweeps on Ray: every run gets its row (failed ones with their reason), an interrupted sweep resumes without
running its finished rows again, and a two-node cluster started on this machine loses no row when its worker node
is killed mid-sweep (Ray retries the runs it held)."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sweep_support import write_sweep

ray = pytest.importorskip("ray")
pq = pytest.importorskip("pyarrow.parquet")

from mvsim_ros.sweep import results  # noqa: E402
from mvsim_ros.sweep.engine import finish, run_sweep  # noqa: E402
from mvsim_ros.sweep.spec import load_sweep  # noqa: E402

RAY = Path(sys.executable).with_name("ray")


@pytest.fixture
def local_ray():
    yield
    if ray.is_initialized():
        ray.shutdown()


def test_a_local_sweep_of_40_runs_with_a_broken_world_finishes_with_every_row(tmp_path, local_ray):
    broken = tmp_path / "broken.world.xml"
    broken.write_text("<mvsim_world version='1.0'><block name='b'><shape><pt>0 0</pt></shape></block>"
                      "</mvsim_world>")
    spec = load_sweep(write_sweep(tmp_path, seeds=5))  # 2 worlds x 4 parameter combinations x 5 seeds = 40
    spec.worlds.append(str(broken))  # and 20 runs that cannot be built
    outcome = run_sweep(spec, tmp_path / "out", workers=2, progress=None)
    assert (outcome.total, outcome.ran, outcome.failed) == (60, 60, 20)
    path, table, plots = finish(tmp_path / "out")
    rows = pq.read_table(path).to_pylist()
    assert len(rows) == 60 and len({r["run_id"] for r in rows}) == 60
    failed = [r for r in rows if r["status"] == "failed"]
    assert len(failed) == 20 and all("broken.world.xml" in r["reason"] for r in failed)
    assert all(r["path_length"] == pytest.approx(2.0, rel=0.03) for r in rows if r["status"] == "ok")
    assert "20 failed run(s)" in table and (tmp_path / "out" / "summary.txt").read_text() == table
    assert {p.name for p in plots} >= {"path_length.png", "energy.png"}


def test_a_sweep_resumes_without_running_its_finished_rows(tmp_path, local_ray):
    spec = load_sweep(write_sweep(tmp_path))
    out = tmp_path / "out"
    first = run_sweep(spec, out, workers=2, progress=None)
    kept = sorted(results.rows_dir(out).glob("*.parquet"))[:5]
    stamps = {p: p.stat().st_mtime_ns for p in kept}
    for path in sorted(results.rows_dir(out).glob("*.parquet"))[5:]:
        path.unlink()  # as if the sweep had stopped after 5 rows
    again = run_sweep(spec, out, workers=2, progress=None)
    assert (again.total, again.skipped, again.ran) == (first.total, 5, first.total - 5)
    assert all(p.stat().st_mtime_ns == stamps[p] for p in kept)
    assert len(results.finished_ids(out)) == first.total


def test_ctrl_c_keeps_the_rows_and_the_next_run_finishes_the_sweep(tmp_path):
    sweep = write_sweep(tmp_path, seconds=60.0, seeds=3)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "mvsim_ros.cli.sweep", str(sweep), "--out", str(out), "--workers", "2",
               "--no-plots"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(results.finished_ids(out)) < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted; the rows written so far are kept" in err
    done = results.finished_ids(out)
    assert 3 <= len(done) < 24
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert f"24 runs ({len(done)} already done, {24 - len(done)} run now, 0 failed)" in result.stdout


def test_a_two_node_cluster_loses_no_row_when_its_worker_node_dies(tmp_path):
    """`ray start --head` and a worker node on 127.0.0.1 (token authentication, a token of this test); the worker
    node's raylet is killed once a few rows are in; Ray runs its runs again on the head."""
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    port = str(6400 + os.getpid() % 500)
    common = ["--num-cpus", "1", "--disable-usage-stats"]
    try:
        subprocess.run([str(RAY), "start", "--head", "--port", port, "--include-dashboard=false", *common],
                       env=env, check=True, capture_output=True, timeout=120)
        subprocess.run([str(RAY), "start", "--address", f"127.0.0.1:{port}", *common], env=env, check=True,
                       capture_output=True, timeout=120)
        raylets = _raylets()
        assert len(raylets) == 2
        sweep = write_sweep(tmp_path, seconds=120.0, seeds=5)  # 40 runs
        out = tmp_path / "out"
        proc = subprocess.Popen([sys.executable, "-m", "mvsim_ros.cli.sweep", str(sweep), "--out", str(out),
                                 "--address", f"127.0.0.1:{port}", "--no-plots"], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while len(results.finished_ids(out)) < 4 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        os.kill(raylets[-1], signal.SIGKILL)  # the node started second: the worker node
        stdout, stderr = proc.communicate(timeout=600)
        assert proc.returncode == 0, stderr[-2000:]
        rows = pq.read_table(out / "results.parquet").to_pylist()
        assert len(rows) == 40 and all(r["status"] == "ok" for r in rows)
        assert "40 runs (0 already done, 40 run now, 0 failed)" in stdout
    finally:
        subprocess.run([str(RAY), "stop", "--force"], env=env, capture_output=True, timeout=120)


def _raylets() -> list[int]:
    """PIDs of the raylet processes on this machine, oldest first."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().split(b"\0")[0]
                if command.endswith(b"/raylet"):
                    found.append((entry.stat().st_mtime, int(entry.name)))
            except OSError:
                continue
    return [pid for _, pid in sorted(found)]
