"""Shared helpers of the Gymnasium tests: small worlds and episode records."""

from __future__ import annotations

import numpy as np

from conftest import robot_world_xml
from mvsim_ros.world import load_world_string

#: A 2D lidar for the test robot's class (181 rays over 180 deg, 10 m, noisy).
LIDAR = ('<sensor class="laser" name="front"><pose_3d>0.2 0 0.3 0 0 0</pose_3d><fov_degrees>180</fov_degrees>'
         '<nrays>181</nrays><range_max>10</range_max><range_std_noise>0.01</range_std_noise></sensor>')
#: A small RGB camera for the test robot's class.
CAMERA = ('<sensor class="camera" name="cam"><pose_3d>0.3 0 0.5 -90 0 -90</pose_3d><ncols>32</ncols>'
          '<nrows>24</nrows><cx>16</cx><cy>12</cy><fx>20</fx><fy>20</fy><clip_max>30</clip_max></sensor>')


def wall_block(x: float) -> str:
    """A static 0.4 m x 4 m block (a wall) across the x axis, its near face at `x` [m] (a box geometry's outline
    starts at the block's origin: it covers x..x+0.4, -2..2)."""
    return (f'<block name="wall"><static>true</static><mass>100</mass><zmax>1</zmax><init_pose>{x} -2 0</init_pose>'
            '<geometry type="box" lx="0.4" ly="4" lz="1"/></block>')


def robot_world(extra: str = "", class_extra: str = LIDAR):
    """The test robot 'r1' (differential, 0.5 m track, 0.2 m wheels) at the origin with a lidar, as a WorldSpec."""
    return load_world_string(robot_world_xml(extra=extra, class_extra=class_extra), file="gym_test.world.xml")


def play(env, actions, seed: int, options=None) -> list:
    """(observation, reward, terminated, truncated) of reset(seed) and then each action, with copied arrays."""
    observation, _ = env.reset(seed=seed, options=options)
    record = [({k: v.copy() for k, v in observation.items()}, 0.0, False, False)]
    for action in actions:
        observation, reward, terminated, truncated, _ = env.step(action)
        record.append(({k: v.copy() for k, v in observation.items()}, reward, terminated, truncated))
        if terminated or truncated:
            break
    return record


def same_bits(a: list, b: list) -> bool:
    """Whether two records are bit for bit the same (every observation array's bytes, every reward)."""
    if len(a) != len(b):
        return False
    for (obs_a, *rest_a), (obs_b, *rest_b) in zip(a, b):
        if obs_a.keys() != obs_b.keys() or rest_a != rest_b:
            return False
        if any(obs_a[k].dtype != obs_b[k].dtype or obs_a[k].tobytes() != obs_b[k].tobytes() for k in obs_a):
            return False
    return True


def random_actions(space, count: int, seed: int, scale: float = 1.0) -> list[np.ndarray]:
    """`count` actions drawn uniformly from `scale` times the Box `space`'s bounds."""
    rng = np.random.default_rng(seed)
    return [(rng.uniform(space.low, space.high) * scale).astype(np.float32) for _ in range(count)]
