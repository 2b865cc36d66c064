"""Over DDS: a tug towing a cart publishes a footprint that changes as it turns, and the cart's frame in TF."""

from __future__ import annotations

import pytest
from geometry_msgs.msg import Polygon, PolygonStamped, Twist
from tf2_msgs.msg import TFMessage

from conftest import REPO
from dds_probe import node_and_probe

WORLD = REPO / "worlds" / "gridmap_yard.world.xml"


@pytest.fixture(scope="module")
def probe():
    with node_and_probe("footprint_probe", f"world_file:={WORLD}", "realtime_factor:=2.0") as probe:
        probe.stamped, probe.plain, probe.tf = [], [], []
        probe.node.create_subscription(PolygonStamped, "/tug/footprint_stamped", probe.stamped.append, 50)
        probe.node.create_subscription(Polygon, "/tug/footprint", probe.plain.append, 50)
        probe.node.create_subscription(TFMessage, "/tug/tf", probe.tf.append, 200)
        probe.cmd = probe.node.create_publisher(Twist, "/tug/cmd_vel", 10)
        assert probe.wait_for(lambda: len(probe.stamped) > 2, timeout=30.0), "no footprint from the node"
        yield probe


def width(polygon) -> float:
    ys = [p.y for p in polygon.points]
    return max(ys) - min(ys)


def test_footprint_grows_sideways_as_the_cart_swings_and_the_cart_frame_is_in_tf(probe):
    straight = probe.stamped[-1]
    assert straight.header.frame_id == "base_link"
    assert width(straight.polygon) == pytest.approx(0.7, abs=0.02)  # both bodies in line: the cart's 0.7 m
    assert probe.plain and len(probe.plain[-1].points) == len(straight.polygon.points)
    turn = Twist()
    turn.linear.x, turn.angular.z = 0.6, 0.8
    probe.spin_for(3.0, publish=lambda: probe.cmd.publish(turn))
    turning = probe.stamped[-1]
    assert width(turning.polygon) > width(straight.polygon) + 0.2  # the swung cart sticks out sideways
    frames = {(t.header.frame_id, t.child_frame_id) for msg in probe.tf for t in msg.transforms}
    assert ("base_link", "cart_base_link") in frames and ("odom", "base_link") in frames
