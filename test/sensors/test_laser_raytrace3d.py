"""2D lidar with raytrace_3d: ranges measured on the GPU see 3D shapes and match the Box2D ray casting on walls."""

import math
import time

import numpy as np
import pytest

from conftest import robot_world_xml
from gl_support import needs_gl
from mvsim_ros.physics import Simulation
from mvsim_ros.runtime.sensor_runner import SensorRunner
from mvsim_ros.sensors.gl_context import GlUnavailable
from mvsim_ros.sensors.suite import build_sensors
from mvsim_ros.world import load_world


LASER = ('<sensor class="laser" name="laser1"><pose_3d>0 0 0.3 0 0 0</pose_3d><fov_degrees>{fov}</fov_degrees>'
         '<nrays>{rays}</nrays><range_max>20</range_max><range_std_noise>{noise}</range_std_noise>'
         '<angle_std_noise_deg>0</angle_std_noise_deg>'
         '<bodies_visible>{visible}</bodies_visible><raytrace_3d>true</raytrace_3d></sensor>')


def block(name, x, zmin, zmax, ly=0.4):
    """A 0.4 m deep block whose near face is the plane x = `x`, centred on y = 0, spanning z in [zmin, zmax]."""
    return (f'<block name="{name}"><static>true</static><zmin>{zmin}</zmin><zmax>{zmax}</zmax>'
            f'<geometry type="box" lx="0.4" ly="{ly}" lz="{zmax - zmin}"/>'
            f'<init_pose>{x} {-ly / 2} 0</init_pose></block>')


def setup(write_world, wall_image, extra="", fov=180, rays=181, noise=0.0, visible="true"):
    text = robot_world_xml(grid_file=str(wall_image(3.0)), extra=extra).replace(
        "<init_pose>0 0 0</init_pose>",
        "<init_pose>0 0 0</init_pose>" + LASER.format(fov=fov, rays=rays, noise=noise, visible=visible))
    world = load_world(write_world(text))
    sensors = build_sensors(world)
    sim = Simulation(world)
    return world, sensors, sim


def both_scans(world, lidar, sim):
    from mvsim_ros.sensors.scene import Scene

    scene = Scene(world)
    scene.update(sim)
    return lidar.render_scan(scene, sim.pose[0]), lidar.scan(sim.box2d.world, sim.pose[0])


def test_raytrace_3d_is_parsed_and_no_longer_warned(write_world, wall_image):
    _world, sensors, _sim = setup(write_world, wall_image)
    assert sensors.lidars[0].raytrace_3d and sensors.lidars[0].params.raytrace_3d
    assert not any("raytrace_3d" in w for w in sensors.warnings)


@needs_gl
@pytest.mark.parametrize("fov, rays", [(180, 181), (360, 361), (270, 541), (60, 61), (90, 1001)])
def test_wall_matches_the_2d_path(write_world, wall_image, fov, rays):
    world, sensors, sim = setup(write_world, wall_image, fov=fov, rays=rays)
    lidar = sensors.lidars[0]
    gpu, box2d = both_scans(world, lidar, sim)
    centre = int(np.argmin(np.abs(lidar.params.angles)))
    assert lidar.params.angles[centre] == pytest.approx(0.0, abs=1e-9)
    assert gpu[centre] == pytest.approx(3.00, abs=0.01)
    assert np.array_equal(np.isinf(gpu), np.isinf(box2d))
    finite = np.isfinite(box2d)
    assert finite.sum() > 0.2 * rays
    assert np.max(np.abs(gpu[finite] - box2d[finite])) < 0.01


@needs_gl
def test_blocks_outside_the_beam_height_are_not_seen(write_world, wall_image):
    low = block("low", 1.0, 0.0, 0.2)  # zmax below the beam (0.3 m)
    table = block("table", 1.5, 0.5, 0.8)  # a table top above the beam
    tall = block("tall", 2.0, 0.0, 1.0)  # spans the beam
    world, sensors, sim = setup(write_world, wall_image, extra=low + table)
    gpu, box2d = both_scans(world, sensors.lidars[0], sim)
    assert gpu[90] == pytest.approx(3.00, abs=0.01) and box2d[90] == pytest.approx(3.00, abs=0.01)
    world, sensors, sim = setup(write_world, wall_image, extra=low + table + tall)
    gpu, box2d = both_scans(world, sensors.lidars[0], sim)
    assert gpu[90] == pytest.approx(2.00, abs=0.01) and box2d[90] == pytest.approx(2.00, abs=0.01)


