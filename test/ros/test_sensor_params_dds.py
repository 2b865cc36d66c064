"""Over DDS (the node in its own process): sensors get MVSim's parameters. A lidar with <max_range>70 sees a wall
50 m away; a lidar without noise tags has MVSim's default range noise (0.01 m); an IMU configured with MVSim's
current noise names shows that noise; with measure_orientation it publishes its orientation and covariance,
without it the message says it has none (orientation_covariance[0] = -1)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sensor_msgs.msg import Imu, LaserScan

from conftest import robot_world_xml
from dds_probe import node_and_probe

WALL_X = 50.0  # [m] near face of the wall (a box spans [0, lx] x [0, ly] from its pose)
WALL = ('<block name="wall"><static>true</static><zmin>0</zmin><zmax>2</zmax>'
        f'<geometry type="box" lx="0.2" ly="20" lz="2"/><init_pose>{WALL_X} -10 0</init_pose></block>')
#: World-level sensors at the origin (the robot parked out of their way): a 70 m lidar with no noise tags, an IMU
#: with MVSim's current noise names and measure_orientation, and an IMU with no tags at all.
SENSORS = ('<sensor class="laser" name="far"><pose_3d>0 0 0.4 0 0 0</pose_3d><fov_degrees>10</fov_degrees>'
           '<nrays>11</nrays><max_range>70</max_range><sensor_period>0.05</sensor_period></sensor>'
           '<sensor class="imu" name="imu"><pose_3d>0 0 0.2 30 0 0</pose_3d><sensor_period>0.02</sensor_period>'
           '<angular_velocity_white_noise_std_noise>0.05</angular_velocity_white_noise_std_noise>'
           '<linear_acceleration_white_noise_std_noise>0.2</linear_acceleration_white_noise_std_noise>'
           '<measure_orientation>true</measure_orientation><orientation_std_noise>0.01</orientation_std_noise>'
           '</sensor>'
           '<sensor class="imu" name="plain"><sensor_period>0.02</sensor_period></sensor>')
SAMPLES = 60


@pytest.fixture(scope="module")
def received(tmp_path_factory):
    world = tmp_path_factory.mktemp("sensor_params") / "params.world.xml"
    world.write_text(robot_world_xml(init_pose="-5 5 0", extra=WALL + SENSORS))
    with node_and_probe("sensor_params_probe", f"world_file:={world}", "realtime_factor:=2.0") as probe:
        out: dict[str, list] = {"far": [], "imu": [], "plain": []}
        probe.node.create_subscription(LaserScan, "/far", out["far"].append, 100)
        probe.node.create_subscription(Imu, "/imu", out["imu"].append, 200)
        probe.node.create_subscription(Imu, "/plain", out["plain"].append, 200)
        assert probe.wait_for(lambda: min(len(v) for v in out.values()) >= SAMPLES, timeout=60.0), \
            {k: len(v) for k, v in out.items()}
        yield out


def test_a_70_m_lidar_sees_a_wall_at_50_m(received):
    scans = received["far"]
    assert scans[-1].range_max == pytest.approx(70.0)
    centre = np.array([scan.ranges[5] for scan in scans], dtype=float)
    assert np.all(np.isfinite(centre))
    assert centre.mean() == pytest.approx(WALL_X, abs=0.01)


def test_a_lidar_without_noise_tags_has_mvsims_default_noise(received):
    ranges = np.array([list(scan.ranges) for scan in received["far"]], dtype=float)  # (scans, beams)
    beams = np.radians(np.linspace(-5.0, 5.0, 11))
    assert ranges.mean(axis=0) == pytest.approx(WALL_X / np.cos(beams), abs=0.01)
    spread = (ranges - ranges.mean(axis=0)).std() * math.sqrt(ranges.size / (ranges.size - ranges.shape[1]))
    assert spread == pytest.approx(0.01, rel=0.15)  # MVSim's range_std_noise default


def gyro_z(messages: list[Imu]) -> np.ndarray:
    return np.array([m.angular_velocity.z for m in messages])


def test_an_imu_with_mvsims_current_noise_names_shows_that_noise(received):
    imu = received["imu"]
    assert gyro_z(imu).std() == pytest.approx(0.05, rel=0.25)
    assert np.array([m.linear_acceleration.x for m in imu]).std() == pytest.approx(0.2, rel=0.25)
    assert list(imu[-1].angular_velocity_covariance[0::4]) == pytest.approx([0.05 ** 2] * 3)
    plain = received["plain"]  # no tags: MVSim's defaults 2e-4 rad/s and 0.017 m/s^2
    assert gyro_z(plain).std() == pytest.approx(2e-4, rel=0.25)
    assert np.array([m.linear_acceleration.z for m in plain]).mean() == pytest.approx(9.81, abs=0.01)


def test_imu_orientation_only_when_measured(received):
    imu = received["imu"]
    half = math.radians(15.0)  # the IMU is yawed 30 deg in the world
    quats = np.array([(m.orientation.x, m.orientation.y, m.orientation.z, m.orientation.w) for m in imu])
    quats *= np.sign(quats[:, 3:4])
    assert quats.mean(axis=0) == pytest.approx([0.0, 0.0, math.sin(half), math.cos(half)], abs=0.005)
    assert quats[:, 0].std() > 1e-3  # the orientation noise (0.01 rad about each axis) shows
    assert list(imu[-1].orientation_covariance) == pytest.approx([1e-4, 0, 0, 0, 1e-4, 0, 0, 0, 1e-4])
    plain = received["plain"][-1]
    assert plain.orientation_covariance[0] == -1.0
    assert (plain.orientation.x, plain.orientation.y, plain.orientation.z, plain.orientation.w) == (0, 0, 0, 1)
