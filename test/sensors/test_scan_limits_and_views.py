"""The range limit every 2D scan applies (`limit_ranges`), and the views a rendered sensor draws per sample
(`render_views`, what the rendered-sensor benchmark draws): no OpenGL needed."""

import math

import numpy as np
import pytest

from mvsim_ros.sensors.camera import Camera, Intrinsics
from mvsim_ros.sensors.lidar2d import Lidar2D, limit_ranges
from mvsim_ros.sensors.lidar3d import Lidar3D
from mvsim_ros.sensors.suite import WORLD_HOST
from mvsim_ros.world import load_world_string


def world_with(sensor_xml: str):
    return load_world_string(f'<mvsim_world version="1.0">{sensor_xml}</mvsim_world>')


def test_ranges_outside_the_limits_read_no_return_and_the_limits_themselves_are_kept():
    ranges = np.array([0.1, 0.5, 3.0, 20.0, 20.000001, math.nan, math.inf, -1.0])
    limit_ranges(ranges, 0.5, 20.0)
    assert ranges.tolist() == [math.inf, 0.5, 3.0, 20.0, math.inf, math.inf, math.inf, math.inf]


def test_a_slice_is_limited_in_place_and_nothing_else():
    ranges = np.array([0.1, 0.1, 0.1, 0.1])
    limit_ranges(ranges[1:3], 0.5, 1.0)
    assert ranges.tolist() == [0.1, math.inf, math.inf, 0.1]


def test_a_camera_draws_its_image_alone():
    world = world_with('<sensor class="camera" name="c"><ncols>32</ncols><nrows>24</nrows></sensor>')
    camera = Camera(world.sensors[0], WORLD_HOST, np.random.default_rng(0))
    (view,) = camera.render_views()
    assert (view.want_rgb, view.want_depth) == (True, False)
    assert view.intrinsics == Intrinsics(32, 24, 320.0, 240.0, 500.0, 500.0, 0.01, 1e4)
    assert np.array_equal(view.host_from_optical, camera.world_from_optical(np.zeros(3)))


@pytest.mark.parametrize("tags, draws", [
    ("", [(True, False), (False, True)]),  # the RGB and depth clip distances differ by default
    ("<rgb_clip_min>0.1</rgb_clip_min><rgb_clip_max>15</rgb_clip_max>", [(True, True)]),
    ("<rgb_clip_min>0.1</rgb_clip_min><rgb_clip_max>15</rgb_clip_max>"
     "<relativePoseIntensityWRTDepth>0 0.05 0 -90 0 -90</relativePoseIntensityWRTDepth>",
     [(True, False), (False, True)]),
    ("<sense_rgb>false</sense_rgb>", [(False, True)]),
])
def test_an_rgbd_camera_draws_one_view_when_its_images_coincide(tags, draws):
    world = world_with(f'<sensor class="rgbd_camera" name="d">{tags}</sensor>')
    camera = Camera(world.sensors[0], WORLD_HOST, np.random.default_rng(0))
    views = camera.render_views()
    assert [(v.want_rgb, v.want_depth) for v in views] == draws
    depth_view = views[-1]
    assert np.array_equal(depth_view.host_from_optical, camera.world_from_optical(np.zeros(3)))
    if "relativePose" in tags:
        apart = views[0].host_from_optical[:3, 3] - depth_view.host_from_optical[:3, 3]
        assert np.linalg.norm(apart) == pytest.approx(0.05)


def test_a_raytrace_3d_laser_draws_depth_faces_at_most_90_degrees_wide():
    world = world_with('<sensor class="laser" name="l"><fov_degrees>270</fov_degrees><nrays>271</nrays>'
                       '<raytrace_3d>true</raytrace_3d></sensor>')
    lidar = Lidar2D(world.sensors[0], WORLD_HOST, world, np.random.default_rng(0))
    faces = lidar.depth_faces()
    assert faces.width == pytest.approx(math.pi / 2) and faces.centres == pytest.approx(np.radians([-90, 0, 90]))
    views = lidar.render_views()
    assert len(views) == 3 and all((v.want_rgb, v.want_depth) == (False, True) for v in views)
    assert all(v.intrinsics is faces.intrinsics and v.intrinsics.nrows == 3 for v in views)


def test_a_lidar3d_draws_four_faces_with_their_colours_when_it_makes_intensities():
    world = world_with('<sensor class="lidar3d" name="v"><model>VLP-16</model></sensor>')
    lidar = Lidar3D(world.sensors[0], WORLD_HOST, np.random.default_rng(0))
    views = lidar.render_views()
    assert len(views) == 4 and all(v.intrinsics is lidar.face and v.want_rgb and v.want_depth for v in views)
