"""Rendered sensors keep their framebuffers, read-back buffers and cached placements from frame to frame: two
consecutive frames of a moving scene differ, a frame handed out is not changed by the next one, and each frame equals
what a fresh sensor renders in a fresh scene at the same poses. Drawing every due sensor first and reading them
back afterwards (the runtime's order) gives the same frames as capturing them one at a time."""

import numpy as np

from conftest import robot_world_xml
from gl_support import needs_gl
from mvsim_ros.physics import Simulation
from mvsim_ros.sensors.scene import Scene
from mvsim_ros.sensors.suite import build_sensors
from mvsim_ros.world import load_world

pytestmark = needs_gl

RGBD = ('<sensor class="rgbd_camera" name="rgbd1"><pose_3d>0.3 0 0.5 0 0 0</pose_3d>'
        '<depth_ncols>160</depth_ncols><depth_nrows>120</depth_nrows><depth_cx>80</depth_cx><depth_cy>60</depth_cy>'
        '<depth_fx>100</depth_fx><depth_fy>100</depth_fy><depth_clip_max>15</depth_clip_max>'
        '<rgb_ncols>160</rgb_ncols><rgb_nrows>120</rgb_nrows><rgb_cx>80</rgb_cx><rgb_cy>60</rgb_cy>'
        '<rgb_fx>100</rgb_fx><rgb_fy>100</rgb_fy><rgb_clip_max>15</rgb_clip_max>'
        '<depth_noise_sigma>0</depth_noise_sigma></sensor>')
LIDAR3D = ('<sensor class="lidar3d" name="lidar1"><pose_3d>0.3 0 0.5 0 0 0</pose_3d><model>VLP-16</model>'
           '<range_std_noise>0</range_std_noise></sensor>')
BOX = ('<block name="box"><static>true</static><color>#ff0000</color><zmin>0</zmin><zmax>0.8</zmax>'
       '<geometry type="box" lx="0.4" ly="0.4" lz="0.8"/><init_pose>2.8 -0.2 0</init_pose></block>')
#: Two host poses (x, y, yaw) [m, rad] and the box's x [m] at each frame.
POSES = [((0.0, 0.0, 0.0), 2.8), ((0.4, -0.1, 0.15), 2.2)]


def make(write_world):
    text = robot_world_xml(extra=BOX).replace("<init_pose>0 0 0</init_pose>",
                                              "<init_pose>0 0 0</init_pose>" + RGBD + LIDAR3D)
    world = load_world(write_world(text))
    sim = Simulation(world)
    scene = Scene(world)
    scene.update(sim)
    sensors = build_sensors(world)
    return world, sim, scene, sensors.cameras[0], sensors.lidars3d[0]


def fresh(world, sim, box_x):
    """A new scene (box moved to box_x) and new sensors."""
    scene = Scene(world)
    scene.update(sim)
    scene.block_poses = np.array(scene.block_poses, dtype=float)
    scene.block_poses[0, 0] = box_x
    sensors = build_sensors(world)
    return scene, sensors.cameras[0], sensors.lidars3d[0]


def move_box(scene, box_x):
    """Move the box in place (the same pose array, new content)."""
    scene.block_poses[0, 0] = box_x


def test_consecutive_frames_are_new_arrays_equal_to_fresh_renders(write_world):
    world, sim, scene, camera, lidar = make(write_world)
    scene.block_poses = np.array(scene.block_poses, dtype=float)
    frames, scans = [], []
    for pose, box_x in POSES:
        move_box(scene, box_x)
        frame = camera.capture(scene, pose)
        ranges = lidar.scan(scene, pose)
        frames.append((frame, frame.rgb.copy(), frame.depth.copy()))
        scans.append((ranges, ranges.copy(), lidar.intensities(ranges)))
    (f1, rgb1, depth1), (f2, _, _) = frames
    (r1, kept1, _), (r2, _, grey2) = scans
    # The first frame's arrays are untouched by the second capture and scan.
    assert np.array_equal(f1.rgb, rgb1) and np.array_equal(f1.depth, depth1)
    assert np.array_equal(r1, kept1, equal_nan=True)
    # The scene moved: the frames differ.
    assert not np.array_equal(f1.rgb, f2.rgb) and not np.array_equal(f1.depth, f2.depth, equal_nan=True)
    assert not np.array_equal(r1, r2, equal_nan=True)
    # Each equals a fresh render of its poses.
    for (pose, box_x), (frame, _, _), (ranges, _, _) in zip(POSES, frames, scans):
        new_scene, new_camera, new_lidar = fresh(world, sim, box_x)
        again = new_camera.capture(new_scene, pose)
        assert np.array_equal(frame.rgb, again.rgb) and np.array_equal(frame.depth, again.depth)
        new_ranges = new_lidar.scan(new_scene, pose)
        assert np.array_equal(ranges, new_ranges, equal_nan=True)
    assert np.array_equal(grey2, new_lidar.intensities(new_ranges))  # the second pose's grey levels


def test_drawing_all_first_then_reading_gives_the_same_frames(write_world):
    world, sim, scene, camera, lidar = make(write_world)
    pose = POSES[1][0]
    lidar.submit(scene, pose)
    camera.submit(scene, pose)
    ranges = lidar.collect()
    frame = camera.collect()
    assert camera.latest is frame and lidar.latest[0] is ranges
    new_scene, new_camera, new_lidar = fresh(world, sim, POSES[0][1])
    again = new_camera.capture(new_scene, pose)
    assert np.array_equal(frame.rgb, again.rgb) and np.array_equal(frame.depth, again.depth)
    assert np.array_equal(ranges, new_lidar.scan(new_scene, pose), equal_nan=True)
    assert np.array_equal(lidar.intensities(ranges), new_lidar.intensities(ranges))


def test_intensities_of_a_scan_drawn_without_colours_are_drawn_when_asked(write_world):
    world, sim, scene, _camera, lidar = make(write_world)
    pose = POSES[1][0]
    lidar.colors_wanted = False  # as the publisher sets it when nobody receives the points
    ranges = lidar.scan(scene, pose)
    grey = lidar.intensities(ranges)
    new_scene, _new_camera, new_lidar = fresh(world, sim, POSES[0][1])
    new_ranges = new_lidar.scan(new_scene, pose)
    assert np.array_equal(ranges, new_ranges, equal_nan=True)
    assert np.array_equal(grey, new_lidar.intensities(new_ranges)) and np.ptp(grey) > 0
