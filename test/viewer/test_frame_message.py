"""The viewer's binary messages: framing, and frames/images checked against the simulation's geometry."""

import base64
import io
import json
import math
import struct
import timeit

import numpy as np
import pytest
from PIL import Image

from gl_support import needs_gl
from mvsim_ros.viewer.frame_message import pack_message, unpack_message
from mvsim_ros.viewer.protocol import MAX_CLOUD_POINTS
from mvsim_ros.viewer.scene_message import scene_message
from mvsim_ros.runtime.sensor_runner import SensorRunner
from mvsim_ros.world import load_world
from viewer_worlds import TEST_WORLDS, WORLDS, decoded_frame, place, robot_world, setup

#: A noise-free lidar (MVSim's default noise would move the end points off the wall).
LASER = ('<sensor class="laser" name="front"><pose_3d>0.2 0 0.3 0 0 0</pose_3d><fov_degrees>{fov}</fov_degrees>'
         '<nrays>{rays}</nrays><range_max>20</range_max><sensor_period>0.1</sensor_period>'
         '<range_std_noise>0</range_std_noise><angle_std_noise_deg>0</angle_std_noise_deg></sensor>')


# --- framing --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("pad", range(4))
def test_pack_unpack_round_trip_is_exact(pad):
    rng = np.random.default_rng(pad)
    arrays = [("bodies", rng.normal(size=(3, 6)).astype(np.float32)), ("wheels", np.zeros((0, 2), np.float32)),
              ("scan:0", rng.normal(size=(5, 3)).astype(np.float32))]
    header = {"type": "frame", "version": 7, "time": 1.25, "paused": True, "rtf": 0.5, "x": "a" * pad}
    data = pack_message(header, arrays, tail=b"tail\x00bytes")
    (n,) = struct.unpack("<I", data[:4])
    assert json.loads(data[4:4 + n]) == {**header, "arrays": [["bodies", 3, 6], ["wheels", 0, 2], ["scan:0", 5, 3]]}
    assert data[4 + n:4 + n + (-n % 4)] == b"\0" * (-n % 4)
    out_header, out_arrays, tail = unpack_message(data)
    assert out_header == {**header, "arrays": [["bodies", 3, 6], ["wheels", 0, 2], ["scan:0", 5, 3]]}
    assert list(out_arrays) == ["bodies", "wheels", "scan:0"]
    for name, array in arrays:
        assert out_arrays[name].dtype == np.float32 and np.array_equal(out_arrays[name], array)
    assert tail == b"tail\x00bytes"
    assert len(data) == 4 + n + (-n % 4) + 4 * (18 + 15) + len(tail)


def test_pack_rejects_arrays_that_are_not_2d():
    with pytest.raises(ValueError):
        pack_message({"type": "frame"}, [("bad", np.zeros(3))])


# --- frame contents -------------------------------------------------------------------------------------------------

def test_frame_bodies_equal_the_simulation_poses():
    sim, sensors, encoder = setup(load_world(WORLDS / "demo_2robots.world.xml"))
    sim.set_twist(0, 0.4, 0.3)
    sim.set_twist(1, -0.2, -0.5)
    sim.run(0.5)
    header, arrays = decoded_frame(encoder, version=3, paused=True, rtf=0.9)
    assert header["type"] == "frame" and header["version"] == 3 and header["paused"] is True
    assert header["time"] == pytest.approx(sim.time) and header["rtf"] == pytest.approx(0.9)
    bodies = arrays["bodies"]
    assert bodies.shape == (2, 6)
    np.testing.assert_allclose(bodies[:, [0, 1, 3]], sim.body_pose, atol=1e-5)
    assert np.all(bodies[:, [2, 4, 5]] == 0.0)
    assert "scan:0" not in arrays  # nobody scanned yet


def test_frame_vehicle_states_equal_the_simulation_state():
    """The "vehicles" array (the page's readout) and the wheels' spin rates are the simulation's own values."""
    sim, _, encoder = setup(load_world(WORLDS / "demo_2robots.world.xml"))
    sim.set_twist(0, 0.4, 0.3)
    sim.set_twist(1, -0.2, -0.5)
    sim.run(0.8)
    _, arrays = decoded_frame(encoder)
    states = arrays["vehicles"]
    assert states.shape == (2, 8)
    np.testing.assert_allclose(states[:, 0:3], sim.pose, atol=1e-5)
    np.testing.assert_allclose(states[:, 3:6], sim.body_twist(), atol=1e-5)
    assert states[0, 3] == pytest.approx(0.4, abs=0.05) and states[0, 5] == pytest.approx(0.3, abs=0.05)
    assert np.all(states[:, 6] == 0.0) and np.all(states[:, 7] == 0.0)  # no steering, nothing touched
    np.testing.assert_allclose(arrays["wheels"][:, 2], sim.wheels.omega, rtol=1e-6, atol=1e-6)


