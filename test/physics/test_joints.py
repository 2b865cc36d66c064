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


def test_train_footprint_is_the_hull_of_the_rotated_outlines():
    from mvsim_ros.physics.footprint import towed_vehicles, train_footprint

    world = load_world(REPO / "worlds" / "gridmap_yard.world.xml")
    assert towed_vehicles(world) == {0: [1]}  # the tug tows the cart
    tug, cart = (np.asarray(v.chassis.shape) for v in world.vehicles)
    for hitch_deg in (0.0, 30.0, -30.0):
        gamma = math.radians(hitch_deg)
        # Cart hitch (0.3, 0) sits on the tug hitch (-0.3, 0): cart origin = hitch - R(gamma) (0.3, 0).
        cart_pose = (-0.3 - 0.3 * math.cos(gamma), -0.3 * math.sin(gamma), gamma)
        pose = np.array([[5.0, -2.0, 1.0], [0.0, 0.0, 0.0]])  # tug somewhere; cart placed relative to it
        c, s = math.cos(pose[0, 2]), math.sin(pose[0, 2])
        pose[1] = (pose[0, 0] + c * cart_pose[0] - s * cart_pose[1], pose[0, 1] + s * cart_pose[0] + c * cart_pose[1],
                   pose[0, 2] + gamma)
        outline = np.array(train_footprint(world, pose, 0, [1]))
        cg, sg = math.cos(gamma), math.sin(gamma)
        cart_corners = np.c_[cart_pose[0] + cg * cart[:, 0] - sg * cart[:, 1],
                             cart_pose[1] + sg * cart[:, 0] + cg * cart[:, 1]]
        corners = np.vstack([tug, cart_corners])
        # Every corner of both bodies is inside or on the outline, and every outline vertex is one of them.
        for vertex in outline:
            assert np.min(np.linalg.norm(corners - vertex, axis=1)) < 1e-3
        edges = np.roll(outline, -1, axis=0) - outline
        rel = corners[:, None, :] - outline[None, :, :]
        cross = edges[None, :, 0] * rel[:, :, 1] - edges[None, :, 1] * rel[:, :, 0]
        assert np.all(cross >= -1e-9)
        rear_cart_corner = cart_corners[np.argmin(cart_corners[:, 0])]
        assert rear_cart_corner[0] == pytest.approx(outline[:, 0].min(), abs=1e-3)


def test_car_tows_its_two_axle_trailer_through_a_turn():
    sim = Simulation(load_world(REPO / "worlds" / "car_trailer.world.xml"))
    sim.set_twist(0, 2.0, 0.25)
    sim.run(12.0)
    car, trailer = sim.pose
    hitch_world = car[:2] + np.array([math.cos(car[2]), math.sin(car[2])]) * -1.2
    drawbar_tip = trailer[:2] + np.array([math.cos(trailer[2]), math.sin(trailer[2])]) * 2.3
    assert np.linalg.norm(hitch_world - drawbar_tip) < 0.02  # the pin holds
    assert sim.body_twist()[0, 0] == pytest.approx(2.0, rel=0.05)
    hitch = (trailer[2] - car[2] + math.pi) % (2 * math.pi) - math.pi
    assert -math.radians(70) - 0.01 <= hitch < 0  # the trailer lags inside the turn


def spring_world(joint_attributes: str, v0: float = -0.5) -> Simulation:
    """Block a fixed at the origin, block b (10 kg, no friction or damping) 2 m along +x moving at v0 [m/s] along
    x, joined anchor to anchor (their centres) by a distance joint with `joint_attributes`."""
    free = '<ground_friction>0</ground_friction><linear_damping>0</linear_damping><angular_damping>0</angular_damping>'
    return Simulation(load_world_string(
        f'<mvsim_world><block name="a"><static>true</static></block>'
        f'<block name="b"><mass>10</mass>{free}<init_pose>2 0 0</init_pose><init_vel>{v0} 0 0</init_vel></block>'
        f'<joint type="distance" body_a="a" anchor_a="0 0" body_b="b" anchor_b="0 0" {joint_attributes}/>'
        f'</mvsim_world>'))


