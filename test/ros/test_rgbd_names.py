"""RGB-D cameras as MVSim's node publishes them: topic and frame names, and REP 118 depth encodings."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mvsim_ros.ros.publishing.image_publisher import MAX_DEPTH_MM, camera_frames, camera_topics, depth_image_data
from mvsim_ros.sensors.camera import Camera
from mvsim_ros.world.specs import Pose3, SensorSpec


def camera(kind: str) -> Camera:
    return Camera(SensorSpec(kind=kind, name="cam1", pose=Pose3(0.2, 0.0, 0.5)), 0, np.random.default_rng(0))


def test_rgbd_topics_and_frames_are_mvsims():
    cam = camera("rgbd_camera")
    assert camera_topics(cam) == {"rgb": "cam1_rgb/image_raw", "rgb_info": "cam1_rgb/camera_info",
                                  "depth": "cam1_depth/image_raw", "depth_info": "cam1_depth/camera_info",
                                  "points": "cam1_points"}
    assert camera_frames(cam) == {"rgb": "cam1_rgb", "depth": "cam1_depth", "points": "cam1_points"}


def test_plain_camera_keeps_its_names():
    cam = camera("camera")
    assert camera_topics(cam) == {"rgb": "cam1/image_raw", "rgb_info": "cam1/camera_info"}
    assert camera_frames(cam) == {"rgb": "cam1"}


def test_16uc1_is_millimetres_with_0_for_no_reading_and_saturation():
    depth = np.array([[2.5, 0.0104, math.inf, math.nan], [70.0, 65.535, 1.2346, -0.2]], dtype=np.float32)
    data, pixel_bytes = depth_image_data(depth, "16UC1")
    mm = np.frombuffer(data, dtype="<u2").reshape(depth.shape)
    assert pixel_bytes == 2
    assert mm.tolist() == [[2500, 10, 0, 0], [MAX_DEPTH_MM, 65535, 1235, 0]]  # nearest mm


def test_32fc1_is_the_metres_as_they_are():
    depth = np.array([[2.5, math.inf]], dtype=np.float32)
    data, pixel_bytes = depth_image_data(depth, "32FC1")
    assert pixel_bytes == 4 and np.array_equal(np.frombuffer(data, "<f4"), depth.ravel())


def test_unknown_encoding_is_refused():
    with pytest.raises(ValueError, match="16UC1, 32FC1"):
        depth_image_data(np.zeros((1, 1), np.float32), "mono16")
