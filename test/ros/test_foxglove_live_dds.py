"""The node's topics live in Foxglove (`foxglove:=true`), checked with Foxglove's own client library.

test/foxglove/live_client.mjs (@foxglove/ws-protocol over `ws`, in Node) lists the channels, subscribes to /clock,
/r1/odom and /r1/scan, decodes them with @foxglove/rosmsg2-serialization and publishes a Twist on /r1/cmd_vel;
what it decodes is compared with what a DDS subscriber receives at the same stamps. A page of another origin is
refused.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import rclpy
from nav_msgs.msg import Odometry
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import LaserScan

from dds_probe import ProbeNode, node_command, stop_process  # (dds_probe: a per-run ROS_DOMAIN_ID)
from foxglove_support import served_port, skip_reason

REPO = Path(__file__).resolve().parents[2]
WORLD = REPO / "worlds" / "demo_2robots.world.xml"
FOXGLOVE = REPO / "test" / "foxglove"
ANY = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1000, reliability=ReliabilityPolicy.BEST_EFFORT)


def live_client(url: str, seconds: float, *origin: str) -> subprocess.Popen:
    return subprocess.Popen(["node", str(FOXGLOVE / "live_client.mjs"), url, str(seconds), *origin],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=FOXGLOVE)


def stamp_ns(stamp) -> int:
    return stamp.sec * 1_000_000_000 + stamp.nanosec


def test_foxglove_serves_the_topics_live_and_drives_r1(tmp_path):
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "foxglove_probe")
    dds: dict[str, dict[int, object]] = {"/clock": {}, "/r1/odom": {}, "/r1/scan": {}}
    for topic, msg_type in (("/clock", Clock), ("/r1/odom", Odometry), ("/r1/scan", LaserScan)):
        def keep(data, topic=topic, msg_type=msg_type):
            msg = deserialize_message(data, msg_type)
            dds[topic][stamp_ns(msg.clock if msg_type is Clock else msg.header.stamp)] = msg
        probe.node.create_subscription(msg_type, topic, keep, ANY, raw=True)
    log = tmp_path / "node.log"
    proc = subprocess.Popen(node_command(f"world_file:={WORLD}", "headless:=true", "foxglove:=true",
                                         "foxglove_port:=0"), stdout=log.open("wb"), stderr=subprocess.STDOUT)
    try:
        url = f"ws://127.0.0.1:{served_port(log, proc)}"
        client = live_client(url, 4.0)
        probe.wait_for(lambda: client.poll() is not None, timeout=150.0)
        probe.spin_for(0.5)
        out, err = client.communicate(timeout=10)
        assert client.returncode == 0, err
        found = json.loads(out)
        refused = live_client(url, 1.0, "http://evil.example")
        refused_out, refused_err = refused.communicate(timeout=30)
    finally:
        stop_process(proc)
        probe.node.destroy_node()
        rclpy.shutdown(context=context)

    assert not found["refused"]
    channels = {channel["topic"]: channel for channel in found["channels"]}
    for topic in ("/clock", "/r1/odom", "/r1/scan", "/r2/odom", "/r1/tf", "/r1/tf_static", "/simul_map"):
        assert channels[topic]["encoding"] == "cdr" and channels[topic]["schemaEncoding"] == "ros2msg", topic
    assert channels["/r1/odom"]["schemaName"] == "nav_msgs/msg/Odometry"
    assert int(found["serverTime"]) > 0

    topics = found["topics"]
    assert all(topics[topic]["count"] > 0 for topic in dds), {t: topics[t]["count"] for t in topics}
    last_clock = topics["/clock"]["last"]["clock"]
    assert last_clock["sec"] * 1_000_000_000 + last_clock["nanosec"] in dds["/clock"]

    odom = topics["/r1/odom"]["last"]
    stamp = odom["header"]["stamp"]
    same = dds["/r1/odom"][stamp["sec"] * 1_000_000_000 + stamp["nanosec"]]
    pose, twist = same.pose.pose, same.twist.twist
    assert odom["pose"]["pose"]["position"] == {"x": pose.position.x, "y": pose.position.y, "z": pose.position.z}
    assert odom["pose"]["pose"]["orientation"]["w"] == pose.orientation.w
    assert odom["twist"]["twist"]["linear"]["x"] == twist.linear.x
    assert odom["header"]["frame_id"] == same.header.frame_id and odom["child_frame_id"] == same.child_frame_id
    assert pose.position.x > 0.5  # driven by the Twist published from Foxglove

    scan = topics["/r1/scan"]["last"]
    stamp = scan["header"]["stamp"]
    same_scan = dds["/r1/scan"][stamp["sec"] * 1_000_000_000 + stamp["nanosec"]]
    assert scan["ranges"] == [float(r) for r in same_scan.ranges]

    assert json.loads(refused_out) == {"refused": True, "status": 403}, refused_err
