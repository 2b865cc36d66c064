"""`mvsim_report` on hostile or damaged files: sizes over the budget stop it with one line and status 2, bombs are
decompressed with a cap (bounded memory), absurd values and times are left out with a note, names are drawn as
text, and links in the output folder are replaced, never written through."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
from html import escape
from pathlib import Path

import pytest
from hostile_files import (GIB, MIB, blob_messages, chunk, lz4_claiming, mcap_file, record_bytes,
                           with_chunk_data_length, with_record_length, zstd_claiming, zstd_zeros)
from report_fixtures import CircleRun, RunWriter, circle_recording, grid_message, odometry, twist, write_circle_run

from mvsim_ros.report import RecordingError, recording, write_report

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "ROS_DOMAIN_ID": "77"}
#: Peak resident memory the report may reach on any of these files [MiB].
RSS_LIMIT_MIB = 600
#: CPU time a report of one of these files may take before it is killed [s].
CPU_LIMIT_S = 120
PNG = b"\x89PNG\r\n\x1a\n"


#: Starts the CLI (argv[2:]) under the CPU limit and writes its peak resident memory [KiB] (from wait4) to the file
#: argv[1]; exits with its status. A small process of its own: Linux counts, in a process's peak, the peak of the
#: memory it ran in before exec, so the CLI started straight from this (large) test process would carry its peak.
LAUNCHER = """
import os, resource, subprocess, sys
def limit():
    resource.setrlimit(resource.RLIMIT_CPU, ({cpu}, {cpu}))
child = subprocess.Popen(sys.argv[2:], preexec_fn=limit)
_, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as report:
    report.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_report(path: Path, out: Path) -> tuple[int, str, str, float]:
    """Run the real CLI on `path` into `out`: (exit status, stdout, stderr, peak resident memory [MiB] of that
    process alone, from wait4)."""
    launcher = LAUNCHER.format(cpu=CPU_LIMIT_S)
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr, \
            tempfile.NamedTemporaryFile("r") as peak:
        process = subprocess.run([sys.executable, "-c", launcher, peak.name, sys.executable, "-m",
                                  "mvsim_ros.cli.report", str(path), "-o", str(out)],
                                 cwd=REPO, env=ENV, stdout=stdout, stderr=stderr)
        stdout.seek(0)
        stderr.seek(0)
        peak_kib = float(peak.read() or "nan")
        return process.returncode, stdout.read().decode(), stderr.read().decode(), peak_kib / 1024.0


@pytest.fixture(scope="module")
def bomb() -> bytes:
    """A 32 KiB zstd frame of 1 GiB of zeros."""
    return zstd_zeros(GIB)


def _valid() -> object:
    return chunk(blob_messages(), "zstd")


#: Files that declare a size over the budget: the report stops (one line, status 2).
OVER_BUDGET = {
    "uncompressed-chunk-declares-1TiB": lambda bomb: mcap_file(_valid(), chunk(blob_messages(), "", declared=2**40)),
    "zstd-chunk-declares-16TiB": lambda bomb: mcap_file(_valid(), chunk(blob_messages(), "zstd", declared=2**44)),
    "lz4-chunk-declares-1TiB": lambda bomb: mcap_file(_valid(), chunk(blob_messages(), "lz4", declared=2**40)),
    "zstd-bomb-declares-1GiB": lambda bomb: mcap_file(_valid(), chunk(b"", "zstd", declared=GIB, compressed=bomb)),
    "record-length-1TiB": lambda bomb: mcap_file(
        _valid(), raw=with_record_length(record_bytes(_valid()), 2**40)),
    "chunk-data-length-1TiB": lambda bomb: mcap_file(
        _valid(), raw=with_chunk_data_length(record_bytes(_valid()), 2**40)),
}

#: Files with a chunk whose contents are not what it declares: that chunk is skipped, the page says so.
DAMAGED = {
    "zstd-bomb-declares-1KiB": lambda bomb: mcap_file(_valid(), chunk(b"", "zstd", declared=1024, compressed=bomb)),
    "zstd-bomb-200MiB-within-budget": lambda bomb: mcap_file(
        _valid(), chunk(b"", "zstd", declared=200 * MIB, compressed=zstd_zeros(200 * MIB))),
    "zstd-frame-claims-16TiB": lambda bomb: mcap_file(
        _valid(), chunk(blob_messages(), "zstd", compressed=zstd_claiming(blob_messages(), 2**44))),
    "lz4-frame-claims-1TiB": lambda bomb: mcap_file(
        _valid(), chunk(blob_messages(), "lz4", compressed=lz4_claiming(blob_messages(), 2**40))),
}


