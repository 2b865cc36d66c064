"""A node whose publishers and subscriptions add no QoS-event handlers to the executor's wait set.

rclpy gives every publisher and subscription default event handlers (incompatible QoS, incompatible type) unless
told otherwise, and the executor adds each handler to its wait set at every wait: with ~8 entities per vehicle
that is several hundred handlers at 50 vehicles, about 18 ms of Python per wait on this class of machine — more
than the physics of a whole timer tick. Those handlers only log a warning when a peer's QoS or type does not
match, and the peer logs its own (rclcpp and rclpy publishers and subscribers do by default): a subscriber that
asks more than we offer hears "offering incompatible QoS" on its side, a publisher whose offer our subscription
cannot take hears it on its side. (Our latched topics offer reliable + transient local, which every subscriber's
reliability and durability accept.) So the simulator leaves the handlers out; passing `event_callbacks`
explicitly still works.
"""

from __future__ import annotations

from rclpy.event_handler import PublisherEventCallbacks, SubscriptionEventCallbacks
from rclpy.node import Node


class LeanEventsNode(Node):
    """rclpy Node whose `create_publisher` / `create_subscription` default to no event handlers."""

    def create_publisher(self, msg_type, topic, qos_profile, *, event_callbacks=None, **kwargs):
        if event_callbacks is None:
            event_callbacks = PublisherEventCallbacks(use_default_callbacks=False)
        return super().create_publisher(msg_type, topic, qos_profile, event_callbacks=event_callbacks, **kwargs)

    def create_subscription(self, msg_type, topic, callback, qos_profile, *, event_callbacks=None, **kwargs):
        if event_callbacks is None:
            event_callbacks = SubscriptionEventCallbacks(use_default_callbacks=False)
        return super().create_subscription(msg_type, topic, callback, qos_profile, event_callbacks=event_callbacks,
                                           **kwargs)


__all__ = ["LeanEventsNode"]
