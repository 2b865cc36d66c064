"""World-level sensors (a <sensor> directly under <mvsim_world>): fixed in the world, absolute poses, they see
every vehicle; IMU, GNSS and noise against closed-form values."""

import math

import numpy as np
import pytest

from conftest import robot_world_xml
from gl_support import needs_gl
from mvsim_ros.physics import Simulation
from mvsim_ros.sensors.gnss import WGS84_A, WGS84_E2
from mvsim_ros.sensors.suite import (WORLD_HOST, build_sensors, host_frame, host_motion, host_pose, noise_generator,
                                     topic_prefix)
from mvsim_ros.world import load_world, load_world_string
from mvsim_ros.world.specs import SensorSpec


#: World lasers over the map of `wall_image(4.0)` (wall face: the plane x = 4.00 m): `front` at (1, 2) facing +x,
#: 3.00 m from the wall; `turned` at (1, -2) yawed 30 deg. Beams at -45, -22.5, 0, 22.5, 45 deg from the axis.
#: Noise-free (MVSim's default noise is 0.01 m and 0.01 deg): the ranges are compared with the geometry.
NO_NOISE = '<range_std_noise>0</range_std_noise><angle_std_noise_deg>0</angle_std_noise_deg>'
LASERS = ('<sensor class="laser" name="front"><pose>1.0 2.0 0</pose><fov_degrees>90</fov_degrees><nrays>5</nrays>'
          '<range_max>20</range_max>' + NO_NOISE + '{extra}</sensor>'
          '<sensor class="laser" name="turned"><pose>1.0 -2.0 30</pose><fov_degrees>90</fov_degrees><nrays>5</nrays>'
          '<range_max>20</range_max>' + NO_NOISE + '</sensor>')
BEAMS = np.radians([-45.0, -22.5, 0.0, 22.5, 45.0])
G = 9.81


def laser_world(write_world, wall_image, init_pose="-5 -5 0", extra=""):
    text = robot_world_xml(grid_file=str(wall_image(4.0)), init_pose=init_pose, extra=LASERS.format(extra=extra))
    return load_world(write_world(text))


def test_world_laser_ranges_follow_the_wall_geometry(write_world, wall_image):
    world = laser_world(write_world, wall_image)
    sensors = build_sensors(world)
    sim = Simulation(world)
    front, turned = sensors.lidars
    assert front.vehicle == turned.vehicle == WORLD_HOST
    assert not sensors.warnings
    ranges = front.scan(sim.box2d.world, host_pose(sim, front.vehicle))
    assert ranges[2] == pytest.approx(3.00, abs=1e-3)  # centre beam: the wall face 3.00 m ahead
    assert ranges == pytest.approx(3.0 / np.cos(BEAMS), abs=1e-3)  # every beam: 3 / cos(bearing)
    # The yawed laser's beams point at 30 deg + bearing in the world.
    ranges = turned.scan(sim.box2d.world, host_pose(sim, turned.vehicle))
    assert ranges == pytest.approx(3.0 / np.cos(math.radians(30.0) + BEAMS), abs=1e-3)


def test_a_vehicle_driving_past_shows_up_in_the_world_scan(write_world, wall_image):
    # r1 drives north along x = 2.5 and crosses the `front` laser's centre beam (the line y = 2, from x = 1).
    world = laser_world(write_world, wall_image, init_pose="2.5 -1.0 90")
    lidar = build_sensors(world).lidars[0]
    sim = Simulation(world)
    sim.set_twist(0, 1.0, 0.0)
    crossing, clear = [], []
    while sim.pose[0, 1] < 4.0 and sim.time < 10.0:
        sim.step()
        x, y, yaw = sim.pose[0]
        centre = lidar.scan(sim.box2d.world, host_pose(sim, WORLD_HOST))[2]
        if abs(y - 2.0) < 0.08:  # the beam meets r1's left wheel (y 0.25 in base_link, 0.2 long, 0.05 wide)
            assert yaw == pytest.approx(math.pi / 2, abs=0.01)
            crossing.append(centre - (x - 0.25 - 0.025 - 1.0))
        elif abs(y - 2.0) > 0.3:  # r1 (0.5 m long) is clear of the beam: the wall
            clear.append(centre - 3.0)
    assert len(crossing) > 5 and np.max(np.abs(crossing)) < 0.005
    assert len(clear) > 100 and np.max(np.abs(clear)) < 1e-3