def test_frame_steering_angle_and_collision_state():
    world = load_world(WORLDS / "car_trailer.world.xml")
    sim, _, encoder = setup(world)
    sim.set_ackermann(0, 1.0, 0.3)
    sim.run(1.0)
    _, arrays = decoded_frame(encoder)
    assert arrays["vehicles"][0, 6] == pytest.approx(sim.steering_angles[sim.vehicle_names[0]], abs=1e-6)
    assert arrays["vehicles"][0, 6] > 0.2

    demo = load_world(WORLDS / "demo_2robots.world.xml")
    sim, _, encoder = setup(demo)
    sim.set_vehicle_state(0, 0.0, -7.2, -math.pi / 2)  # facing the bottom wall (inner face y = -7.7)
    sim.set_twist(0, 0.5, 0.0)
    for _ in range(800):
        sim.step()
        if sim.collision_now[0]:
            break
    assert sim.collision_now[0]
    _, arrays = decoded_frame(encoder)
    assert arrays["vehicles"][:, 7].tolist() == [1.0, 0.0]


def test_wheel_spin_follows_the_distance_driven():
    sim, _, encoder = setup(load_world(WORLDS / "demo_2robots.world.xml"))
    start = sim.pose[0, :2].copy()
    sim.set_twist(0, 0.5, 0.0)
    sim.run(1.0)
    distance = float(np.hypot(*(sim.pose[0, :2] - start)))
    assert distance > 0.3
    _, arrays = decoded_frame(encoder)
    wheels = arrays["wheels"]
    radius = 0.1
    for k in (0, 1):  # r1's wheels roll forward by distance / radius; r2 stands still
        assert wheels[k, 0] == pytest.approx(distance / radius, rel=0.05)
    assert np.all(np.abs(wheels[2:, 0]) < 1e-3)
    assert np.all(wheels[:, 1] == 0.0)  # a differential robot never steers


def test_a_car_steered_left_turns_its_front_wheels_left():
    world = load_world(WORLDS / "car_trailer.world.xml")
    sim, _, encoder = setup(world)
    scene = scene_message(sim, None, 1)
    sim.set_ackermann(0, 1.0, 0.3)
    sim.run(1.0)
    _, arrays = decoded_frame(encoder)
    wheels = arrays["wheels"]
    car = [k for k, w in enumerate(scene["wheels"]) if w["body"] == 0]
    front = [k for k in car if scene["wheels"][k]["x"] > 1.0]
    rear = [k for k in car if scene["wheels"][k]["x"] < 1.0]
    assert len(front) == 2 and len(rear) == 2
    assert np.all(wheels[front, 1] > 0.2) and np.all(wheels[front, 1] < math.radians(36))
    assert np.all(wheels[rear, 1] == 0.0)
    # The inner (left) wheel turns more than the outer one (Ackermann geometry).
    left, right = sorted(front, key=lambda k: -scene["wheels"][k]["y"])
    assert wheels[left, 1] > wheels[right, 1]
    assert sim.pose[0, 2] > 0.05  # and the car did turn left


def test_a_block_mesh_placed_by_its_frame_row_lands_on_the_block():
    sim, _, encoder = setup(load_world(WORLDS / "demo_2robots.world.xml"))
    sim.set_block_state(1, 2.0, -3.0, 1.0)
    meshes = {m["name"]: m for m in scene_message(sim, None, 1)["meshes"]}
    mesh = meshes["block:box2"]
    assert mesh["group"] == "block" and mesh["index"] == 1
    vertices = np.frombuffer(base64.b64decode(mesh["vertices"]), "<f4").reshape(-1, 9)
    _, arrays = decoded_frame(encoder)
    placed = place(vertices, arrays["blocks"][1])
    # Box2D's polygon of the block, in the world.
    body = sim.box2d.blocks[1]
    corners = np.array([body.transform * v for f in body.fixtures for v in f.shape.vertices])
    assert len(corners) == 4
    for p in placed[:, :2]:
        assert np.min(np.hypot(*(corners - p).T)) < 1e-4  # every mesh corner is a corner of the block
    for c in corners:
        assert np.min(np.hypot(*(placed[:, :2] - c).T)) < 1e-4  # and every block corner is drawn
    assert placed[:, 2].min() == pytest.approx(0.0, abs=1e-6) and placed[:, 2].max() == pytest.approx(0.8)


