"""The 2D lidar against geometry: a wall at 3.00 m reads 3.00 m; other beams follow 1/cos; visibility rules."""

import math

import numpy as np
import pytest

from conftest import robot_world_xml
from mvsim_ros.physics import Simulation
from mvsim_ros.sensors.suite import build_sensors
from mvsim_ros.world import load_world

LASER = ('<sensor class="laser" name="laser1"><pose_3d>0 0 0.3 0 0 0</pose_3d><fov_degrees>180</fov_degrees>'
         '<nrays>181</nrays><range_max>20</range_max><range_std_noise>{noise}</range_std_noise>'
         '<bodies_visible>{visible}</bodies_visible></sensor>')


def world_with_laser(write_world, wall_image, noise=0.0, visible="true", extra=""):
    text = robot_world_xml(grid_file=str(wall_image(3.0)), extra=extra).replace(
        "<init_pose>0 0 0</init_pose>", "<init_pose>0 0 0</init_pose>" + LASER.format(noise=noise, visible=visible))
    return load_world(write_world(text))


def scan(world) -> np.ndarray:
    sim = Simulation(world)
    lidars = build_sensors(world).lidars
    return lidars[0].scan(sim.box2d.world, sim.pose[lidars[0].vehicle])


def test_wall_at_three_metres(write_world, wall_image):
    ranges = scan(world_with_laser(write_world, wall_image))
    angles = np.linspace(-math.pi / 2, math.pi / 2, 181)
    assert ranges[90] == pytest.approx(3.00, abs=0.01)  # centre beam
    for i in (60, 80, 100, 120, 140):  # the wall spans y in [-10, 10]: beams within +-73 deg hit it
        assert ranges[i] == pytest.approx(3.0 / math.cos(angles[i]), abs=0.01)
    assert np.isinf(ranges[0]) and np.isinf(ranges[180])  # straight sideways: nothing within 20 m


def test_other_robots_are_seen_only_when_bodies_are_visible(write_world, wall_image):
    other = '<vehicle name="r2" class="bot"><init_pose>1.5 0 90</init_pose></vehicle>'
    seen = scan(world_with_laser(write_world, wall_image, visible="true", extra=other))
    hidden = scan(world_with_laser(write_world, wall_image, visible="false", extra=other))
    assert seen[90] == pytest.approx(1.5 - 0.25 - 0.025, abs=0.01)  # r2's right wheel (y 0.25, width 0.05)
    assert hidden[90] == pytest.approx(3.00, abs=0.01)


def test_low_blocks_are_under_the_beam(write_world, wall_image):
    low = '<block name="low"><zmax>0.1</zmax><geometry type="box" lx="0.4" ly="0.4" lz="0.1"/>' \
          '<init_pose>1 -0.2 0</init_pose></block>'
    tall = low.replace('name="low"><zmax>0.1</zmax>', 'name="tall"><zmax>1.0</zmax>')
    assert scan(world_with_laser(write_world, wall_image, extra=low))[90] == pytest.approx(3.0, abs=0.01)
    assert scan(world_with_laser(write_world, wall_image, extra=tall))[90] == pytest.approx(1.0, abs=0.01)


def test_range_noise_has_the_configured_spread(write_world, wall_image):
    world = world_with_laser(write_world, wall_image, noise=0.05)
    sim = Simulation(world)
    lidar = build_sensors(world).lidars[0]
    samples = np.concatenate([lidar.scan(sim.box2d.world, sim.pose[0])[85:96] - 3.0 / np.cos(
        np.linspace(-math.pi / 2, math.pi / 2, 181)[85:96]) for _ in range(1000)])
    assert samples.size >= 10_000
    assert np.std(samples) == pytest.approx(0.05, rel=0.1) and abs(np.mean(samples)) < 0.005
