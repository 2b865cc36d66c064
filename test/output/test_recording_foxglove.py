"""A recorded run read by Foxglove's own libraries (@mcap/core's indexed and stream readers, @foxglove/rosmsg and
@foxglove/rosmsg2-serialization, run by Node from test/foxglove/): every channel offers its QoS as rosbag2 writes
it, the latched topics transient-local; one channel per topic; the `rosbag2` metadata record; every message
decoded by both readers, in order, log time = stamp, the values rclpy decodes."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from nav_msgs.msg import Odometry
from rclpy.serialization import deserialize_message

from mvsim_ros.ros.record_run import record_run

REPO = Path(__file__).resolve().parents[2]
WORLD = REPO / "worlds" / "demo_2robots.world.xml"
FOXGLOVE = REPO / "test" / "foxglove"
#: The keys rosbag2 writes in one offered QoS profile (rosbag2_storage qos.cpp), in its order.
QOS_KEYS = ["history", "depth", "reliability", "durability", "deadline", "lifespan", "liveliness",
            "liveliness_lease_duration", "avoid_ros_namespace_conventions"]
#: Topics published latched (transient local) by the node in the demo world.
LATCHED = ("/r1/tf_static", "/r2/tf_static", "/simul_map", "/simul_map_metadata", "/r1/collision",
           "/r1/chassis_polygon")


def foxglove_skip_reason() -> str | None:
    if shutil.which("node") is None:
        return "node (Node.js) is not installed (run tools/setup_env.sh)"
    if not (FOXGLOVE / "node_modules" / "@mcap" / "core").is_dir():
        return "Foxglove's libraries are not installed in test/foxglove/node_modules (run tools/setup_env.sh)"
    return None


def read_with_foxglove(path: Path, *topics: str) -> dict:
    """What test/foxglove/read_recording.mjs finds in `path` (the last decoded message of each of `topics`)."""
    result = subprocess.run(["node", str(FOXGLOVE / "read_recording.mjs"), str(path), *topics], capture_output=True,
                            text=True, timeout=300, cwd=FOXGLOVE)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def recording(tmp_path_factory) -> tuple[Path, dict]:
    reason = foxglove_skip_reason()
    if reason:
        pytest.skip(reason)
    path = tmp_path_factory.mktemp("foxglove") / "run.mcap"
    run = record_run(WORLD, path, 3.0, twists={"r1": (0.5, 0.3)})
    assert run.messages > 0
    return path, read_with_foxglove(path, "/r1/odom")


def test_every_channel_offers_its_qos_and_the_latched_ones_are_transient_local(recording):
    _, found = recording
    assert found["header"]["profile"] == "ros2" and found["done"]
    offered = {}
    for channel in found["channels"]:
        assert channel["messageEncoding"] == "cdr" and channel["schemaEncoding"] == "ros2msg", channel
        assert "offered_qos_profiles" in channel["metadata"], channel["topic"]
        profiles = yaml.safe_load(channel["metadata"]["offered_qos_profiles"])
        assert isinstance(profiles, list) and len(profiles) == 1 and list(profiles[0]) == QOS_KEYS, channel["topic"]
        offered[channel["topic"]] = profiles[0]
        assert channel["metadata"]["topic_type_hash"].startswith("RIHS01_"), channel["topic"]
    for topic in LATCHED:
        assert offered[topic]["durability"] == "transient_local" and offered[topic]["reliability"] == "reliable", topic
    for topic in ("/clock", "/r1/odom", "/r2/scan", "/r1/tf"):
        assert offered[topic]["durability"] == "volatile", topic


def test_one_channel_per_topic_and_the_rosbag2_record(recording):
    _, found = recording
    topics = [channel["topic"] for channel in found["channels"]]
    assert len(topics) == len(set(topics)) and sorted(found["streamChannelTopics"]) == sorted(topics)
    assert "/r1/cmd_vel" in topics  # the commands' topic exists from the start, as its Twist (the first type)
    bags = [record["metadata"] for record in found["metadata"] if record["name"] == "rosbag2"]
    assert bags and bags == [r["metadata"] for r in found["streamMetadata"] if r["name"] == "rosbag2"]
    for data in bags:
        assert {"serialized_metadata", "ROS_DISTRO"} <= set(data)
    last = yaml.safe_load(bags[-1]["serialized_metadata"])
    assert last["version"] == 9 and last["storage_identifier"] == "mcap"
    assert last["ros_distro"] == bags[-1]["ROS_DISTRO"]
    assert last["message_count"] == found["messageCount"]
    assert sorted(t["topic_metadata"]["name"] for t in last["topics_with_message_count"]) == sorted(topics)


def test_every_message_is_decoded_in_order_at_its_stamp(recording):
    path, found = recording
    for reader in ("indexed", "stream"):
        result = found[reader]
        assert result["decodeErrors"] == [] and result["stampMismatches"] == {}, reader
        assert result["ordered"], reader
        assert sum(result["messages"].values()) == found["messageCount"], reader
    assert found["indexed"]["messages"] == found["stream"]["messages"]
    # The values Foxglove decodes are rclpy's.
    from mcap.reader import make_reader

    with path.open("rb") as stream:
        last = [m.data for _, _, m in make_reader(stream).iter_messages(topics=["/r1/odom"])][-1]
    odom = deserialize_message(last, Odometry)
    decoded = found["indexed"]["last"]["/r1/odom"]
    assert decoded["header"]["stamp"] == {"sec": odom.header.stamp.sec, "nanosec": odom.header.stamp.nanosec}
    assert decoded["pose"]["pose"]["position"]["x"] == odom.pose.pose.position.x
    assert decoded["twist"]["twist"]["angular"]["z"] == odom.twist.twist.angular.z
    assert abs(odom.pose.pose.position.x) + abs(odom.pose.pose.position.y) > 0.1  # r1 drove its command
