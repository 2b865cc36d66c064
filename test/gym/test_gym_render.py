"""Gymnasium's conventions: normalised actions (the physical limits in info), a top-down picture for
render_mode='rgb_array', 'human' offered only where a window can be shown, RecordVideo writing an episode's video,
and Gymnasium's checker silent with rendering."""

from __future__ import annotations

import math
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mvsim_ros.gym
from gym_support import robot_world, wall_block
from mvsim_ros.gym import MvsimEnv
from mvsim_ros.gym.rendering.top_view import WIDTH_PX


def test_actions_are_normalised_and_the_limits_are_in_info():
    env = gymnasium.make("mvsim/GoalReach-v0")
    assert env.action_space == gymnasium.spaces.Box(-1.0, 1.0, (2,), np.float32)
    _, info = env.reset(seed=0)
    assert info["action_limits"].tolist() == [1.0, 2.0]
    assert env.step(env.action_space.sample())[4]["action_limits"].tolist() == [1.0, 2.0]
    car = gymnasium.make("mvsim/PathFollow-v0").unwrapped
    assert car.action_limits.tolist() == pytest.approx([3.0, math.radians(25.0)])


def test_a_normalised_action_commands_its_fraction_of_the_limits():
    normalised = MvsimEnv(robot_world(), sensor_noise=False, action_limits=(1.0, 2.0))
    physical = MvsimEnv(robot_world(), sensor_noise=False, action_limits=(1.0, 2.0), action_units="physical")
    assert physical.action_space.high.tolist() == [1.0, 2.0]
    normalised.reset(seed=0)
    physical.reset(seed=0)
    for action in ([0.5, 0.25], [1.0, -0.5], [3.0, -7.0]):  # the last one clipped to (1, -1)
        normalised.step(np.array(action, dtype=np.float32))
        physical.step(np.array([action[0] * 1.0, action[1] * 2.0], dtype=np.float32))
        assert np.array_equal(normalised.sim.pose, physical.sim.pose)
    assert normalised.sim.pose[0, 0] > 0.02  # it moved (from rest, 0.15 s of forward commands)


def test_action_limits_are_checked_and_capped_by_the_simulators_bounds():
    with pytest.raises(ValueError, match="action_limits"):
        MvsimEnv(robot_world(), action_limits=(1.0, -2.0))
    with pytest.raises(TypeError, match="action_limits"):
        MvsimEnv(robot_world(), action_limits="fast")
    with pytest.raises(ValueError, match="action_units"):
        MvsimEnv(robot_world(), action_units="km/h")
    env = MvsimEnv(robot_world(), action_limits=(1e6, None))
    limits = env.sim.limits
    assert env.action_limits.tolist() == [limits.max_speed[0], limits.max_yaw_rate[0]]


def test_rgb_array_is_a_top_down_picture_of_the_world():
    env = MvsimEnv(robot_world(extra=wall_block(2.0)), render_mode="rgb_array", sensor_noise=False,
                   action_units="physical")
    env.reset(seed=0)
    first = env.render()
    assert first.dtype == np.uint8 and first.shape == (first.shape[0], WIDTH_PX, 3) and first.shape[0] % 16 == 0
    assert env.observation_space["front"].shape == (181,)
    colours = {tuple(c) for c in first.reshape(-1, 3).tolist()}
    assert (0, 0, 255) in colours  # the wall block's colour (MVSim's default blue)
    assert any(r > 200 and g < 120 and b < 120 for r, g, b in colours)  # the lidar's rays
    for _ in range(10):
        env.step(np.array([1.0, 0.0], dtype=np.float32))
    moved = env.render()
    assert moved.shape == first.shape and not np.array_equal(first, moved)
    assert env.metadata["render_fps"] == pytest.approx(20.0)


def test_render_without_a_mode_warns_and_returns_none():
    env = MvsimEnv(robot_world())
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render mode"):
        assert env.render() is None


def test_human_is_offered_only_where_a_window_can_be_shown(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    env = MvsimEnv(robot_world())
    assert env.metadata["render_modes"] == ["rgb_array"]
    with pytest.raises(ValueError, match="needs a display"):
        MvsimEnv(robot_world(), render_mode="human")
    monkeypatch.setenv("DISPLAY", ":99")
    assert MvsimEnv(robot_world()).metadata["render_modes"] == ["rgb_array", "human"]


def test_human_without_an_interactive_backend_says_what_to_install(monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.setenv("DISPLAY", ":99")
    env = MvsimEnv(robot_world(), render_mode="human")
    with pytest.raises(RuntimeError, match="interactive matplotlib backend"):
        env.reset(seed=0)
    env.close()


def test_record_video_writes_an_episode(tmp_path):
    pytest.importorskip("moviepy")
    import imageio_ffmpeg

    env = gymnasium.make("mvsim/GoalReach-v0", render_mode="rgb_array", max_episode_steps=30)
    folder = tmp_path / "videos"
    env = gymnasium.wrappers.RecordVideo(env, video_folder=str(folder), episode_trigger=lambda episode: True)
    env.reset(seed=0)
    env.action_space.seed(0)
    steps = 0
    while True:
        steps += 1
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            break
    env.close()
    videos = sorted(folder.glob("*.mp4"))
    assert [video.name for video in videos] == ["rl-video-episode-0.mp4"]
    frames, seconds = imageio_ffmpeg.count_frames_and_secs(str(videos[0]))
    # a frame at the reset and at every step (MoviePy 1.x may repeat the last one), at render_fps = 20
    assert steps + 1 <= frames <= steps + 2 and seconds == pytest.approx((steps + 1) / 20.0, abs=0.1)


@pytest.mark.parametrize("env_id", mvsim_ros.gym.ENV_IDS)
def test_check_env_is_silent_with_rendering(env_id):
    env = gymnasium.make(env_id, render_mode="rgb_array")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []
