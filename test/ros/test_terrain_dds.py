"""Over DDS: vehicles on terrain are 3D downstream of the physics — odometry, ground truth and TF carry z, pitch and
roll; the IMU at rest on a 10 deg slope reads the tilted gravity."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from sensor_msgs.msg import Imu
from tf2_msgs.msg import TFMessage

from conftest import REPO
from dds_probe import node_and_probe, stamp_s
from mvsim_ros.physics import Simulation
from mvsim_ros.world import load_world

G = 9.81
SLOPE = math.radians(10.0)
#: A uniform 10 deg plane rising towards +x (one 200 m elevation cell whose four corners lie on it), a robot at
#: rest on it facing uphill with an IMU on board.
SLOPE_WORLD = f"""<mvsim_world version="1.0">
  <simul_timestep>0.005</simul_timestep>
  <gravity>{G}</gravity>
  <element class="elevation_map">
    <resolution>200.0</resolution>
    <corner_min_x>-100</corner_min_x>
    <corner_min_y>-100</corner_min_y>
    <elevation_data_matrix>[{-100 * math.tan(SLOPE)!r} {-100 * math.tan(SLOPE)!r};
                            {100 * math.tan(SLOPE)!r} {100 * math.tan(SLOPE)!r}]</elevation_data_matrix>
  </element>
  <vehicle name="r1">
    <dynamics class="differential_4_wheels">
      <lf_wheel pos="0.25 0.3" mass="1.0" width="0.05" diameter="0.20"/>
      <rf_wheel pos="0.25 -0.3" mass="1.0" width="0.05" diameter="0.20"/>
      <lr_wheel pos="-0.25 0.3" mass="1.0" width="0.05" diameter="0.20"/>
      <rr_wheel pos="-0.25 -0.3" mass="1.0" width="0.05" diameter="0.20"/>
      <chassis mass="20.0" zmin="0.05" zmax="0.4">
        <shape><pt>-0.35 -0.25</pt><pt>0.35 -0.25</pt><pt>0.35 0.25</pt><pt>-0.35 0.25</pt></shape>
      </chassis>
      <controller class="twist_pid"><KP>100</KP><KI>200</KI><I_MAX>1</I_MAX><max_torque>30</max_torque></controller>
    </dynamics>
    <friction class="default"><mu>0.8</mu></friction>
    <init_pose>0 0 0</init_pose>
    <sensor class="imu" name="imu">
      <pose_3d>0.1 0 0.3 0 0 0</pose_3d>
      <sensor_period>0.02</sensor_period>
    </sensor>
  </vehicle>