def test_world_laser_hides_vehicles_without_bodies_visible(write_world, wall_image):
    def centre_range(extra: str) -> float:
        world = laser_world(write_world, wall_image, init_pose="2.5 2.0 90", extra=extra)
        sim = Simulation(world)
        return build_sensors(world).lidars[0].scan(sim.box2d.world, host_pose(sim, WORLD_HOST))[2]

    # r1 parked across the beam: its left wheel's outer face is the plane x = 2.5 - 0.25 - 0.025.
    assert centre_range("") == pytest.approx(2.225 - 1.0, abs=1e-3)
    assert centre_range("<bodies_visible>false</bodies_visible>") == pytest.approx(3.00, abs=1e-3)


def test_world_imu_reads_gravity_in_its_fixed_frame():
    imu_xml = ('<sensor class="imu" name="wimu"><pose_3d>1 2 3 30 20 10</pose_3d>'
               '<linear_acceleration_std_noise>0</linear_acceleration_std_noise>'
               '<angular_velocity_std_noise>0</angular_velocity_std_noise><measure_orientation>true'
               '</measure_orientation><orientation_std_noise>0</orientation_std_noise></sensor>')
    world = load_world_string(robot_world_xml(extra=imu_xml))
    imu = build_sensors(world).imus[0]
    sim = Simulation(world)
    sim.set_twist(0, 1.0, 0.5)  # the vehicle's motion is not the world's
    sim.run(1.0)
    reading = imu.read(*host_motion(sim, imu.vehicle))
    yaw, pitch, roll = (math.radians(a) for a in (30.0, 20.0, 10.0))
    # (0, 0, g) in a frame rotated by Rz(yaw) Ry(pitch) Rx(roll): g times the rotation's last row.
    expected = G * np.array([-math.sin(pitch), math.cos(pitch) * math.sin(roll), math.cos(pitch) * math.cos(roll)])
    assert reading.linear_acceleration == pytest.approx(expected, abs=1e-12)
    assert reading.angular_velocity == pytest.approx([0.0, 0.0, 0.0], abs=1e-15)
    x_axis = [math.cos(yaw) * math.cos(pitch), math.sin(yaw) * math.cos(pitch), -math.sin(pitch)]
    assert reading.orientation[:, 0] == pytest.approx(x_axis, abs=1e-12)
    assert reading.orientation @ reading.orientation.T == pytest.approx(np.eye(3), abs=1e-12)


def test_world_sensors_work_without_vehicles():
    text = ('<mvsim_world version="1.0"><simul_timestep>0.01</simul_timestep>'
            '<block name="wall"><static>true</static><geometry type="box" lx="0.2" ly="4" lz="1"/>'
            '<init_pose>2.5 -2 0</init_pose></block>'
            '<sensor class="laser" name="las"><pose>0.5 0 0</pose><fov_degrees>90</fov_degrees><nrays>3</nrays>'
            + NO_NOISE + '</sensor><sensor class="imu" name="imu"><pose>0 0 0</pose>'
            '<linear_acceleration_std_noise>0</linear_acceleration_std_noise></sensor></mvsim_world>')
    world = load_world_string(text)
    sim = Simulation(world)
    sim.run(0.1)
    sensors = build_sensors(world)
    assert sensors.lidars[0].scan(sim.box2d.world, host_pose(sim, WORLD_HOST))[1] == pytest.approx(2.0, abs=1e-3)
    assert sensors.imus[0].read(*host_motion(sim, WORLD_HOST)).linear_acceleration == pytest.approx([0, 0, G])


def georef(lat: float, lon: float, rotation_deg: float = 0.0) -> str:
    return (f"<georeference><latitude>{lat}</latitude><longitude>{lon}</longitude><height>0</height>"
            f"<world_to_enu_rotation_deg>{rotation_deg}</world_to_enu_rotation_deg></georeference>")


def gnss(name: str, pose_3d: str) -> str:
    return (f'<sensor class="gnss" name="{name}"><pose_3d>{pose_3d} 0 0 0</pose_3d><horizontal_std_noise>0'
            '</horizontal_std_noise><vertical_std_noise>0</vertical_std_noise></sensor>')


