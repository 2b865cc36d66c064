"""The built-in tasks: reaching a goal (bonus, termination), avoiding collisions (ends on one), following a path
(reward minus the cross-track error), and a scripted policy that solves mvsim/GoalReach-v0."""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import pytest

import mvsim_ros.gym  # noqa: F401 (registers the ids)
from gym_support import robot_world, wall_block
from mvsim_ros.gym import AvoidCollisions, Circle, GoalReach, MvsimEnv, PathFollow, Polyline, Task
from mvsim_ros.gym.task import FreeDrive, relative_pose

FORWARD = np.array([0.5, 0.0], dtype=np.float32)


def goal_policy(observation) -> np.ndarray:
    """Proportional control on the goal seen from the vehicle: turn toward it, drive when facing it."""
    dx, dy, _ = observation["goal"].tolist()
    bearing = math.atan2(dy, dx)
    v = min(1.0, 0.8 * math.hypot(dx, dy)) * max(0.0, math.cos(bearing))
    return np.array([v, 2.0 * bearing], dtype=np.float32)


def test_the_tasks_follow_the_protocol():
    for task in (GoalReach(), AvoidCollisions(), PathFollow(Circle((0, 1), 1)), FreeDrive()):
        assert isinstance(task, Task)


def test_reaching_the_goal_terminates_with_the_arrival_bonus():
    task = GoalReach(tolerance=0.3, arrival_bonus=10.0, step_penalty=0.01)
    env = MvsimEnv(robot_world(), task=task, sensor_noise=False, action_units="physical")
    observation, info = env.reset(seed=0, options={"goal": (1.5, 0.0, 0.0)})
    assert observation["goal"].tolist() == pytest.approx([1.5, 0.0, 0.0])
    rewards, distances = [], [info["distance_to_goal"]]
    for _ in range(100):
        observation, reward, terminated, truncated, info = env.step(FORWARD)
        rewards.append(reward)
        distances.append(info["distance_to_goal"])
        if terminated:
            break
    assert terminated and not truncated and info["is_success"]
    assert distances[-1] <= 0.3 < distances[-2]
    assert rewards[-1] == pytest.approx(distances[-2] - distances[-1] - 0.01 + 10.0)
    assert all(r < 1.0 for r in rewards[:-1])  # no bonus before arrival
    assert sum(rewards[:-1]) == pytest.approx(distances[0] - distances[-2] - 0.01 * (len(rewards) - 1))


def test_the_goal_is_observed_in_the_vehicle_frame():
    assert relative_pose((1.0, 1.0, math.pi / 2), (1.0, 3.0, 0.0)) == pytest.approx((2.0, 0.0, -math.pi / 2))
    env = MvsimEnv(robot_world(), task=GoalReach(), sensor_noise=False, action_units="physical")
    observation, _ = env.reset(seed=0, options={"goal": (0.0, 2.0, 1.0), "start_pose": (0.0, 0.0, math.pi / 2)})
    assert observation["goal"].tolist() == pytest.approx([2.0, 0.0, 1.0 - math.pi / 2], abs=1e-6)
    assert observation["pose"].tolist() == pytest.approx([0.0, 0.0, math.pi / 2], abs=1e-6)


def test_a_collision_ends_the_avoid_task_with_its_penalty():
    env = MvsimEnv(robot_world(extra=wall_block(1.5)), task=AvoidCollisions(collision_penalty=10.0),
                   action_units="physical")
    env.reset(seed=0)
    progress = 0.0
    for step in range(100):
        _, reward, terminated, _, info = env.step(FORWARD)
        if terminated:
            break
        assert not info["collision"] and reward == pytest.approx(info["forward_progress"])
        progress += reward
    assert terminated and info["collision"]
    assert reward == pytest.approx(info["forward_progress"] - 10.0)
    # the chassis' front (0.25 m ahead) came within the world's collision_threshold (0.03 m) of the wall at 1.5 m
    # during the last step (0.025 m at 0.5 m/s)
    front = float(env.pose[0]) + 0.25
    assert env.world.collision_threshold == 0.03 and 1.5 - 0.03 - 0.025 <= front <= 1.5
    assert progress == pytest.approx(float(env.pose[0]) - info["forward_progress"], abs=1e-6)


def test_goal_reach_penalises_and_ends_on_collision():
    env = MvsimEnv(robot_world(extra=wall_block(1.5)), task=GoalReach(goal=(3.0, 0.0)), sensor_noise=False,
                   action_units="physical")
    env.reset(seed=0)
    for _ in range(100):
        _, reward, terminated, _, info = env.step(FORWARD)
        if terminated:
            break
    assert terminated and info["collision"] and not info["is_success"] and reward < -9.0


