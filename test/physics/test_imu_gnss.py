"""IMU and GNSS readings against closed-form values: gravity, centripetal acceleration, geodesy, noise."""

import math

import numpy as np
import pytest

from conftest import robot_world_xml
from mvsim_ros.physics import Simulation
from mvsim_ros.sensors.gnss import WGS84_A, WGS84_E2
from mvsim_ros.sensors.suite import build_sensors
from mvsim_ros.world import load_world_string

IMU = ('<sensor class="imu" name="imu"><pose_3d>0 0 0.2 0 0 {roll}</pose_3d><sensor_period>0.01</sensor_period>'
       '<angular_velocity_std_noise>{gyro}</angular_velocity_std_noise>'
       '<linear_acceleration_std_noise>{accel}</linear_acceleration_std_noise></sensor>')
GNSS = ('<sensor class="gnss" name="gps"><pose_3d>{x} 0 1.0 0 0 0</pose_3d><sensor_period>0.1</sensor_period>'
        '<horizontal_std_noise>{h}</horizontal_std_noise><vertical_std_noise>{v}</vertical_std_noise></sensor>')


def sim_with(sensor: str, extra: str = "", init: str = "0 0 0") -> tuple[Simulation, object]:
    text = robot_world_xml(extra=extra, init_pose=init).replace(
        f"<init_pose>{init}</init_pose>", f"<init_pose>{init}</init_pose>{sensor}")
    world = load_world_string(text)
    return Simulation(world), build_sensors(world)


def test_imu_at_rest_reads_gravity_upwards():
    sim, sensors = sim_with(IMU.format(roll=0, gyro=0, accel=0))
    sim.run(0.5)
    reading = sensors.imus[0].read(sim.pose[0], sim.velocity[0], sim.acceleration[0])
    assert reading.linear_acceleration == pytest.approx([0.0, 0.0, 9.81], abs=1e-6)
    assert reading.angular_velocity == pytest.approx([0.0, 0.0, 0.0], abs=1e-9)


def test_imu_mounted_on_its_side_sees_gravity_on_y():
    sim, sensors = sim_with(IMU.format(roll=90, gyro=0, accel=0))
    reading = sensors.imus[0].read(sim.pose[0], sim.velocity[0], sim.acceleration[0])
    assert reading.linear_acceleration == pytest.approx([0.0, 9.81, 0.0], abs=1e-9)


def test_imu_on_a_circle_reads_the_centripetal_acceleration():
    sim, sensors = sim_with(IMU.format(roll=0, gyro=0, accel=0))
    v, omega = 1.0, 0.5  # radius 2 m
    sim.set_twist(0, v, omega)
    sim.run(4.0)
    readings = []
    for _ in range(200):
        sim.step()
        readings.append(sensors.imus[0].read(sim.pose[0], sim.velocity[0], sim.acceleration[0]))
    lateral = np.mean([r.linear_acceleration[1] for r in readings])
    assert lateral == pytest.approx(v * v / (v / omega), rel=0.05)  # towards the centre, on the left (+y)
    assert np.mean([r.angular_velocity[2] for r in readings]) == pytest.approx(omega, rel=0.02)


def test_imu_noise_has_the_configured_spread():
    sim, sensors = sim_with(IMU.format(roll=0, gyro=0.002, accel=0.02))
    imu = sensors.imus[0]
    samples = [imu.read(sim.pose[0], sim.velocity[0], sim.acceleration[0]) for _ in range(10_000)]
    gyro = np.array([s.angular_velocity for s in samples])
    accel = np.array([s.linear_acceleration for s in samples]) - [0.0, 0.0, 9.81]
    assert np.std(gyro, axis=0) == pytest.approx([0.002] * 3, rel=0.1)
    assert np.std(accel, axis=0) == pytest.approx([0.02] * 3, rel=0.1)


def georef(lat: float, lon: float, rotation_deg: float = 0.0) -> str:
    return (f"<georeference><latitude>{lat}</latitude><longitude>{lon}</longitude><height>0</height>"
            f"<world_to_enu_rotation_deg>{rotation_deg}</world_to_enu_rotation_deg></georeference>")


