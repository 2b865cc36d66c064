"""Runs that end by themselves (`stop_after`, `stop_when_idle`), over real DDS: the node process exits with status 0
at the simulated instant the parameter names, and its recording is whole (summary, footer, every stream up to
that instant and none past it).

- `stop_after:=20` at `realtime_factor:=0`: the last /clock in the recording is 20.000 s exactly, and every periodic
  stream's last stamp is 20 s;
- `stop_when_idle:=true`: the node runs on while no command has come; a probe drives r1 over DDS, then stops; the
  run ends at the first check (every 0.1 s) once no command came for the watchdog timeout (1 s) and both robots are
  at rest.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import rclpy
from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from rosgraph_msgs.msg import Clock

from dds_probe import ProbeNode, start_node, stop_process  # (dds_probe: a per-run ROS_DOMAIN_ID)

#: Periodic streams of the demo world that are due at every whole second (clock, odometry, ground truth, TF, lidars).
PERIODIC = ["/clock", *(f"/{v}/{t}" for v in ("r1", "r2") for t in ("odom", "base_pose_ground_truth", "tf", "scan"))]
RELIABLE = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=100, reliability=ReliabilityPolicy.RELIABLE)
S = 1_000_000_000  # ns per s


def read_whole(path: Path) -> dict[str, list[tuple[int, bytes]]]:
    """(log time [ns], bytes) of every message per topic, through the summary's chunk index (a file without its
    summary or footer fails here), checked against the summary's message count."""
    from mcap.reader import make_reader

    found = defaultdict(list)
    with path.open("rb") as stream:
        reader = make_reader(stream)
        summary = reader.get_summary()
        assert summary is not None and summary.statistics is not None
        for _, channel, message in reader.iter_messages(log_time_order=False):
            found[channel.topic].append((message.log_time, message.data))
        assert sum(map(len, found.values())) == summary.statistics.message_count > 0
    return found


def test_stop_after_ends_the_run_exactly_there_with_the_recording_whole(tmp_path):
    record = tmp_path / "run.mcap"
    proc, log = start_node(tmp_path, "realtime_factor:=0", "stop_after:=20", f"record:={record}")
    try:
        assert proc.wait(timeout=120) == 0, log.read_text()
    finally:
        stop_process(proc)
    assert "the run ends at 20.000 s of simulated time" in log.read_text()
    messages = read_whole(record)
    for topic in PERIODIC:
        times = [t for t, _ in messages[topic]]
        assert max(times) == 20 * S, topic  # served at the last instant, nothing past it
    clocks = [deserialize_message(data, Clock).clock for _, data in messages["/clock"]]
    last = max(clocks, key=lambda c: (c.sec, c.nanosec))
    assert (last.sec, last.nanosec) == (20, 0)


def test_stop_when_idle_ends_the_run_once_the_robots_are_left_alone(tmp_path):
    record = tmp_path / "run.mcap"
    proc, log = start_node(tmp_path, "realtime_factor:=2", "stop_when_idle:=true", f"record:={record}")
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "run_end_probe")
    clocks: list[float] = []
    probe.node.create_subscription(Clock, "/clock", lambda m: clocks.append(m.clock.sec + 1e-9 * m.clock.nanosec),
                                   RELIABLE)
    command = probe.node.create_publisher(Twist, "/r1/cmd_vel", 10)

    def drive():
        twist = Twist()
        twist.linear.x, twist.angular.z = 0.5, 0.2
        command.publish(twist)

    try:
        # No command yet: parked robots are not "left alone", the run goes on.
        assert probe.wait_for(lambda: clocks and clocks[-1] > 2.0, timeout=60), log.read_text()
        assert proc.poll() is None, log.read_text()
        probe.spin_for(1.5, publish=drive, rate_hz=20.0)  # ~3 s of simulated time, a command every 0.1 s
        assert proc.poll() is None, log.read_text()  # driven: not idle
        assert proc.wait(timeout=60) == 0, log.read_text()
    finally:
        stop_process(proc)
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
    assert "stop_when_idle" in log.read_text() and "the run ends at" in log.read_text()

    messages = read_whole(record)
    commands = [t for t, _ in messages["/r1/cmd_vel"]]
    end = max(t for t, _ in messages["/clock"])
    assert len(commands) >= 10
    # The end: no command for 1 s, then the first 0.1 s check with both robots at rest (they stop within ~0.3 s).
    quiet = end - max(commands)
    assert 1 * S <= quiet <= 2 * S, quiet
    assert all(max(t for t, _ in messages[topic]) <= end for topic in PERIODIC)
    odometry = {v: [deserialize_message(data, Odometry) for _, data in messages[f"/{v}/odom"]] for v in ("r1", "r2")}
    for vehicle, odom in odometry.items():
        twist = odom[-1].twist.twist
        assert abs(twist.linear.x) < 1e-3 and abs(twist.angular.z) < 1e-3, vehicle
    first, last = odometry["r1"][0].pose.pose.position, odometry["r1"][-1].pose.pose.position
    assert abs(last.x - first.x) + abs(last.y - first.y) > 0.5  # r1 drove its commands
    assert min(commands) > 2 * S  # the run went on, parked and uncommanded, until the first command
