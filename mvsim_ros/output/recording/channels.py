"""The channels of a recording: one per topic name, as rosbag2 writes them.

rosbag2 records one channel per topic name (rosbag2_storage_mcap's `create_topic` keys channels by topic; its
recorder refuses a topic that carries more than one type, and its player publishes every message of a topic
through the type of the topic's one channel). A topic here belongs to the first type recorded on it (the
recorder makes a received topic's channel at its first message); another type on the same topic (the node takes
both geometry_msgs/Twist and TwistStamped on `<veh>/cmd_vel`) is recorded on `<topic>/<Type>`, e.g.
`/r1/cmd_vel/TwistStamped` (`<topic>/<pkg>_<Type>` if that name belongs to yet another type, then a number): its
own channel and schema, never mixed into the owner's.

Each channel carries rosbag2's metadata: `offered_qos_profiles` (qos.py) and `topic_type_hash` (the type's
description hash, '' when the installed messages give none, as rosbag2 writes it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from mvsim_ros.output.recording.qos import RecordedQos, offered_qos_profiles
from mvsim_ros.output.recording.schemas import MessageDefinitions


@dataclass
class RecordedSchema:
    """A message type's schema: its name ('pkg/msg/Type'), ros2msg text, stamp rule (schemas.py) and id in the
    file (0 until written)."""

    name: str
    text: bytes
    stamp_rule: int
    id: int = 0


@dataclass(frozen=True)
class RecordedChannel:
    """A channel of the file: its id, `topic` (its name in the file), `requested_topic` (the topic it was recorded
    from: the same, or the topic another type owns), schema, offered QoS and type hash."""

    id: int
    topic: str
    requested_topic: str
    schema: RecordedSchema
    qos: RecordedQos
    type_hash: str

    @property
    def type_name(self) -> str:
        """The message type, 'pkg/msg/Type'."""
        return self.schema.name

    def metadata(self) -> dict[str, str]:
        """The channel's metadata as rosbag2 writes it."""
        return {"offered_qos_profiles": offered_qos_profiles([self.qos]), "topic_type_hash": self.type_hash}


def topic_names(topic: str, type_name: str) -> Iterator[str]:
    """The names a message of `type_name` on `topic` may be recorded under, in order of preference."""
    package, _, message = type_name.replace("/msg/", "/").partition("/")
    yield topic
    yield f"{topic}/{message or package}"
    yield f"{topic}/{package}_{message}"
    number = 2
    while True:
        yield f"{topic}/{package}_{message}_{number}"
        number += 1


class ChannelTable:
    """The channels and schemas of one recording, by topic name (one channel per name)."""

    def __init__(self, definitions: MessageDefinitions):
        self.definitions = definitions
        self._schemas: dict[str, RecordedSchema] = {}
        self._by_topic: dict[str, RecordedChannel] = {}
        self._by_request: dict[tuple[str, str], RecordedChannel] = {}

    def schema(self, type_name: str) -> RecordedSchema:
        """The schema of `type_name` (read once); SchemaNotFound when its definition cannot be found."""
        schema = self._schemas.get(type_name)
        if schema is None:
            schema = RecordedSchema(type_name, self.definitions.schema(type_name).encode(),
                                    self.definitions.stamp_rule(type_name))
            self._schemas[type_name] = schema
        return schema

    def find(self, topic: str, type_name: str) -> RecordedChannel | None:
        """The channel of `type_name` recorded from `topic`, if there is one."""
        return self._by_request.get((topic, type_name))

    def add(self, topic: str, type_name: str, qos: RecordedQos) -> RecordedChannel:
        """A new channel for `type_name` recorded from `topic` (numbered in the order of creation), named `topic`
        unless another type owns that name. SchemaNotFound when the type's definition cannot be found."""
        schema = self.schema(type_name)
        name = next(n for n in topic_names(topic, type_name)
                    if n not in self._by_topic or self._by_topic[n].type_name == type_name)
        channel = self._by_topic.get(name)
        if channel is None:
            channel = RecordedChannel(len(self._by_topic) + 1, name, topic, schema, qos,
                                      self.definitions.type_hash(type_name))
            self._by_topic[name] = channel
        self._by_request[(topic, type_name)] = channel
        return channel

    def __iter__(self) -> Iterator[RecordedChannel]:
        return iter(self._by_topic.values())

    def __len__(self) -> int:
        return len(self._by_topic)
