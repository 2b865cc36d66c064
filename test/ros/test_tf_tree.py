"""Fake localization after a teleport (map -> odom so that map -> base_link is the true pose), the TF layouts'
frame names, and how the TF rate is chosen from MVSim's and our parameters."""

from __future__ import annotations

import math
import os

import pytest
import rclpy
from rclpy.qos import DurabilityPolicy, QoSProfile
from tf2_msgs.msg import TFMessage

from conftest import DEMO_WORLD
from dds_probe import ProbeNode
from mvsim_ros.physics import Simulation
from mvsim_ros.ros.publishing.state.fake_localization import map_to_odom
from mvsim_ros.ros.publishing.state_publishers import SimPublishers, tf_publish_rate
from mvsim_ros.ros.topics import FrameLayout, frame_name
from mvsim_ros.world import load_world

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))


def compose(a, b):
    """Planar pose b expressed in a's parent: a * b."""
    c, s = math.cos(a[2]), math.sin(a[2])
    return a[0] + c * b[0] - s * b[1], a[1] + s * b[0] + c * b[1], a[2] + b[2]


def planar(transform):
    t, q = transform.translation, transform.rotation
    return t.x, t.y, 2.0 * math.atan2(q.z, q.w)


def test_map_to_odom_puts_base_link_at_the_true_pose():
    true, odom = (3.0, -2.0, 2.5), (1.2, 0.7, -0.4)
    x, y, yaw = compose(map_to_odom(true, odom), odom)
    assert (x, y, math.remainder(yaw - true[2], 2 * math.pi)) == pytest.approx((3.0, -2.0, 0.0), abs=1e-12)
    assert map_to_odom((1.0, 2.0, 0.3), (1.0, 2.0, 0.3)) == pytest.approx((0.0, 0.0, 0.0), abs=1e-12)


def test_frame_names_in_each_layout():
    assert frame_name("r1/", "base_link") == "r1/base_link"
    assert frame_name("r1/", "map") == "map" and frame_name("", "scan") == "scan"
    per_vehicle, single = FrameLayout(["r1/", "r2/"]), FrameLayout(["r1/", "r2/"], single_tree=True)
    assert per_vehicle.frame(1, "scan") == "scan" and per_vehicle.tf_prefix(1) == "r2/"
    assert single.frame(1, "scan") == "r2/scan" and single.tf_prefix(1) == ""
    assert single.frame(-1, "gps") == "gps"  # world sensors stay unprefixed
    assert FrameLayout([""], single_tree=True).frame(0, "odom") == "odom"  # one vehicle, no namespace


def test_tf_rate_from_period_ms_publish_tf():
    assert tf_publish_rate(50.0, 20.0, 0.005) == (50.0, None)  # both defaults
    assert tf_publish_rate(30.0, 20.0, 0.005) == (30.0, None)  # only ours given
    rate, note = tf_publish_rate(50.0, 100.0, 0.005)
    assert rate == pytest.approx(10.0) and "period_ms_publish_tf" in note
    rate, note = tf_publish_rate(30.0, 100.0, 0.005)  # both given: MVSim's wins, and the note says so
    assert rate == pytest.approx(10.0) and "odometry_publish_rate=30 is ignored" in note
    assert tf_publish_rate(50.0, 0.0, 0.005)[0] == pytest.approx(200.0)  # 0 ms: every step


def test_relocalize_after_a_teleport_keeps_odometry_and_moves_map_to_odom():
    sim = Simulation(load_world(str(DEMO_WORLD)))
    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        node = rclpy.create_node("mvsim_relocalize", context=context)
        publishers = SimPublishers(node, sim)
        publishers.publish_static({})
        probe = ProbeNode(context, "relocalize_probe")
        latched = QoSProfile(depth=5, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        static = {"r1": [], "r2": []}
        for veh in static:
            probe.node.create_subscription(TFMessage, f"/{veh}/tf_static", static[veh].append, latched)
        assert probe.wait_for(lambda: static["r1"] and static["r2"], 10.0)

        sim.set_twist(0, 0.5, 0.3)  # r1 drives an arc: its odometry leaves the origin
        for _ in range(int(1.0 / sim.dt)):
            sim.step()
        odom_before = tuple(sim.odom_pose[0])
        sim.set_vehicle_state(0, 3.0, 2.0, 1.0)
        assert tuple(sim.odom_pose[0]) == odom_before  # the odometry does not jump
        publishers.relocalize(0)
        assert probe.wait_for(lambda: len(static["r1"]) == 2, 10.0)
        probe.spin_for(0.3)
        assert len(static["r2"]) == 1  # the other vehicle's statics are not re-sent

        edges = {(t.header.frame_id, t.child_frame_id): t.transform for t in static["r1"][-1].transforms}
        assert ("base_link", "base_footprint") in edges
        map_odom = planar(edges[("map", "odom")])
        x, y, yaw = compose(map_odom, odom_before)
        assert (x, y, math.remainder(yaw - 1.0, 2 * math.pi)) == pytest.approx((3.0, 2.0, 0.0), abs=1e-9)
        r2 = {(t.header.frame_id, t.child_frame_id): t.transform for t in static["r2"][-1].transforms}
        assert planar(r2[("map", "odom")]) == (0.0, 0.0, 0.0)
        node.destroy_node()
        probe.node.destroy_node()
    finally:
        rclpy.shutdown(context=context)
