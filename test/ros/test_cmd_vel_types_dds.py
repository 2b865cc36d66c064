"""cmd_vel over real DDS: Twist and TwistStamped at once on one topic name, and the 1 s command watchdog.

The node runs the demo world (two differential robots, r1 and r2) in a subprocess. Twist comes from the probe's
context, TwistStamped from a second context (one DDS participant cannot hold both types on one topic, on our side
as on the node's). Speeds and distances are read from base_pose_ground_truth, times from its sim-time stamps.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
import rclpy
from geometry_msgs.msg import Twist, TwistStamped
from nav_msgs.msg import Odometry

from conftest import DEMO_WORLD
from dds_probe import ProbeNode, node_and_probe, stamp_s

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))

#: teleop_twist_keyboard's default speed [m/s].
TELEOP_SPEED = 0.5


def twist(v: float, omega: float = 0.0) -> Twist:
    msg = Twist()
    msg.linear.x, msg.angular.z = v, omega
    return msg


def twist_stamped(v: float, omega: float = 0.0) -> TwistStamped:
    msg = TwistStamped()
    msg.header.frame_id = "base_link"
    msg.twist.linear.x, msg.twist.angular.z = v, omega
    return msg


class Probe:
    """The probe node (Twist publishers, ground-truth subscriptions) and a second context's node publishing
    TwistStamped."""

    def __init__(self, probe: ProbeNode):
        self.probe = probe
        self.truth: dict[str, list[Odometry]] = {"r1": [], "r2": []}
        self.twist = {}
        for veh in self.truth:
            probe.node.create_subscription(Odometry, f"/{veh}/base_pose_ground_truth", self.truth[veh].append, 100)
            self.twist[veh] = probe.node.create_publisher(Twist, f"/{veh}/cmd_vel", 10)
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.stamped_node = rclpy.create_node("cmd_vel_stamped_probe", context=self.context)
        self.stamped = {veh: self.stamped_node.create_publisher(TwistStamped, f"/{veh}/cmd_vel", 10)
                        for veh in self.truth}

    def close(self) -> None:
        self.stamped_node.destroy_node()
        rclpy.shutdown(context=self.context)


@pytest.fixture(scope="module")
def probe():
    with node_and_probe("cmd_vel_types_probe", f"world_file:={DEMO_WORLD}", "realtime_factor:=1.0") as node_probe:
        p = Probe(node_probe)
        try:
            ok = node_probe.wait_for(
                lambda: p.truth["r1"] and p.truth["r2"] and all(
                    pub.get_subscription_count() > 0 for pub in (*p.twist.values(), *p.stamped.values())),
                timeout=30.0)
            assert ok, "the node did not come up with cmd_vel subscriptions of both types"
            yield p
        finally:
            p.close()


def speed(msg: Odometry) -> float:
    """Forward speed [m/s] of a ground-truth message (world-frame velocity, rotated into the vehicle frame by
    the ground truth publisher: twist.linear.x)."""
    return msg.twist.twist.linear.x


def position(msg: Odometry) -> np.ndarray:
    return np.array([msg.pose.pose.position.x, msg.pose.pose.position.y])


def recent(msgs: list[Odometry], seconds: float) -> list[Odometry]:
    """The messages of the last `seconds` of simulated time."""
    end = stamp_s(msgs[-1])
    return [m for m in msgs if stamp_s(m) >= end - seconds]


def test_twist_and_twist_stamped_drive_the_same_robot(probe):
    """Both message types reach the node on /r1/cmd_vel, each sets the speed it asks for."""
    probe.probe.spin_for(2.5, publish=lambda: probe.twist["r1"].publish(twist(0.3)))
    by_twist = [speed(m) for m in recent(probe.truth["r1"], 0.8)]
    probe.probe.spin_for(2.5, publish=lambda: probe.stamped["r1"].publish(twist_stamped(0.6)))
    by_stamped = [speed(m) for m in recent(probe.truth["r1"], 0.8)]
    assert np.mean(by_twist) == pytest.approx(0.3, abs=0.03)
    assert np.mean(by_stamped) == pytest.approx(0.6, abs=0.03)


def test_both_types_at_once_alternate_on_one_topic(probe):
    """Nav2 and a teleop publishing at once, one type each: neither subscription disturbs the other."""
    def both():
        probe.twist["r1"].publish(twist(0.0, 0.5))
        probe.stamped["r1"].publish(twist_stamped(0.0, 0.5))

    probe.probe.spin_for(2.5, publish=both)
    yaw_rates = [m.twist.twist.angular.z for m in recent(probe.truth["r1"], 0.8)]
    assert np.mean(yaw_rates) == pytest.approx(0.5, abs=0.05)


def test_one_teleop_key_tap_moves_the_robot_about_half_a_metre(probe):
    """teleop_twist_keyboard sends one Twist per key press: with the 1 s watchdog the robot drives about
    0.5 m at 0.5 m/s, then stops (MVSim's behaviour); r2 starts at rest."""
    truth = probe.truth["r2"]
    start, t0 = position(truth[-1]), stamp_s(truth[-1])
    assert abs(speed(truth[-1])) < 1e-3
    probe.twist["r2"].publish(twist(TELEOP_SPEED))
    assert probe.probe.wait_for(lambda: stamp_s(truth[-1]) > t0 + 2.5, timeout=20.0)
    travelled = np.linalg.norm(position(truth[-1]) - start)
    assert 0.4 <= travelled <= 0.7
    assert max(abs(speed(m)) for m in recent(truth, 0.5)) < 0.01  # stopped
    peak = max(speed(m) for m in truth if stamp_s(m) > t0)
    assert peak == pytest.approx(TELEOP_SPEED, abs=0.05)


def test_a_20_hz_stream_never_trips_the_watchdog(probe):
    """Nav2's controller streams at 20 Hz: the speed holds for the whole 3 s stream."""
    truth = probe.truth["r2"]
    t0 = stamp_s(truth[-1])
    probe.probe.spin_for(3.0, publish=lambda: probe.stamped["r2"].publish(twist_stamped(TELEOP_SPEED)), rate_hz=20)
    held = [speed(m) for m in truth if stamp_s(m) > t0 + 0.5]
    assert len(held) > 20 and min(held) > TELEOP_SPEED - 0.05
    assert not math.isnan(sum(held))
