"""Red team, recording under load: the real `mvsim_node` recording 120 robots with a lidar each at
realtime_factor 0 while busy processes take the machine's cores.

- A queue of waiting chunks kept full on purpose (MVSIM_RECORD_QUEUE_BYTES=1: every chunk waits for the writer):
  the file keeps growing and SIGINT ends the node with exit status 0 and a whole file.
- SIGINT and SIGTERM at random moments of such runs (20 in all by default; MVSIM_REDTEAM_RECORD_SIGNALS sets
  another count): exit status 0 each time, nothing but log lines on stderr, and a complete file that both the
  `mcap` package's indexed reader and its stream reader read to the end.
- SIGKILL once 20 s of simulated time have passed: the file holds the run up to within LAG_WALL_S of wall time
  before the kill (the writer keeps up on a loaded machine).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import rclpy
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock

from conftest import REPO
from dds_probe import ProbeNode, node_command
from recording_support import whole_chunks

ROBOTS = 120
#: Signals sent in all (alternately SIGINT and SIGTERM).
SIGNALS = int(os.environ.get("MVSIM_REDTEAM_RECORD_SIGNALS", "20"))
#: Window [s] after the node has started in which a signal is sent.
SIGNAL_WINDOW_S = (0.0, 4.0)
#: Nodes running at once in the random-moment test.
PARALLEL = 2
#: Longest wait [s] for a node to start, and to exit after its signal, on a loaded machine.
START_TIMEOUT_S = 120.0
EXIT_S = 60.0
#: The file must hold the simulated time that the clock showed this many wall seconds before a SIGKILL.
LAG_WALL_S = 1.5
STARTED = "drive it:"
_DEFINITIONS = REPO / "worlds" / "definitions"

WORLD = f"""<mvsim_world version="1.0">
  <include file="{_DEFINITIONS / 'diff_robot.vehicle.xml'}"/>
  <for var="i" from="1" to="{ROBOTS}">
    <vehicle name="bot${{i}}" class="diff_robot">
      <init_pose>$f{{3*(${{i}}%12)}} $f{{3*floor(${{i}}/12)}} 0</init_pose>
      <include file="{_DEFINITIONS / 'lidar2d.sensor.xml'}" sensor_name="scan" nrays="181"/>
    </vehicle>
  </for>
