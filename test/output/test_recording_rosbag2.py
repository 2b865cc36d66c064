"""Recordings as rosbag2's MCAP storage plugin writes them: every channel offers its publisher's QoS in rosbag2's
YAML form (read back as rosbag2 and the `rosbags` library read it), carries its type hash, one channel per topic
name, and the `rosbag2` metadata record with the bag metadata rosbag2 writes. The Recorder alone, no node."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import yaml
from builtin_interfaces.msg import Time
from geometry_msgs.msg import Twist, TwistStamped
from rclpy.duration import Duration
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message, serialize_message
from std_msgs.msg import Bool, Header

import dds_probe  # noqa: F401  (a per-run ROS_DOMAIN_ID)
from mvsim_ros.output.recording.qos import (DEFAULT_QOS, INFINITE, LATCHED_QOS, QosDuration, RecordedQos,
                                            offered_qos_profiles)
from mvsim_ros.output.recording.recorder import Recorder
from mvsim_ros.output.recording.rosbag2_metadata import NO_START_NS, WHEELS_ROS_DISTRO
from mvsim_ros.output.recording.schemas import MessageDefinitions

#: The keys of one offered QoS profile, in the order rosbag2 writes them (rosbag2_storage qos.cpp).
QOS_KEYS = ["history", "depth", "reliability", "durability", "deadline", "lifespan", "liveliness",
            "liveliness_lease_duration", "avoid_ros_namespace_conventions"]
#: The keys of rosbag2's BagMetadata (rosbag2_storage yaml.hpp, version 9), in its order.
BAG_KEYS = ["version", "storage_identifier", "duration", "starting_time", "message_count", "topics_with_message_count",
            "compression_format", "compression_mode", "relative_file_paths", "files", "custom_data", "ros_distro"]


def summary_and_metadata(path: Path):
    from mcap.reader import make_reader

    with path.open("rb") as stream:
        reader = make_reader(stream)
        summary = reader.get_summary()
        records = [(m.name, dict(m.metadata)) for m in reader.iter_metadata()]
        messages = [(channel.topic, message.log_time, message.data) for _, channel, message in reader.iter_messages()]
    return summary, records, messages


def record_commands(path: Path, **recorder_options) -> Recorder:
    """A recording of a latched Bool, a best-effort Header (logged at its stamp, 0.75 s) and both command types on
    one topic (Twist watched first, as the node subscribes; TwistStamped received first), from 0.5 to 2 s, and an
    initial pose topic that receives nothing."""
    recorder = Recorder(path, **recorder_options)
    best_effort = QoSProfile(depth=5, reliability=ReliabilityPolicy.BEST_EFFORT)
    assert recorder.watch(1, "/r1/collision", "std_msgs/msg/Bool", qos=LATCHED_QOS)
    assert recorder.watch(2, "/stamps", "std_msgs/msg/Header", qos=RecordedQos.from_profile(best_effort))
    assert recorder.watch(3, "/r1/cmd_vel", "geometry_msgs/msg/Twist", stamped=False)
    assert recorder.watch(4, "/r1/cmd_vel", "geometry_msgs/msg/TwistStamped", stamped=False)
    assert recorder.watch(5, "/r1/initialpose", "geometry_msgs/msg/PoseWithCovarianceStamped", stamped=False)
    recorder.claim()
    stamped = TwistStamped()
    stamped.twist.linear.x = 0.25
    twist = Twist()
    twist.angular.z = -0.5
    recorder.record(1, serialize_message(Bool(data=True)), 0.5)
    recorder.record(2, serialize_message(Header(stamp=Time(sec=0, nanosec=750_000_000), frame_id="map")), 0.0)
    recorder.record(4, serialize_message(stamped), 1.0)
    recorder.record(3, serialize_message(twist), 1.5)
    recorder.record(4, serialize_message(stamped), 2.0)
    recorder.close()
    assert recorder.error is None and recorder.messages == 5
    return recorder


def test_every_channel_offers_its_publishers_qos_as_rosbag2_writes_it(tmp_path):
    path = tmp_path / "run.mcap"
    record_commands(path)
    summary, _, _ = summary_and_metadata(path)
    offered = {}
    for channel in summary.channels.values():
        profiles = yaml.safe_load(channel.metadata["offered_qos_profiles"])
        assert isinstance(profiles, list) and len(profiles) == 1, channel.topic
        assert list(profiles[0]) == QOS_KEYS, channel.topic
        offered[channel.topic] = profiles[0]
    infinite = {"sec": 9223372036, "nsec": 854775807}  # rmw's RMW_DURATION_INFINITE
    assert offered["/r1/collision"] == {
        "history": "keep_last", "depth": 1, "reliability": "reliable", "durability": "transient_local",
        "deadline": infinite, "lifespan": infinite, "liveliness": "automatic", "liveliness_lease_duration": infinite,
        "avoid_ros_namespace_conventions": False}
    assert offered["/stamps"]["reliability"] == "best_effort" and offered["/stamps"]["depth"] == 5
    assert offered["/r1/cmd_vel"]["durability"] == "volatile" and offered["/r1/cmd_vel"]["depth"] == 10
    # The `rosbags` library reads the same profiles (the way rosbag2 parses them: policy names, {sec, nsec}).
    from rosbags.rosbag2 import Reader

    with Reader(path) as reader:
        read = {c.topic: c.ext.offered_qos_profiles for c in reader.connections}
    assert read["/r1/collision"][0].durability.name == "TRANSIENT_LOCAL"
    assert read["/stamps"][0].reliability.name == "BEST_EFFORT"
    assert read["/r1/collision"][0].deadline.sec == 9223372036 and read["/r1/collision"][0].depth == 1


def test_each_channel_carries_its_types_hash_from_the_installed_description(tmp_path):
    path = tmp_path / "run.mcap"
    record_commands(path)
    summary, _, _ = summary_and_metadata(path)
    share = Path(sys.prefix) / "share"
    for channel in summary.channels.values():
        type_name = summary.schemas[channel.schema_id].name
        package, _, message = type_name.partition("/msg/")
        hashes = json.loads((share / package / "msg" / f"{message}.json").read_text())["type_hashes"]
        assert channel.metadata["topic_type_hash"] == hashes[0]["hash_string"], channel.topic
        assert re.fullmatch(r"RIHS01_[0-9a-f]{64}", channel.metadata["topic_type_hash"])
    assert MessageDefinitions().type_hash("no_such_msgs/msg/Thing") == ""


def test_a_topic_belongs_to_the_type_received_first_and_another_type_has_its_own_name(tmp_path):
    path = tmp_path / "run.mcap"
    recorder = record_commands(path)
    summary, _, messages = summary_and_metadata(path)
    topics = [c.topic for c in summary.channels.values()]
    assert len(topics) == len(set(topics))
    types = {c.topic: summary.schemas[c.schema_id].name for c in summary.channels.values()}
    assert types["/r1/cmd_vel"] == "geometry_msgs/msg/TwistStamped"
    assert types["/r1/cmd_vel/Twist"] == "geometry_msgs/msg/Twist"
    by_topic = {}
    for topic, log_time, data in messages:
        by_topic.setdefault(topic, []).append((log_time, data))
    assert [(t, deserialize_message(d, TwistStamped).twist.linear.x) for t, d in by_topic["/r1/cmd_vel"]] \
        == [(1_000_000_000, 0.25), (2_000_000_000, 0.25)]
    assert [(t, deserialize_message(d, Twist).angular.z) for t, d in by_topic["/r1/cmd_vel/Twist"]] \
        == [(1_500_000_000, -0.5)]
    assert {(c.topic, c.requested_topic) for c in recorder.channels} >= {("/r1/cmd_vel/Twist", "/r1/cmd_vel")}
    # A received topic that got nothing is listed all the same, with the type watched on it.
    assert types["/r1/initialpose"] == "geometry_msgs/msg/PoseWithCovarianceStamped"
    assert summary.statistics.channel_message_counts.get(
        next(c.id for c in summary.channels.values() if c.topic == "/r1/initialpose"), 0) == 0


def test_a_topic_that_received_nothing_is_listed_with_the_first_type_watched(tmp_path):
    path = tmp_path / "quiet.mcap"
    recorder = Recorder(path, topics=["/r1/*"])
    assert recorder.watch(1, "/r1/cmd_vel", "geometry_msgs/msg/Twist", stamped=False)
    assert recorder.watch(2, "/r1/cmd_vel", "geometry_msgs/msg/TwistStamped", stamped=False)
    assert not recorder.watch(3, "/r2/cmd_vel", "geometry_msgs/msg/Twist", stamped=False)  # not recorded
    recorder.claim()
    recorder.record(3, serialize_message(Twist()), 1.0)
    recorder.close()
    summary, _, _ = summary_and_metadata(path)
    assert [(c.topic, summary.schemas[c.schema_id].name) for c in summary.channels.values()] \
        == [("/r1/cmd_vel", "geometry_msgs/msg/Twist")]


def test_the_rosbag2_metadata_record_holds_the_bag_metadata_rosbag2_writes(tmp_path, monkeypatch):
    monkeypatch.delenv("ROS_DISTRO", raising=False)
    path = tmp_path / "run.mcap"
    record_commands(path)
    summary, records, _ = summary_and_metadata(path)
    bags = [data for name, data in records if name == "rosbag2"]
    assert len(bags) == 2  # when the bag opens, and when it closes (rosbag2's reader takes the last)
    for data in bags:
        assert sorted(data) == ["ROS_DISTRO", "serialized_metadata"] and data["ROS_DISTRO"] == WHEELS_ROS_DISTRO
    opening, closing = (yaml.safe_load(data["serialized_metadata"]) for data in bags)
    assert list(opening) == list(closing) == BAG_KEYS
    assert opening["topics_with_message_count"] == [] and opening["message_count"] == 0
    assert opening["starting_time"] == {"nanoseconds_since_epoch": NO_START_NS}
    assert closing["version"] == 9 and closing["storage_identifier"] == "mcap" and closing["ros_distro"] == "kilted"
    assert closing["message_count"] == summary.statistics.message_count == 5 and len(summary.channels) == 5
    assert closing["starting_time"] == {"nanoseconds_since_epoch": 500_000_000}
    assert closing["duration"] == {"nanoseconds": 1_500_000_000}
    assert closing["relative_file_paths"] == ["run.mcap"]
    assert closing["files"] == [{"path": "run.mcap", "starting_time": {"nanoseconds_since_epoch": 500_000_000},
                                 "duration": {"nanoseconds": 1_500_000_000}, "message_count": 5}]
    assert closing["compression_format"] == closing["compression_mode"] == "" and closing["custom_data"] == {}
    counts = {c.topic: summary.statistics.channel_message_counts[c.id] for c in summary.channels.values()}
    listed = {t["topic_metadata"]["name"]: t for t in closing["topics_with_message_count"]}
    assert {name: t["message_count"] for name, t in listed.items()} == counts
    for channel in summary.channels.values():
        topic = listed[channel.topic]["topic_metadata"]
        assert list(topic) == ["name", "type", "serialization_format", "offered_qos_profiles",
                               "type_description_hash"]
        assert topic["type"] == summary.schemas[channel.schema_id].name and topic["serialization_format"] == "cdr"
        assert topic["offered_qos_profiles"] == yaml.safe_load(channel.metadata["offered_qos_profiles"])
        assert topic["type_description_hash"] == channel.metadata["topic_type_hash"]


def test_the_distribution_is_the_environments_when_set(tmp_path, monkeypatch):
    monkeypatch.setenv("ROS_DISTRO", "jazzy")
    path = tmp_path / "run.mcap"
    record_commands(path)
    _, records, _ = summary_and_metadata(path)
    closing = dict(records)["rosbag2"]
    assert closing["ROS_DISTRO"] == "jazzy" and yaml.safe_load(closing["serialized_metadata"])["ros_distro"] == "jazzy"


def test_the_qos_written_is_what_the_ros_graph_reports_the_publisher_offers():
    """What `ros2 bag record` writes comes from the graph's report of each publisher's offer: its reliability,
    durability and durations are what RecordedQos.from_profile gives for the publisher's own profile."""
    import rclpy

    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        node = rclpy.create_node("qos_probe", context=context)
        profiles = {"/probe_latched": QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL),
                    "/probe_best_effort": QoSProfile(depth=3, reliability=ReliabilityPolicy.BEST_EFFORT),
                    "/probe_deadline": QoSProfile(depth=10, deadline=Duration(seconds=1, nanoseconds=500_000_000))}
        publishers = {topic: node.create_publisher(Header, topic, qos) for topic, qos in profiles.items()}
        for topic, publisher in publishers.items():
            info = node.get_publishers_info_by_topic(topic)
            assert len(info) == 1
            reported, ours = info[0].qos_profile, RecordedQos.from_profile(publisher.qos_profile)
            assert (ours.reliability, ours.durability) == (reported.reliability.short_key,
                                                           reported.durability.short_key), topic
            for field in ("deadline", "lifespan", "liveliness_lease_duration"):
                assert getattr(ours, field) == QosDuration.from_nanoseconds(getattr(reported, field).nanoseconds)
            assert MessageDefinitions().type_hash("std_msgs/msg/Header") == str(info[0].topic_type_hash)
        assert RecordedQos.from_profile(publishers["/probe_deadline"].qos_profile).deadline == QosDuration(1, 5 * 10**8)
        node.destroy_node()
    finally:
        rclpy.shutdown(context=context)


def test_a_recorded_qos_takes_only_what_rmw_names():
    assert DEFAULT_QOS == RecordedQos("reliable", "volatile", "keep_last", 10)
    assert LATCHED_QOS.durability == "transient_local" and LATCHED_QOS.deadline == INFINITE
    assert QosDuration.from_nanoseconds(0) == INFINITE and QosDuration.from_nanoseconds(2**63 - 1) == INFINITE
    for bad in ({"durability": "latched"}, {"reliability": "RELIABLE"}, {"depth": -1}, {"depth": True}):
        with pytest.raises(ValueError):
            RecordedQos(**bad)
    assert offered_qos_profiles([DEFAULT_QOS]).startswith("- history: keep_last\n  depth: 10\n")
