"""The node's run recording (`record:=FILE.mcap`), checked over real DDS and read back with two independent MCAP
readers (mcap-ros2-support's and the rosbags library's):

- the demo world recorded at realtime_factor 0 until a DDS subscriber has seen 20 s of simulated time: every
  periodic stream is in the file without a gap from its first instant, stamps in order, the log time of each
  message its own stamp; each message the subscriber received is in the file with the same bytes; the commands the
  test sent are in the file; the two readers read the same messages, and decode them to the same values;
- SIGKILL while recording: the file reads up to its last whole chunk (every chunk decompresses to its size,
  streams without a gap up to there);
- a path that cannot be created: one line and exit status 2; a full disk: one error line, the run goes on.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections import defaultdict
from pathlib import Path

import pytest
import rclpy
from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message, serialize_message
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import LaserScan
from tf2_msgs.msg import TFMessage

from dds_probe import ProbeNode, node_command, start_node, stop_process  # (dds_probe: a per-run ROS_DOMAIN_ID)
from recording_support import whole_chunks

REPO = Path(__file__).resolve().parents[2]
WORLD = REPO / "worlds" / "demo_2robots.world.xml"
#: Periodic streams of the demo world and their period [ns] (clock 100 Hz, odometry/TF 50 Hz, lidars 10 Hz).
PERIODIC_NS = {"/clock": 10_000_000, **{f"/{v}/{t}": 20_000_000 for v in ("r1", "r2")
                                        for t in ("odom", "base_pose_ground_truth", "tf")},
               "/r1/scan": 100_000_000, "/r2/scan": 100_000_000}
SUBSCRIBED = {"/clock": Clock, "/r1/odom": Odometry, "/r2/base_pose_ground_truth": Odometry, "/r1/tf": TFMessage,
              "/r2/scan": LaserScan}
RELIABLE = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1000, reliability=ReliabilityPolicy.RELIABLE)
LATCHED = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)


def read_with_mcap(path: Path) -> dict[str, list[tuple[int, bytes]]]:
    """(log time, bytes) of every message per topic, with mcap's reader (through the summary's chunk index)."""
    from mcap.reader import make_reader

    found = defaultdict(list)
    with path.open("rb") as stream:
        reader = make_reader(stream)
        assert reader.get_summary() is not None and reader.get_summary().statistics.message_count > 0
        for _, channel, message in reader.iter_messages(log_time_order=False):
            found[channel.topic].append((message.log_time, message.data))
    return found


def read_with_rosbags(path: Path, decode: tuple[str, ...] = ()) -> tuple[dict[str, list[tuple[int, bytes]]], dict]:
    """(log time, bytes) of every message per topic with the rosbags library, and the messages of the topics in
    `decode` decoded by it (its types built from the file's own schemas): {topic: {log time: message}}."""
    from rosbags.highlevel import AnyReader

    found, decoded = defaultdict(list), defaultdict(dict)
    with AnyReader([path]) as reader:
        for connection, log_time, data in reader.messages():
            found[connection.topic].append((log_time, bytes(data)))
            if connection.topic in decode:
                decoded[connection.topic][log_time] = reader.deserialize(data, connection.msgtype)
    return found, decoded


def stamp_ns(msg) -> int:
    stamp = msg.clock if isinstance(msg, Clock) else msg.transforms[0].header.stamp if isinstance(msg, TFMessage) \
        else msg.header.stamp
    return stamp.sec * 1_000_000_000 + stamp.nanosec


def test_the_demo_world_recorded_whole_at_full_speed(tmp_path):
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory

    record = tmp_path / "run.mcap"
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "recording_probe")
    received: dict[str, list[bytes]] = defaultdict(list)
    for topic, msg_type in SUBSCRIBED.items():
        probe.node.create_subscription(msg_type, topic, received[topic].append, RELIABLE, raw=True)
    probe.node.create_subscription(TFMessage, "/r1/tf_static", received["/r1/tf_static"].append, LATCHED, raw=True)
    command = probe.node.create_publisher(Twist, "/r1/cmd_vel", 10)
    sent = []
    matched_sends = []  # sends made once the node's subscription was matched (earlier ones may be lost: volatile)

    def drive():
        twist = Twist()
        twist.linear.x, twist.angular.z = 0.5, 0.25 + 0.01 * len(sent)
        matched = command.get_subscription_count() > 0
        command.publish(twist)
        sent.append(serialize_message(twist))
        if matched:
            matched_sends.append(sent[-1])

    proc, log = start_node(tmp_path, "realtime_factor:=0.0", f"record:={record}")
    try:
        def seen_20_s() -> bool:
            clocks = received["/clock"]
            if len(clocks) < 2:
                return False
            first, last = (deserialize_message(clocks[i], Clock) for i in (0, -1))
            return stamp_ns(last) - stamp_ns(first) >= 20_000_000_000 and len(matched_sends) >= 5

        deadline = time.monotonic() + 60
        while not seen_20_s() and time.monotonic() < deadline and proc.poll() is None:
            drive()
            probe.spin_for(0.05)
        assert seen_20_s(), log.read_text()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0, log.read_text()
    finally:
        stop_process(proc)
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
    assert "recording the run into" in log.read_text()

    by_mcap = read_with_mcap(record)
    by_rosbags, rosbags_decoded = read_with_rosbags(record, decode=("/r1/odom", "/r2/scan"))
    assert by_mcap == by_rosbags  # the same messages, topic by topic, in the same order, with the same bytes
    # Every periodic stream from its first instant, without a gap, log time = stamp; the run lasted > 20 s.
    for topic, period in PERIODIC_NS.items():
        times = [t for t, _ in by_mcap[topic]]
        assert times[0] <= period and times[-1] - times[0] >= 20_000_000_000, topic
        # (the clock's first message comes with the first step, the next on the clock's period grid)
        assert 0 < times[1] - times[0] <= period, topic
        assert all(b - a == period for a, b in zip(times[1:], times[2:])), topic
    # Each message the DDS subscriber received is in the file, byte for byte, at its stamp.
    for topic, messages in received.items():
        recorded = dict(by_mcap[topic])
        assert messages, topic
        for data in messages:
            msg = deserialize_message(data, SUBSCRIBED.get(topic, TFMessage))
            assert recorded[stamp_ns(msg)] == data, topic
    assert len(received["/clock"]) >= 100
    # Latched and once-only topics, and the commands received (in the order sent, bytes as serialized here).
    assert len(by_mcap["/r1/tf_static"]) == len(by_mcap["/simul_map"]) == 1
    commands = [data for _, data in by_mcap["/r1/cmd_vel"]]
    assert commands and all(data in sent for data in commands)
    assert [sent.index(data) for data in commands] == sorted(sent.index(data) for data in commands)
    # The two decoders agree on values (a sample of each stream: its first and last message).
    with record.open("rb") as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        decoded = {}
        for _, channel, message, msg in reader.iter_decoded_messages(topics=["/r1/odom", "/r2/scan"]):
            decoded.setdefault(channel.topic, []).append((message.log_time, msg))
    assert sorted(decoded) == ["/r1/odom", "/r2/scan"]
    for topic, items in decoded.items():
        for log_time, msg in (items[0], items[-1]):
            other = rosbags_decoded[topic][log_time]
            assert other.header.stamp.sec * 10**9 + other.header.stamp.nanosec == log_time
            if topic.endswith("odom"):
                assert other.pose.pose.position.x == msg.pose.pose.position.x
                assert other.twist.twist.angular.z == msg.twist.twist.angular.z
            else:
                assert list(other.ranges) == list(msg.ranges)
    # r1 drove its commands: its odometry moved.
    last_odom = deserialize_message(by_mcap["/r1/odom"][-1][1], Odometry)
    first_odom = deserialize_message(by_mcap["/r1/odom"][0][1], Odometry)
    assert abs(last_odom.pose.pose.position.x - first_odom.pose.pose.position.x) + \
        abs(last_odom.pose.pose.position.y - first_odom.pose.pose.position.y) > 0.1
    # The metadata the report reads: the command watchdog's timeout, and every block's pose at the end of the run.
    with record.open("rb") as stream:
        metadata = {m.name: m.metadata for m in make_reader(stream).iter_metadata()}
    assert float(metadata["mvsim"]["base_watchdog_timeout"]) == 1.0
    from mvsim_ros.world import load_world

    blocks = load_world(WORLD).blocks
    ends = metadata["mvsim_blocks_end"]
    assert blocks and sorted(ends) == sorted(b.name for b in blocks)
    for block in blocks:
        x, y, _ = (float(v) for v in ends[block.name].split())
        if block.static:
            assert (x, y) == pytest.approx((block.init_pose.x, block.init_pose.y), abs=1e-5), block.name


