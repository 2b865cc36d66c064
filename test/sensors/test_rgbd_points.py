"""RGB-D camera point clouds: pixel (u, v) at depth d -> ((u - cx) d / fx, (v - cy) d / fy, d), rgb packed as
depth_image_proc does, no points for +inf / NaN depth, published on <veh>/<name>_points at the camera's period."""

from types import SimpleNamespace

import numpy as np
from sensor_msgs.msg import PointCloud2, PointField

from conftest import robot_world_xml
from gl_support import needs_gl
from mvsim_ros.ros.publishing.image_publisher import RGBD_POINT_DTYPE, depth_cloud, depth_points
from mvsim_ros.sensors.camera import Intrinsics

INTR = Intrinsics(8, 6, 3.5, 2.5, 10.0, 12.0, 0.05, 15.0)


def known_frame():
    rng = np.random.default_rng(1)
    depth = rng.uniform(0.5, 5.0, (6, 8)).astype(np.float32)
    depth[0, 0], depth[2, 3], depth[5, 7] = np.inf, np.nan, np.inf
    rgb = rng.integers(0, 256, (6, 8, 3), dtype=np.uint8)
    return depth, rgb


def test_pixels_map_to_points_exactly():
    depth, rgb = known_frame()
    cloud = depth_points(depth, INTR, rgb, INTR)
    assert cloud.dtype == RGBD_POINT_DTYPE and len(cloud) == 6 * 8 - 3
    v, u = np.nonzero(np.isfinite(depth))
    d = depth[v, u].astype(np.float64)
    assert np.array_equal(cloud["z"], d.astype(np.float32))
    assert np.array_equal(cloud["x"], ((u - 3.5) * d / 10.0).astype(np.float32))
    assert np.array_equal(cloud["y"], ((v - 2.5) * d / 12.0).astype(np.float32))
    c = rgb[v, u].astype(np.uint32)
    assert np.array_equal(cloud["rgb"], (c[:, 0] << 16) | (c[:, 1] << 8) | c[:, 2])
    # A point at pixel (5, 4) with depth 2: x = (5 - 3.5) * 2 / 10, y = (4 - 2.5) * 2 / 12.
    depth[4, 5] = 2.0
    p = depth_points(depth, INTR)[np.flatnonzero((v == 4) & (u == 5))[0]]
    assert (p["x"], p["y"], p["z"]) == (np.float32(0.3), np.float32(0.25), np.float32(2.0))
    assert p["rgb"] == 0  # no RGB: black


def test_rgb_of_a_different_resolution_is_sampled_where_the_point_projects():
    depth = np.full((6, 8), 2.0, np.float32)
    rgb_intr = Intrinsics(16, 12, 7.5, 5.5, 20.0, 24.0, 0.05, 15.0)  # twice the resolution, same field of view
    rgb = np.zeros((12, 16, 3), np.uint8)
    rgb[:, :, 0] = np.arange(16)[None, :]
    rgb[:, :, 1] = np.arange(12)[:, None]
    cloud = depth_points(depth, INTR, rgb, rgb_intr)
    v, u = np.nonzero(np.isfinite(depth))
    cu, cv = np.rint(2 * (u - 3.5) + 7.5).astype(int), np.rint(2 * (v - 2.5) + 5.5).astype(int)
    assert np.array_equal(cloud["rgb"] >> 16, cu) and np.array_equal((cloud["rgb"] >> 8) & 255, cv)


def test_rgb_from_a_moved_rgb_camera_is_sampled_where_the_point_projects_in_it():
    depth = np.full((6, 8), 2.0, np.float32)
    rgb = np.zeros((6, 8, 3), np.uint8)
    rgb[:, :, 0] = np.arange(8)[None, :]
    shift = np.eye(4)
    shift[0, 3] = 0.4  # the depth frame 0.4 m to the right of the RGB one: a point moves 10 * 0.4 / 2 = 2 columns
    cloud = depth_points(depth, INTR, rgb, INTR, shift)
    v, u = np.nonzero(np.isfinite(depth))
    expected = np.where(u + 2 < 8, u + 2, 0)  # outside the RGB image: black
    assert np.array_equal(cloud["rgb"] >> 16, expected)


def test_points_without_colour_by_default():
    depth, rgb = known_frame()
    cam = SimpleNamespace(depth=INTR, rgb=INTR, rgb_from_depth=None, colored_points=False, kind="rgbd_camera",
                          spec=SimpleNamespace(name="rgbd1"))
    msg = depth_cloud(cam, depth, rgb, stamp=PointCloud2().header.stamp)
    assert [f.name for f in msg.fields] == ["x", "y", "z"] and msg.point_step == 12 and msg.width == 45
    xyz = np.frombuffer(bytes(msg.data), dtype=np.float32).reshape(-1, 3)
    full = depth_points(depth, INTR)
    assert np.array_equal(xyz, np.stack([full["x"], full["y"], full["z"]], axis=1))