def _one_line(stderr: str) -> str:
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("mvsim_report: ")
    return lines[0]


@pytest.mark.parametrize("case", sorted(OVER_BUDGET))
def test_a_size_over_the_budget_stops_with_one_line(tmp_path, bomb, case):
    path = tmp_path / "hostile.mcap"
    path.write_bytes(OVER_BUDGET[case](bomb))
    status, stdout, stderr, peak_mib = run_report(path, tmp_path / "out")
    assert status == 2 and stdout == ""
    line = _one_line(stderr)
    assert str(path) in line and "over the budget of 256 MiB" in line and "docs/report.md" in line
    assert peak_mib < RSS_LIMIT_MIB
    assert not (tmp_path / "out" / "index.html").exists()


@pytest.mark.parametrize("case", sorted(DAMAGED))
def test_a_chunk_that_lies_about_its_size_is_skipped_with_bounded_memory(tmp_path, bomb, case):
    path = tmp_path / "hostile.mcap"
    path.write_bytes(DAMAGED[case](bomb))
    status, stdout, stderr, peak_mib = run_report(path, tmp_path / "out")
    assert (status, stderr) == (0, ""), stderr
    assert peak_mib < RSS_LIMIT_MIB
    html = (tmp_path / "out" / "index.html").read_text()
    assert "1 damaged chunk skipped" in html
    assert "<td>/blob</td>" in html and '<td class="num">20</td>' in html  # the valid chunk is read


def test_a_record_running_past_the_end_of_the_file_is_a_file_cut_short(tmp_path):
    path = tmp_path / "cut.mcap"
    path.write_bytes(mcap_file(_valid(), raw=with_chunk_data_length(record_bytes(_valid()), 100 * MIB)))
    status, _, stderr, peak_mib = run_report(path, tmp_path / "out")
    assert (status, stderr) == (0, "") and peak_mib < RSS_LIMIT_MIB
    html = (tmp_path / "out" / "index.html").read_text()
    assert "The file was cut short" in html and "the file ends inside a record" in html


def _hostile_values_recording(path: Path) -> None:
    """Vehicle veh1 with 50 good poses and 7 absurd ones, 3 good commands and 1 NaN one, a grid placed at NaN."""
    bad = [(math.nan, 0.0, 0.0), (0.0, math.inf, 0.0), (-math.inf, 0.0, 0.0), (1e308, 0.0, 0.0),
           (0.0, -1e308, 0.0), (2e7, 0.0, 0.0), (0.0, 0.0, math.nan)]  # x, y, v
    with open(path, "wb") as handle:
        writer = RunWriter(handle)
        writer.write("/simul_map", grid_message(resolution=math.nan), 0.0)
        for k in range(50):
            writer.write("/veh1/base_pose_ground_truth", odometry(0.1 * k, 0.1 * k, 0.0, 0.0, 1.0, 0.0, "map"), 0.1 * k)
        for k, (x, y, v) in enumerate(bad):
            writer.write("/veh1/base_pose_ground_truth", odometry(0.05 + 0.1 * k, x, y, 0.0, v, 0.0, "map"),
                         0.05 + 0.1 * k)
        for k, v in enumerate((1.0, math.nan, 1.0, 1.0)):
            writer.write("/veh1/cmd_vel", twist(v, 0.0), 0.5 * k)
        writer.finish()


def test_nan_inf_and_huge_values_are_left_out_with_a_note(tmp_path):
    path = tmp_path / "values.mcap"
    _hostile_values_recording(path)
    status, _, stderr, _ = run_report(path, tmp_path / "out")
    assert (status, stderr) == (0, "")
    html = (tmp_path / "out" / "index.html").read_text()
    assert ("8 samples not drawn: a value that is NaN, infinite or beyond ±1e+07 (m, m/s, rad/s, rad); per topic: "
            "/veh1/base_pose_ground_truth (7), /veh1/cmd_vel (1).") in html
    assert "The occupancy grid of /simul_map is not drawn" in html
    assert '<td class="num">4.90</td>' in html  # path length of the 50 good poses
    for name in ("paths.png", "vehicle_veh1.png"):
        assert (tmp_path / "out" / name).read_bytes()[:8] == PNG


