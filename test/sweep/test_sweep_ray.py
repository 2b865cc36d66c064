"""Sweeps on Ray: every run gets its row (failed ones with their reason), an interrupted sweep resumes without
running its finished rows again (and redoes a row file that does not read back whole), a run past its time limit
is a timed-out row without being retried, the local cluster listens on 127.0.0.1 only, and a two-node cluster
started on this machine loses no row when its worker node is killed mid-sweep (Ray retries the runs it held).

The tests that start their own clusters (command line, `ray start`) come first; the others share one local cluster
of 2 workers, started by the sweep's own `cluster.connect` for the rest of the module."""

from __future__ import annotations

import ipaddress
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import sweep_drivers
from conftest import robot_world_xml
from sweep_support import write_sweep

ray = pytest.importorskip("ray")
pq = pytest.importorskip("pyarrow.parquet")

from mvsim_ros.sweep import cluster, results  # noqa: E402
from mvsim_ros.sweep.engine import finish, run_sweep  # noqa: E402
from mvsim_ros.sweep.spec import load_sweep  # noqa: E402

RAY = Path(sys.executable).with_name("ray")


@pytest.fixture(scope="module")
def local_cluster(tmp_path_factory):
    """A local cluster of 2 workers started as `mvsim_sweep` starts one; yields the file where
    sweep_drivers.stand_still_or_hang logs the runs it starts. The workers inherit the environment: the variable
    naming that file, and PYTHONPATH with this folder (where they import sweep_drivers from)."""
    log = tmp_path_factory.mktemp("driver_log") / "starts.txt"
    here = str(Path(__file__).resolve().parent)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(sweep_drivers.LOG_VARIABLE, str(log))
        patch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])))
        cluster.connect(None, workers=2)
        try:
            yield log
        finally:
            ray.shutdown()


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


def test_a_local_sweep_of_40_runs_with_a_broken_world_finishes_with_every_row(tmp_path, local_cluster):
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


def test_a_sweep_resumes_without_running_its_finished_rows_and_redoes_broken_ones(tmp_path, local_cluster):
    spec = load_sweep(write_sweep(tmp_path))
    out = tmp_path / "out"
    first = run_sweep(spec, out, workers=2, progress=None)
    files = sorted(results.rows_dir(out).glob("*.parquet"))
    kept, truncated, misnamed = files[:3], files[3], files[4]
    stamps = {p: p.stat().st_mtime_ns for p in kept}
    for path in files[5:]:
        path.unlink()  # as if the sweep had stopped after 5 rows,
    truncated.write_bytes(truncated.read_bytes()[:300])  # one of them cut short,
    misnamed.write_bytes(kept[0].read_bytes())  # one holding another run's row,
    (results.rows_dir(out) / f"{files[6].stem}.4242.tmp").write_bytes(b"PAR1")  # and a write cut short
    again = run_sweep(spec, out, workers=2, progress=None)
    assert (again.total, again.skipped, again.ran) == (first.total, 3, first.total - 3)
    assert all(p.stat().st_mtime_ns == stamps[p] for p in kept)
    assert results.read_row(truncated)["run_id"] == truncated.stem
    assert results.read_row(misnamed)["run_id"] == misnamed.stem
    assert not list(results.rows_dir(out).glob("*.tmp"))
    assert len(results.finished_ids(out)) == first.total
    assert len(pq.read_table(results.combine(out))) == first.total


def test_a_run_past_its_time_limit_is_a_timed_out_row_and_is_not_run_again(tmp_path, local_cluster):
    """Two worlds, the vehicle at x = 0 or at x = 1 m; the program hangs in the second (2 runs of each): those runs
    are cancelled after run_timeout, each started once, and the sweep goes on to the others."""
    at_origin, ahead = tmp_path / "origin.world.xml", tmp_path / "ahead.world.xml"
    at_origin.write_text(robot_world_xml())
    ahead.write_text(robot_world_xml(init_pose="1 0 0"))
    sweep = write_sweep(tmp_path, worlds=[ahead.name, at_origin.name], parameters={}, seconds=1.0, seeds=2,
                        program={"callable": "sweep_drivers:stand_still_or_hang"}, run_timeout=15)
    local_cluster.write_text("")
    start = time.monotonic()
    outcome = run_sweep(load_sweep(sweep), tmp_path / "out", progress=None)
    assert (outcome.total, outcome.ran, outcome.failed) == (4, 4, 2)
    assert time.monotonic() - start < 60
    rows = results.read_rows(tmp_path / "out")
    timed_out = [r for r in rows if r["status"] == "failed"]
    assert {Path(r["world"]).name for r in timed_out} == {"ahead.world.xml"}
    assert all(r["reason"] == "timed out after 15 s" and r["wall_seconds"] >= 15 for r in timed_out)
    assert all(r["status"] == "ok" for r in rows if Path(r["world"]).name == "origin.world.xml")
    starts = local_cluster.read_text().split("\n")
    assert sum(line.endswith(" 1.000") for line in starts) == 2  # each hanging run started once: no retry
    again = run_sweep(load_sweep(sweep), tmp_path / "out", progress=None, run_timeout=1.0)
    assert (again.skipped, again.ran) == (4, 0)  # a timed-out run has its row


def _listening(process) -> list:
    """The TCP sockets `process` listens on and the UDP sockets it has bound."""
    try:
        sockets = process.net_connections(kind="inet")
    except Exception:  # noqa: BLE001 (a process that ended meanwhile)
        return []
    return [s for s in sockets if s.status == "LISTEN" or (s.laddr and not s.raddr and s.status == "NONE")]


def _is_loopback(ip: str) -> bool:
    address = ipaddress.ip_address(ip.split("%")[0])
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


def test_the_local_cluster_listens_on_127_0_0_1_only(local_cluster):
    import psutil  # Ray's own copy, on sys.path once Ray is imported

    ray.get([ray.remote(lambda: os.getpid()).remote() for _ in range(2)])  # worker processes up
    processes = [psutil.Process()] + psutil.Process().children(recursive=True)
    sockets = [(p.name(), s.laddr) for p in processes for s in _listening(p)]
    assert len(sockets) >= 3, sockets  # GCS, raylet, this process's core worker at least
    assert [(name, address) for name, address in sockets if not _is_loopback(address.ip)] == []
    assert ray.util.get_node_ip_address() == "127.0.0.1"


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
