"""Noisy sensors replay: the same world and seed give the same lidar scans, IMU and GNSS readings, bit for bit
(another seed other ones), whether a lidar's noise is drawn in place or ahead (as the compiled scans draw it), and
the lidar's noise has the configured spread."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import robot_world_xml
from mvsim_ros.physics import Simulation
from mvsim_ros.sensors.suite import build_sensors
from mvsim_ros.world import load_world_string

#: A wall along x = 5 m (and a second one behind the robot) for the lidar to see.
WALLS = ("<walls><wallThickness>0.2</wallThickness><shape><pt>5 -40</pt><pt>5 40</pt><pt>-6 -40</pt><pt>-6 40</pt>"
         "</shape></walls>")
GEOREFERENCE = ("<georeference><latitude>36.8</latitude><longitude>-2.4</longitude><height>10</height>"
                "</georeference>")


def lidar_xml(range_noise: float, angle_noise_deg: float, rays: int = 181) -> str:
    return (f'<sensor class="laser" name="scan"><pose_3d>0.1 0 0.3 0 0 0</pose_3d><fov_degrees>180</fov_degrees>'
            f"<nrays>{rays}</nrays><range_max>30</range_max><sensor_period>0.05</sensor_period>"
            f"<range_std_noise>{range_noise}</range_std_noise><angle_std_noise_deg>{angle_noise_deg}"
            "</angle_std_noise_deg></sensor>")


NOISY_SENSORS = (lidar_xml(0.03, 0.5)
                 + '<sensor class="imu" name="imu"><sensor_period>0.01</sensor_period>'
                   "<angular_velocity_std_noise>0.002</angular_velocity_std_noise>"
                   "<linear_acceleration_std_noise>0.02</linear_acceleration_std_noise></sensor>"
                 + '<sensor class="gnss" name="gps"><pose_3d>0 0 1 0 0 0</pose_3d><sensor_period>0.1</sensor_period>'
                   "<horizontal_std_noise>0.5</horizontal_std_noise><vertical_std_noise>1.0</vertical_std_noise>"
                   "</sensor>")


def world_with(sensors: str, extra: str = WALLS):
    text = robot_world_xml(extra=extra).replace("<init_pose>0 0 0</init_pose>",
                                                f"<init_pose>0 0 0</init_pose>{sensors}")
    return load_world_string(text)


def record(world, seed: int, steps: int = 400) -> list[bytes]:
    """Every reading of every sensor due over `steps` steps of the robot driving a curve, as bytes."""
    sim = Simulation(world)
    sensors = build_sensors(world, seed)
    assert sensors.lidars and sensors.imus and sensors.gnss
    sim.set_twist(0, 0.5, 0.3)
    out = []
    for _ in range(steps):
        sim.step()
        now = sim.time
        for lidar in sensors.lidars:
            if lidar.due(now):
                out.append(lidar.scan(sim.box2d.world, sim.pose[0]).tobytes())
        for imu in sensors.imus:
            if imu.due(now):
                reading = imu.read(sim.pose[0], sim.velocity[0], sim.acceleration[0])
                out.append(reading.angular_velocity.tobytes() + reading.linear_acceleration.tobytes())
        for gnss in sensors.gnss:
            if gnss.due(now):
                fix = gnss.read(sim.pose[0])
                out.append(np.array([fix.latitude, fix.longitude, fix.height]).tobytes())
    return out


def test_same_world_and_seed_replay_every_noisy_reading_bit_for_bit():
    world = world_with(NOISY_SENSORS, WALLS + GEOREFERENCE)
    first, again, other = record(world, 5), record(world, 5), record(world, 6)
    assert len(first) == 41 + 201 + 21  # at the first step, then scans at 20 Hz, IMU at 100 Hz, GNSS at 10 Hz for 2 s
    assert first == again
    assert all(a != b for a, b in zip(first, other))  # every reading carries noise of its own


def test_noise_drawn_ahead_gives_the_scans_drawn_in_place():
    """The compiled scans take each lidar's noise drawn ahead (noise_ahead / skip_noise); a scan measured in Python
    afterwards continues the same sequence."""
    world = world_with(lidar_xml(0.03, 0.5))
    sim = Simulation(world)
    in_place, ahead = build_sensors(world, 2).lidars[0], build_sensors(world, 2).lidars[0]
    expected = [in_place.scan(sim.box2d.world, sim.pose[0]).copy() for _ in range(6)]
    blocks = ahead.noise_ahead(4).copy()
    assert blocks.shape == (4, 2, 181)
    assert ahead.noise_ahead(4).tobytes() == blocks.tobytes()  # drawn once, not redrawn
    got = [ahead.scan(sim.box2d.world, sim.pose[0]).copy() for _ in range(6)]  # 4 drawn ahead, then 2 in place
    for a, b in zip(expected, got):
        assert a.tobytes() == b.tobytes()


def _scans(world, seed: int, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(noise-free ranges, `count` noisy scans, beam bearings [rad]) of the robot's lidar at rest at the origin."""
    sim = Simulation(world)
    lidar = build_sensors(world, seed).lidars[0]
    noisy = np.array([lidar.scan(sim.box2d.world, sim.pose[0]) for _ in range(count)])
    lidar.params.range_noise = lidar.params.angle_noise = 0.0
    return lidar.scan(sim.box2d.world, sim.pose[0]), noisy, lidar.params.angles


def test_lidar_range_noise_has_the_configured_spread():
    exact, noisy, _ = _scans(world_with(lidar_xml(0.05, 0.0)), 1, 400)
    seen = np.isfinite(exact)
    assert seen.sum() > 100
    errors = (noisy[:, seen] - exact[seen]).ravel()
    assert np.isfinite(errors).all()
    assert errors.std() == pytest.approx(0.05, rel=0.03)
    assert abs(errors.mean()) < 0.002


def test_lidar_bearing_noise_has_the_configured_spread():
    """On the flat wall x = 4.9 m (the near face), a beam at bearing b meets it at d / cos(b): the noisy ranges
    give back each beam's bearing error."""
    exact, noisy, angles = _scans(world_with(lidar_xml(0.0, 1.0)), 1, 300)
    beams = (angles > math.radians(20)) & (angles < math.radians(60))
    distance = exact[beams] * np.cos(angles[beams])  # to the wall [m], the same for every beam
    assert np.ptp(distance) < 1e-4
    errors = (np.arccos(distance / noisy[:, beams]) - angles[beams]).ravel()
    assert errors.std() == pytest.approx(math.radians(1.0), rel=0.03)
    assert abs(errors.mean()) < math.radians(0.02)


@pytest.mark.parametrize("range_noise, angle_noise_deg", [(0.03, 0.5), (0.03, 0.0), (0.0, 0.5)])
def test_noise_blocks_are_the_numbers_of_gaussian_draws_scan_by_scan(range_noise, angle_noise_deg):
    """The errors drawn ahead for many scans at once are those of numpy's normal(0, std) drawn per scan: bearing
    errors, then range errors, for each scan in turn (only the noises that are on)."""
    world = world_with(lidar_xml(range_noise, angle_noise_deg))
    lidar = build_sensors(world, 9).lidars[0]
    blocks = lidar.noise_ahead(20)
    reference = np.random.default_rng([9, 0, 0])  # suite.noise_generator(9, vehicle 0, sensor 0)
    for block in blocks:
        for row, std in ((0, math.radians(angle_noise_deg)), (1, range_noise)):
            expected = reference.normal(0.0, std, 181) if std > 0 else np.zeros(181)
            assert block[row].tobytes() == expected.tobytes()
