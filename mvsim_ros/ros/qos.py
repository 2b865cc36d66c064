"""Quality-of-service profiles used by the node's publishers and subscriptions."""

from __future__ import annotations

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy


def reliable(depth: int = 10) -> QoSProfile:
    """Reliable, volatile, keep-last `depth`: matches both reliable and best-effort subscribers."""
    return QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=depth, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.VOLATILE)


def latched(depth: int = 1) -> QoSProfile:
    """Reliable + transient local: late joiners get the last message (static TF, maps)."""
    return QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=depth, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.TRANSIENT_LOCAL)


#: /tf as tf2's broadcasters and listeners use it.
TF_QOS = reliable(100)
#: /tf_static as tf2's static broadcaster uses it.
TF_STATIC_QOS = latched(1)
#: Command subscriptions (teleop, Nav2 controllers).
COMMAND_QOS = reliable(10)
