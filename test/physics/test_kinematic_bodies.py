"""Animated blocks and actors in the simulation: they are where their paths say (Box2D follows exactly), they
push vehicles out of their way, a vehicle touching them reports a collision, and lidars see them."""

import math

import numpy as np
import pytest

from conftest import robot_world_xml
from mvsim_ros.physics import Simulation
from mvsim_ros.sensors.suite import build_sensors
from mvsim_ros.world import load_world_string

#: A 1 m x 1 m block crossing x = 3.5 from y = -5 to y = +5 in 10 s, then back in 10 s.
CROSSING = """<block name="crosser">
    <shape><pt>-0.5 -0.5</pt><pt>0.5 -0.5</pt><pt>0.5 0.5</pt><pt>-0.5 0.5</pt></shape><zmax>1.0</zmax>
    <init_pose>3.5 0 0</init_pose>
    <animation type="keyframes">
      <time_pose>0 0 -5 0</time_pose><time_pose>10 0 5 0</time_pose><time_pose>20 0 -5 0</time_pose>
    </animation>
  </block>"""
LASER = ('<sensor class="laser" name="laser1"><pose_3d>0 0 0.3 0 0 0</pose_3d><fov_degrees>120</fov_degrees>'
         '<nrays>241</nrays><range_max>20</range_max>'
         '<range_std_noise>0</range_std_noise><angle_std_noise_deg>0</angle_std_noise_deg></sensor>')  # exact
WALKER = """<actor name="walker"><walking_speed>1.2</walking_speed><collision_radius>0.3</collision_radius>
    <init_pose>{start} 0</init_pose><path loop="false"><waypoint>{end} 0</waypoint></path></actor>"""


def robot_world(extra: str, laser: bool = False, init_pose: str = "0 0 0") -> Simulation:
    text = robot_world_xml(extra=extra, init_pose=init_pose)
    if laser:
        text = text.replace(f"<init_pose>{init_pose}</init_pose>", f"<init_pose>{init_pose}</init_pose>{LASER}")
    return Simulation(load_world_string(text))


def crossing_y(t: float) -> float:
    """Centre y [m] of the crossing block at time t [s], from its keyframes."""
    phase = math.fmod(t, 20.0)
    return -5.0 + phase if phase <= 10.0 else 15.0 - phase


def test_animated_block_follows_its_keyframes_in_box2d():
    sim = robot_world(CROSSING, init_pose="-5 -5 0")
    for until in (2.5, 7.0, 13.0, 26.0):
        while sim.time < until - 1e-9:
            sim.step()
        x, y, yaw = sim.block_poses()[0]
        assert (x, y, yaw) == pytest.approx((3.5, crossing_y(sim.time), 0.0), abs=1e-4)
        assert sim.block_poses3()[0] == pytest.approx((3.5, crossing_y(sim.time), 0.0, 0.0, 0.0, 0.0), abs=1e-4)


def ray_box_range(bearings: np.ndarray, x0: float, x1: float, y0: float, y1: float) -> np.ndarray:
    """Distance [m] from the origin along each bearing to an axis-aligned box [x0, x1] x [y0, y1] (inf: missed),
    by the slab method."""
    c, s = np.cos(bearings), np.sin(bearings)
    with np.errstate(divide="ignore", invalid="ignore"):
        tx = np.sort(np.stack([x0 / c, x1 / c]), axis=0)
        ty = np.sort(np.stack([y0 / s, y1 / s]), axis=0)
    ty = np.where(np.abs(s) < 1e-12, np.where((y0 <= 0) & (0 <= y1), [[-np.inf], [np.inf]], np.inf), ty)
    near, far = np.maximum(tx[0], ty[0]), np.minimum(tx[1], ty[1])
    return np.where((near <= far) & (near > 0), near, np.inf)


def test_the_scan_changes_where_the_keyframes_say():
    """A lidar at the origin looking along +x sees the crossing block exactly where its keyframes put it (to 1 cm),
    at every instant checked, and nothing else within 20 m."""
    sim = robot_world(CROSSING, laser=True)
    lidar = build_sensors(sim.spec).lidars[0]
    bearings = lidar.params.angles
    seen = 0
    for until in (3.0, 4.6, 5.0, 5.3, 6.2, 8.0, 15.0):
        while sim.time < until - 1e-9:
            sim.step()
        ranges = lidar.scan(sim.box2d.world, sim.pose[0])
        y = crossing_y(sim.time)
        expected = ray_box_range(bearings, 3.0, 4.0, y - 0.5, y + 0.5)
        # beams grazing a corner (within 1 cm of missing or hitting it) may go either way
        grazing = np.isfinite(ray_box_range(bearings, 2.99, 4.01, y - 0.51, y + 0.51)) != np.isfinite(
            ray_box_range(bearings, 3.01, 3.99, y - 0.49, y + 0.49))
        np.testing.assert_allclose(ranges[~grazing], expected[~grazing], atol=0.01)
        seen += int(np.isfinite(expected[~grazing]).sum())
    assert seen > 50  # the block was in view at several of the instants


def test_animated_block_pushes_a_vehicle_out_of_its_way_and_the_vehicle_reports_it():
    # The robot stands still at (3.5, 0) (zero command, brakes on through its speed loop): the block comes up y.
    sim = robot_world(CROSSING, init_pose="3.5 0 0")
    hit = False
    while sim.time < 6.0:
        sim.step()
        hit |= bool(sim.take_collisions()[0])
    assert hit
    # The block is infinitely heavy: it passed through y = 0 at t = 5 s, so the robot was pushed ahead of it.
    assert sim.pose[0, 1] > 1.0 - 0.05
    assert sim.block_poses()[0, 1] == pytest.approx(crossing_y(sim.time), abs=1e-4)


def test_actor_is_where_its_path_says_after_ten_seconds():
    sim = robot_world(WALKER.format(start="0 5", end="20 5"), init_pose="0 -5 0")
    while sim.time < 10.0 - 1e-9:
        sim.step()
    assert sim.actor_poses[0] == pytest.approx((12.0, 5.0, 0.0, 0.0), abs=0.02)
    assert tuple(sim.box2d.actors[0].position) == pytest.approx((12.0, 5.0), abs=0.02)


def test_a_vehicle_driving_into_an_actor_reports_a_collision_and_cannot_pass_through():
    sim = robot_world(WALKER.format(start="3 0", end="3 0"))  # an actor standing at (3, 0), radius 0.3
    touched = False
    sim.set_twist(0, 1.0, 0.0)
    while sim.time < 6.0:
        sim.step()
        sim.set_twist(0, 1.0, 0.0)
        touched |= bool(sim.take_collisions()[0])
    assert touched
    front = sim.pose[0, 0] + 0.25  # the chassis reaches 0.25 m ahead of base_link
    assert front < 3.0 - 0.3 + 0.02  # stopped at the actor's cylinder, not through it
    assert sim.actor_poses[0, :2] == pytest.approx((3.0, 0.0))  # kinematic: not pushed back


def test_lidar_sees_an_actor_as_its_cylinder():
    sim = robot_world(WALKER.format(start="4 0", end="4 0"), laser=True)
    lidar = build_sensors(sim.spec).lidars[0]
    sim.step()
    ranges = lidar.scan(sim.box2d.world, sim.pose[0])
    assert ranges[120] == pytest.approx(4.0 - 0.3, abs=0.01)  # centre beam: the cylinder's near side


def test_a_world_without_moving_things_has_no_movers():
    sim = robot_world("")
    assert sim.movers.count == 0 and sim.actor_poses.shape == (0, 4) and sim.animated_blocks.size == 0
