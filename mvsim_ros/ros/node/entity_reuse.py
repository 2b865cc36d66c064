"""Publishers and subscriptions handed from a session being replaced to the one replacing it.

Spawning or deleting an entity builds a new SimSession on the edited Simulation. Destroying every DDS writer and
reader of the old session and creating them again would make each subscriber of every topic (/clock first) wait
for discovery to match the new writer — seconds under load, during which nothing arrives — and would cost
milliseconds per entity. Instead the old session parks its publishers and subscriptions here; the new session's
`create_publisher` / `create_subscription` calls take a parked one of the same message type, resolved topic
name and QoS (a subscription gets the new callback), so only the topics of the entity that came or went are
created or destroyed. `release()` destroys what the new session did not take.
"""

from __future__ import annotations

from typing import Any, Callable

from rclpy.node import Node
from rclpy.qos import QoSProfile

from mvsim_ros.ros.inputs.twin_participant import TwinParticipant


class EntityReuse:
    """Parked publishers and subscriptions of `node`, by (message type, resolved topic name), each with its QoS."""

    def __init__(self, node: Node):
        self._node = node
        self._publishers: dict[tuple, list[tuple[QoSProfile, Any]]] = {}
        self._subscriptions: dict[tuple, list[tuple[QoSProfile, Any]]] = {}
        #: Entities handed out since the last `taken()`: they belong to the session being built.
        self._taken: list[Any] = []
        self._twin: TwinParticipant | None = None

    def twin(self) -> TwinParticipant:
        """The node's second participant (ros/inputs/twin_participant.py), created on first use and kept across
        sessions; its subscriptions are parked and taken over like the node's."""
        if self._twin is None:
            self._twin = TwinParticipant(self._node)
        return self._twin

    @property
    def parked(self) -> int:
        """How many publishers and subscriptions wait to be taken."""
        return sum(len(v) for v in self._publishers.values()) + sum(len(v) for v in self._subscriptions.values())

    def park(self, entities: list[Any]) -> None:
        """Keep these publishers and subscriptions for the next session (other entities are ignored)."""
        for entity in entities:
            kind = type(entity).__name__
            table = self._publishers if kind == "Publisher" else self._subscriptions if kind == "Subscription" \
                else None
            if table is not None:
                table.setdefault((entity.msg_type, entity.topic_name), []).append((entity.qos_profile, entity))

    def take_publisher(self, msg_type, topic: str, qos: QoSProfile | int) -> Any | None:
        """A parked publisher of `msg_type` on `topic` (resolved as the node resolves it) with an equal QoS (a
        depth stands for a keep-last profile of that depth, as rclpy reads it), or None."""
        return self._take(self._publishers, msg_type, topic, qos)

    def take_subscription(self, msg_type, topic: str, qos: QoSProfile | int, callback: Callable) -> Any | None:
        """A parked subscription like `take_publisher`, now calling `callback`; or None."""
        subscription = self._take(self._subscriptions, msg_type, topic, qos)
        if subscription is not None:
            subscription.callback = callback
        return subscription

    def taken(self) -> list[Any]:
        """The entities handed out since the last call (and forget them)."""
        out, self._taken = self._taken, []
        return out

    def release(self) -> None:
        """Destroy every parked entity that no session took (the second participant's too)."""
        if self._twin is not None:
            self._twin.release_parked()
        for table, destroy in ((self._publishers, self._node.destroy_publisher),
                               (self._subscriptions, self._node.destroy_subscription)):
            for entries in table.values():
                for _qos, entity in entries:
                    destroy(entity)
            table.clear()

    def close(self) -> None:
        """Destroy the parked entities and end the second participant."""
        self.release()
        if self._twin is not None:
            self._twin.destroy()

    def _take(self, table: dict, msg_type, topic: str, qos: QoSProfile | int) -> Any | None:
        if not table:
            return None
        if isinstance(qos, int) and not isinstance(qos, bool):
            qos = QoSProfile(depth=qos)
        try:
            resolved = self._node.resolve_topic_name(topic)
        except Exception:  # noqa: BLE001 (an invalid name: creating the entity will say what is wrong)
            return None
        entries = table.get((msg_type, resolved))
        if not entries:
            return None
        for k, (parked_qos, entity) in enumerate(entries):
            if parked_qos == qos:
                del entries[k]
                self._taken.append(entity)
                return entity
        return None


__all__ = ["EntityReuse"]
