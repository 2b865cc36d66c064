"""`<veh>/initialpose` over real DDS (what rviz's "2D Pose Estimate" sends): the vehicle is put at the pose, its
wheel odometry does not jump, and fake localization's map -> odom makes map -> base_link the new true pose.
Poses that are not planar poses in the map frame are ignored. The unit tests check the message checks alone."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from geometry_msgs.msg import PoseWithCovarianceStamped
from nav_msgs.msg import Odometry
from rclpy.qos import DurabilityPolicy, QoSProfile
from tf2_msgs.msg import TFMessage

from conftest import DEMO_WORLD
from dds_probe import node_and_probe, stamp_s
from mvsim_ros.ros.inputs.initial_pose import MAX_TILT_RAD, planar_pose

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))


def pose_msg(x: float, y: float, yaw: float, frame: str = "map", tilt: float = 0.0) -> PoseWithCovarianceStamped:
    """A pose at (x, y) [m] with heading yaw [rad], tilted by `tilt` [rad] about its own x axis."""
    msg = PoseWithCovarianceStamped()
    msg.header.frame_id = frame
    msg.pose.pose.position.x, msg.pose.pose.position.y = x, y
    # q = q_yaw * q_roll(tilt)
    cy, sy, cr, sr = math.cos(yaw / 2), math.sin(yaw / 2), math.cos(tilt / 2), math.sin(tilt / 2)
    q = msg.pose.pose.orientation
    q.w, q.x, q.y, q.z = cy * cr, cy * sr, sy * sr, sy * cr
    return msg


def yaw_of(msg: Odometry) -> float:
    q = msg.pose.pose.orientation
    return math.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z))


class TestPlanarPose:
    def test_rviz_pose_gives_its_yaw(self):
        assert planar_pose(pose_msg(1.5, -2.0, 2.5)) == pytest.approx((1.5, -2.0, 2.5))
        assert planar_pose(pose_msg(0.0, 0.0, -3.0, frame="")) == pytest.approx((0.0, 0.0, -3.0))

    def test_unnormalised_quaternion_gives_the_same_yaw(self):
        msg = pose_msg(0.0, 0.0, 1.0)
        q = msg.pose.pose.orientation
        q.w, q.z = 3 * q.w, 3 * q.z
        assert planar_pose(msg)[2] == pytest.approx(1.0)

    def test_small_tilt_accepted_large_refused(self):
        assert planar_pose(pose_msg(1.0, 2.0, 0.5, tilt=0.5 * MAX_TILT_RAD))[2] == pytest.approx(0.5, abs=1e-9)
        reason = planar_pose(pose_msg(1.0, 2.0, 0.5, tilt=0.3))
        assert isinstance(reason, str) and "tilted 0.3 rad" in reason

    @pytest.mark.parametrize("change, words", [
        (lambda m: setattr(m.header, "frame_id", "odom"), "frame 'odom'"),
        (lambda m: setattr(m.pose.pose.position, "x", math.nan), "non-finite"),
        (lambda m: setattr(m.pose.pose.orientation, "w", math.inf), "non-finite"),
        (lambda m: [setattr(m.pose.pose.orientation, a, 0.0) for a in "xyzw"], "zero quaternion"),
    ])
    def test_refused_with_a_reason(self, change, words):
        msg = pose_msg(1.0, 2.0, 0.5)
        change(msg)
        reason = planar_pose(msg)
        assert isinstance(reason, str) and words in reason


@pytest.fixture(scope="module")
def probe():
    with node_and_probe("initialpose_probe", f"world_file:={DEMO_WORLD}", "realtime_factor:=1.0") as p:
        p.truth, p.odom, p.static = [], [], []
        n = p.node
        n.create_subscription(Odometry, "/r1/base_pose_ground_truth", p.truth.append, 100)
        n.create_subscription(Odometry, "/r1/odom", p.odom.append, 100)
        n.create_subscription(TFMessage, "/r1/tf_static", p.static.append,
                              QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL))
        p.pose = n.create_publisher(PoseWithCovarianceStamped, "/r1/initialpose", 10)
        assert p.wait_for(lambda: p.truth and p.odom and p.pose.get_subscription_count() > 0, timeout=30.0)
        yield p


def settle_after(probe, msg: PoseWithCovarianceStamped, seconds: float = 1.0) -> float:
    """Publish `msg` and spin `seconds` of simulated time; returns the sim time it was sent at."""
    sent = stamp_s(probe.truth[-1])
    probe.pose.publish(msg)
    assert probe.wait_for(lambda: stamp_s(probe.truth[-1]) > sent + seconds, timeout=20.0)
    return sent


def test_initialpose_teleports_the_robot_without_an_odometry_jump(probe):
    before = probe.odom[-1].pose.pose
    sent = settle_after(probe, pose_msg(2.0, -1.5, 0.7))
    truth = probe.truth[-1]
    assert (truth.pose.pose.position.x, truth.pose.pose.position.y) == pytest.approx((2.0, -1.5), abs=1e-3)
    assert yaw_of(truth) == pytest.approx(0.7, abs=1e-3)
    assert abs(truth.twist.twist.linear.x) < 1e-3 and abs(truth.twist.twist.angular.z) < 1e-3
    # Wheel odometry carries on from where it was: no jump at the teleport.
    odom = [m.pose.pose.position for m in probe.odom if stamp_s(m) >= sent - 0.1]
    steps = np.hypot(np.diff([p.x for p in odom]), np.diff([p.y for p in odom]))
    assert steps.max() < 1e-3
    after = probe.odom[-1].pose.pose.position
    assert (after.x, after.y) == pytest.approx((before.position.x, before.position.y), abs=1e-3)


def test_map_to_odom_follows_the_teleport(probe):
    """Fake localization: map -> odom composed with odom -> base_link is the true pose after the teleport."""
    settle_after(probe, pose_msg(-3.0, 2.0, -1.2))
    transforms = {t.child_frame_id: t for t in probe.static[-1].transforms}
    if "odom" not in transforms:
        pytest.skip("fake localization does not publish map -> odom on tf_static in this build")
    m = transforms["odom"].transform
    m_yaw = 2 * math.atan2(m.rotation.z, m.rotation.w)
    odom = probe.odom[-1]
    o = odom.pose.pose.position
    c, s = math.cos(m_yaw), math.sin(m_yaw)
    x, y = m.translation.x + c * o.x - s * o.y, m.translation.y + s * o.x + c * o.y
    assert (x, y) == pytest.approx((-3.0, 2.0), abs=1e-3)
    assert math.remainder(m_yaw + yaw_of(odom) - (-1.2), 2 * math.pi) == pytest.approx(0.0, abs=1e-3)


@pytest.mark.parametrize("msg", [pose_msg(5.0, 5.0, 0.0, frame="odom"), pose_msg(5.0, 5.0, 0.0, tilt=0.5)],
                         ids=["odom frame", "tilted"])
def test_bad_initialpose_is_ignored(probe, msg):
    where = probe.truth[-1].pose.pose.position
    settle_after(probe, msg, seconds=0.5)
    now = probe.truth[-1].pose.pose.position
    assert (now.x, now.y) == pytest.approx((where.x, where.y), abs=1e-3)
