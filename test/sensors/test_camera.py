"""Rendered cameras against geometry: a red box lands on its projected pixels, depth reads the true distance."""

import math
import time

import numpy as np
import pytest

from conftest import robot_world_xml
from gl_support import needs_gl
from mvsim_ros.physics import Simulation
from mvsim_ros.sensors.scene import Scene
from mvsim_ros.sensors.suite import build_sensors
from mvsim_ros.world import load_world

pytestmark = needs_gl

CAMERA = ('<sensor class="camera" name="cam1"><pose_3d>0.3 0 0.5 -90 0 -90</pose_3d><ncols>640</ncols>'
          '<nrows>480</nrows><cx>320</cx><cy>240</cy><fx>400</fx><fy>400</fy><clip_min>0.05</clip_min>'
          '<clip_max>100</clip_max></sensor>')
RGBD = ('<sensor class="rgbd_camera" name="rgbd1"><pose_3d>0.3 0 0.5 0 0 0</pose_3d>'
        '<depth_ncols>320</depth_ncols><depth_nrows>240</depth_nrows><depth_cx>160</depth_cx><depth_cy>120</depth_cy>'
        '<depth_fx>200</depth_fx><depth_fy>200</depth_fy><depth_clip_min>0.05</depth_clip_min>'
        '<depth_clip_max>15</depth_clip_max>'
        '<rgb_ncols>320</rgb_ncols><rgb_nrows>240</rgb_nrows><rgb_cx>160</rgb_cx><rgb_cy>120</rgb_cy>'
        '<rgb_fx>200</rgb_fx><rgb_fy>200</rgb_fy><rgb_clip_min>0.05</rgb_clip_min><rgb_clip_max>15</rgb_clip_max>'
        '</sensor>')
LIDAR3D = ('<sensor class="lidar3d" name="lidar1"><pose_3d>0.3 0 0.5 0 0 0</pose_3d><model>VLP-16</model>'
           '<range_std_noise>0</range_std_noise></sensor>')
#: A red 0.4 x 0.4 x 0.8 m box (a box geometry spans [0, lx] x [0, ly] from its pose) over x in [2.8, 3.2],
#: y in [-0.2, 0.2]: the camera (x 0.3, y 0, z 0.5) sees only its front face, the plane x = 2.8.
BOX = ('<block name="box"><static>true</static><color>#ff0000</color><zmin>0</zmin><zmax>0.8</zmax>'
       '<geometry type="box" lx="0.4" ly="0.4" lz="0.8"/><init_pose>2.8 -0.2 0</init_pose></block>')


def setup(write_world, wall_image, sensor):
    text = robot_world_xml(grid_file=str(wall_image(6.0)), extra=BOX).replace(
        "<init_pose>0 0 0</init_pose>", "<init_pose>0 0 0</init_pose>" + sensor)
    world = load_world(write_world(text))
    sensors = build_sensors(world)
    sim = Simulation(world)
    scene = Scene(world)
    scene.update(sim)
    return sensors.cameras[0], scene, sim


def project(fx, fy, cx, cy, point, cam=(0.3, 0.0, 0.5)):
    """Pixel (u, v) of a world point seen by a forward-looking camera at `cam` (robot at the origin)."""
    x, y, z = (point[i] - cam[i] for i in range(3))
    return fx * (-y) / x + cx, fy * (-z) / x + cy


def red_mask(rgb):
    r, g, b = (rgb[:, :, i].astype(int) for i in range(3))
    return (r > 100) & (g < 40) & (b < 40)


def test_red_box_lands_on_its_projected_pixels(write_world, wall_image):
    camera, scene, sim = setup(write_world, wall_image, CAMERA)
    frame = camera.capture(scene, sim.pose[0])
    assert frame.rgb.shape == (480, 640, 3) and frame.depth is None
    mask = red_mask(frame.rgb)
    rows, cols = np.nonzero(mask)
    u_left, v_top = project(400, 400, 320, 240, (2.8, 0.2, 0.8))
    u_right, v_bottom = project(400, 400, 320, 240, (2.8, -0.2, 0.0))
    # Covered pixels have their centres inside the projected face: extents within 2 px of the projection.
    assert cols.min() == pytest.approx(u_left, abs=2) and cols.max() == pytest.approx(u_right, abs=2)
    assert rows.min() == pytest.approx(v_top, abs=2) and rows.max() == pytest.approx(v_bottom, abs=2)
    expected = (u_right - u_left) * (v_bottom - v_top)
    assert mask.sum() == pytest.approx(expected, rel=0.03)  # a full rectangle, nothing red elsewhere


