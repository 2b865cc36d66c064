"""Hostile input to `mvsim_sweep`, refused before any Ray cluster starts, each as one line on stderr beginning
`mvsim_sweep:` and exit status 2: a YAML alias bomb (refused within a small, bounded memory), a sweep of 10^9 runs
(counted, not built), an output folder that is a file or cannot be made, bad limits on the command line. And the
row files a resumed sweep trusts: only those that read back whole."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import yaml

from mvsim_ros.sweep import safe_yaml
from mvsim_ros.sweep.errors import SweepError
from mvsim_ros.sweep.spec import SweepFileError, load_sweep
from sweep_support import write_sweep

#: Runs the command in argv[1:] and prints its peak RSS [KiB] on stdout (from this small process rather than from
#: pytest: a child forked from a large process starts with that process's resident pages in its high-water mark).
_MEASURE = """
import resource, subprocess, sys
status = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(status)
"""


def sweep_cli(*args: str) -> tuple[int, str, float, int]:
    """Run `python -m mvsim_ros.cli.sweep ARGS`: (exit status, stderr, wall time [s], peak RSS [bytes])."""
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-c", _MEASURE, sys.executable, "-m", "mvsim_ros.cli.sweep", *args],
                            capture_output=True, text=True, timeout=120)
    return result.returncode, result.stderr, time.monotonic() - start, int(result.stdout.split()[-1]) * 1024


def assert_one_line(status: int, stderr: str, *parts: str) -> None:
    assert status == 2, stderr
    assert stderr.count("\n") == 1 and stderr.startswith("mvsim_sweep: ") and "Traceback" not in stderr, stderr
    for part in parts:
        assert part in stderr, stderr


def alias_bomb(levels: int = 9) -> str:
    """Billion laughs in a sweep file: each level a list of 9 aliases of the one before (9^levels values), the
    whole as friction.mu's values."""
    items = ["    - &l0 [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]"]
    items += [f"    - &l{k} [{', '.join([f'*l{k - 1}'] * 9)}]" for k in range(1, levels)]
    return "worlds: [wall.world.xml]\nparameters:\n  friction.mu:\n" + "\n".join(items) + "\n"


