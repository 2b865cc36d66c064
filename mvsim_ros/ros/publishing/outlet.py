"""Outlets: the one way every publisher of the node publishes, and where a run's recording and the Foxglove server
hear it.

An `Outlet` holds one rclpy publisher (or a stand-in with a `publish` method, in tests) and, when a tap (the run's
recording, the Foxglove server) takes its topic, that tap's `TopicTap`: the function taking the bytes published and
whether the tap wants them at this moment, and whether this message is due for it (Foxglove's rate limit).
Publishing a message through it publishes the message; publishing it while a tap wants it and it is due serializes
it once, publishes those bytes and hands the same bytes to the tap (what a subscriber receives, byte for byte). A
tap that wants nothing at the moment (a Foxglove channel no client subscribed to), or a message that is not due,
costs no serialization: the outlet then publishes as an untapped one does. Messages that the compiled fast path
and the batch publishers deliver straight through rcl are recorded on their way by the recording tee
(output/recording/tee.c), which knows the outlet's rcl handle from the moment its topic was tapped.

`Outlets` makes a node's outlets: the node's `create_publisher` (which may hand over a parked publisher of a
replaced session, ros/node/entity_reuse.py), then the tap (ros/node/recording.py, ros/foxglove/) when one is given.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Protocol

from rclpy.serialization import serialize_message

#: Records the serialized bytes of one message published on an outlet (at the simulation's current time).
RecordBytes = Callable[[bytes], None]


def always_wanted() -> bool:
    """A tap that wants every message (a running recording)."""
    return True


def _never() -> bool:
    return False


def every_message_due() -> bool:
    """A tap that takes every message it wants (no rate limit)."""
    return True


class TopicTap(NamedTuple):
    """A tap's hold on one publisher: `send(data)` takes the serialized bytes published there, `wanted()` says
    whether the tap listens at this moment (a recording: always; Foxglove: while a client subscribes), `due()`
    whether it takes the next message (Foxglove: within its rate limit; asking changes nothing, `send` does). The
    bytes are sent only while both hold."""

    send: RecordBytes
    wanted: Callable[[], bool] = always_wanted
    due: Callable[[], bool] = every_message_due

    def __call__(self, data: bytes) -> None:
        """Hand `data` to the tap (as a bare RecordBytes function)."""
        self.send(data)


def topic_tap(tapped: RecordBytes | TopicTap | None) -> TopicTap | None:
    """What a PublisherTap returned, as a TopicTap (a bare function is always wanted); None stays None."""
    if tapped is None or isinstance(tapped, TopicTap):
        return tapped
    return TopicTap(tapped)


class PublisherTap(Protocol):
    """What a recording or the Foxglove server offers the outlets: called once per new publisher, it returns the
    function taking the bytes published on it (always wanted) or a TopicTap, or None when it does not take the
    topic."""

    def __call__(self, publisher: Any, msg_type: type) -> RecordBytes | TopicTap | None: ...


class Outlet:
    """One topic's way out: `publisher` (an rclpy Publisher, or a stand-in with `publish`) and `record` (the tap's
    function for the bytes published, or its TopicTap; None when no tap takes the topic)."""

    def __init__(self, publisher: Any, record: RecordBytes | TopicTap | None = None):
        self.publisher = publisher
        tap = topic_tap(record)
        self._record: RecordBytes | None = tap.send if tap is not None else None
        self._wanted: Callable[[], bool] = tap.wanted if tap is not None else _never
        self._due: Callable[[], bool] = tap.due if tap is not None else _never
        handle = getattr(publisher, "handle", None)
        self._send_serialized: Callable[[bytes], None] | None = getattr(handle, "publish_raw", None)
        #: Address of the publisher's rcl handle (for publishing from compiled code), None when it has none.
        self.handle_address: int | None = getattr(handle, "pointer", None)

    @property
    def recorded(self) -> bool:
        """Whether a tap (the run's recording, the Foxglove server) takes the topic published here."""
        return self._record is not None

    def tap_wanted(self) -> bool:
        """Whether a tap wants what is published here at this moment (the recording; a subscribed Foxglove
        client)."""
        return self._wanted()

    def _taking(self) -> bool:
        """Whether a tap takes the next message published here: it wants it and the message is due."""
        return self._wanted() and self._due()

    @property
    def takes_serialized(self) -> bool:
        """Whether `publish_serialized` can be used (an rclpy publisher, not a stand-in)."""
        return self._send_serialized is not None

    @property
    def topic_name(self) -> str:
        """The publisher's resolved topic name."""
        return self.publisher.topic_name

    def publish(self, msg: Any) -> None:
        """Publish `msg` (a message of the publisher's type); serialized once and handed to the tap when it takes
        it (wanted and due), else published as is."""
        if not self._taking():
            self.publisher.publish(msg)
        else:
            data = serialize_message(msg)
            self._send_serialized(data)
            self._record(data)

    def publish_serialized(self, data: bytes) -> None:
        """Publish a message serialized as the middleware carries it (CDR bytes); handed to the tap when it takes
        it (wanted and due)."""
        self._send_serialized(data)
        if self._taking():
            self._record(data)

    def listened(self) -> bool:
        """Whether a message published here reaches anyone: a matched subscription, or a tap that wants it (the
        recording; a Foxglove client subscribed to the topic). A publisher that cannot count its subscriptions is
        taken as listened to."""
        count = getattr(self.publisher, "get_subscription_count", None)
        return self._wanted() or count is None or count() > 0


class Outlets:
    """Makes the outlets of `node`: its publishers, each tapped by `tap` (the run's recording, the Foxglove server)
    when one is given."""

    def __init__(self, node: Any, tap: PublisherTap | None = None):
        self.node = node
        self.tap = tap

    def create(self, msg_type: type, topic: str, qos_profile: Any) -> Outlet:
        """An outlet publishing `msg_type` on `topic` (relative to the node's namespace unless absolute) with this
        QoS profile (or depth)."""
        publisher = self.node.create_publisher(msg_type, topic, qos_profile)
        return Outlet(publisher, self.tap(publisher, msg_type) if self.tap is not None else None)


__all__ = ["Outlet", "Outlets", "PublisherTap", "RecordBytes", "TopicTap", "always_wanted", "every_message_due",
           "topic_tap"]
