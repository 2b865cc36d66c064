"""What rviz and MVSim users read from the node, over real DDS: base_footprint, chassis shape and markers (steered
wheels turning), fake localization, and MVSim's TF/clock parameters."""

from __future__ import annotations

import math
import os
import time

import pytest
from geometry_msgs.msg import PoseArray, PoseWithCovarianceStamped, Polygon
from nav_msgs.msg import Odometry
from rclpy.qos import DurabilityPolicy, QoSProfile
from rosgraph_msgs.msg import Clock
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import MarkerArray

from conftest import DEMO_WORLD, REPO
from dds_probe import node_and_probe, stamp_s
from mvsim_ros.world import load_world

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))

CAR_WORLD = REPO / "worlds" / "car_trailer.world.xml"
LATCHED = QoSProfile(depth=5, durability=DurabilityPolicy.TRANSIENT_LOCAL)


def yaw_of(q) -> float:
    """Yaw [rad] of a quaternion about +z."""
    return 2.0 * math.atan2(q.z, q.w)


def test_chassis_shape_base_footprint_and_fake_localization():
    world = load_world(str(DEMO_WORLD))
    r1 = world.vehicles[0]
    with node_and_probe("rviz_probe", f"world_file:={DEMO_WORLD}") as probe:
        n = probe.node
        static, polygons, markers, amcl, cloud, truth = [], [], [], [], [], []
        n.create_subscription(TFMessage, "/r1/tf_static", static.append, LATCHED)
        n.create_subscription(Polygon, "/r1/chassis_polygon", polygons.append, LATCHED)
        n.create_subscription(MarkerArray, "/r1/chassis_markers", markers.append, LATCHED)
        n.create_subscription(PoseWithCovarianceStamped, "/r1/amcl_pose", amcl.append, LATCHED)
        n.create_subscription(PoseArray, "/r1/particlecloud", cloud.append, 10)
        n.create_subscription(Odometry, "/r1/base_pose_ground_truth", truth.append, 50)
        assert probe.wait_for(lambda: static and polygons and markers and len(amcl) > 3 and cloud and truth, 30.0)

        edges = {(t.header.frame_id, t.child_frame_id): t.transform for m in static[-1:] for t in m.transforms}
        footprint = edges[("base_link", "base_footprint")]
        assert (footprint.translation.x, footprint.translation.y, footprint.translation.z) == (0.0, 0.0, 0.0)
        assert (footprint.rotation.x, footprint.rotation.y, footprint.rotation.z, footprint.rotation.w) == (0, 0, 0, 1)
        assert ("map", "odom") in edges  # the other statics go in the same latched message

        outline = [(p.x, p.y, p.z) for p in polygons[-1].points]
        assert len(outline) == len(r1.chassis.shape)
        for (x, y, z), (ex, ey) in zip(outline, r1.chassis.shape):
            assert (x, y, z) == pytest.approx((ex, ey, 0.0), abs=1e-6)

        chassis, *wheels = markers[-1].markers
        assert len(wheels) == len(r1.wheels)
        assert chassis.ns == "mvsim.chassis_shape" and chassis.header.frame_id == "base_link"
        closed = [*r1.chassis.shape, r1.chassis.shape[0]]
        flat = [c for p in closed for c in p]
        assert [c for p in chassis.points for c in (p.x, p.y)] == pytest.approx(flat, abs=1e-9)
        for k, (marker, spec) in enumerate(zip(wheels, r1.wheels)):
            assert marker.ns == f"mvsim.chassis_shape.wheel{k}"
            assert (marker.pose.position.x, marker.pose.position.y) == pytest.approx((spec.x, spec.y), abs=1e-9)
            corners = [(p.x, p.y) for p in marker.points]
            assert corners[0] == corners[-1] and len(corners) == 5
            xs, ys = [c[0] for c in corners], [c[1] for c in corners]
            assert max(xs) - min(xs) == pytest.approx(spec.diameter) and max(ys) - min(ys) == pytest.approx(spec.width)

        # amcl_pose is the true pose: the same as the ground truth published with the same stamp.
        by_stamp = {stamp_s(m): m.pose.pose for m in truth}
        matched = [(m.pose.pose, by_stamp[stamp_s(m)]) for m in amcl if stamp_s(m) in by_stamp]
        assert matched
        for pose, true in matched:
            assert (pose.position.x, pose.position.y, yaw_of(pose.orientation)) == pytest.approx(
                (true.position.x, true.position.y, yaw_of(true.orientation)), abs=1e-12)
        assert amcl[-1].header.frame_id == "map" and cloud[-1].header.frame_id == "map"
        assert len(cloud[-1].poses) == 1
        assert (amcl[-1].pose.pose.position.x, amcl[-1].pose.pose.position.y) == pytest.approx(
            (r1.init_pose.x, r1.init_pose.y), abs=1e-3)


