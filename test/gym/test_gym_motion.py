"""What a step does: commands held for exactly round(step_s / dt) physics steps, the vehicle drives the arc its
twist gives, sensors measured at the end of the step."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gym_support import robot_world, wall_block
from mvsim_ros.gym import MvsimEnv
from mvsim_ros.physics import Simulation


def fit_circle(points: np.ndarray) -> tuple[float, float, float]:
    """Least-squares circle (cx, cy, r) through points (N x 2): x^2 + y^2 + D x + E y + F = 0."""
    x, y = points[:, 0], points[:, 1]
    a = np.column_stack([x, y, np.ones_like(x)])
    d, e, f = np.linalg.lstsq(a, -(x ** 2 + y ** 2), rcond=None)[0]
    cx, cy = -d / 2, -e / 2
    return cx, cy, math.sqrt(cx ** 2 + cy ** 2 - f)


def held_circle(env: MvsimEnv, action, turn_s: float) -> tuple[float, float, np.ndarray]:
    """Hold `action` for 2 s (the controllers settle), then for `turn_s` [s] (one turn): (radius of the circle
    fitted to the poses [m], > 0 when its centre is left of the vehicle, the last observation's odometry)."""
    env.reset(seed=0)
    action = np.array(action, dtype=np.float32)
    for _ in range(40):
        env.step(action)
    poses = []
    for _ in range(int(math.ceil(turn_s / env.step_s))):
        observation, *_ = env.step(action)
        poses.append(observation["pose"][:2].astype(float))
    cx, cy, radius = fit_circle(np.array(poses))
    (x0, y0), (x1, y1) = poses[0], poses[1]
    heading = math.atan2(y1 - y0, x1 - x0)
    left = math.cos(heading) * (cy - y0) - math.sin(heading) * (cx - x0)
    return radius, left, observation["odometry"]


@pytest.mark.parametrize("v, w", [(0.5, 0.5), (0.8, -0.4)])
def test_a_held_twist_drives_a_circle_of_radius_v_over_w(v, w):
    env = MvsimEnv("bench/differential_1_lidar.world.xml", step_s=0.05,
                   action_units="physical")
    radius, left, odometry = held_circle(env, [v, w], 2 * math.pi / abs(w))
    assert radius == pytest.approx(v / abs(w), rel=0.05)
    assert math.copysign(1.0, left) == math.copysign(1.0, w)  # w > 0 turns left: the centre is on the left
    assert odometry == pytest.approx([v, w], rel=0.05)  # still driving: the watchdog did not stop it


@pytest.mark.parametrize("speed, steer", [(0.5, 0.3), (1.0, -0.2)])
def test_a_held_ackermann_command_drives_a_circle_of_radius_wheelbase_over_tan_steer(speed, steer):
    env = MvsimEnv("seed002_car.world.xml", action_units="physical")  # wheelbase 0.325 m
    expected = 0.325 / math.tan(abs(steer))
    radius, left, odometry = held_circle(env, [speed, steer], 2 * math.pi * expected / speed)
    assert radius == pytest.approx(expected, rel=0.05)
    assert math.copysign(1.0, left) == math.copysign(1.0, steer)
    assert odometry[0] == pytest.approx(speed, rel=0.05)


def test_an_env_step_is_exactly_round_step_s_over_dt_physics_steps():
    env = MvsimEnv(robot_world(), step_s=0.0123, action_units="physical")  # 2.46 steps of 5 ms: rounds to 2
    assert env.steps_per_action == 2 and env.step_s == pytest.approx(0.01)
    env.reset(seed=0)
    for k in range(1, 4):
        _, _, _, _, info = env.step(np.array([0.3, 0.0], dtype=np.float32))
        assert env.sim.steps == 2 * k and info["time"] == pytest.approx(0.01 * k)


def test_the_env_matches_the_simulation_stepped_by_hand():
    world = robot_world()
    env = MvsimEnv(world, sensor_noise=False, action_units="physical")
    env.reset(seed=0)
    sim = Simulation(world)
    for action in ([0.4, 0.2], [0.6, -0.3], [0.0, 0.5]):
        observation, *_ = env.step(np.array(action, dtype=np.float32))
        sim.set_twist(0, *np.float32(action).tolist())
        sim.step_many(10)
        assert np.array_equal(env.sim.pose, sim.pose)
    assert observation["odometry"].tolist() == np.float32(sim.odom_twist[0]).tolist()


def test_scans_are_measured_at_the_end_of_the_step_and_misses_read_max_range():
    env = MvsimEnv(robot_world(extra=wall_block(3.0)), sensor_noise=False,
                   action_units="physical")
    observation, _ = env.reset(seed=0)
    scan = observation["front"]
    assert scan.dtype == np.float32 and scan.shape == (181,)
    assert scan[90] == pytest.approx(3.0 - 0.2, abs=1e-3)  # the wall's face, from the lidar 0.2 m ahead
    assert scan[0] == scan[-1] == np.float32(10.0)  # no return: max_range
    for _ in range(10):
        observation, *_ = env.step(np.array([1.0, 0.0], dtype=np.float32))
    travelled = float(observation["pose"][0])
    assert observation["front"][90] == pytest.approx(2.8 - travelled, abs=0.01)
