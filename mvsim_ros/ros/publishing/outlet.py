"""Outlets: the one way every publisher of the node publishes, and where a run's recording hears it.

An `Outlet` holds one rclpy publisher (or a stand-in with a `publish` method, in tests) and, when the node records
the run and the recording keeps its topic, the recording's `record` function. Publishing a message through it
publishes the message; publishing it while recorded serializes it once, publishes those bytes and hands the same
bytes to the recording (what a subscriber receives, byte for byte). Messages that the compiled fast path and the
batch publishers deliver straight through rcl are recorded on their way by the recording tee
(output/recording/tee.c), which knows the outlet's rcl handle from the moment its topic was tapped.

`Outlets` makes a node's outlets: the node's `create_publisher` (which may hand over a parked publisher of a
replaced session, ros/node/entity_reuse.py), then the recording's tap (ros/node/recording.py) when one is given.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from rclpy.serialization import serialize_message

#: Records the serialized bytes of one message published on an outlet (at the simulation's current time).
RecordBytes = Callable[[bytes], None]


class PublisherTap(Protocol):
    """What a recording offers the outlets: called once per new publisher, it returns the function recording the
    bytes published on it, or None when its topic is not recorded."""

    def __call__(self, publisher: Any, msg_type: type) -> RecordBytes | None: ...


class Outlet:
    """One topic's way out: `publisher` (an rclpy Publisher, or a stand-in with `publish`) and `record` (the
    recording's function for the bytes published, None when the topic is not recorded)."""

    def __init__(self, publisher: Any, record: RecordBytes | None = None):
        self.publisher = publisher
        self._record = record
        handle = getattr(publisher, "handle", None)
        self._send_serialized: Callable[[bytes], None] | None = getattr(handle, "publish_raw", None)
        #: Address of the publisher's rcl handle (for publishing from compiled code), None when it has none.
        self.handle_address: int | None = getattr(handle, "pointer", None)

    @property
    def recorded(self) -> bool:
        """Whether the run's recording keeps what is published here."""
        return self._record is not None

    @property
    def takes_serialized(self) -> bool:
        """Whether `publish_serialized` can be used (an rclpy publisher, not a stand-in)."""
        return self._send_serialized is not None

    @property
    def topic_name(self) -> str:
        """The publisher's resolved topic name."""
        return self.publisher.topic_name

    def publish(self, msg: Any) -> None:
        """Publish `msg` (a message of the publisher's type); recorded when the topic is."""
        if self._record is None:
            self.publisher.publish(msg)
        else:
            self.publish_serialized(serialize_message(msg))

    def publish_serialized(self, data: bytes) -> None:
        """Publish a message serialized as the middleware carries it (CDR bytes); recorded when the topic is."""
        self._send_serialized(data)
        if self._record is not None:
            self._record(data)

    def listened(self) -> bool:
        """Whether a message published here reaches anyone: a matched subscription, or the recording. A publisher
        that cannot count its subscriptions is taken as listened to."""
        count = getattr(self.publisher, "get_subscription_count", None)
        return self._record is not None or count is None or count() > 0


class Outlets:
    """Makes the outlets of `node`: its publishers, each tapped by `tap` (the run's recording) when one is given."""

    def __init__(self, node: Any, tap: PublisherTap | None = None):
        self.node = node
        self.tap = tap

    def create(self, msg_type: type, topic: str, qos_profile: Any) -> Outlet:
        """An outlet publishing `msg_type` on `topic` (relative to the node's namespace unless absolute) with this
        QoS profile (or depth)."""
        publisher = self.node.create_publisher(msg_type, topic, qos_profile)
        return Outlet(publisher, self.tap(publisher, msg_type) if self.tap is not None else None)


__all__ = ["Outlet", "Outlets", "PublisherTap", "RecordBytes"]
