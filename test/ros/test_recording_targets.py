"""Where a recording goes, checked on the real `mvsim_node` and `mvsim_view` processes:

- a start that fails (a broken world, a taken viewer port) leaves an existing file byte for byte as it was, and
  no partial file behind;
- a folder, /dev/null, a FIFO (with or without a reader) as the target: one line, exit status 2, at once, and
  nothing opened or replaced;
- a symbolic link as the target: one warning line; the link is replaced by the recording and its target left
  alone, unless record_follow_symlinks:=true, which writes the file the link points to;
- a TwistStamped whose sender stamped it with wall time is logged at the simulated time it was received.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import rclpy
from geometry_msgs.msg import TwistStamped

from dds_probe import ProbeNode, node_command, stop_process  # (dds_probe: a per-run ROS_DOMAIN_ID)

REPO = Path(__file__).resolve().parents[2]
WORLD = REPO / "worlds" / "demo_2robots.world.xml"
#: An older recording the tests must not lose.
YESTERDAY = b"\x89MCAP0\r\n yesterday's run, kept whole " * 20


def run_node(*params: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(node_command(*params), capture_output=True, text=True, timeout=timeout)


def error_lines(result: subprocess.CompletedProcess) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".partial"))


def test_a_broken_world_leaves_an_existing_recording_untouched(tmp_path):
    broken = tmp_path / "broken.world.xml"
    broken.write_text("<mvsim_world><vehicle name='x' class='no_such_class'/></mvsim_world>")
    record = tmp_path / "yesterday.mcap"
    record.write_bytes(YESTERDAY)
    result = run_node(f"world_file:={broken}", f"record:={record}")
    assert result.returncode == 2 and "broken.world.xml" in result.stderr
    assert record.read_bytes() == YESTERDAY and not leftovers(tmp_path)


def test_a_taken_viewer_port_leaves_an_existing_recording_untouched(tmp_path):
    record = tmp_path / "yesterday.mcap"
    record.write_bytes(YESTERDAY)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        result = run_node(f"world_file:={WORLD}", "headless:=false", f"viewer_port:={taken.getsockname()[1]}",
                          f"record:={record}")
    assert result.returncode == 2 and len(error_lines(result)) == 1, result.stderr
    assert record.read_bytes() == YESTERDAY and not leftovers(tmp_path)


@pytest.mark.parametrize("kind", ["folder", "/dev/null", "fifo"])
def test_a_target_that_is_no_regular_file_is_one_line(kind, tmp_path):
    if kind == "folder":
        target, what = tmp_path / "runs", "a folder"
        target.mkdir()
    elif kind == "fifo":
        target, what = tmp_path / "pipe.mcap", "a FIFO (named pipe)"
        os.mkfifo(target)
    else:
        target, what = Path(kind), "a character device"
    result = run_node(f"world_file:={WORLD}", f"record:={target}", timeout=60)
    assert result.returncode == 2
    assert error_lines(result) == [f"mvsim_node: cannot record to '{target}': it is {what}, not a regular file; "
                                   "name a file to create or replace"]
    assert not leftovers(target.parent if kind != "/dev/null" else tmp_path)


def test_a_fifo_with_a_reader_is_refused_and_the_reader_gets_nothing(tmp_path):
    fifo = tmp_path / "pipe.mcap"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo, "rb").read()), daemon=True)
    reader.start()
    result = run_node(f"world_file:={WORLD}", f"record:={fifo}", timeout=60)
    assert result.returncode == 2 and "it is a FIFO" in result.stderr and "Traceback" not in result.stderr
    with open(fifo, "wb"):  # let the reader end
        pass
    reader.join(timeout=10)
    assert received == [b""]


def test_mvsim_view_refuses_a_folder_as_its_recording_in_one_line(tmp_path):
    result = subprocess.run([sys.executable, "-m", "mvsim_ros.cli.view", str(WORLD), "--no-open", "--port", "0",
                             "--record", str(tmp_path), "--seconds", "1"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert error_lines(result) == [f"mvsim_view: error: cannot record to '{tmp_path}': it is a folder, not a "
                                   "regular file; name a file to create or replace"]


def record_briefly(tmp_path: Path, *params: str) -> tuple[int, str]:
    """Run the node with `params` until it has started and recorded for a moment, then SIGINT; (exit status,
    log)."""
    log = tmp_path / "node.log"
    proc = subprocess.Popen(node_command(f"world_file:={WORLD}", "realtime_factor:=0.0", *params),
                            stdout=log.open("wb"), stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while "drive it:" not in log.read_text() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        return proc.wait(timeout=60), log.read_text()
    finally:
        stop_process(proc)


def summary_of(path: Path):
    from mcap.reader import make_reader

    with path.open("rb") as stream:
        return make_reader(stream).get_summary()


@pytest.mark.parametrize("follow", [False, True], ids=["link-replaced", "link-followed"])
def test_a_symbolic_link_as_the_target(follow, tmp_path):
    pointed = tmp_path / "kept.mcap"
    pointed.write_bytes(YESTERDAY)
    link = tmp_path / "run.mcap"
    link.symlink_to(pointed)
    code, log = record_briefly(tmp_path, f"record:={link}", f"record_follow_symlinks:={str(follow).lower()}")
    assert code == 0, log
    if follow:
        assert link.is_symlink() and summary_of(pointed).statistics.message_count > 0
        assert f"recording into '{pointed}'" in log
    else:
        notes = [line for line in log.splitlines() if "is a symbolic link" in line]
        assert len(notes) == 1 and notes[0].startswith("[WARN]") and str(pointed) in notes[0]
        assert not link.is_symlink() and summary_of(link).statistics.message_count > 0
        assert pointed.read_bytes() == YESTERDAY
    assert not leftovers(tmp_path)


def test_a_received_twist_stamped_is_logged_at_simulated_time(tmp_path):
    """mvsim_teleop -p stamped:=true stamps wall time (about 1.8e9 s): the file logs each such command at the
    simulated time it arrived (between the run's first and last clock), not at the sender's stamp."""
    from mcap.reader import make_reader

    record = tmp_path / "stamped.mcap"
    log = tmp_path / "node.log"
    proc = subprocess.Popen(node_command(f"world_file:={WORLD}", "realtime_factor:=1.0", f"record:={record}"),
                            stdout=log.open("wb"), stderr=subprocess.STDOUT)
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "stamped_probe")
    publisher = probe.node.create_publisher(TwistStamped, "/r1/cmd_vel", 10)
    sent = []

    def drive() -> None:
        msg = TwistStamped()
        msg.header.stamp = probe.node.get_clock().now().to_msg()  # wall time, as a teleop stamps it
        msg.header.frame_id = "base_link"
        msg.twist.linear.x = 0.3
        publisher.publish(msg)
        sent.append(msg.header.stamp.sec)

    try:
        assert probe.wait_for(lambda: "drive it:" in log.read_text(), 120), log.read_text()
        # Discovery on one host can take a few seconds: the commands go out once the node listens.
        assert probe.wait_for(lambda: publisher.get_subscription_count() > 0, 30), "the node never subscribed"
        probe.spin_for(3.0, publish=drive, rate_hz=10)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0, log.read_text()
    finally:
        stop_process(proc)
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
    with record.open("rb") as stream:
        reader = make_reader(stream)
        clock = [m.log_time for _, _, m in reader.iter_messages(topics=["/clock"])]
    with record.open("rb") as stream:
        commands = [(c.schema_id, m.log_time) for _, c, m in make_reader(stream).iter_messages(topics=["/r1/cmd_vel"])]
    assert sent and min(sent) > 1_000_000_000 and len(commands) >= 10
    assert all(clock[0] <= t <= clock[-1] for _, t in commands), (commands[:3], clock[0], clock[-1])