def test_spring_stiffness_and_damping_become_box2d_23_frequency_and_ratio():
    from mvsim_ros.physics.bodies import spring_frequency_and_ratio

    # Two bodies of 10 and 30 kg: reduced mass 7.5 kg; k = 300 N/m gives omega = sqrt(40) rad/s.
    frequency, ratio = spring_frequency_and_ratio(300.0, 15.0, 10.0, 30.0)
    omega = math.sqrt(300.0 / 7.5)
    assert frequency == pytest.approx(omega / (2 * math.pi)) and ratio == pytest.approx(15.0 / (2 * 7.5 * omega))
    # Box2D 2.4's b2LinearStiffness gives back k = m (2 pi f)^2 and c = 2 m ratio (2 pi f):
    assert 7.5 * (2 * math.pi * frequency) ** 2 == pytest.approx(300.0)
    assert 2 * 7.5 * ratio * 2 * math.pi * frequency == pytest.approx(15.0)
    assert spring_frequency_and_ratio(40.0, 0.0, 0.0, 10.0) == pytest.approx((2.0 / (2 * math.pi), 0.0))  # static A


def test_spring_joint_oscillates_at_sqrt_k_over_m():
    """k = 40 N/m on 10 kg: omega = 2 rad/s. Pushed in at 0.5 m/s from its rest length 2 m, the body compresses the
    spring by v0 / omega = 0.25 m after a quarter period and is back at 2 m after half a period (pi / omega)."""
    sim = spring_world('max_length="2" stiffness="40"')
    closest, back_at = math.inf, None
    while sim.time < 2.5:
        sim.step()
        distance = sim.block_poses()[1, 0]
        if distance < closest:
            closest, closest_at = distance, sim.time
        if back_at is None and sim.time > 0.5 and distance >= 2.0 - 1e-4:
            back_at = sim.time
    assert closest == pytest.approx(2.0 - 0.25, abs=0.003)
    assert closest_at == pytest.approx(math.pi / 4, abs=0.02)
    assert back_at == pytest.approx(math.pi / 2, abs=0.02)


def test_damped_spring_loses_amplitude_as_its_ratio_says():
    """c = 8 N s/m on k = 40 N/m, 10 kg: ratio 0.2, so the compression peaks at v0/omega_d exp(-ratio omega t_peak)
    (omega_d = omega sqrt(1 - ratio^2), t_peak = atan(sqrt(1 - ratio^2) / ratio) / omega_d)."""
    sim = spring_world('max_length="2" stiffness="40" damping="8"')
    omega, ratio = 2.0, 0.2
    omega_d = omega * math.sqrt(1 - ratio ** 2)
    t_peak = math.atan(math.sqrt(1 - ratio ** 2) / ratio) / omega_d
    expected = 0.5 / omega_d * math.exp(-ratio * omega * t_peak) * math.sin(omega_d * t_peak)
    closest = math.inf
    while sim.time < 2.0:
        sim.step()
        closest = min(closest, sim.block_poses()[1, 0])
    assert 2.0 - closest == pytest.approx(expected, rel=0.03)


def test_equal_min_and_max_length_make_a_rigid_rod():
    sim = spring_world('max_length="2" min_length="2"', v0=-3.0)
    sim.run(1.0)
    assert sim.block_poses()[1, 0] == pytest.approx(2.0, abs=0.01)  # neither closer nor further


def test_distance_joint_defaults_to_mvsims_5_m_rope():
    sim = spring_world("", v0=3.0)
    sim.run(3.0)
    assert sim.block_poses()[1, 0] == pytest.approx(5.0, abs=0.02)  # 2 m + 3 m/s x 3 s stopped at 5 m
    assert sim.spec.joints[0].max_length == 5.0