def test_gnss_east_of_the_equator_origin_matches_the_ellipsoid():
    sim, sensors = sim_with(GNSS.format(x=0, h=0, v=0), extra=georef(0.0, 0.0), init="1000 0 0")
    fix = sensors.gnss[0].read(sim.pose[0])
    # The world point (1000, 0, 1) is the ECEF point (a + 1, 1000, 0): exact closed form on the equator.
    assert fix.has_fix and fix.latitude == pytest.approx(0.0, abs=1e-12)
    assert math.radians(fix.longitude) == pytest.approx(math.atan2(1000.0, WGS84_A + 1.0), abs=1e-9)
    assert fix.height == pytest.approx(math.hypot(WGS84_A + 1.0, 1000.0) - WGS84_A, abs=0.01)


@pytest.mark.parametrize("rotation_deg", [0.0, 30.0])
def test_gnss_small_offsets_follow_the_local_radii_of_curvature(rotation_deg):
    lat0 = 36.8946
    sim, sensors = sim_with(GNSS.format(x=0, h=0, v=0), extra=georef(lat0, -2.336, rotation_deg), init="8 6 0")
    fix = sensors.gnss[0].read(sim.pose[0])
    phi = math.radians(lat0)
    meridian = WGS84_A * (1 - WGS84_E2) / (1 - WGS84_E2 * math.sin(phi) ** 2) ** 1.5
    normal = WGS84_A / math.sqrt(1 - WGS84_E2 * math.sin(phi) ** 2)
    r = math.radians(rotation_deg)
    east, north = 8 * math.cos(r) - 6 * math.sin(r), 8 * math.sin(r) + 6 * math.cos(r)
    dy = math.radians(fix.latitude - lat0) * meridian
    dx = math.radians(fix.longitude + 2.336) * normal * math.cos(phi)
    assert (dx, dy) == (pytest.approx(east, abs=0.01), pytest.approx(north, abs=0.01))
    assert fix.height == pytest.approx(1.0, abs=0.01)


def test_gnss_noise_and_no_coverage_regions():
    sim, sensors = sim_with(GNSS.format(x=0, h=1.5, v=2.5), extra=georef(0.0, 0.0))
    gnss = sensors.gnss[0]
    fixes = [gnss.read(sim.pose[0]) for _ in range(10_000)]
    east = np.array([math.radians(f.longitude) * WGS84_A for f in fixes])
    up = np.array([f.height for f in fixes])
    assert np.std(east) == pytest.approx(1.5, rel=0.1) and np.std(up) == pytest.approx(2.5, rel=0.1)
    region = ('<element class="property_region"><x_min>-5</x_min><x_max>5</x_max><y_min>-5</y_min><y_max>5</y_max>'
              '<property_name>gps_no_coverage</property_name><value_bool>true</value_bool></element>')
    sim, sensors = sim_with(GNSS.format(x=0, h=0, v=0), extra=georef(0.0, 0.0) + region)
    assert not sensors.gnss[0].read(sim.pose[0]).has_fix


def test_gnss_without_a_georeference_is_reported():
    _, sensors = sim_with(GNSS.format(x=0, h=0, v=0))
    assert sensors.gnss == [] and "needs a <georeference>" in sensors.warnings[0]


def test_gnss_in_a_utm_world_subtracts_the_reference_points_utm_coordinates():
    """<world_is_utm>: world x, y are UTM easting/northing; the reference point's own UTM coordinates (and height)
    are subtracted before the ENU conversion, so a fix 1000 m east of the reference point's easting reads the
    same as 1000 m east of the origin of a plain world."""
    from mvsim_ros.sensors.gnss import GeoReference

    plain = GeoReference(0.0, 0.0, 0.0, 0.0)
    utm = GeoReference(0.0, 0.0, 0.0, 0.0, offset=(166021.44, 0.0, 0.0))
    np.testing.assert_allclose(utm.world_to_enu(166021.44 + 1000.0, 5.0, 1.0), plain.world_to_enu(1000.0, 5.0, 1.0),
                               atol=1e-9)
    sim, sensors = sim_with(GNSS.format(x=0, h=0, v=0), init="0 0 0",
                            extra="<georeference><latitude>0</latitude><longitude>3</longitude><height>0</height>"
                                  "<world_is_utm>true</world_is_utm></georeference>")
    assert len(sensors.gnss) == 1, sensors.warnings  # simulated in a UTM world too
    # (0, 3 deg E) lies on UTM zone 31's central meridian: easting 500 km, northing 0.
    assert sensors.gnss[0].geo.offset == pytest.approx((500000.0, 0.0, 0.0), abs=0.01)
