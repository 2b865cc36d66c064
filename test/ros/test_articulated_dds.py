"""Over DDS: the articulated wheel loader turns on cmd_vel and ackermann_cmd, its footprint follows the pivot
angle, and its front unit's frame is in TF where the kinematics put it."""

from __future__ import annotations

import math

import pytest
from ackermann_msgs.msg import AckermannDriveStamped
from geometry_msgs.msg import Polygon, PolygonStamped, Twist
from sensor_msgs.msg import JointState
from tf2_msgs.msg import TFMessage

from conftest import REPO
from dds_probe import node_and_probe

WORLD = REPO / "worlds" / "articulated.world.xml"
L_F = L_R = 1.5  # the world's wheel_separation_front / _rear [m]


@pytest.fixture(scope="module")
def probe():
    with node_and_probe("articulated_probe", f"world_file:={WORLD}", "realtime_factor:=2.0") as probe:
        probe.stamped, probe.plain, probe.front, probe.joints = [], [], [], []

        def on_tf(msg: TFMessage) -> None:
            probe.front.extend(t for t in msg.transforms if t.child_frame_id == "front_unit_link")

        probe.node.create_subscription(PolygonStamped, "/loader/footprint_stamped", probe.stamped.append, 50)
        probe.node.create_subscription(Polygon, "/loader/footprint", probe.plain.append, 50)
        probe.node.create_subscription(TFMessage, "/loader/tf", on_tf, 200)
        probe.node.create_subscription(JointState, "/loader/joint_states", probe.joints.append, 200)
        probe.cmd = probe.node.create_publisher(Twist, "/loader/cmd_vel", 10)
        probe.ackermann = probe.node.create_publisher(AckermannDriveStamped, "/loader/ackermann_cmd", 10)
        assert probe.wait_for(lambda: len(probe.stamped) > 2 and probe.front, timeout=30.0), "no footprint/TF"
        yield probe


def pivot_angle(transform) -> float:
    q = transform.transform.rotation
    return 2.0 * math.atan2(q.z, q.w)


def assert_front_unit_frame_matches(transform, gamma: float) -> None:
    assert transform.header.frame_id == "base_link"
    t = transform.transform.translation
    assert (t.x, t.y) == pytest.approx((L_R + L_F * math.cos(gamma), L_F * math.sin(gamma)), abs=0.01)


def front_left(polygon) -> tuple[float, float]:
    point = polygon.points[4]  # trailer_top_left turned about the pivot
    return point.x, point.y


def test_cmd_vel_articulates_and_the_footprint_and_frame_follow(probe):
    straight = probe.stamped[-1]
    assert straight.header.frame_id == "base_link" and len(straight.polygon.points) == 8
    assert front_left(straight.polygon) == pytest.approx((4.8, 1.25), abs=0.01)
    assert pivot_angle(probe.front[-1]) == pytest.approx(0.0, abs=0.01)
    assert len(probe.plain[-1].points) == 8

    turn = Twist()
    turn.linear.x, turn.angular.z = 1.0, 0.2
    probe.spin_for(5.0, publish=lambda: probe.cmd.publish(turn))
    expected = 2 * math.atan(0.2 * L_F / 1.0)  # seed 004 with l_f = l_r
    gamma = pivot_angle(probe.front[-1])
    assert gamma == pytest.approx(expected, abs=math.radians(1.0))
    assert_front_unit_frame_matches(probe.front[-1], gamma)
    x, y = 4.8 - L_R, 1.25  # the corner relative to the pivot at gamma = 0
    closed_form = (L_R + x * math.cos(gamma) - y * math.sin(gamma), x * math.sin(gamma) + y * math.cos(gamma))
    assert front_left(probe.stamped[-1].polygon) == pytest.approx(closed_form, abs=0.02)


def test_ackermann_cmd_sets_the_pivot_angle(probe):
    command = AckermannDriveStamped()
    command.drive.speed, command.drive.steering_angle = 0.5, -0.3
    probe.spin_for(4.0, publish=lambda: probe.ackermann.publish(command))
    gamma = pivot_angle(probe.front[-1])
    assert gamma == pytest.approx(-0.3, abs=math.radians(0.5))
    assert_front_unit_frame_matches(probe.front[-1], gamma)
    state = probe.joints[-1]
    assert state.name == ["articulation_joint"]
    assert state.position[0] == pytest.approx(-0.3, abs=math.radians(0.5))
    assert state.velocity[0] == pytest.approx(0.0, abs=0.01)  # settled
    assert state.header.stamp.sec > 0  # simulated time
