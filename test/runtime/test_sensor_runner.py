"""SensorRunner: sensors measured without ROS at their own rates, with and without OpenGL."""

import math

import numpy as np
import pytest

import mvsim_ros.sensors.scene as scene_module
from gl_support import needs_gl
from mvsim_ros.sensors.gl_context import GlUnavailable
from mvsim_ros.runtime.sensor_runner import SensorRunner
from mvsim_ros.world import load_world
from viewer_worlds import TEST_WORLDS, decoded_frame, robot_world, setup

LASER = ('<sensor class="laser" name="front"><pose_3d>0.2 0 0.3 0 0 0</pose_3d><fov_degrees>60</fov_degrees>'
         '<nrays>61</nrays><range_max>20</range_max><sensor_period>0.1</sensor_period>'
         '<range_std_noise>0</range_std_noise><angle_std_noise_deg>0</angle_std_noise_deg>{extra}</sensor>')


def steps(sim, runner, seconds):
    """Step `seconds` of simulated time, running the due sensors after each step."""
    for _ in range(int(round(seconds / sim.dt))):
        sim.step()
        runner.run_due()


def test_no_sensors_is_fine(write_world):
    sim, _, _ = setup(robot_world(write_world))
    runner = SensorRunner(sim, None)
    runner.run_due()
    assert runner.scene is None


def test_lidar_scans_at_its_period_and_reads_the_wall(write_world, wall_image):
    world = robot_world(write_world, wall_image(3.2), sensors=LASER.format(extra=""))
    sim, sensors, encoder = setup(world)
    runner = SensorRunner(sim, sensors)
    assert runner.scene is None  # nothing rendered: no GL scene is built
    lidar = sensors.lidars[0]
    samples = []
    for _ in range(200):  # 1 s
        sim.step()
        runner.run_due()
        if lidar.latest is not None and (not samples or samples[-1] is not lidar.latest):
            samples.append(lidar.latest)
    assert len(samples) == 11  # t = 0 (caught at the first step), 0.1, ..., 1.0 s
    ranges = samples[-1].ranges
    assert ranges[30] == pytest.approx(3.0, abs=0.01)  # the centre beam: the wall 3.00 m ahead
    _, arrays = decoded_frame(encoder)
    assert arrays["scan:0"][31] == pytest.approx([3.2, 0.0, 0.3], abs=0.01)


def test_without_gl_rendered_sensors_are_skipped_and_lidars_ray_cast(monkeypatch):
    def no_gl(*args, **kwargs):
        raise GlUnavailable("no display in this test")

    monkeypatch.setattr(scene_module, "Scene", no_gl)
    world = load_world(TEST_WORLDS / "all_sensors.world.xml")
    sim, sensors, encoder = setup(world)
    said = []
    runner = SensorRunner(sim, sensors, warn=said.append)
    assert len(said) == 1 and "no display in this test" in said[0]
    steps(sim, runner, 0.5)
    assert len(said) == 1  # warned once
    assert sensors.lidars[0].latest is not None
    assert all(cam.latest is None for cam in sensors.cameras)
    assert all(lidar.latest is None for lidar in sensors.lidars3d)
    _, arrays = decoded_frame(encoder)
    assert "scan:0" in arrays and "points:0" not in arrays
    assert encoder.image(0) is None


@needs_gl
def test_rendered_sensors_capture_when_due_with_one_scene_update_per_step(monkeypatch):
    world = load_world(TEST_WORLDS / "all_sensors.world.xml")
    sim, sensors, encoder = setup(world)
    runner = SensorRunner(sim, sensors)
    assert runner.scene is not None
    updates = []
    original = runner.scene.update
    monkeypatch.setattr(runner.scene, "update", lambda s: (updates.append(s.time), original(s)))
    captures = []
    for _ in range(100):  # 0.5 s; cameras and the 3D lidar run every 0.2 s
        sim.step()
        frame = sensors.cameras[0].latest
        runner.run_due()
        if sensors.cameras[0].latest is not frame:
            captures.append(sim.time)
    assert captures == pytest.approx([0.005, 0.2, 0.4])
    assert updates == pytest.approx([0.005, 0.2, 0.4])  # once per step with something rendered due
    assert sensors.cameras[0].latest.rgb.shape == (48, 64, 3)
    ranges, world_from_sensor = sensors.lidars3d[0].latest
    x, y, yaw = sim.pose[0]
    assert world_from_sensor[:3, 3] == pytest.approx([x, y, 0.6], abs=0.01)
    _, arrays = decoded_frame(encoder)
    points = arrays["points:0"]
    assert len(points) == np.isfinite(ranges).sum() > 0
    # Nothing below the ground; the lowest ring (-10 deg, 0.6 m up) meets it 0.6 / tan(10 deg) = 3.40 m around
    # the sensor (the nearest ground points), unless a wall is nearer.
    assert points[:, 2].min() > -0.02
    ground = points[points[:, 2] < 0.02]
    reach = np.hypot(ground[:, 0] - x, ground[:, 1] - y)
    assert len(ground) > 20 and reach.min() == pytest.approx(0.6 / math.tan(math.radians(10)), abs=0.05)


@needs_gl
@pytest.mark.parametrize("yaw_deg", [0.0, 25.0])
def test_raytrace_3d_lidar_reads_the_wall(write_world, wall_image, yaw_deg):
    world = robot_world(write_world, wall_image(3.2), init_pose=f"0 0 {yaw_deg}",
                        sensors=LASER.format(extra="<raytrace_3d>true</raytrace_3d>"))
    sim, sensors, encoder = setup(world)
    runner = SensorRunner(sim, sensors)
    assert runner.scene is not None and sensors.lidars[0].raytrace_3d
    sim.step()
    runner.run_due()
    ranges = sensors.lidars[0].latest.ranges
    yaw = math.radians(yaw_deg)
    if yaw_deg == 0.0:
        assert ranges[30] == pytest.approx(3.0, abs=0.01)
    _, arrays = decoded_frame(encoder)
    scan = arrays["scan:0"]
    assert scan[0] == pytest.approx([0.2 * math.cos(yaw), 0.2 * math.sin(yaw), 0.3], abs=1e-4)
    assert scan[1:, 0] == pytest.approx(3.2, abs=0.01)  # every end point on the wall face x = 3.20 m
    assert scan[1:, 2] == pytest.approx(0.3, abs=1e-4)