</mvsim_world>
"""


def pitch_roll(q) -> tuple[float, float]:
    """(pitch, roll) [rad] of a geometry_msgs quaternion, R = Rz(yaw) Ry(pitch) Rx(roll)."""
    pitch = math.asin(max(-1.0, min(1.0, 2.0 * (q.w * q.y - q.z * q.x))))
    roll = math.atan2(2.0 * (q.w * q.x + q.y * q.z), 1.0 - 2.0 * (q.x * q.x + q.y * q.y))
    return pitch, roll


def test_imu_at_rest_on_a_10_degree_slope_reads_tilted_gravity(tmp_path):
    world = tmp_path / "slope.world.xml"
    world.write_text(SLOPE_WORLD)
    with node_and_probe("slope_probe", f"world_file:={world}", "realtime_factor:=2.0") as probe:
        imu: list[Imu] = []
        truth: list[Odometry] = []
        probe.node.create_subscription(Imu, "/imu", imu.append, 100)
        probe.node.create_subscription(Odometry, "/base_pose_ground_truth", truth.append, 100)
        assert probe.wait_for(lambda: len(imu) > 60 and truth and stamp_s(truth[-1]) > 1.5, timeout=60.0)
        settled = [m for m in imu if stamp_s(m) > 0.5]
        force = np.mean([(m.linear_acceleration.x, m.linear_acceleration.y, m.linear_acceleration.z)
                         for m in settled], axis=0)
        expected = np.array([G * math.sin(SLOPE), 0.0, G * math.cos(SLOPE)])
        assert force[0] == pytest.approx(expected[0], rel=0.01)
        assert force[2] == pytest.approx(expected[2], rel=0.01)
        assert abs(force[1]) < 0.01 * G
        last = truth[-1]
        pitch, roll = pitch_roll(last.pose.pose.orientation)
        assert pitch == pytest.approx(-SLOPE, abs=math.radians(0.1))  # nose up: negative pitch (REP-103)
        assert abs(roll) < math.radians(0.1)
        assert abs(last.pose.pose.position.x) < 0.01  # parked: it stays put


def test_odometry_ground_truth_and_tf_carry_height_and_tilt_on_hills():
    world = REPO / "worlds" / "elevation_car.world.xml"
    terrain = Simulation(load_world(world))
    with node_and_probe("hills_probe", f"world_file:={world}", "realtime_factor:=4.0") as probe:
        odom: list[Odometry] = []
        truth: list[Odometry] = []
        tf: list = []
        probe.node.create_subscription(Odometry, "/odom", odom.append, 200)
        probe.node.create_subscription(Odometry, "/base_pose_ground_truth", truth.append, 200)
        probe.node.create_subscription(
            TFMessage, "/tf", lambda m: tf.extend(t for t in m.transforms if t.child_frame_id == "base_link"), 200)
        cmd = probe.node.create_publisher(Twist, "/cmd_vel", 10)
        drive = Twist()
        drive.linear.x = 3.0  # straight up the hill ahead (2 m higher 20 m on)

        def moved() -> bool:  # 10 s of simulated time since the first message (the clock runs from the start)
            return len(truth) > 50 and stamp_s(truth[-1]) > stamp_s(truth[0]) + 10.0

        assert probe.wait_for(lambda: truth, timeout=60.0)
        deadline = time.monotonic() + 60.0
        while not moved() and time.monotonic() < deadline:  # drive up the hill for 10 s of simulated time
            cmd.publish(drive)
            probe.spin_for(0.05)
        assert moved(), "the car did not drive for 10 s of simulated time"

    heights = np.array([m.pose.pose.position.z for m in truth])
    pitches = np.array([pitch_roll(m.pose.pose.orientation)[0] for m in truth])
    assert np.ptp(heights) > 0.2 and np.max(np.abs(pitches)) > math.radians(2.0)  # it went over the hills
    wheels = np.array([(w.x, w.y) for w in terrain.spec.vehicles[0].wheels])
    for m in truth[::10]:  # z lies on the wheels' contact plane: within the span of the ground under them
        x, y, z = m.pose.pose.position.x, m.pose.pose.position.y, m.pose.pose.position.z
        q = m.pose.pose.orientation
        yaw = math.atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z))
        c, s = math.cos(yaw), math.sin(yaw)
        under = terrain.ground_height(x + c * wheels[:, 0] - s * wheels[:, 1], y + s * wheels[:, 0] + c * wheels[:, 1],
                                      np.full(len(wheels), z + 1.0))
        assert under.min() - 0.01 <= z <= under.max() + 0.01
    by_stamp = {stamp_s(m): m for m in truth}
    matched = 0
    for m in odom:  # the odometry carries the same height and tilt as the ground truth (planar x, y, yaw)
        twin = by_stamp.get(stamp_s(m))
        if twin is None:
            continue
        matched += 1
        assert m.pose.pose.position.z == pytest.approx(twin.pose.pose.position.z, abs=1e-9)
        assert pitch_roll(m.pose.pose.orientation) == pytest.approx(pitch_roll(twin.pose.pose.orientation), abs=1e-6)
    assert matched > 20
    odom_by_stamp = {stamp_s(m): m for m in odom}
    checked = 0
    for t in tf:  # TF odom -> base_link is the odometry's pose
        twin = odom_by_stamp.get(t.header.stamp.sec + 1e-9 * t.header.stamp.nanosec)
        if twin is None:
            continue
        checked += 1
        assert t.transform.translation.z == pytest.approx(twin.pose.pose.position.z, abs=1e-9)
        q, p = t.transform.rotation, twin.pose.pose.orientation
        assert (q.x, q.y, q.z, q.w) == pytest.approx((p.x, p.y, p.z, p.w), abs=1e-9)
    assert checked > 20