def test_a_yaml_alias_bomb_is_refused_in_bounded_memory_and_time(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(alias_bomb())
    assert bomb.stat().st_size < 600
    status, err, seconds, rss = sweep_cli(str(bomb), "--out", str(tmp_path / "out"))
    assert_one_line(status, err, str(bomb), f"more than {safe_yaml.MAX_NODES} nodes")
    assert rss < 150 * 2**20 and seconds < 30, (rss, seconds)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("text, message", [
    ("worlds: &w [a.world.xml, *w]\n", "refers to a node that contains it"),
    ("x: &x 1\nworlds: [" + ", ".join(["*x"] * (safe_yaml.MAX_ALIASES + 1)) + "]\n",
     f"more than {safe_yaml.MAX_ALIASES} aliases"),
    ("worlds: " + "[" * 5000 + "]" * 5000 + "\n", f"nested more than {safe_yaml.MAX_DEPTH} deep"),
    ("worlds: [" + ",".join(["a"] * 200_000) + "]\n", f"more than {safe_yaml.MAX_NODES} nodes"),
    ("worlds: [a]\n#" + "x" * safe_yaml.MAX_FILE_BYTES + "\n", f"larger than {safe_yaml.MAX_FILE_BYTES} bytes"),
    (b"worlds: [\xff]\n", "not UTF-8 text"),
    ("worlds: [a]\nseconds: " + "9" * 5000 + "\n", "not YAML"),
    ("worlds: [a]\nseeds: [" + "9" * 30 + "]\n", "seeds: expected"),
    ("worlds: [a]\nparameters: {friction.mu: [0.5, low]}\n", "numbers, of strings or of booleans"),
    ("worlds: [a]\nrun_timeout: .inf\n", "run_timeout: expected a finite number > 0"),
])
def test_yaml_over_a_budget_or_out_of_range_is_one_line_naming_the_file(tmp_path, text, message):
    path = tmp_path / "sweep.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(SweepFileError) as error:
        load_sweep(path)
    assert str(error.value).startswith(str(path)) and message in str(error.value)
    assert "\n" not in str(error.value)


def test_a_sweep_file_may_share_values_through_a_few_aliases(tmp_path):
    path = write_sweep(tmp_path)
    path.write_text("worlds: [wall.world.xml]\nparameters:\n  friction.mu: &values [0.5, 0.8]\n"
                    "  controller.KP: *values\nrun_timeout: 30\n")
    spec = load_sweep(path)
    assert spec.parameters == {"friction.mu": [0.5, 0.8], "controller.KP": [0.5, 0.8]}
    assert spec.run_count() == 4 and spec.run_timeout == 30.0


def test_a_grid_of_a_billion_runs_is_counted_and_refused_at_once(tmp_path):
    path = tmp_path / "grid.yaml"
    path.write_text(yaml.safe_dump({"worlds": ["wall.world.xml"], "seeds": 1000,
                                    "parameters": {"friction.mu": list(range(1000)),
                                                   "controller.KP": list(range(1000))}}))
    status, err, seconds, rss = sweep_cli(str(path), "--out", str(tmp_path / "out"))
    assert_one_line(status, err, "1000000000 runs", "over the limit of 100000 runs")
    assert rss < 150 * 2**20 and seconds < 30, (rss, seconds)


def test_max_runs_sets_the_limit(tmp_path):
    status, err, _, _ = sweep_cli(str(write_sweep(tmp_path)), "--max-runs", "10", "--out", str(tmp_path / "out"))
    assert_one_line(status, err, "16 runs", "over the limit of 10 runs")
    assert len(load_sweep(tmp_path / "sweep.yaml", max_runs=16).runs()) == 16


@pytest.mark.parametrize("args, message", [
    (["--run-timeout", "0"], "--run-timeout must be"),
    (["--run-timeout", "nan"], "--run-timeout must be"),
    (["--max-runs", "0"], "--max-runs must be"),
    (["--workers", "0"], "--workers must be"),
])
def test_bad_limits_on_the_command_line_are_one_line(tmp_path, args, message):
    status, err, _, _ = sweep_cli(str(write_sweep(tmp_path)), *args)
    assert_one_line(status, err, message)


def test_out_naming_an_existing_file_is_one_line(tmp_path):
    taken = tmp_path / "taken"
    taken.write_text("not a folder")
    status, err, _, _ = sweep_cli(str(write_sweep(tmp_path)), "--out", str(taken))
    assert_one_line(status, err, f"--out {taken}", "exists and is not a folder")
    assert taken.read_text() == "not a folder"
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "rows").write_text("")
    status, err, _, _ = sweep_cli(str(tmp_path / "sweep.yaml"), "--out", str(tmp_path / "out"))
    assert_one_line(status, err, "rows exists and is not a folder")


def test_out_that_cannot_be_made_or_written_is_one_line(tmp_path):
    status, err, _, _ = sweep_cli(str(write_sweep(tmp_path)), "--out", "/proc/mvsim_sweep_out")
    assert_one_line(status, err, "--out /proc/mvsim_sweep_out: cannot create")
    if os.geteuid() == 0:
        return  # root writes into a read-only folder
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        status, err, _, _ = sweep_cli(str(tmp_path / "sweep.yaml"), "--out", str(locked))
        assert_one_line(status, err, f"--out {locked}")
    finally:
        locked.chmod(0o700)


def test_a_row_file_counts_only_when_it_reads_back_whole(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    from mvsim_ros.sweep import results
    from mvsim_ros.sweep.run import results_row

    out = tmp_path / "out"
    runs = load_sweep(write_sweep(tmp_path)).runs()[:4]
    paths = [results.write_row(out, results_row(run)) for run in runs]
    assert results.finished_ids(out) == {run.run_id for run in runs}
    paths[0].write_bytes(paths[0].read_bytes()[:-20])  # truncated
    paths[1].write_bytes(paths[2].read_bytes())  # another run's row
    table = pq.read_table(paths[3]).drop_columns(["status"])
    pq.write_table(table, paths[3])  # a column missing
    (results.rows_dir(out) / "abc.77.tmp").write_bytes(b"")  # a write cut short
    assert results.finished_ids(out) == {runs[2].run_id}
    with pytest.raises(SweepError, match="not a whole row file"):
        results.read_rows(out)
    assert results.discard_broken(out) == sorted([paths[0], paths[1], paths[3]])
    assert sorted(p.name for p in results.rows_dir(out).iterdir()) == [paths[2].name]
    assert [r["run_id"] for r in results.read_rows(out)] == [runs[2].run_id]