def test_animated_plane_and_actors_follow_the_simulation():
    sim, sensors, encoder = setup(load_world(WORLDS / "moving_things.world.xml"))
    sim.run(5.0)  # the lift rises from t = 2 s to 8 s by 2.18 m
    _, arrays = decoded_frame(encoder)
    planes = arrays["planes"]
    assert planes.shape == (2, 6)
    assert planes[0] == pytest.approx([0, 0, 0, 0, 0, 0])
    assert planes[1][:3] == pytest.approx([-5.0, 2.0, 2.18 * 0.5], abs=1e-4)
    np.testing.assert_allclose(arrays["actors"], sim.actor_poses, atol=1e-5)
    np.testing.assert_allclose(arrays["blocks"], sim.block_poses3(), atol=1e-5)
    # The lift's mesh, placed by its row, is the 2 m x 2 m platform at (-5..-3, 2..4), 0.02 + 1.09 m up.
    meshes = {m["name"]: m for m in scene_message(sim, sensors, 1)["meshes"]}
    vertices = np.frombuffer(base64.b64decode(meshes["plane:1"]["vertices"]), "<f4").reshape(-1, 9)
    placed = place(vertices, planes[1])
    assert placed.min(axis=0) == pytest.approx([-5.0, 2.0, 1.11], abs=1e-4)
    assert placed.max(axis=0) == pytest.approx([-3.0, 4.0, 1.11], abs=1e-4)


@pytest.mark.parametrize("yaw_deg", [0.0, 20.0])
def test_scan_end_points_lie_on_the_wall(write_world, wall_image, yaw_deg):
    # The wall face is the plane x = 3.20 m; the lidar sits 0.2 m ahead of r1 at the origin: 3.00 m from it.
    world = robot_world(write_world, wall_image(3.2), init_pose=f"0 0 {yaw_deg}", sensors=LASER.format(fov=90, rays=91))
    sim, sensors, encoder = setup(world)
    lidar = sensors.lidars[0]
    ranges = lidar.scan(sim.box2d.world, sim.pose[0])
    _, arrays = decoded_frame(encoder)
    scan = arrays["scan:0"]
    assert scan.shape == (92, 3)
    yaw = math.radians(yaw_deg)
    origin = [0.2 * math.cos(yaw), 0.2 * math.sin(yaw), 0.3]
    assert scan[0] == pytest.approx(origin, abs=1e-6)
    hits = np.isfinite(ranges)
    assert hits.all()  # every beam within +-45 deg (+20) meets the wall
    assert scan[1:, 0] == pytest.approx(3.2, abs=0.01)
    assert scan[1:, 2] == pytest.approx(0.3)
    if yaw_deg == 0.0:
        assert scan[46] == pytest.approx([3.2, 0.0, 0.3], abs=0.01)  # the centre beam reads 3.00 m
        assert ranges[45] == pytest.approx(3.0, abs=0.01)
    # Each end point is where its beam's range says, along its bearing.
    bearings = yaw + lidar.params.angles
    expected = np.stack([origin[0] + ranges * np.cos(bearings), origin[1] + ranges * np.sin(bearings)], axis=1)
    np.testing.assert_allclose(scan[1:, :2], expected, atol=1e-4)


def test_beams_without_a_return_end_at_max_range(write_world):
    world = robot_world(write_world, sensors=LASER.format(fov=180, rays=19))
    sim, sensors, encoder = setup(world)
    ranges = sensors.lidars[0].scan(sim.box2d.world, sim.pose[0])
    assert np.all(np.isinf(ranges))
    _, arrays = decoded_frame(encoder)
    scan = arrays["scan:0"]
    assert np.hypot(*(scan[1:, :2] - scan[0, :2]).T) == pytest.approx(20.0, abs=1e-4)


