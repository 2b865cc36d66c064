"""Over DDS: IMU and GNSS of the example car world (single vehicle: unprefixed topics)."""

from __future__ import annotations

import pytest
from sensor_msgs.msg import Imu, NavSatFix

from conftest import REPO
from dds_probe import node_and_probe


def test_car_imu_and_gnss_are_published():
    world = REPO / "worlds" / "elevation_car.world.xml"
    with node_and_probe("inertial_probe", f"world_file:={world}", "realtime_factor:=2.0") as probe:
        imu, gps = [], []
        probe.node.create_subscription(Imu, "/imu", imu.append, 50)
        probe.node.create_subscription(NavSatFix, "/gps", gps.append, 50)
        assert probe.wait_for(lambda: len(imu) > 20 and len(gps) > 2, timeout=30.0)
        assert imu[-1].header.frame_id == "imu"
        assert imu[-1].linear_acceleration.z == pytest.approx(9.81, abs=0.1)  # standing still: gravity
        fix = gps[-1]
        assert fix.header.frame_id == "gps" and fix.status.status == fix.status.STATUS_FIX
        # The car stands at world (-20, -10) + its antenna offset: about 10 m south-west of the origin
        # (36.8946 N, 2.3360 W), within the receiver's noise (0.5 m horizontal).
        assert fix.latitude == pytest.approx(36.8946 - 9.7 / 111_000, abs=2e-5)
        assert fix.longitude == pytest.approx(-2.3360 - 19.6 / (111_320 * 0.7997), abs=2e-5)