def test_rgbd_depth_is_the_true_distance(write_world, wall_image):
    camera, scene, sim = setup(write_world, wall_image, RGBD)
    frame = camera.capture(scene, sim.pose[0])
    assert frame.rgb.shape == (240, 320, 3) and frame.depth.shape == (240, 320)
    assert frame.depth.dtype == np.float32
    u, v = (round(c) for c in project(200, 200, 160, 120, (2.8, 0.0, 0.4)))
    assert red_mask(frame.rgb)[v, u]
    assert frame.depth[v, u] == pytest.approx(2.5, rel=0.01)  # box face at x = 2.8, camera at x = 0.3
    u_wall, _ = project(200, 200, 160, 120, (5.95, -1.0, 0.5))
    assert frame.depth[120, round(u_wall)] == pytest.approx(6.0 - 0.3, rel=0.01)  # wall face at x = 6.0
    # Looking slightly down at the ground (z = 0) below the horizon: Z = 0.5 * fy / (v - cy).
    assert frame.depth[220, 40] == pytest.approx(0.5 * 200 / 100, rel=0.01)
    assert np.isinf(frame.depth[0, 0])  # sky above the 2 m walls at 5.7 m: nothing within range


def test_moving_vehicle_moves_the_view(write_world, wall_image):
    camera, scene, sim = setup(write_world, wall_image, RGBD)
    frame = camera.capture(scene, (1.0, 0.0, 0.0))  # one metre closer
    u, v = (round(c) for c in project(200, 200, 160, 120, (1.8, 0.0, 0.4)))
    assert frame.depth[v, u] == pytest.approx(1.5, rel=0.01)
    frame = camera.capture(scene, (0.0, 0.0, math.pi))  # turned around: the box is behind
    assert not red_mask(frame.rgb).any()


def test_render_time_of_a_vga_frame(write_world, wall_image):
    camera, scene, sim = setup(write_world, wall_image, CAMERA)
    camera.capture(scene, sim.pose[0])
    start = time.perf_counter()
    for _ in range(10):
        camera.capture(scene, sim.pose[0])
    per_frame = (time.perf_counter() - start) / 10
    print(f"640x480 RGB frame: {per_frame * 1e3:.1f} ms, scene of {scene.triangles} triangles")
    assert per_frame < 0.5


def test_images_over_dds(write_world, wall_image):
    from sensor_msgs.msg import CameraInfo, Image, PointCloud2
    from tf2_msgs.msg import TFMessage

    from dds_probe import node_and_probe
    from mvsim_ros.ros.qos import TF_STATIC_QOS

    text = robot_world_xml(grid_file=str(wall_image(6.0)), extra=BOX).replace(
        "<init_pose>0 0 0</init_pose>", "<init_pose>0 0 0</init_pose>" + RGBD + LIDAR3D)
    world = write_world(text)
    with node_and_probe("camera_probe", f"world_file:={world}", "realtime_factor:=2.0") as probe:
        rgb, depth, info, tf, clouds = [], [], [], [], []
        probe.node.create_subscription(PointCloud2, "/lidar1_points", clouds.append, 5)
        probe.node.create_subscription(Image, "/rgbd1_rgb/image_raw", rgb.append, 5)
        probe.node.create_subscription(Image, "/rgbd1_depth/image_raw", depth.append, 5)
        probe.node.create_subscription(CameraInfo, "/rgbd1_depth/camera_info", info.append, 5)
        probe.node.create_subscription(TFMessage, "/tf_static", tf.append, TF_STATIC_QOS)
        assert probe.wait_for(lambda: rgb and depth and info and tf and clouds, timeout=20.0)
        assert (rgb[-1].encoding, rgb[-1].width, rgb[-1].height, rgb[-1].header.frame_id) == (
            "rgb8", 320, 240, "rgbd1_rgb")
        d = np.frombuffer(bytes(depth[-1].data), dtype="<u2").reshape(240, 320)  # REP 118: millimetres
        assert depth[-1].encoding == "16UC1" and depth[-1].step == 640 and depth[-1].header.frame_id == "rgbd1_depth"
        assert int(d[120, 160]) == pytest.approx(2500, rel=0.01)
        assert list(info[-1].k) == [200.0, 0.0, 160.0, 0.0, 200.0, 120.0, 0.0, 0.0, 1.0]
        assert info[-1].header.frame_id == "rgbd1_depth"
        frames = {t.child_frame_id: t for msg in tf for t in msg.transforms}
        for name in ("rgbd1_rgb", "rgbd1_depth", "rgbd1_points"):  # optical: yaw -90, roll -90 from the body
            q = frames[name].transform.rotation
            assert (q.x, q.y, q.z, q.w) == pytest.approx((-0.5, 0.5, -0.5, 0.5), abs=1e-6)
            assert frames[name].header.frame_id == "base_link"
        cloud = clouds[-1]
        assert cloud.header.frame_id == "lidar1_points" and "lidar1_points" in frames  # MVSim's frame name
        assert [f.name for f in cloud.fields] == ["x", "y", "z", "intensity", "ring"] and cloud.point_step == 20
        xyz = np.frombuffer(bytes(cloud.data), dtype=np.float32).reshape(-1, 5)[:, :3]
        ahead = xyz[(np.abs(xyz[:, 1]) < 0.05) & (xyz[:, 2] > -0.3) & (xyz[:, 2] < 0.3)]
        assert ahead[:, 0].min() == pytest.approx(2.8 - 0.3, abs=0.02)  # the box face, lidar at x = 0.3