</mvsim_world>
"""


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("load") / "robots120.world.xml"
    path.write_text(WORLD)
    return path


class BusyProcesses:
    """`count` processes spinning on the CPU until `stop()`."""

    def __init__(self, count: int):
        self.processes = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]

    def stop(self) -> None:
        for process in self.processes:
            process.kill()
            process.wait()


@pytest.fixture
def busy():
    """Start BusyProcesses(n) with busy(n); all are stopped after the test."""
    started: list[BusyProcesses] = []

    def start(count: int) -> BusyProcesses:
        started.append(BusyProcesses(count))
        return started[-1]

    yield start
    for group in started:
        group.stop()


class NodeRun:
    """The node recording `world` into `record`, its stderr collected; `started` is set at its start-up's end."""

    def __init__(self, world: Path, record: Path, env: dict[str, str] | None = None):
        self.record = record
        self.lines: list[str] = []
        self.started = threading.Event()
        self.process = subprocess.Popen(
            node_command(f"world_file:={world}", "realtime_factor:=0.0", f"record:={record}", "status_period:=0.0"),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.process.stderr:
            self.lines.append(line.rstrip("\n"))
            if STARTED in line:
                self.started.set()

    def wait_started(self) -> None:
        assert self.started.wait(START_TIMEOUT_S), f"the node did not start: {self.lines[-5:]}"

    def stop(self, signum: int) -> int | None:
        """Send `signum` and wait up to EXIT_S for the exit; the exit status, or None (then it is killed)."""
        self.process.send_signal(signum)
        try:
            return self.process.wait(timeout=EXIT_S)
        except subprocess.TimeoutExpired:
            return None
        finally:
            self.close()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._reader.join(timeout=10)

    def noise(self) -> list[str]:
        """stderr lines that are not ROS log lines: tracebacks, Python warnings, anything else."""
        return [line for line in self.lines if line.strip() and not line.startswith(("[INFO] ", "[WARN] "))]


def file_problems(path: Path) -> list[str]:
    """Every way `path` is not a complete MCAP file: missing, no summary, a reader stopping before its end."""
    from mcap.reader import make_reader
    from mcap.stream_reader import StreamReader

    if not path.is_file():
        return [f"{path.name} is missing"]
    try:
        with path.open("rb") as stream:
            summary = make_reader(stream).get_summary()
            if summary is None or summary.statistics is None:
                return [f"{path.name} has no summary"]
            count = summary.statistics.message_count
        with path.open("rb") as stream:
            streamed = sum(len(record.data) > 0 for record in StreamReader(stream, emit_chunks=False).records
                           if type(record).__name__ == "Message")
    except Exception as exc:  # noqa: BLE001 (every reader failure is a finding)
        return [f"{path.name}: {type(exc).__name__}: {exc}"]
    problems = [] if count > 0 else [f"{path.name} holds no message"]
    if streamed != count:
        problems.append(f"{path.name}: the stream reader read {streamed} messages, the summary counts {count}")
    return problems


def test_a_full_queue_under_load_never_freezes_the_node(world, busy, tmp_path):
    """Every chunk waits for the writer (a queue of 1 byte), with two busy processes: the file keeps growing, and
    SIGINT ends the node cleanly with a complete file."""
    busy(2)
    record = tmp_path / "full_queue.mcap"
    run = NodeRun(world, record, env={"MVSIM_RECORD_QUEUE_BYTES": "1"})
    try:
        run.wait_started()
        sizes = []
        for _ in range(4):
            time.sleep(2.0)
            sizes.append(record.stat().st_size if record.exists() else 0)
        assert all(b > a for a, b in zip(sizes, sizes[1:])), f"the file stopped growing: {sizes}"
        code = run.stop(signal.SIGINT)
    finally:
        run.close()
    assert code == 0, run.lines[-6:]
    assert not run.noise(), run.noise()[-6:]
    assert not file_problems(record)


def test_signals_at_random_moments_leave_complete_files(world, busy, tmp_path):
    busy(2)
    rng = random.Random(f"record-signals-{os.getpid()}-{time.time_ns()}")
    low, high = SIGNAL_WINDOW_S
    # Delays stratified over the window (one per equal slice), in random order.
    moments = [(low + (high - low) * (k + rng.random()) / SIGNALS, (signal.SIGINT, signal.SIGTERM)[k % 2])
               for k in range(SIGNALS)]
    rng.shuffle(moments)
    failures: list[str] = []

    def trial(k: int) -> None:
        delay, signum = moments[k]
        record = tmp_path / f"run{k}.mcap"
        run = NodeRun(world, record)
        try:
            run.wait_started()
            time.sleep(delay)
            code = run.stop(signum)
        finally:
            run.close()
        what = f"{signal.Signals(signum).name} {delay:.2f} s after the start"
        if code != 0:
            failures.append(f"{what}: exit status {code}; stderr: {run.lines[-6:]}")
        if run.noise():
            failures.append(f"{what}: stderr {run.noise()[-6:]}")
        failures.extend(f"{what}: {problem}" for problem in file_problems(record))
        record.unlink(missing_ok=True)

    indexes = iter(range(SIGNALS))
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                k = next(indexes, None)
            if k is None:
                return
            trial(k)

    workers = [threading.Thread(target=worker) for _ in range(PARALLEL)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    assert not failures, "\n".join(failures)


def test_sigkill_under_load_leaves_the_run_up_to_a_moment_before(world, busy, tmp_path):
    """Three busy processes on the two cores; SIGKILL once a DDS subscriber has seen 20 s of simulated time: the
    file's whole chunks reach the simulated time the clock showed LAG_WALL_S of wall time before the kill."""
    busy(3)
    record = tmp_path / "killed.mcap"
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "record_lag_probe")
    seen: list[tuple[float, int]] = []  # (wall [s], clock [ns])
    qos = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)
    probe.node.create_subscription(
        Clock, "/clock", lambda m: seen.append((time.monotonic(), m.clock.sec * 10**9 + m.clock.nanosec)), qos)
    run = NodeRun(world, record)
    try:
        run.wait_started()
        assert probe.wait_for(lambda: seen and seen[-1][1] >= 20 * 10**9, 240), run.lines[-5:]
        killed_at = time.monotonic()
        run.process.kill()
        run.process.wait()
    finally:
        run.close()
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
    before = [clock for wall, clock in seen if wall <= killed_at - LAG_WALL_S]
    assert before, "the clock was seen only in the last moments before the kill"
    chunks, channels, _ = whole_chunks(record)
    in_file = max(t for chunk in chunks for c, t in chunk if c == channels["/clock"])
    assert in_file >= before[-1], (f"the file holds {in_file / 1e9:.2f} s; the clock showed {before[-1] / 1e9:.2f} s "
                                   f"{LAG_WALL_S} s before the kill and {seen[-1][1] / 1e9:.2f} s at it")