def test_path_reward_is_progress_minus_cross_track_error():
    path = Polyline([(0.0, 0.5), (5.0, 0.5)])
    env = MvsimEnv(robot_world(), task=PathFollow(path, progress_weight=1.0, cross_track_weight=0.5),
                   sensor_noise=False, action_units="physical")
    observation, _ = env.reset(seed=0)
    cross, heading_error, dx, dy = observation["path"].tolist()
    assert cross == pytest.approx(-0.5) and heading_error == pytest.approx(0.0, abs=1e-6)  # right of the path
    assert (dx, dy) == pytest.approx((1.0, 0.5), abs=1e-6)  # the lookahead point, 1 m along the path
    x0 = float(env.pose[0])
    _, reward, _, _, info = env.step(FORWARD)
    progress = float(env.pose[0]) - x0
    assert info["cross_track_error"] == pytest.approx(float(env.pose[1]) - 0.5, abs=1e-9)
    assert reward == pytest.approx(progress - 0.5 * abs(info["cross_track_error"]), abs=1e-6)


def test_path_follow_ends_off_the_path_and_at_its_end():
    far = MvsimEnv(robot_world(), task=PathFollow(Polyline([(0.0, 0.0), (0.0, 5.0)]), max_cross_track=1.0),
                   action_units="physical")
    far.reset(seed=0)
    ends = [far.step(FORWARD) for _ in range(60)]
    stop = next(k for k, step in enumerate(ends) if step[2])
    assert abs(ends[stop][4]["cross_track_error"]) > 1.0 >= abs(ends[stop - 1][4]["cross_track_error"])
    short = MvsimEnv(robot_world(), task=PathFollow(Polyline([(0.0, 0.0), (1.0, 0.0)]), end_tolerance=0.2),
                     action_units="physical")
    short.reset(seed=0)
    for _ in range(60):
        _, _, terminated, _, info = short.step(FORWARD)
        if terminated:
            break
    assert terminated and info["arc_length"] >= 0.8


def test_circle_projection():
    circle = Circle((0.0, 1.5), 1.5, start_angle=-math.pi / 2)
    at_start = circle.project(0.0, 0.0)
    assert at_start.s == pytest.approx(0.0) and at_start.cross_track == pytest.approx(0.0)
    assert at_start.heading == pytest.approx(0.0)  # counter-clockwise from the bottom: heading +x
    quarter = circle.project(2.0, 1.5)  # 0.5 m outside, a quarter turn on
    assert quarter.s == pytest.approx(1.5 * math.pi / 2) and quarter.cross_track == pytest.approx(-0.5)
    assert circle.point_at(1.5 * math.pi) == pytest.approx((0.0, 3.0))
    clockwise = Circle((0.0, 0.0), 1.0, ccw=False)
    assert clockwise.project(0.0, -2.0).s == pytest.approx(math.pi / 2)
    assert clockwise.project(0.0, -2.0).cross_track == pytest.approx(1.0)  # outside is left when clockwise


def test_a_scripted_policy_reaches_the_goal_of_goal_reach():
    env = gymnasium.make("mvsim/GoalReach-v0", action_units="physical")
    for seed in range(4):
        observation, info = env.reset(seed=seed)
        start_distance = info["distance_to_goal"]
        assert 1.5 <= start_distance <= 4.0
        episode_return, steps = 0.0, 0
        for steps in range(1, 401):
            observation, reward, terminated, truncated, info = env.step(goal_policy(observation))
            episode_return += reward
            if terminated or truncated:
                break
        assert terminated and not truncated and info["is_success"] and not info["collision"], (seed, info)
        assert info["distance_to_goal"] <= 0.3 and steps < 300
        # the arrival bonus, plus the progress made, minus the step penalties
        assert episode_return == pytest.approx(10.0 + start_distance - info["distance_to_goal"] - 0.01 * steps)


def test_pure_pursuit_on_the_path_observation_follows_the_circle_of_path_follow():
    env = gymnasium.make("mvsim/PathFollow-v0", action_units="physical")
    observation, _ = env.reset(seed=0)
    episode_return, errors = 0.0, []
    for _ in range(600):
        _, _, dx, dy = observation["path"].tolist()  # the lookahead point in the car's frame
        steer = math.atan(2.0 * 0.325 * dy / (dx * dx + dy * dy))  # pure pursuit, wheelbase 0.325 m
        observation, reward, terminated, truncated, info = env.step(np.array([1.0, steer], dtype=np.float32))
        episode_return += reward
        errors.append(abs(info["cross_track_error"]))
        if terminated or truncated:
            break
    assert truncated and not terminated  # 30 s on the circle
    assert max(errors[100:]) < 0.05
    assert episode_return > 0.8 * 30.0 * 1.0  # about 1 m/s of progress for 30 s