@pytest.mark.parametrize("stop", ["SIGKILL", "SIGTERM"])
def test_a_recording_survives_the_end_of_its_process(tmp_path, stop):
    """SIGKILL: every chunk written before it reads back; SIGTERM: the file is complete (summary and footer)."""
    record = tmp_path / "run.mcap"
    proc, log = start_node(tmp_path, "realtime_factor:=0.0", f"record:={record}")
    try:
        deadline = time.monotonic() + 60
        while (not record.exists() or record.stat().st_size < 5_000_000) and time.monotonic() < deadline:
            assert proc.poll() is None, log.read_text()
            time.sleep(0.05)
        proc.send_signal(getattr(signal, stop))
        code = proc.wait(timeout=60)
    finally:
        stop_process(proc)
    chunks, channels, tail = whole_chunks(record)
    assert len(chunks) >= 3
    times = [t for chunk in chunks for c, t in chunk if c == channels["/clock"]]
    assert len(times) > 1000
    assert times[0] <= 10_000_000 and all(b - a == 10_000_000 for a, b in zip(times[1:], times[2:]))
    if stop == "SIGKILL":
        assert code == -signal.SIGKILL
    else:
        assert code == 0, log.read_text()
        assert tail == 8  # nothing after the footer but the closing magic
        assert read_with_mcap(record)["/clock"][-1][0] == times[-1]