@needs_gl
def test_other_robots_follow_bodies_visible(write_world, wall_image):
    other = '<vehicle name="r2" class="bot"><init_pose>1.5 0 90</init_pose></vehicle>'
    world, sensors, sim = setup(write_world, wall_image, extra=other, visible="true")
    seen, _ = both_scans(world, sensors.lidars[0], sim)
    assert seen[90] < 1.5
    world, sensors, sim = setup(write_world, wall_image, extra=other, visible="false")
    hidden, _ = both_scans(world, sensors.lidars[0], sim)
    assert hidden[90] == pytest.approx(3.00, abs=0.01)


@needs_gl
def test_noise_on_the_gpu_path(write_world, wall_image):
    world, sensors, sim = setup(write_world, wall_image, noise=0.05)
    from mvsim_ros.sensors.scene import Scene

    lidar = sensors.lidars[0]
    scene = Scene(world)
    scene.update(sim)
    truth = 3.0 / np.cos(lidar.params.angles[40:141])
    samples = np.concatenate([lidar.render_scan(scene, sim.pose[0])[40:141] - truth for _ in range(100)])
    assert np.std(samples) == pytest.approx(0.05, rel=0.1) and abs(np.mean(samples)) < 0.005


@needs_gl
def test_gpu_scan_time(write_world, wall_image):
    world, sensors, sim = setup(write_world, wall_image, fov=360, rays=360)
    from mvsim_ros.sensors.scene import Scene

    lidar = sensors.lidars[0]
    scene = Scene(world)
    scene.update(sim)
    lidar.render_scan(scene, sim.pose[0])
    start = time.perf_counter()
    for _ in range(20):
        lidar.render_scan(scene, sim.pose[0])
    per_scan = (time.perf_counter() - start) / 20
    print(f"raytrace_3d 360-ray scan: {per_scan * 1e3:.2f} ms")
    assert per_scan < 0.1


def test_no_gl_falls_back_to_2d_with_a_warning(write_world, wall_image, monkeypatch):
    from mvsim_ros.ros.publishing import scan_publisher
    from mvsim_ros.sensors import gl_context as gl

    world, sensors, sim = setup(write_world, wall_image)
    monkeypatch.setattr(gl, "_CONTEXT", None)
    monkeypatch.setenv("MVSIM_GL_BACKEND", "no-such-backend")
    monkeypatch.setattr(gl, "gl_context", _raise_unavailable)
    monkeypatch.setattr("mvsim_ros.sensors.scene.gl_context", _raise_unavailable)
    warnings = []

    class FakeNode:
        def get_logger(self):
            return type("Logger", (), {"warning": staticmethod(warnings.append)})()

        def create_publisher(self, *args):
            return type("Pub", (), {"publish": staticmethod(published.append)})()

    published = []
    runner = SensorRunner(sim, sensors, warn=FakeNode().get_logger().warning)
    scans = scan_publisher.ScanPublisher(FakeNode(), runner, ["r1/"])
    assert scans.scene is None and not sensors.lidars[0].raytrace_3d
    assert "raytrace_3d" in warnings[0] and "2D" in warnings[0]
    scans.publish(runner.run_due())
    assert published and published[0].ranges[90] == pytest.approx(3.0, abs=0.01)
    assert math.isinf(published[0].ranges[0])


def _raise_unavailable():
    raise GlUnavailable("no context in this test")


@needs_gl
def test_scan_publisher_uses_the_gpu_and_shares_its_scene(write_world, wall_image):
    from mvsim_ros.ros.publishing.image_publisher import ImagePublisher
    from mvsim_ros.ros.publishing.scan_publisher import ScanPublisher

    table = block("table", 1.5, 0.2, 0.8, ly=30.0)  # spans the beam: both paths see it at 1.5 m
    world, sensors, sim = setup(write_world, wall_image, extra=table)
    published = []

    class FakeNode:
        def get_logger(self):
            return type("Logger", (), {"warning": staticmethod(print)})()

        def create_publisher(self, *args):
            return type("Pub", (), {"publish": staticmethod(published.append)})()

    runner = SensorRunner(sim, sensors, warn=print)
    scans = ScanPublisher(FakeNode(), runner, ["r1/"])
    assert scans.scene is not None and sensors.lidars[0].raytrace_3d
    images = ImagePublisher(FakeNode(), runner, ["r1/"])
    assert images.scene is scans.scene
    sensors.lidars[0].scan = None  # the Box2D path is not used
    scans.publish(runner.run_due())
    assert len(published) == 1 and published[0].ranges[90] == pytest.approx(1.5, abs=0.01)