def test_absurd_log_times_are_skipped_with_a_note(tmp_path):
    path = tmp_path / "times.mcap"
    with open(path, "wb") as handle:
        writer = RunWriter(handle)
        write_circle_run(writer, CircleRun(seconds=2.0, with_map=False, collision=None))
        channel = writer.channel("/veh1/odom", "nav_msgs/msg/Odometry")
        for log_time in (2**63, 2**64 - 1):
            writer.writer.add_message(channel, log_time=log_time, publish_time=log_time,
                                      data=b"\x00\x01\x00\x00" + bytes(700))
        writer.finish()
    status, _, stderr, _ = run_report(path, tmp_path / "out")
    assert (status, stderr) == (0, "")
    html = (tmp_path / "out" / "index.html").read_text()
    assert "2 messages skipped: a log time of 2^63 ns or more" in html
    assert "<tr><th>simulated duration</th><td>2.000 s</td></tr>" in html


def test_names_are_drawn_as_text_not_math(tmp_path):
    path = tmp_path / "names.mcap"
    names = ["$\\foo$", "$x^$", "a$b"]
    circle_recording(path, CircleRun(vehicles={f"{name}/": (1.0, 0.5, 2.0 * k) for k, name in enumerate(names)},
                                     seconds=2.0, collision=None))
    status, _, stderr, _ = run_report(path, tmp_path / "out")
    assert (status, stderr) == (0, "")
    html = (tmp_path / "out" / "index.html").read_text()
    for name in names:
        assert f"<h3>{escape(name)}</h3>" in html
    images = sorted(p.name for p in (tmp_path / "out").glob("*.png"))
    assert len(images) == 4 and all((tmp_path / "out" / name).read_bytes()[:8] == PNG for name in images)


def test_links_in_the_output_folder_are_replaced_not_followed(tmp_path):
    path = tmp_path / "run.mcap"
    circle_recording(path, CircleRun(seconds=2.0, with_map=False))
    real = tmp_path / "real_out"
    real.mkdir()
    out = tmp_path / "out"
    out.symlink_to(real)  # a link to the folder itself is followed
    targets = {}
    for name in ("index.html", "paths.png", "vehicle_veh1.png"):
        target = tmp_path / f"precious_{name}"
        target.write_text(f"keep {name}\n")
        (real / name).symlink_to(target)
        targets[name] = target
    status, stdout, stderr, _ = run_report(path, out)
    assert (status, stderr) == (0, "")
    assert stdout.strip() == str(out / "index.html")
    for name, target in targets.items():
        assert target.read_text() == f"keep {name}\n"
        assert not (real / name).is_symlink() and (real / name).is_file()
    assert (real / "paths.png").read_bytes()[:8] == PNG
    assert "<h1>Run report: run.mcap</h1>" in (real / "index.html").read_text()
    assert sorted(p.name for p in real.iterdir()) == ["index.html", "paths.png", "vehicle_veh1.png"]


@pytest.mark.parametrize("budget", ["MAX_MESSAGES", "MAX_DECODED_MESSAGES"])
def test_more_messages_than_the_budget_stop_the_report(tmp_path, monkeypatch, budget):
    path = tmp_path / "run.mcap"
    circle_recording(path, CircleRun(seconds=2.0))
    monkeypatch.setattr(recording, budget, 100)
    with pytest.raises(RecordingError, match=r"over 100 messages.* the budget \(see docs/report.md\)$"):
        write_report(path, tmp_path / "out")


def test_the_latest_grid_alone_is_decoded_and_a_message_over_the_budget_is_not(tmp_path, monkeypatch):
    from mvsim_ros.report import reading

    path = tmp_path / "grids.mcap"
    with open(path, "wb") as handle:
        writer = RunWriter(handle)
        for k, resolution in enumerate((0.5, 0.25, 0.1)):
            writer.write("/simul_map", grid_message(resolution=resolution), [2.0, 1.0, 0.0][k])
        writer.write("/veh1/odom", odometry(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, "odom"), 0.0)
        writer.finish()
    assert reading.read_run(path).grid.resolution == 0.5  # the latest by log time, not the last in the file
    monkeypatch.setattr(recording, "DECODED_MESSAGE_BUDGET_BYTES", 1000)
    run = reading.read_run(path)
    assert run.grid is None and "/veh1/odom" in run.recording.decoded
    assert run.recording.decode_failures["/simul_map"] == 3
    assert "over the budget of 1000 bytes for one decoded message" in run.recording.decode_errors["/simul_map"]