@pytest.mark.parametrize("rotation_deg", [0.0, 30.0])
def test_world_gnss_gives_the_fix_of_its_position(rotation_deg):
    lat0, lon0 = 36.8946, -2.336
    # The world receiver at (5, -3, 1.5); r1 at (4, -2) yawed 90 deg carries one at (-1, -1, 1.5) in base_link:
    # the same world point.
    on_r1 = gnss("gps", "-1 -1 1.5")
    text = robot_world_xml(init_pose="4 -2 90", extra=georef(lat0, lon0, rotation_deg) + gnss("wgps", "5 -3 1.5"))
    text = text.replace("<init_pose>4 -2 90</init_pose>", "<init_pose>4 -2 90</init_pose>" + on_r1)
    world = load_world_string(text)
    sensors = build_sensors(world)
    sim = Simulation(world)
    vehicle_gps, world_gps = sensors.gnss
    assert (vehicle_gps.vehicle, world_gps.vehicle) == (0, WORLD_HOST)
    fix = world_gps.read(host_pose(sim, world_gps.vehicle))
    same = vehicle_gps.read(host_pose(sim, vehicle_gps.vehicle))
    assert fix.has_fix
    assert fix.latitude == pytest.approx(same.latitude, abs=1e-12)
    assert fix.longitude == pytest.approx(same.longitude, abs=1e-12)
    assert fix.height == pytest.approx(same.height, abs=1e-6)
    # Local radii of curvature: 5 m along world x and -3 m along y, rotated into East-North.
    phi = math.radians(lat0)
    meridian = WGS84_A * (1 - WGS84_E2) / (1 - WGS84_E2 * math.sin(phi) ** 2) ** 1.5
    normal = WGS84_A / math.sqrt(1 - WGS84_E2 * math.sin(phi) ** 2)
    r = math.radians(rotation_deg)
    east, north = 5 * math.cos(r) + 3 * math.sin(r), 5 * math.sin(r) - 3 * math.cos(r)
    assert math.radians(fix.latitude - lat0) * meridian == pytest.approx(north, abs=1e-3)
    assert math.radians(fix.longitude - lon0) * normal * math.cos(phi) == pytest.approx(east, abs=1e-3)
    assert fix.height == pytest.approx(1.5, abs=1e-3)


NOISY_IMU = ('<sensor class="imu" name="{name}"><linear_acceleration_std_noise>0.1</linear_acceleration_std_noise>'
             '<angular_velocity_std_noise>0.01</angular_velocity_std_noise></sensor>')


def imu_noise(seed: int) -> dict[str, np.ndarray]:
    """Ten accelerometer samples of each IMU (r1's, r2's and the world's, all level and at rest), by name."""
    text = robot_world_xml(extra='<vehicle name="r2" class="bot"><init_pose>3 0 0</init_pose>'
                                 + NOISY_IMU.format(name="imu2") + '</vehicle>' + NOISY_IMU.format(name="wimu"))
    text = text.replace("<init_pose>0 0 0</init_pose>", "<init_pose>0 0 0</init_pose>" + NOISY_IMU.format(name="imu1"))
    world = load_world_string(text)
    sim = Simulation(world)
    return {imu.spec.name: np.array([imu.read(*host_motion(sim, imu.vehicle)).linear_acceleration
                                     for _ in range(10)]) for imu in build_sensors(world, seed).imus}


def test_world_sensor_noise_is_deterministic_and_its_own():
    first, again, other_seed = imu_noise(7), imu_noise(7), imu_noise(8)
    assert set(first) == {"imu1", "imu2", "wimu"}
    for name in first:
        assert np.array_equal(first[name], again[name])  # same world and seed: the same noise
        assert not np.allclose(first[name], other_seed[name])
        assert np.std(first[name] - [0.0, 0.0, G]) > 0.01  # noisy indeed
    # The world IMU (first sensor of its host, as imu1 and imu2 are of theirs) has a sequence of its own.
    assert not np.allclose(first["wimu"], first["imu1"]) and not np.allclose(first["wimu"], first["imu2"])


def test_world_noise_generators_differ_from_every_vehicle_sensors():
    draws = {(host, k): noise_generator(3, host, k).integers(0, 2 ** 63, 4).tolist()
             for host in [WORLD_HOST, *range(64)] for k in range(8)}
    assert len({tuple(d) for d in draws.values()}) == len(draws)
    assert noise_generator(3, WORLD_HOST, 0).random() == noise_generator(3, WORLD_HOST, 0).random()
    # Vehicle sensors keep their generators of before world sensors existed.
    assert noise_generator(3, 1, 2).random() == np.random.default_rng([3, 1, 2]).random()


def test_host_helpers_never_index_a_vehicle_list_with_the_world():
    world = load_world_string(robot_world_xml(init_pose="1 2 0.5"))
    sim = Simulation(world)
    prefixes = ["r1/", "r2/"]
    assert topic_prefix(prefixes, WORLD_HOST) == "" and topic_prefix(prefixes, 1) == "r2/"
    assert host_frame(WORLD_HOST) == "map" and host_frame(0) == "base_link"
    assert host_pose(sim, WORLD_HOST) == pytest.approx([0.0, 0.0, 0.0])
    assert host_pose(sim, 0) == pytest.approx([1.0, 2.0, math.radians(0.5)])
    assert all(np.array_equal(a, np.zeros(3)) for a in host_motion(sim, WORLD_HOST))
    with pytest.raises(ValueError):
        host_pose(sim, -2)
    with pytest.raises(ValueError):
        topic_prefix(prefixes, -2)