def test_clouds_are_in_the_world_frame_and_subsampled(write_world):
    sensors = ('<sensor class="lidar3d" name="velo"><pose_3d>0 0 0.6 0 0 0</pose_3d><vert_fov_degrees>30'
               '</vert_fov_degrees><vert_nrays>32</vert_nrays><horz_nrays>1000</horz_nrays></sensor>')
    sim, s, encoder = setup(robot_world(write_world, sensors=sensors))
    lidar = s.lidars3d[0]
    assert lidar.rings * lidar.columns > MAX_CLOUD_POINTS
    world_from_sensor = np.eye(4)
    world_from_sensor[:3, 3] = (1.0, 2.0, 0.6)
    lidar.latest = (np.full((lidar.rings, lidar.columns), 5.0), world_from_sensor)  # as if it had scanned
    _, arrays = decoded_frame(encoder)
    points = arrays["points:0"]
    assert points.shape == (MAX_CLOUD_POINTS, 3)
    assert np.linalg.norm(points - (1.0, 2.0, 0.6), axis=1) == pytest.approx(5.0, abs=1e-4)
    assert points[:, 2].min() < 0.6 - 5.0 * math.sin(math.radians(14))  # the lowest ring is there ...
    assert points[:, 2].max() > 0.6 + 5.0 * math.sin(math.radians(14))  # ... and the highest


def test_footprint_of_a_car_towing_a_trailer():
    sim, _, encoder = setup(load_world(WORLDS / "car_trailer.world.xml"))
    scene = scene_message(sim, None, 1)
    assert [v["footprint"] for v in scene["vehicles"]] == [True, False]
    _, arrays = decoded_frame(encoder)
    assert "footprint:1" not in arrays
    outline = arrays["footprint:0"]
    assert outline.shape[1] == 2 and len(outline) >= 4
    # The convex hull of the car (x -0.9..3.6, |y| <= 0.9) and the trailer 3.5 m behind (x -5.0..-2.0).
    assert outline.min(axis=0) == pytest.approx([-5.0, -0.9], abs=1e-3)
    assert outline.max(axis=0) == pytest.approx([3.6, 0.9], abs=1e-3)
    # Moved and turned, the outline moves with the train.
    sim.set_vehicle_state(0, 10.0, 5.0, math.pi / 2)
    _, arrays = decoded_frame(encoder)
    outline = arrays["footprint:0"]
    assert outline.min(axis=0) == pytest.approx([10.0 - 0.9, 5.0 - 5.0], abs=1e-3)
    assert outline.max(axis=0) == pytest.approx([10.0 + 0.9, 5.0 + 3.6], abs=1e-3)


def test_frame_is_cheap(write_world, wall_image):
    """One robot with a 181-ray lidar: a frame costs well under a millisecond (target: < 100 us)."""
    world = robot_world(write_world, wall_image(3.2), sensors=LASER.format(fov=180, rays=181))
    sim, sensors, encoder = setup(world)
    sensors.lidars[0].scan(sim.box2d.world, sim.pose[0])
    encoder.frame(1, False, 1.0)
    n = 500
    cached = timeit.timeit(lambda: encoder.frame(1, False, 1.0), number=n) / n
    lidar = sensors.lidars[0]
    sample = lidar.latest

    def fresh_scan():
        lidar.latest = sample._replace()  # a new sample object: the end points are computed again
        encoder.frame(1, False, 1.0)

    fresh = timeit.timeit(fresh_scan, number=n) / n
    print(f"frame(): {cached * 1e6:.1f} us (scan cached), {fresh * 1e6:.1f} us (new scan)")
    assert cached < 1e-3 and fresh < 1e-3


# --- camera images --------------------------------------------------------------------------------------------------

@needs_gl
def test_image_is_a_jpeg_of_the_camera_once_per_capture():
    world = load_world(TEST_WORLDS / "all_sensors.world.xml")
    sim, sensors, encoder = setup(world)
    assert encoder.image(0) is None  # nothing captured yet
    runner = SensorRunner(sim, sensors)
    runner.run_due()
    data = encoder.image(0)
    assert data is not None
    header, arrays, tail = unpack_message(data)
    assert header["type"] == "image" and header["camera"] == 0 and header["mime"] == "image/jpeg"
    assert header["bytes"] == len(tail) and arrays == {}
    image = Image.open(io.BytesIO(tail))
    assert image.format == "JPEG" and image.size == (64, 48)
    # The decoded picture is close to the rendered one (JPEG is lossy).
    rgb = np.asarray(image.convert("RGB"), dtype=float)
    assert np.abs(rgb - sensors.cameras[0].latest.rgb).mean() < 12.0
    assert encoder.image(0) is None  # unchanged since
    assert encoder.image(5) is None and encoder.image(-1) is None
    while sim.time < 0.2 - 1e-9:
        sim.step()
        runner.run_due()
    assert encoder.image(0) is not None  # a new capture at 0.2 s
    assert encoder.image(1) is not None  # the RGB-D camera's colour image
