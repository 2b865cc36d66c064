"""The compiled task kernels (mvsim_ros.gym.rewards): closed-form values, and many copies in one call equal to the
same copies one at a time, bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mvsim_ros.gym import Circle, GoalReach, PathFollow, Polyline
from mvsim_ros.gym.rewards import (avoid_collisions_step, goal_distance, goal_observation, goal_reach_step,
                                   path_follow_step, path_observation, path_point_at, path_project, path_start)

GOAL_PARAMETERS = dict(tolerance=0.3, yaw_tolerance=math.inf, progress_weight=1.0, step_penalty=0.01,
                       arrival_bonus=10.0, collision_penalty=10.0, end_on_collision=True)


def goal_step(pose, goal, collided, distance, **changes):
    """goal_reach_step on lists; returns (reward, terminated, arrived, distance after)."""
    n = len(pose)
    parameters = {**GOAL_PARAMETERS, **changes}
    distance = np.array(distance, dtype=float)
    reward, terminated, arrived = np.zeros(n), np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    goal_reach_step(np.array(pose, dtype=float), np.array(goal, dtype=float), np.array(collided, dtype=bool),
                    distance, *parameters.values(), reward, terminated, arrived)
    return reward, terminated, arrived, distance


def test_goal_reach_rewards_progress_arrival_and_collision():
    reward, terminated, arrived, distance = goal_step(
        pose=[(0.0, 0.0, 0.0), (1.0, 1.0, 0.0), (0.0, 0.0, 0.0)],
        goal=[(3.0, 4.0, 0.0), (1.25, 1.0, 2.0), (0.0, 2.0, 0.0)],
        collided=[False, False, True], distance=[6.0, 0.5, 2.5])
    assert distance.tolist() == [5.0, 0.25, 2.0]
    assert reward.tolist() == pytest.approx([1.0 - 0.01, 0.25 - 0.01 + 10.0, 0.5 - 0.01 - 10.0], abs=1e-12)
    assert arrived.tolist() == [False, True, False]
    assert terminated.tolist() == [False, True, True]


def test_goal_reach_heading_tolerance_and_collisions_that_do_not_end():
    pose, goal = [(1.0, 1.0, 0.0), (1.0, 1.0, 0.0)], [(1.1, 1.0, 0.5), (1.1, 1.0, 0.05)]
    reward, terminated, arrived, _ = goal_step(pose, goal, [True, True], [0.1, 0.1], yaw_tolerance=0.1,
                                               end_on_collision=False)
    assert arrived.tolist() == [False, True] and terminated.tolist() == [False, True]
    assert reward.tolist() == pytest.approx([-0.01 - 10.0, -0.01 + 10.0 - 10.0], abs=1e-12)


def test_goal_observation_and_distance():
    pose, goal = np.array([[1.0, 1.0, math.pi / 2]]), np.array([[1.0, 3.0, 0.0]])
    observation, distance = np.zeros((1, 3)), np.zeros(1)
    goal_observation(pose, goal, observation)
    goal_distance(pose, goal, distance)
    assert observation[0].tolist() == pytest.approx([2.0, 0.0, -math.pi / 2], abs=1e-12)
    assert distance.tolist() == [2.0]


def test_avoid_collisions_rewards_forward_progress_along_the_starting_heading():
    last = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, math.pi], [0.0, 0.0, math.pi / 2]])
    pose = np.array([[0.3, 0.4, 0.2], [0.5, 1.0, math.pi], [0.0, 0.25, 1.0]])
    reward, terminated, forward = np.zeros(3), np.zeros(3, dtype=bool), np.zeros(3)
    avoid_collisions_step(pose, np.array([False, False, True]), last, 2.0, 10.0, reward, terminated, forward)
    assert forward.tolist() == pytest.approx([0.3, 0.5, 0.25], abs=1e-12)
    assert reward.tolist() == pytest.approx([0.6, 1.0, 0.5 - 10.0], abs=1e-12)
    assert terminated.tolist() == [False, False, True]
    assert np.array_equal(last, pose)


def test_projection_onto_a_circle_and_a_polyline():
    circle = Circle((0.0, 1.0), 1.0, start_angle=-0.5 * math.pi).arrays()
    assert path_project(*circle, 0.0, 0.0) == pytest.approx((0.0, 0.0, 0.0), abs=1e-12)
    assert path_project(*circle, 1.5, 1.0) == pytest.approx((0.5 * math.pi, -0.5, 0.5 * math.pi), abs=1e-12)
    assert path_point_at(*circle, math.pi) == pytest.approx((0.0, 2.0), abs=1e-12)
    clockwise = Circle((0.0, 1.0), 1.0, ccw=False, start_angle=-0.5 * math.pi).arrays()
    assert path_project(*clockwise, -0.5, 1.0) == pytest.approx((0.5 * math.pi, -0.5, 0.5 * math.pi), abs=1e-12)
    line = Polyline([(0.0, 0.0), (2.0, 0.0), (2.0, 2.0)]).arrays()
    assert path_project(*line, 1.0, 0.5) == pytest.approx((1.0, 0.5, 0.0), abs=1e-12)
    assert path_project(*line, 2.5, 1.0) == pytest.approx((3.0, -0.5, 0.5 * math.pi), abs=1e-12)
    assert path_project(*line, -1.0, 0.0) == pytest.approx((0.0, 1.0, 0.0), abs=1e-12)  # behind: side 0 is left
    assert path_point_at(*line, 3.5) == pytest.approx((2.0, 1.5), abs=1e-12)
    assert path_point_at(*line, 10.0) == (2.0, 2.0)
    square = Polyline([(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)], closed=True).arrays()
    assert square.length == 4.0 and path_point_at(*square, 4.5) == pytest.approx((0.5, 0.0), abs=1e-12)


def test_path_follow_wraps_progress_on_closed_paths_and_ends_open_ones():
    circle = Circle((0.0, 1.0), 1.0, start_angle=-0.5 * math.pi).arrays()
    pose = np.array([[math.sin(0.1), 1.0 - math.cos(0.1), 0.1], [0.0, -0.5, 0.0]])
    s = np.array([circle.length - 0.1, 0.0])
    reward, terminated, cross, progress = np.zeros(2), np.zeros(2, dtype=bool), np.zeros(2), np.zeros(2)
    path_follow_step(pose, np.array([False, False]), s, *circle, 1.0, 0.1, 2.0, 10.0, True, 0.2,
                     reward, terminated, cross, progress)
    assert progress.tolist() == pytest.approx([0.2, 0.0], abs=1e-12)
    assert cross.tolist() == pytest.approx([0.0, -0.5], abs=1e-12)
    assert reward.tolist() == pytest.approx([0.2, -0.05], abs=1e-12)
    assert terminated.tolist() == [False, False]
    line = Polyline([(0.0, 0.0), (2.0, 0.0)]).arrays()
    pose = np.array([[1.9, 0.1, 0.0], [1.0, 2.5, 0.0], [1.0, 0.0, 0.0]])
    s = np.array([1.5, 1.0, 0.5])
    reward, terminated, cross, progress = np.zeros(3), np.zeros(3, dtype=bool), np.zeros(3), np.zeros(3)
    path_follow_step(pose, np.array([False, False, True]), s, *line, 1.0, 0.1, 2.0, 10.0, True, 0.2,
                     reward, terminated, cross, progress)
    assert s.tolist() == pytest.approx([1.9, 1.0, 1.0], abs=1e-12)
    assert reward.tolist() == pytest.approx([0.4 - 0.01, -0.25, 0.5 - 10.0], abs=1e-12)
    assert terminated.tolist() == [True, True, True]


def test_path_observation_sees_the_lookahead_point_in_the_vehicle_frame():
    line = Polyline([(0.0, 0.0), (4.0, 0.0)]).arrays()
    observation = np.zeros((1, 4), dtype=np.float32)
    path_observation(np.array([[1.0, -0.5, math.pi / 2]]), *line, 1.0, observation)
    assert observation[0].tolist() == pytest.approx([-0.5, -math.pi / 2, 0.5, -1.0], abs=1e-6)


def random_poses(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.column_stack([rng.uniform(-3, 3, n), rng.uniform(-3, 3, n), rng.uniform(-math.pi, math.pi, n)])


@pytest.mark.parametrize("path", [Circle((0.5, 1.0), 1.5, ccw=False, start_angle=0.3),
                                  Polyline([(0, 0), (2, 0), (2, 2), (-1, 1)], closed=True),
                                  Polyline([(0, 0), (2, 0), (2, 2), (-1, 1)])])
def test_a_batch_of_copies_equals_the_copies_one_at_a_time(path):
    rng, n = np.random.default_rng(7), 64
    pose, goal, collided = random_poses(rng, n), random_poses(rng, n), rng.random(n) < 0.3
    arrays = path.arrays()

    def run(rows: slice):
        k = len(range(n)[rows])
        o = dict(goal_reward=np.zeros(k), goal_end=np.zeros(k, dtype=bool), arrived=np.zeros(k, dtype=bool),
                 distance=rng_distance[rows].copy(), goal_view=np.zeros((k, 3)),
                 last=last[rows].copy(), avoid_reward=np.zeros(k), avoid_end=np.zeros(k, dtype=bool),
                 forward=np.zeros(k), s=np.zeros(k), cross=np.zeros(k), path_reward=np.zeros(k),
                 path_end=np.zeros(k, dtype=bool), progress=np.zeros(k), path_view=np.zeros((k, 4)))
        goal_reach_step(pose[rows], goal[rows], collided[rows], o["distance"], 0.3, 0.2, 1.0, 0.01, 10.0, 10.0, True,
                        o["goal_reward"], o["goal_end"], o["arrived"])
        goal_observation(pose[rows], goal[rows], o["goal_view"])
        avoid_collisions_step(pose[rows], collided[rows], o["last"], 1.0, 10.0, o["avoid_reward"], o["avoid_end"],
                              o["forward"])
        path_start(last[rows], *arrays, o["s"], o["cross"])
        path_follow_step(pose[rows], collided[rows], o["s"], *arrays, 1.0, 0.1, 2.0, 10.0, True, 0.2,
                         o["path_reward"], o["path_end"], o["cross"], o["progress"])
        path_observation(pose[rows], *arrays, 1.0, o["path_view"])
        return o

    rng_distance, last = rng.uniform(0, 5, n), random_poses(rng, n)
    together = run(slice(0, n))
    for k in range(n):
        alone = run(slice(k, k + 1))
        for name, values in alone.items():
            assert np.array_equal(values, together[name][k:k + 1]), (name, k)


def test_the_python_tasks_report_what_the_kernels_compute():
    goal_task = GoalReach(yaw_tolerance=0.5)
    assert goal_task.kernel_parameters() == (0.3, 0.5, 1.0, 0.01, 10.0, 10.0, True)
    assert GoalReach().kernel_parameters()[1] == math.inf
    path_task = PathFollow({"circle": {"center": (0, 1), "radius": 1}})
    assert path_task.kernel_parameters() == (1.0, 0.1, 2.0, 10.0, True, 0.2)
    assert path_task.path.arrays().kind == 0 and path_task.path.arrays().length == pytest.approx(2 * math.pi)
