"""Camera images in the observation (cameras=True): rendered with OpenGL, or a clear error without it."""

from __future__ import annotations

import numpy as np
import pytest

from gl_support import needs_gl
from gym_support import CAMERA, LIDAR, robot_world, wall_block
from mvsim_ros.gym import MvsimEnv
from mvsim_ros.sensors.gl_context import GlUnavailable


@needs_gl
def test_camera_images_are_uint8_rgb_of_the_cameras_size():
    env = MvsimEnv(robot_world(extra=wall_block(2.0), class_extra=LIDAR + CAMERA), cameras=True,
                   action_units="physical")
    assert env.observation_space["cam"].shape == (24, 32, 3) and env.observation_space["cam"].dtype == np.uint8
    observation, _ = env.reset(seed=0)
    assert env.observation_space.contains(observation)
    first = observation["cam"]
    for _ in range(10):
        observation, *_ = env.step(np.array([1.0, 0.0], dtype=np.float32))
    assert observation["cam"].shape == (24, 32, 3) and not np.array_equal(first, observation["cam"])  # nearer
    assert "cam" not in MvsimEnv(robot_world(class_extra=LIDAR + CAMERA)).observation_space.spaces  # off by default


def test_cameras_without_a_camera_or_without_opengl_are_refused(monkeypatch):
    with pytest.raises(ValueError, match="no RGB camera"):
        MvsimEnv(robot_world(), cameras=True)

    def no_context():
        raise GlUnavailable("no display here")

    monkeypatch.setattr("mvsim_ros.sensors.scene.gl_context", no_context)
    with pytest.raises(RuntimeError, match="cameras=True needs an OpenGL 3.3 context.*no display here"):
        MvsimEnv(robot_world(class_extra=LIDAR + CAMERA), cameras=True)


@needs_gl
def test_a_raytrace_3d_lidar_renders_the_ranges_the_2d_cast_gives():
    rendered = LIDAR.replace("</sensor>", "<raytrace_3d>true</raytrace_3d></sensor>")
    gpu = MvsimEnv(robot_world(extra=wall_block(3.0), class_extra=rendered), sensor_noise=False)
    cast = MvsimEnv(robot_world(extra=wall_block(3.0)), sensor_noise=False)
    assert gpu.observer.scene is not None and cast.observer.scene is None
    on_gpu, in_2d = gpu.reset(seed=0)[0]["front"], cast.reset(seed=0)[0]["front"]
    assert gpu.observer.lidars[0].raytrace_3d
    assert np.abs(on_gpu - in_2d).max() < 0.01 and on_gpu[90] == pytest.approx(2.8, abs=0.01)