def test_an_unwritable_recording_path_is_one_line(tmp_path):
    target = tmp_path / "missing" / "run.mcap"
    result = subprocess.run(node_command(f"world_file:={WORLD}", "headless:=true", f"record:={target}"),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == [f"mvsim_node: cannot record to '{target}': No such file or directory"]


@pytest.fixture
def small_disk(tmp_path):
    """A folder on a 3 MiB file system of its own (tmpfs): writes past it fail with ENOSPC, as on a full disk."""
    folder = tmp_path / "small_disk"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small file system here: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def test_a_full_disk_ends_the_recording_not_the_run(tmp_path, small_disk):
    """A file system that fills up refuses the next write (ENOSPC): one error line, and the simulation goes on
    publishing."""
    target = small_disk / "run.mcap"
    proc, log = start_node(tmp_path, "realtime_factor:=0.0", f"record:={target}")
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "full_disk_probe")
    clocks = []
    probe.node.create_subscription(Clock, "/clock", clocks.append, RELIABLE)
    try:
        assert probe.wait_for(lambda: "No space left on device" in log.read_text(), 60), log.read_text()
        seen = len(clocks)
        assert probe.wait_for(lambda: len(clocks) > seen + 10, 30)
        assert proc.poll() is None
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_process(proc)
    errors = [line for line in log.read_text().splitlines() if f"recording to '{target}' stopped" in line]
    assert len(errors) == 1 and "[ERROR]" in errors[0]
