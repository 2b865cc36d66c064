"""The node over real DDS: a separate process running the demo world, probed with rclpy from the test."""

from __future__ import annotations

import math
import os
import subprocess

import numpy as np
import pytest
import rclpy
from geometry_msgs.msg import Twist
from nav_msgs.msg import MapMetaData, OccupancyGrid, Odometry
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import LaserScan
from std_msgs.msg import Bool
from tf2_msgs.msg import TFMessage

from dds_probe import ProbeNode, node_command, stamp_s
from conftest import DEMO_WORLD

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))


class Probe(ProbeNode):
    """A test node that records what the simulator publishes."""

    def __init__(self, context):
        super().__init__(context, "mvsim_probe")
        self.odom: list[Odometry] = []
        self.truth: list[Odometry] = []
        self.clock: list[float] = []
        self.tf: dict[str, list[TFMessage]] = {"r1": [], "r2": []}
        self.tf_static: list[TFMessage] = []
        self.collision: list[bool] = []
        n = self.node
        n.create_subscription(Odometry, "/r1/odom", self.odom.append, 50)
        n.create_subscription(Odometry, "/r1/base_pose_ground_truth", self.truth.append, 50)
        n.create_subscription(Clock, "/clock", lambda m: self.clock.append(m.clock.sec + 1e-9 * m.clock.nanosec),
                              QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT))
        n.create_subscription(TFMessage, "/r1/tf", self.tf["r1"].append, 100)
        n.create_subscription(TFMessage, "/r2/tf", self.tf["r2"].append, 100)
        n.create_subscription(TFMessage, "/r1/tf_static", self.tf_static.append,
                              QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL))
        n.create_subscription(Bool, "/r1/collision", lambda m: self.collision.append(m.data),
                              QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL))
        latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.maps: list[OccupancyGrid] = []
        self.map_info: list[MapMetaData] = []
        n.create_subscription(OccupancyGrid, "/simul_map", self.maps.append, latched)
        n.create_subscription(MapMetaData, "/simul_map_metadata", self.map_info.append, latched)
        self.scans: list[LaserScan] = []
        n.create_subscription(LaserScan, "/r1/scan", self.scans.append, 20)
        self.cmd = n.create_publisher(Twist, "/r1/cmd_vel", 10)


def twist(v: float, omega: float = 0.0) -> Twist:
    msg = Twist()
    msg.linear.x = v
    msg.angular.z = omega
    return msg