def test_no_gl_means_a_warning_and_no_cameras(write_world, wall_image, monkeypatch):
    from mvsim_ros.ros.publishing.image_publisher import ImagePublisher
    from mvsim_ros.runtime.sensor_runner import SensorRunner
    from mvsim_ros.sensors import gl_context as gl
    from mvsim_ros.sensors.suite import Sensors

    camera, _scene, sim = setup(write_world, wall_image, CAMERA)
    monkeypatch.setattr(gl, "_CONTEXT", None)
    monkeypatch.setenv("MVSIM_GL_BACKEND", "no-such-backend")
    warnings = []

    class FakeNode:
        def get_logger(self):
            return type("Logger", (), {"warning": staticmethod(warnings.append)})()

    runner = SensorRunner(sim, Sensors(cameras=[camera]), warn=FakeNode().get_logger().warning)
    images = ImagePublisher(FakeNode(), runner, ["r1/"])
    assert images.cameras == [] and "not simulated" in warnings[0] and "no-such-backend" in warnings[0]
    images.publish(runner.run_due())  # nothing to do, no error
    assert images.static_transforms() == {}


def lidar_setup(write_world, model="VLP-16", extra=""):
    sensor = (f'<sensor class="lidar3d" name="lidar1"><pose_3d>0 0 1.0 0 0 0</pose_3d><model>{model}</model>'
              f'<range_std_noise>0</range_std_noise>{extra}</sensor>')
    text = robot_world_xml().replace("<init_pose>0 0 0</init_pose>", "<init_pose>0 0 0</init_pose>" + sensor)
    world = load_world(write_world(text))
    sim = Simulation(world)
    scene = Scene(world)
    scene.update(sim)
    return build_sensors(world).lidars3d[0], scene, sim


@pytest.mark.parametrize("model", ["VLP-16", "OS1-64", "Helios-32"])
def test_lidar3d_rings_on_flat_ground(write_world, model):
    lidar, scene, sim = lidar_setup(write_world, model)
    ranges = lidar.scan(scene, sim.pose[0])
    assert ranges.shape == (lidar.rings, lidar.columns)
    points, rings = lidar.points(ranges)
    for ring, el in enumerate(lidar.elevations):
        mine = points[rings == ring]
        if el >= 0:
            assert len(mine) == 0  # level or upward beams: nothing within range (no walls)
            continue
        expected = 1.0 / math.tan(-el)  # horizontal distance of the ground point of a beam 1 m up
        if expected > lidar.range_max * math.cos(el):
            continue
        assert len(mine) == lidar.columns  # every beam of the ring returns
        dist = np.hypot(mine[:, 0], mine[:, 1])
        assert np.all(np.abs(dist / expected - 1) < 0.02), (ring, math.degrees(el), dist.min(), dist.max())
        assert np.allclose(mine[:, 2], -1.0, atol=0.02 * expected * math.tan(-el) + 1e-3)


def test_lidar3d_scan_time(write_world):
    lidar, scene, sim = lidar_setup(write_world)
    lidar.scan(scene, sim.pose[0])
    start = time.perf_counter()
    for _ in range(10):
        lidar.scan(scene, sim.pose[0])
    per_scan = (time.perf_counter() - start) / 10
    print(f"VLP-16 scan ({lidar.rings} x {lidar.columns} beams, faces {lidar.face.ncols} x {lidar.face.nrows}): "
          f"{per_scan * 1e3:.1f} ms")
    assert per_scan < 0.5


def test_lidar3d_intensity_is_the_grey_level_unless_turned_off(write_world):
    lidar, scene, sim = lidar_setup(write_world)  # generate_intensity: MVSim's default, true
    ranges = lidar.scan(scene, sim.pose[0])
    grey = lidar.intensities(ranges)
    assert len(grey) == len(lidar.points(ranges)[0]) > 0
    assert np.all((grey >= 0) & (grey <= 1)) and grey.max() < 1.0  # the ground is not white
    assert np.ptp(grey) < 0.05  # one flat ground: one grey level (up to its lighting)
    lidar, scene, sim = lidar_setup(write_world, extra="<generate_intensity>false</generate_intensity>")
    ranges = lidar.scan(scene, sim.pose[0])
    assert np.array_equal(lidar.intensities(ranges), np.ones(len(lidar.points(ranges)[0]), np.float32))