def test_message_fields_and_point_count():
    depth, rgb = known_frame()
    cam = SimpleNamespace(depth=INTR, rgb=INTR, rgb_from_depth=None, colored_points=True, kind="rgbd_camera",
                          spec=SimpleNamespace(name="rgbd1"))
    msg = depth_cloud(cam, depth, rgb, stamp=PointCloud2().header.stamp)
    assert msg.header.frame_id == "rgbd1_points" and (msg.height, msg.width) == (1, 45) and msg.is_dense
    assert [(f.name, f.offset, f.datatype, f.count) for f in msg.fields] == [
        ("x", 0, PointField.FLOAT32, 1), ("y", 4, PointField.FLOAT32, 1), ("z", 8, PointField.FLOAT32, 1),
        ("rgb", 12, PointField.FLOAT32, 1)]
    assert msg.point_step == 16 and msg.row_step == 16 * 45 and len(msg.data) == 16 * 45
    data = np.frombuffer(bytes(msg.data), dtype=RGBD_POINT_DTYPE)
    assert np.array_equal(data, depth_points(depth, INTR, rgb, INTR))
    # rgb read as float32 (as PCL / RViz do) carries the packed bytes
    as_float = np.frombuffer(bytes(msg.data), dtype=np.float32).reshape(-1, 4)[:, 3]
    assert np.array_equal(as_float.view(np.uint32), data["rgb"])


RGBD = ('<sensor class="rgbd_camera" name="rgbd1"><pose_3d>0.3 0 0.5 0 0 0</pose_3d><sensor_period>0.2</sensor_period>'
        '<depth_ncols>160</depth_ncols><depth_nrows>120</depth_nrows><depth_cx>80</depth_cx><depth_cy>60</depth_cy>'
        '<depth_fx>100</depth_fx><depth_fy>100</depth_fy><depth_clip_max>15</depth_clip_max>'
        '<rgb_ncols>160</rgb_ncols><rgb_nrows>120</rgb_nrows><rgb_cx>80</rgb_cx><rgb_cy>60</rgb_cy>'
        '<rgb_fx>100</rgb_fx><rgb_fy>100</rgb_fy><rgb_clip_max>15</rgb_clip_max>'
        '<publish_ros_colored_pointcloud>true</publish_ros_colored_pointcloud></sensor>')
BOX = ('<block name="box"><static>true</static><color>#ff0000</color><zmin>0</zmin><zmax>0.8</zmax>'
       '<geometry type="box" lx="0.4" ly="0.4" lz="0.8"/><init_pose>2.8 -0.2 0</init_pose></block>')


@needs_gl
def test_points_published_in_process_at_the_camera_period(write_world, wall_image):
    from mvsim_ros.physics import Simulation
    from mvsim_ros.ros.publishing.image_publisher import ImagePublisher
    from mvsim_ros.runtime.sensor_runner import SensorRunner
    from mvsim_ros.sensors.suite import build_sensors
    from mvsim_ros.world import load_world

    text = robot_world_xml(grid_file=str(wall_image(6.0)), extra=BOX).replace(
        "<init_pose>0 0 0</init_pose>", "<init_pose>0 0 0</init_pose>" + RGBD)
    world = load_world(write_world(text))
    sim = Simulation(world)
    sent: dict[str, list] = {}

    class FakeNode:
        def get_logger(self):
            return type("Logger", (), {"warning": staticmethod(print)})()

        def create_publisher(self, _type, topic, _qos):
            return type("Pub", (), {"publish": staticmethod(sent.setdefault(topic, []).append)})()

    runner = SensorRunner(sim, build_sensors(world), warn=print)
    images = ImagePublisher(FakeNode(), runner, ["r1/"])
    assert {"r1/rgbd1_points", "r1/rgbd1_depth/image_raw", "r1/rgbd1_rgb/image_raw"} <= set(sent)
    images.publish(runner.run_due())
    for _ in range(int(0.3 / world.timestep) + 1):
        sim.step()
        images.publish(runner.run_due())
    clouds = sent["r1/rgbd1_points"]
    assert len(clouds) == 2 == len(sent["r1/rgbd1_depth/image_raw"])  # t = 0 and t = 0.2
    msg = clouds[-1]
    image = sent["r1/rgbd1_depth/image_raw"][-1]
    depth_mm = np.frombuffer(bytes(image.data), "<u2").reshape(120, 160)
    assert image.encoding == "16UC1" and image.header.frame_id == "rgbd1_depth"
    assert msg.width == np.count_nonzero(depth_mm) > 0 and msg.header.frame_id == "rgbd1_points"
    pts = np.frombuffer(bytes(msg.data), dtype=RGBD_POINT_DTYPE)
    centre = pts[(np.abs(pts["x"]) < 0.01) & (np.abs(pts["y"] - 0.05) < 0.03)]
    assert len(centre) and np.all(np.abs(centre["z"] - 2.5) < 0.025)  # the red box face, 2.5 m ahead
    assert np.all(centre["rgb"] >> 16 > 100) and np.all((centre["rgb"] >> 8) & 255 < 40)