@pytest.fixture(scope="module")
def running_node():
    proc = subprocess.Popen(
        node_command(f"world_file:={DEMO_WORLD}", "realtime_factor:=1.0", "base_watchdog_timeout:=0.2"),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = Probe(context)
    try:
        assert probe.wait_for(lambda: len(probe.odom) > 5, timeout=30.0), "no odometry from the node"
        yield proc, probe
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_clock_advances_and_both_vehicles_broadcast_odom_to_base_link(running_node):
    _, probe = running_node
    probe.spin_for(0.5)
    assert len(probe.clock) > 10
    assert probe.clock[-1] > probe.clock[0]
    assert all(b >= a for a, b in zip(probe.clock, probe.clock[1:]))
    for name, (x0, y0, yaw0) in {"r1": (0.0, 0.0, 0.0), "r2": (-8.0, -4.0, math.pi / 2)}.items():
        transforms = [t for msg in probe.tf[name] for t in msg.transforms]
        assert transforms, f"nothing on /{name}/tf"
        last = transforms[-1]
        assert (last.header.frame_id, last.child_frame_id) == ("odom", "base_link")
        if name == "r2":  # r2 is never commanded: still at its initial pose
            assert last.transform.translation.x == pytest.approx(x0, abs=1e-3)
            assert last.transform.translation.y == pytest.approx(y0, abs=1e-3)
            assert 2 * math.atan2(last.transform.rotation.z, last.transform.rotation.w) == pytest.approx(yaw0, abs=1e-3)
    static = [t for msg in probe.tf_static for t in msg.transforms]
    assert [(t.header.frame_id, t.child_frame_id) for t in static] == [("map", "odom"), ("base_link", "base_footprint"),
                                                                       ("base_link", "scan")]
    lidar = static[2].transform.translation
    assert (lidar.x, lidar.y, lidar.z) == (0.2, 0.0, 0.3)


def test_r1_lidar_scans_at_its_period(running_node):
    _, probe = running_node
    assert probe.wait_for(lambda: len(probe.scans) >= 5, timeout=10.0)
    scan = probe.scans[-1]
    assert scan.header.frame_id == "scan" and len(scan.ranges) == 541
    assert scan.angle_min == pytest.approx(-math.radians(135)) and scan.angle_max == pytest.approx(math.radians(135))
    stamps = [stamp_s(s) for s in probe.scans[-5:]]
    assert np.diff(stamps) == pytest.approx([0.1] * 4, abs=1e-6)  # every 0.1 s of simulated time
    # r1 starts at the origin facing +x in a room whose east wall face is at x = 11.7 m: the sensor (0.2 m ahead)
    # sees it straight ahead at 11.5 m.
    assert scan.ranges[270] == pytest.approx(11.5, abs=0.05)


def test_cmd_vel_moves_r1_and_the_watchdog_stops_it(running_node):
    _, probe = running_node
    start_x = probe.odom[-1].pose.pose.position.x
    probe.spin_for(2.0, publish=lambda: probe.cmd.publish(twist(1.0)))
    last_command_sim = probe.clock[-1]
    probe.spin_for(1.5)

    moved = probe.odom[-1].pose.pose.position.x - start_x
    assert moved > 1.2  # ~2 s at 1 m/s, less the start-up transient
    driving = [m.twist.twist.linear.x for m in probe.odom if last_command_sim - 0.5 < stamp_s(m) <= last_command_sim]
    assert driving and min(driving) == pytest.approx(1.0, abs=0.05)
    # The watchdog (0.2 s) must not fire early...
    soon_after = [m.twist.twist.linear.x for m in probe.odom
                  if last_command_sim < stamp_s(m) <= last_command_sim + 0.15]
    assert soon_after and min(soon_after) > 0.9
    # ...and the robot must be at rest shortly after it fires (braking from 1 m/s takes ~0.15 s).
    stopped = [m.twist.twist.linear.x for m in probe.odom if stamp_s(m) > last_command_sim + 0.6]
    assert stopped and max(abs(v) for v in stopped) < 0.02
    truth = probe.truth[-1]
    assert truth.header.frame_id == "map" and truth.child_frame_id == "base_link"
    assert abs(truth.twist.twist.linear.x) < 0.02
    # Stamps are simulation time, consistent with /clock.
    assert abs(stamp_s(probe.odom[-1]) - probe.clock[-1]) < 0.1
    assert probe.collision and not any(probe.collision)


def test_nan_commands_are_dropped_and_the_last_valid_command_kept(running_node):
    proc, probe = running_node
    state = {"k": 0}

    def publish():
        state["k"] += 1
        # Every third message is valid; the others carry NaN or inf and must be ignored.
        probe.cmd.publish(twist(0.5) if state["k"] % 3 == 0 else twist(math.nan if state["k"] % 2 else math.inf, 1.0))

    probe.spin_for(2.0, publish=publish, rate_hz=60.0)
    recent = [m for m in probe.odom[-20:]]
    assert all(m.twist.twist.linear.x == pytest.approx(0.5, abs=0.05) for m in recent)
    assert all(abs(m.twist.twist.angular.z) < 0.02 for m in recent)
    assert all(math.isfinite(m.pose.pose.position.x) for m in probe.odom)
    assert proc.poll() is None  # the node is still running


def test_occupancy_grid_is_published_latched_as_simul_map(running_node):
    _, probe = running_node
    assert probe.wait_for(lambda: probe.maps and probe.map_info, timeout=10.0)
    grid = probe.maps[-1]
    assert grid.header.frame_id == "map"
    assert (grid.info.width, grid.info.height, grid.info.resolution) == (240, 160, pytest.approx(0.1))
    assert (grid.info.origin.position.x, grid.info.origin.position.y) == (pytest.approx(-12.0), pytest.approx(-8.0))
    assert probe.map_info[-1] == grid.info
    cells = list(grid.data)
    assert len(cells) == 240 * 160
    # The room's outer walls are 3 px thick on each side: the whole bottom row is wall, a central cell is free.
    assert cells[:240] == [100] * 240
    assert cells[80 * 240 + 120] == 0


def test_missing_world_file_exits_non_zero_with_the_path(tmp_path):
    missing = tmp_path / "nope.world.xml"
    result = subprocess.run(node_command(f"world_file:={missing}"), capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert str(missing) in result.stderr and "not found" in result.stderr


def test_broken_world_file_exits_non_zero_naming_file_and_line(tmp_path):
    broken = tmp_path / "broken.world.xml"
    broken.write_text('<mvsim_world version="1.0">\n  <simul_timestep>0.01</simul_timestep>\n  <vehicle name="a">\n'
                      '</mvsim_world>\n')
    result = subprocess.run(node_command(f"world_file:={broken}"), capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert f"{broken}:4" in result.stderr and "mismatched tag" in result.stderr