def test_no_standalone_warning_and_unsimulated_world_classes_are_named():
    world = load_world_string(robot_world_xml(extra='<sensor class="imu" name="wimu"></sensor>'))
    assert build_sensors(world).warnings == []
    world.sensors.append(SensorSpec(kind="sonar", name="ping"))
    warnings = build_sensors(world).warnings
    assert len(warnings) == 1 and "world sensor 'ping'" in warnings[0] and "'sonar'" in warnings[0]
    world.sensors[-1] = SensorSpec(kind="gnss", name="wgps")  # no <georeference>
    assert "world sensor 'wgps'" in build_sensors(world).warnings[0]


def test_a_world_sensor_named_like_a_vehicle_sensor_is_warned():
    text = robot_world_xml(extra='<sensor class="imu" name="imu"></sensor>').replace(
        "<init_pose>0 0 0</init_pose>", '<init_pose>0 0 0</init_pose><sensor class="imu" name="imu"></sensor>')
    warnings = build_sensors(load_world_string(text)).warnings
    assert len(warnings) == 1 and "world sensor 'imu'" in warnings[0] and "clash" in warnings[0]


@needs_gl
def test_world_rendered_sensors_see_the_wall_and_every_vehicle(write_world, wall_image):
    from mvsim_ros.sensors.scene import Scene

    rendered = ('<sensor class="lidar3d" name="wl3d"><pose_3d>1 2 0.3 0 0 0</pose_3d><vert_fov_degrees>20'
                '</vert_fov_degrees><vert_nrays>3</vert_nrays><horz_nrays>360</horz_nrays><max_range>20</max_range>'
                '<range_std_noise>0</range_std_noise></sensor>'
                '<sensor class="rgbd_camera" name="wcam"><pose_3d>1 -2 0.3 0 0 0</pose_3d><depth_ncols>64'
                '</depth_ncols><depth_nrows>48</depth_nrows><depth_cx>32</depth_cx><depth_cy>24</depth_cy>'
                '<depth_fx>40</depth_fx><depth_fy>40</depth_fy><sense_rgb>false</sense_rgb>'
                '<depth_noise_sigma>0</depth_noise_sigma></sensor>'
                '<sensor class="laser" name="wray"><pose_3d>1 -2 0.3 0 0 0</pose_3d><fov_degrees>90</fov_degrees>'
                '<nrays>5</nrays><raytrace_3d>true</raytrace_3d>' + NO_NOISE + '</sensor>')
    # r1 and r2 (chassis 0.5 x 0.44 m, 0.05 to 0.6 m high) parked yawed 90 deg at x = 2.5, across the lines of
    # sight y = 2 and y = -2: their chassis sides are the plane x = 2.5 - 0.22, 1.28 m from the sensors.
    r2 = '<vehicle name="r2" class="bot"><init_pose>2.5 -2.0 90</init_pose></vehicle>'
    text = robot_world_xml(grid_file=str(wall_image(4.0)), init_pose="2.5 2.0 90", extra=r2 + rendered)
    world = load_world(write_world(text))
    sensors = build_sensors(world)
    sim = Simulation(world)
    scene = Scene(world)
    scene.update(sim)
    lidar, camera, ray = sensors.lidars3d[0], sensors.cameras[0], sensors.lidars[0]
    assert (lidar.vehicle, camera.vehicle, ray.vehicle) == (WORLD_HOST,) * 3
    level_ahead = (1, 180)  # ring 1: elevation 0; column 180: azimuth 0
    origin = host_pose(sim, WORLD_HOST)
    assert lidar.scan(scene, origin)[level_ahead] == pytest.approx(1.28, abs=2e-3)
    assert camera.capture(scene, origin).depth[24, 32] == pytest.approx(1.28, abs=2e-3)
    assert ray.render_scan(scene, origin)[2] == pytest.approx(1.28, abs=2e-3)
    scene.vehicle_poses = np.array([(-5.0, 5.0, 0.0), (-5.0, -5.0, 0.0)])  # both out of sight: the wall
    assert lidar.scan(scene, origin)[level_ahead] == pytest.approx(3.00, abs=2e-3)
    assert camera.capture(scene, origin).depth[24, 32] == pytest.approx(3.00, abs=2e-3)
    assert ray.render_scan(scene, origin) == pytest.approx(3.0 / np.cos(BEAMS), abs=2e-3)
