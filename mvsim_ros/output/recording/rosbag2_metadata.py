"""The `rosbag2` metadata record of a recording, as rosbag2's MCAP storage plugin writes it.

rosbag2 (Jazzy, Kilted: rosbag2_storage_mcap/src/mcap_storage.cpp, `update_metadata`) writes an MCAP Metadata
record named `rosbag2` whose key `serialized_metadata` holds the bag's metadata as YAML (`YAML::convert<BagMetadata>`
in rosbag2_storage/include/rosbag2_storage/yaml.hpp, metadata version 9): once when the bag opens (no topics yet,
starting time the largest nanosecond count) and again when it closes (topics with their message counts, start,
duration). Its reader takes the last such record. Humble's plugin wrote the key `ROS_DISTRO` instead, and later
readers still read it: both keys are written here.

The distribution is $ROS_DISTRO when set (as rosbag2 reads it), else the one this package's ROS 2 wheels come from
(WHEELS_ROS_DISTRO, requirements.txt).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Iterable

from mvsim_ros.output.recording.qos import RecordedQos
from mvsim_ros.output.recording.rosbag2_yaml import dump

#: The Metadata record's name and rosbag2's bag metadata version (Jazzy and Kilted write 9).
RECORD_NAME = "rosbag2"
BAG_METADATA_VERSION = 9
#: The ROS 2 distribution of the wheels requirements.txt pins.
WHEELS_ROS_DISTRO = "kilted"
#: rosbag2's starting time of a bag holding no message yet (std::chrono::nanoseconds::max()).
NO_START_NS = (1 << 63) - 1


def ros_distro() -> str:
    """$ROS_DISTRO when set, else WHEELS_ROS_DISTRO."""
    return os.environ.get("ROS_DISTRO", "").strip() or WHEELS_ROS_DISTRO


@dataclass(frozen=True)
class TopicSummary:
    """One topic of the bag metadata: name, type ('pkg/msg/Type'), offered QoS profiles, type hash ('' when
    unknown) and the messages recorded on it."""

    name: str
    type_name: str
    offered_qos_profiles: tuple[RecordedQos, ...]
    type_hash: str
    message_count: int


def bag_metadata(file_name: str, topics: Iterable[TopicSummary], start_ns: int, end_ns: int, message_count: int,
                 distro: str, custom_data: dict[str, str] | None = None) -> dict[str, Any]:
    """rosbag2's BagMetadata of a one-file MCAP bag `file_name` (its name, no folder) whose messages span log times
    [start_ns, end_ns] [ns] (no message: start NO_START_NS, duration 0)."""
    start = start_ns if message_count else NO_START_NS
    duration = max(0, end_ns - start_ns) if message_count else 0
    return {
        "version": BAG_METADATA_VERSION,
        "storage_identifier": "mcap",
        "duration": {"nanoseconds": duration},
        "starting_time": {"nanoseconds_since_epoch": start},
        "message_count": message_count,
        "topics_with_message_count": [
            {"topic_metadata": {"name": topic.name, "type": topic.type_name, "serialization_format": "cdr",
                                "offered_qos_profiles": [qos.as_dict() for qos in topic.offered_qos_profiles],
                                "type_description_hash": topic.type_hash},
             "message_count": topic.message_count}
            for topic in topics],
        "compression_format": "",
        "compression_mode": "",
        "relative_file_paths": [file_name],
        "files": [{"path": file_name, "starting_time": {"nanoseconds_since_epoch": start},
                   "duration": {"nanoseconds": duration}, "message_count": message_count}],
        "custom_data": dict(custom_data or {}),
        "ros_distro": distro,
    }


def metadata_record(metadata: dict[str, Any]) -> dict[str, str]:
    """The string pairs of the `rosbag2` Metadata record holding `metadata` (bag_metadata)."""
    return {"serialized_metadata": dump(metadata), "ROS_DISTRO": str(metadata["ros_distro"])}
