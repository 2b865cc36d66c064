"""BatchPublisher over real DDS: every row arrives, intact, on its own topic — through rcl directly (the fast
path this environment must take) and through rclpy (the fallback)."""

import numpy as np
import pytest
import rclpy
from rclpy.serialization import serialize_message
from std_msgs.msg import String

from dds_probe import ProbeNode
from mvsim_ros.ros.publishing import batch_publisher
from mvsim_ros.ros.publishing.batch_publisher import BatchPublisher
from mvsim_ros.ros.publishing.outlet import Outlet


@pytest.mark.parametrize("direct", [True, False])
def test_every_row_reaches_its_topic(monkeypatch, direct):
    if not direct:
        monkeypatch.setattr(batch_publisher, "_publish_kernel", lambda: None)
    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        node = rclpy.create_node("batch_under_test", context=context)
        probe = ProbeNode(context, "batch_probe")
        topics = [[f"/batch_a{i}" for i in range(3)], [f"/batch_b{i}" for i in range(2)]]
        received = {}
        for name in sum(topics, []):
            probe.node.create_subscription(String, name, lambda m, name=name: received.setdefault(name, []).append(
                m.data), 10)
        streams = []
        for names in topics:
            # Same-length payloads, so that every message of a stream has the same serialized size.
            rows = [np.frombuffer(serialize_message(String(data=f"{name}:0")), dtype=np.uint8) for name in names]
            store = np.zeros((len(rows), max(len(r) for r in rows)), np.uint8)
            for i, row in enumerate(rows):
                store[i, :len(row)] = row
            streams.append(([Outlet(node.create_publisher(String, name, 10)) for name in names], store))
        batch = BatchPublisher(streams)
        assert batch.direct == direct
        assert probe.wait_for(lambda: all(node.count_subscribers(n) for n in sum(topics, [])), timeout=10.0)
        batch.publish()
        # Rewrite every row in place (the bytes are read at publish time, not copied at construction).
        for names, (_, store) in zip(topics, streams):
            for i, name in enumerate(names):
                data = serialize_message(String(data=f"{name}:1"))
                store[i, :len(data)] = np.frombuffer(data, dtype=np.uint8)
        batch.publish()
        assert probe.wait_for(lambda: sum(len(v) for v in received.values()) == 10, timeout=10.0)
        assert received == {name: [f"{name}:0", f"{name}:1"] for name in sum(topics, [])}
        assert batch.failures == 0
        node.destroy_node()
        probe.node.destroy_node()
    finally:
        rclpy.try_shutdown(context=context)


def test_mismatched_counts_are_refused():
    with pytest.raises(ValueError, match="2 publishers for 3 messages"):
        BatchPublisher([([object(), object()], np.zeros((3, 8), np.uint8))])
