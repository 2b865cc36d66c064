"""Subscriptions to a topic name the node already subscribes with another message type.

One DDS participant cannot hold two types on one topic name: Fast DDS refuses the second subscription
("create_subscription() called for existing topic name rt/cmd_vel with incompatible type"). ROS 2 makes one
participant per rclpy context, so these subscriptions live on a small node of their own in a second context
(`<node name>_twin`, in the node's namespace, without parameter services or rosout). Its executor waits in a
background thread; each message received is queued and handed to the main node's executor through a guard
condition, so that the callbacks run on the main node's thread, between two simulation steps, like every other
callback.

Topic names are resolved (namespace, remappings) by the main node and used as absolute names on the twin node,
so `--ros-args -r cmd_vel:=...` applies to both types.
"""

from __future__ import annotations

import collections
import threading
from typing import Any, Callable

import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import QoSProfile

#: Messages kept per subscription while the main thread is busy (older ones are dropped, as a keep-last QoS).
QUEUE_DEPTH = 10


class _TwinSubscription:
    """One subscription of the twin node: what it is (for handing it over), where its messages wait, whom they go
    to."""

    __slots__ = ("msg_type", "topic", "qos", "callback", "queue", "subscription")

    def __init__(self, msg_type, topic: str, qos: QoSProfile, callback: Callable[[Any], None]):
        self.msg_type, self.topic, self.qos, self.callback = msg_type, topic, qos, callback
        self.queue: collections.deque = collections.deque(maxlen=QUEUE_DEPTH)
        self.subscription = None


class TwinParticipant:
    """A second participant holding subscriptions for `node`; `destroy()` ends it (also done when the node's
    context shuts down).

    `park_all()` sets the current subscriptions aside; a later `subscribe` of the same type, topic and QoS takes one
    over (with its new callback and the messages still queued) instead of creating a DDS reader, and
    `release_parked()` destroys those not taken.
    """

    def __init__(self, node: Node):
        self._node = node
        self._context = rclpy.Context()
        self._context.init(args=[], initialize_logging=False)
        self._twin = rclpy.create_node(node.get_name() + "_twin", namespace=node.get_namespace(),
                                       context=self._context, use_global_arguments=False, enable_rosout=False,
                                       start_parameter_services=False)
        self._executor = SingleThreadedExecutor(context=self._context)
        self._executor.add_node(self._twin)
        self._active: list[_TwinSubscription] = []
        self._parked: list[_TwinSubscription] = []
        self._wake = node.create_guard_condition(self._deliver)
        self._thread: threading.Thread | None = None
        self._destroyed = False
        node.context.on_shutdown(self.destroy)

    def subscribe(self, msg_type, topic: str, callback: Callable[[Any], None], qos: QoSProfile) -> str:
        """Subscribe `topic` (resolved as the main node would resolve it) with `msg_type` on the twin node;
        `callback(msg)` runs on the main node's executor. Returns the resolved topic name."""
        resolved = self._node.resolve_topic_name(topic)
        recording = getattr(self._node, "recording", None)
        if recording is not None:
            callback = recording.tap_callback(msg_type, resolved, callback)
        for k, entry in enumerate(self._parked):
            if entry.msg_type is msg_type and entry.topic == resolved and entry.qos == qos:
                del self._parked[k]
                entry.callback = callback
                self._active.append(entry)
                return resolved
        entry = _TwinSubscription(msg_type, resolved, qos, callback)

        def received(msg) -> None:
            entry.queue.append(msg)
            self._trigger()

        entry.subscription = self._twin.create_subscription(msg_type, resolved, received, qos)
        self._active.append(entry)
        if self._thread is None:
            self._thread = threading.Thread(target=self._spin, name="mvsim-twin-participant", daemon=True)
            self._thread.start()
        return resolved

    def park_all(self) -> None:
        """Set every current subscription aside for a later `subscribe` to take over."""
        self._parked.extend(self._active)
        self._active = []

    def release_parked(self) -> None:
        """Destroy the parked subscriptions no `subscribe` took over."""
        for entry in self._parked:
            try:
                self._twin.destroy_subscription(entry.subscription)
            except Exception:  # noqa: BLE001 (already gone with the twin node)
                pass
        self._parked = []

    def _trigger(self) -> None:
        try:
            self._wake.trigger()
        except Exception:  # noqa: BLE001 (the main node is gone: nothing to deliver to)
            pass

    def _spin(self) -> None:
        try:
            self._executor.spin()
        except Exception:  # noqa: BLE001 (the context was shut down under the wait: the end of the thread)
            pass

    def _deliver(self) -> None:
        """On the main node's thread: run the callbacks of the messages queued since the last call, in the order
        each topic received them (parked subscriptions keep theirs for whoever takes them over)."""
        for entry in list(self._active):
            queue = entry.queue
            while queue:
                entry.callback(queue.popleft())

    def destroy(self) -> None:
        """Stop the thread, destroy the twin node and its context (idempotent)."""
        if self._destroyed:
            return
        self._destroyed = True
        self._executor.shutdown(timeout_sec=1.0)
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        self._twin.destroy_node()
        self._context.try_shutdown()
        try:
            self._node.destroy_guard_condition(self._wake)
        except Exception:  # noqa: BLE001 (already gone with the node)
            pass
