"""Joints between bodies: a towed trailer against steady-state kinematics, joint limits, ropes."""

import math

import numpy as np
import pytest

from conftest import REPO
from mvsim_ros.physics import Simulation
from mvsim_ros.world import load_world, load_world_string

HITCH_BEHIND_TUG = 0.3  # joint anchor on the tug, behind its axle [m]
HITCH_TO_CART_AXLE = 0.3 + 0.4  # cart anchor 0.3 ahead of its origin, its axle 0.4 behind the origin [m]


def tug_and_cart() -> Simulation:
    world = load_world(REPO / "worlds" / "gridmap_yard.world.xml")
    world.occupancy_grids, world.walls = [], []  # open ground
    return Simulation(world)


def steady_hitch_angle(radius: float, hitch: float, trailer: float) -> float:
    """Trailer heading minus tractor heading [rad] when the tractor's axle centre circles at `radius` (left turn).

    Rigid steady state: every point turns about the same centre C; the trailer axle A moves perpendicular to CA
    and along the trailer, so the triangle C-A-H (H: hitch) has its right angle at A."""
    c_to_hitch = math.hypot(radius, hitch)
    c_to_axle = math.sqrt(c_to_hitch ** 2 - trailer ** 2)
    hitch_polar = math.atan2(-radius, -hitch)  # in the tractor frame, C at (0, radius)
    return hitch_polar - math.acos(c_to_axle / c_to_hitch) + math.pi / 2


def test_towed_cart_settles_at_the_kinematic_hitch_angle_and_tracks_inside():
    sim = tug_and_cart()
    sim.set_twist(0, 1.0, 0.5)  # tug axle on a 2 m circle
    sim.run(30.0)
    hitch = (sim.pose[1, 2] - sim.pose[0, 2] + math.pi) % (2 * math.pi) - math.pi
    assert hitch == pytest.approx(steady_hitch_angle(2.0, HITCH_BEHIND_TUG, HITCH_TO_CART_AXLE), rel=0.03)
    # Off-tracking: the cart's axle runs on a smaller circle than the tug's.
    tug_axle, cart_axle = [], []
    for _ in range(int(2 * math.pi / 0.5 / sim.dt)):
        sim.step()
        tug_axle.append(sim.pose[0, :2].copy())
        c, s = math.cos(sim.pose[1, 2]), math.sin(sim.pose[1, 2])
        cart_axle.append(sim.pose[1, :2] + np.array([-0.4 * c, -0.4 * s]))
    centre = np.mean(tug_axle, axis=0)
    tug_r = np.linalg.norm(np.array(tug_axle) - centre, axis=1)
    cart_r = np.linalg.norm(np.array(cart_axle) - centre, axis=1)
    assert tug_r.mean() == pytest.approx(2.0, rel=0.02)
    expected_cart_r = math.sqrt(2.0 ** 2 + HITCH_BEHIND_TUG ** 2 - HITCH_TO_CART_AXLE ** 2)
    assert cart_r.mean() == pytest.approx(expected_cart_r, rel=0.02) and cart_r.max() < tug_r.min()


def pair_world(joint: str) -> str:
    body = ('<block name="{n}"><mass>10</mass><ground_friction>0</ground_friction>'
            '<geometry type="box" lx="0.4" ly="0.4" lz="0.4"/><init_pose>{x} 0 0</init_pose></block>')
    return f'<mvsim_world>{body.format(n="a", x=0)}{body.format(n="b", x=1)}{joint}</mvsim_world>'


def test_revolute_joint_limit_holds():
    sim = Simulation(load_world_string(pair_world(
        '<joint type="revolute" body_a="a" anchor_a="0.7 0.2" body_b="b" anchor_b="0 0.2" enable_limit="true" '
        'lower_angle_deg="-10" upper_angle_deg="10"/>')))
    sim.box2d.blocks[1].ApplyAngularImpulse(50.0, True)
    sim.run(1.0)
    relative = sim.block_poses()[1, 2] - sim.block_poses()[0, 2]
    assert abs(relative) <= math.radians(10) + 0.01


def test_rope_joint_keeps_bodies_within_its_length():
    sim = Simulation(load_world_string(pair_world(
        '<joint type="distance" body_a="a" anchor_a="0.2 0.2" body_b="b" anchor_b="0.2 0.2" max_length="1.5"/>')))
    sim.box2d.blocks[1].linearVelocity = (5.0, 0.0)
    sim.run(1.0)
    a, b = sim.block_poses()[:, :2]
    assert np.linalg.norm(b - a) <= 1.5 + 0.02
    assert sim.box2d.blocks[0].linearVelocity[0] > 0.5  # the rope pulled body a along
