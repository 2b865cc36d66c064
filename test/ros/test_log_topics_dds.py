"""publish_log_topics over real DDS: every log column as a std_msgs/Float64 topic, at the log period capped at the
odometry rate, holding what the ground truth says at the same instant; nothing of it when the parameter is off."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from std_msgs.msg import Float64

from conftest import DEMO_WORLD
from dds_probe import node_and_probe, stamp_s
from mvsim_ros.physics import Simulation
from mvsim_ros.output.csv_logs import POSE_COLUMNS, WHEEL_COLUMNS
from mvsim_ros.ros.publishing.log_topics import DEFAULT_PERIOD_S, log_topic_names, log_topic_period
from mvsim_ros.world import load_world

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))

#: Wheel radius of the demo robots [m] (diameter 0.20).
WHEEL_RADIUS = 0.1


def test_period_is_the_log_period_capped_at_the_odometry_rate():
    assert log_topic_period(0.0, 50.0) == pytest.approx(0.02)
    assert log_topic_period(0.1, 50.0) == pytest.approx(0.1)
    assert log_topic_period(0.001, 20.0) == pytest.approx(0.05)
    assert log_topic_period(0.0, 0.0) == DEFAULT_PERIOD_S


def test_topic_names_per_vehicle_and_wheel():
    sim = Simulation(load_world(str(DEMO_WORLD)))
    names = log_topic_names(sim, ["r1/", "r2/"])
    assert names[0] == [f"r1/log/pose/{c}" for c in POSE_COLUMNS]
    assert names[1] == [f"r2/log/pose/{c}" for c in POSE_COLUMNS]
    wheels = [row[1] for row in names[2:]]
    assert wheels == ["r1/log/wheel_1/torque_Nm", "r1/log/wheel_2/torque_Nm",
                      "r2/log/wheel_1/torque_Nm", "r2/log/wheel_2/torque_Nm"]
    assert all(len(row) == len(WHEEL_COLUMNS) for row in names[2:])


def test_log_topics_carry_the_log_columns():
    params = (f"world_file:={DEMO_WORLD}", "realtime_factor:=1.0", "publish_log_topics:=true", "log_period:=0.1")
    with node_and_probe("log_topics_probe", *params) as probe:
        n = probe.node
        got: dict[str, list[float]] = {}
        for topic in ("r1/log/pose/t_s", "r1/log/pose/x_m", "r1/log/pose/vx_mps", "r1/log/wheel_1/t_s",
                      "r1/log/wheel_1/omega_radps", "r1/log/wheel_2/omega_radps", "r2/log/pose/yaw_rad"):
            got[topic] = []
            n.create_subscription(Float64, "/" + topic, lambda m, t=topic: got[t].append(m.data), 200)
        truth: list[Odometry] = []
        n.create_subscription(Odometry, "/r1/base_pose_ground_truth", truth.append, 500)
        cmd = n.create_publisher(Twist, "/r1/cmd_vel", 10)
        assert probe.wait_for(lambda: all(got.values()) and truth, timeout=30.0), "no log topics"
        drive = Twist()
        drive.linear.x = 0.4
        probe.spin_for(3.0, publish=lambda: cmd.publish(drive))

        times = np.array(got["r1/log/pose/t_s"])
        # log_period, slower than the 50 Hz odometry; the first row may be the t = 0 instant, taken at the first step
        assert times[0] < 0.1 + 1e-9 or abs(times[0] / 0.1 - round(times[0] / 0.1)) < 1e-6
        assert np.allclose(np.diff(times[1:]), 0.1, atol=1e-6)
        assert np.allclose(got["r2/log/pose/yaw_rad"], math.pi / 2, atol=1e-3)  # r2 starts (and stays) at 90 deg
        # x_m is the true pose at t_s: compare with the ground truth of the same instant.
        by_time = {round(stamp_s(m), 6): m.pose.pose.position.x for m in truth}
        pairs = [(x, by_time[round(t, 6)]) for t, x in zip(times, got["r1/log/pose/x_m"]) if round(t, 6) in by_time]
        assert len(pairs) > 10
        assert np.allclose(*zip(*pairs), atol=1e-9)
        # Driving straight at 0.4 m/s: the body speed and both wheels' spin rate v / r.
        assert got["r1/log/pose/vx_mps"][-1] == pytest.approx(0.4, abs=0.02)
        for wheel in ("wheel_1", "wheel_2"):
            assert got[f"r1/log/{wheel}/omega_radps"][-1] == pytest.approx(0.4 / WHEEL_RADIUS, rel=0.05)
        wheel_times = np.array(got["r1/log/wheel_1/t_s"])
        assert np.allclose(np.diff(wheel_times[1:]), 0.1, atol=1e-6) and set(wheel_times) & set(times)  # same rows


def test_no_log_topics_by_default():
    with node_and_probe("log_topics_off_probe", f"world_file:={DEMO_WORLD}") as probe:
        assert probe.wait_for(lambda: any(name == "/r1/odom" for name, _ in probe.node.get_topic_names_and_types()),
                              timeout=30.0)
        probe.spin_for(0.5)
        assert not [name for name, _ in probe.node.get_topic_names_and_types() if "/log/" in name]