def test_steered_wheel_markers_turn_with_the_ackermann_steering():
    world = load_world(str(CAR_WORLD))
    car = world.vehicles[0]
    wheels = {w.name: w for w in car.wheels}
    wheelbase = wheels["fl_wheel"].x - wheels["rl_wheel"].x
    track = wheels["fl_wheel"].y - wheels["fr_wheel"].y
    names = [w.name for w in car.wheels]
    from geometry_msgs.msg import Twist

    with node_and_probe("steer_probe", f"world_file:={CAR_WORLD}") as probe:
        markers = []
        probe.node.create_subscription(MarkerArray, "/car/chassis_markers", markers.append, LATCHED)
        cmd = probe.node.create_publisher(Twist, "/car/cmd_vel", 10)
        assert probe.wait_for(lambda: markers, 30.0)
        straight = markers[-1].markers[1:]
        assert all(yaw_of(m.pose.orientation) == pytest.approx(0.0, abs=1e-9) for m in straight)

        turn = Twist()
        turn.linear.x, turn.angular.z = 1.0, 0.3  # a left turn
        probe.spin_for(2.0, publish=lambda: cmd.publish(turn))
        yaw = {name: yaw_of(m.pose.orientation) for name, m in zip(names, markers[-1].markers[1:])}
        assert yaw["fl_wheel"] > yaw["fr_wheel"] > 0.05  # both steer left, the inner wheel more
        assert yaw["rl_wheel"] == pytest.approx(0.0, abs=1e-9) and yaw["rr_wheel"] == pytest.approx(0.0, abs=1e-9)
        # Ackermann geometry: both front wheels point at one centre on the rear axle, cot(fr) - cot(fl) = track / L.
        assert 1.0 / math.tan(yaw["fr_wheel"]) - 1.0 / math.tan(yaw["fl_wheel"]) == pytest.approx(
            track / wheelbase, rel=1e-6)


def test_mvsim_tf_parameters_and_wall_clock_stamps():
    params = (f"world_file:={DEMO_WORLD}", "publish_tf_odom2baselink:=false", "disable_sim_time_clock:=true",
              "period_ms_publish_tf:=100")
    with node_and_probe("tf_param_probe", *params) as probe:
        n = probe.node
        tf, odom, clock = [], [], []
        n.create_subscription(TFMessage, "/r1/tf", tf.append, 100)
        n.create_subscription(Odometry, "/r1/odom", lambda m: odom.append((m, time.time())), 50)
        n.create_subscription(Clock, "/clock", clock.append, 10)
        assert probe.wait_for(lambda: len(odom) > 5, 30.0)
        probe.spin_for(1.0)
        edges = {(t.header.frame_id, t.child_frame_id) for m in tf for t in m.transforms}
        assert ("odom", "base_link") not in edges
        assert not clock and not n.get_publishers_info_by_topic("/clock")
        # Stamps are wall time (the node runs at real time): within a fraction of a second of reception.
        for msg, received in odom[-5:]:
            assert received - 1.0 < stamp_s(msg) < received + 0.1
        stamps = [stamp_s(m) for m, _ in odom[-5:]]
        assert [b - a for a, b in zip(stamps, stamps[1:])] == pytest.approx([0.1] * 4, abs=1e-6)  # 100 ms period


def test_single_tree_puts_every_vehicle_on_the_root_tf_with_prefixed_frames():
    from sensor_msgs.msg import LaserScan

    with node_and_probe("tree_probe", f"world_file:={DEMO_WORLD}", "tf_single_tree:=true") as probe:
        n = probe.node
        tf, static, scans, odom = [], [], [], []
        n.create_subscription(TFMessage, "/tf", tf.append, 100)
        n.create_subscription(TFMessage, "/tf_static", static.append, QoSProfile(
            depth=10, durability=DurabilityPolicy.TRANSIENT_LOCAL))
        n.create_subscription(LaserScan, "/r2/scan", scans.append, 10)
        n.create_subscription(Odometry, "/r1/odom", odom.append, 10)
        assert probe.wait_for(lambda: len(tf) > 3 and static and scans and odom, 30.0)
        dynamic = {(t.header.frame_id, t.child_frame_id): t.transform for m in tf for t in m.transforms}
        assert set(dynamic) == {("r1/odom", "r1/base_link"), ("r2/odom", "r2/base_link")}
        r2 = dynamic[("r2/odom", "r2/base_link")]
        assert (r2.translation.x, r2.translation.y, yaw_of(r2.rotation)) == pytest.approx(
            (-8.0, -4.0, math.pi / 2), abs=1e-3)
        edges = {(t.header.frame_id, t.child_frame_id) for m in static for t in m.transforms}
        for veh in ("r1", "r2"):
            assert {("map", f"{veh}/odom"), (f"{veh}/base_link", f"{veh}/base_footprint"),
                    (f"{veh}/base_link", f"{veh}/scan")} <= edges
        assert scans[-1].header.frame_id == "r2/scan"
        assert (odom[-1].header.frame_id, odom[-1].child_frame_id) == ("r1/odom", "r1/base_link")
        topics = dict(n.get_topic_names_and_types())
        assert "/r1/tf" not in topics and "/r1/tf_static" not in topics
