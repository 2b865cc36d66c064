"""Over DDS: IMU and GNSS of the example car world (single vehicle: unprefixed topics)."""

from __future__ import annotations

import subprocess

import pytest
import rclpy
from sensor_msgs.msg import Imu, NavSatFix

from conftest import REPO
from dds_probe import ProbeNode, node_command


def test_car_imu_and_gnss_are_published():
    world = REPO / "worlds" / "elevation_car.world.xml"
    proc = subprocess.Popen(node_command(f"world_file:={world}", "realtime_factor:=2.0"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "inertial_probe")
    imu, gps = [], []
    probe.node.create_subscription(Imu, "/imu", imu.append, 50)
    probe.node.create_subscription(NavSatFix, "/gps", gps.append, 50)
    try:
        assert probe.wait_for(lambda: len(imu) > 20 and len(gps) > 2, timeout=30.0)
        assert imu[-1].header.frame_id == "imu"
        assert imu[-1].linear_acceleration.z == pytest.approx(9.81, abs=0.1)  # standing still: gravity
        fix = gps[-1]
        assert fix.header.frame_id == "gps" and fix.status.status == fix.status.STATUS_FIX
        # The car stands at world (-20, -10) + its antenna offset: about 10 m south-west of the origin
        # (36.8946 N, 2.3360 W), within the receiver's noise (0.5 m horizontal).
        assert fix.latitude == pytest.approx(36.8946 - 9.7 / 111_000, abs=2e-5)
        assert fix.longitude == pytest.approx(-2.3360 - 19.6 / (111_320 * 0.7997), abs=2e-5)
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
