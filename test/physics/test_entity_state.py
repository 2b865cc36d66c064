"""Teleporting vehicles and blocks (Simulation.set_vehicle_state / set_block_state): exact poses and twists, joined
bodies carried rigidly, odometry left alone, bad input refused without changing anything."""

import math

import numpy as np
import pytest

from conftest import REPO, robot_world_xml
from mvsim_ros.physics import Simulation
from mvsim_ros.world import load_world, load_world_string

WORLDS = REPO / "worlds"


def world_sim(name: str) -> Simulation:
    return Simulation(load_world(WORLDS / f"{name}.world.xml"))


def hitch_points(sim: Simulation) -> tuple[np.ndarray, np.ndarray]:
    """World positions [m] of the car_trailer hitch anchors: on the car (-1.2, 0), on the trailer (2.3, 0)."""
    out = []
    for k, anchor in ((0, -1.2), (1, 2.3)):
        x, y, yaw = sim.pose[k]
        out.append(np.array([x + anchor * math.cos(yaw), y + anchor * math.sin(yaw)]))
    return out[0], out[1]


def test_teleport_lands_exactly_at_rest_and_stays_put_while_odometry_continues():
    sim = Simulation(load_world_string(robot_world_xml()))
    sim.set_twist(0, 0.8, 0.4)
    sim.run(1.5)
    odom_before = sim.odom_pose.copy()
    sim.set_vehicle_state(0, 2.5, -1.25, 0.7)
    np.testing.assert_allclose(sim.pose[0], [2.5, -1.25, 0.7], atol=1e-6)
    np.testing.assert_allclose(sim.velocity[0], 0.0, atol=1e-9)
    np.testing.assert_allclose(sim.body_pose[0], sim.pose[0])
    assert np.all(sim.acceleration[0] == 0.0)
    assert np.array_equal(sim.odom_pose, odom_before)  # wheel odometry does not see the carry
    np.testing.assert_allclose(sim.odom_twist[0], 0.0, atol=1e-9)
    np.testing.assert_allclose(sim.wheels.omega, 0.0, atol=1e-9)  # rolling at zero speed
    assert np.all(sim.controllers.i_term == 0.0) and np.all(sim.controllers.last_error == 0.0)
    assert (sim.commands.v[0], sim.commands.omega[0]) == (0.8, 0.4)  # the command stays (the watchdog's job)
    sim.set_twist(0, 0.0, 0.0)
    sim.run(1.0)
    assert math.hypot(*(sim.pose[0, :2] - [2.5, -1.25])) < 1e-3
    assert abs(sim.pose[0, 2] - 0.7) < 1e-3
    np.testing.assert_allclose(sim.odom_pose[0], odom_before[0], atol=1e-3)


def test_teleport_with_a_twist_has_that_twist_immediately_and_rolling_wheels():
    sim = Simulation(load_world_string(robot_world_xml()))
    yaw, v_fwd, omega = 0.3, 1.2, -0.5
    vx, vy = v_fwd * math.cos(yaw), v_fwd * math.sin(yaw)
    sim.set_vehicle_state(0, 1.0, 2.0, yaw, vx, vy, omega)
    np.testing.assert_allclose(sim.velocity[0], [vx, vy, omega], atol=1e-5)  # Box2D keeps float32
    np.testing.assert_allclose(sim.body_twist()[0], [v_fwd, 0.0, omega], atol=1e-5)
    np.testing.assert_allclose(sim.odom_twist[0], [v_fwd, omega], atol=1e-5)
    # Wheels at y = +/-0.25 m, radius 0.1 m: omega_wheel = (v - omega y) / R.
    left, right = np.flatnonzero(sim.wheels.y > 0)[0], np.flatnonzero(sim.wheels.y < 0)[0]
    assert sim.wheels.omega[left] == pytest.approx((v_fwd - omega * 0.25) / 0.1, abs=1e-4)
    assert sim.wheels.omega[right] == pytest.approx((v_fwd + omega * 0.25) / 0.1, abs=1e-4)


def test_teleport_reports_the_wrapped_yaw():
    sim = Simulation(load_world_string(robot_world_xml()))
    sim.set_vehicle_state(0, 0.0, 0.0, 2 * math.pi + 0.25)
    assert sim.pose[0, 2] == pytest.approx(0.25, abs=1e-6)


def test_a_trailer_moves_with_its_tractor_keeping_the_hitch():
    sim = world_sim("car_trailer")
    sim.set_twist(0, 2.0, 0.3)
    sim.run(3.0)
    hitch_angle = sim.pose[1, 2] - sim.pose[0, 2]
    car, trailer = hitch_points(sim)
    assert np.linalg.norm(car - trailer) < 0.01  # joined before
    sim.set_vehicle_state(0, -20.0, 15.0, -2.0)
    np.testing.assert_allclose(sim.pose[0], [-20.0, 15.0, -2.0], atol=1e-5)
    assert sim.pose[1, 2] - sim.pose[0, 2] == pytest.approx(hitch_angle, abs=1e-5)
    car_after, trailer_after = hitch_points(sim)
    assert np.linalg.norm((car_after - trailer_after) - (car - trailer)) < 1e-4  # same rigid offset
    np.testing.assert_allclose(sim.velocity, 0.0, atol=1e-9)  # the whole train is at rest
    sim.set_twist(0, 0.0, 0.0)
    sim.run(1.0)
    assert math.hypot(*(sim.pose[0, :2] - [-20.0, 15.0])) < 1e-3
    assert math.hypot(*(sim.pose[1, :2] - (trailer_after - 2.3 * np.array([math.cos(sim.pose[1, 2]),
                                                                           math.sin(sim.pose[1, 2])])))) < 1e-3


def test_a_train_given_a_twist_moves_as_one_rigid_body():
    sim = world_sim("car_trailer")
    omega, vx, vy = 0.4, 1.0, -0.5
    sim.set_vehicle_state(0, 5.0, 5.0, 0.0, vx, vy, omega)
    # The trailer's reference point at r from the car's: v = v_car + omega x r.
    rx, ry = sim.pose[1, :2] - sim.pose[0, :2]
    np.testing.assert_allclose(sim.velocity[1], [vx - omega * ry, vy + omega * rx, omega], atol=1e-5)


def test_an_articulated_vehicle_moves_with_its_front_unit():
    sim = world_sim("articulated")
    k = sim.vehicle_names.index("loader")
    sim.set_ackermann(k, 1.0, 0.4)
    sim.run(2.0)
    gamma = sim.articulation_angles["loader"]
    assert abs(gamma) > 0.1
    unit = sim.unit_pose[0].copy()
    rear = sim.pose[k].copy()
    relative = _relative(rear, unit)
    sim.set_vehicle_state(k, 10.0, -4.0, 1.5)
    np.testing.assert_allclose(sim.pose[k], [10.0, -4.0, 1.5], atol=1e-5)
    np.testing.assert_allclose(_relative(sim.pose[k], sim.unit_pose[0]), relative, atol=1e-5)
    assert sim.articulation_angles["loader"] == pytest.approx(gamma, abs=1e-5)
    assert sim.articulations.gamma_rate[0] == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(sim.body_velocity, 0.0, atol=1e-9)


def _relative(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pose b in the frame of pose a (x, y, yaw)."""
    c, s = math.cos(a[2]), math.sin(a[2])
    dx, dy = b[0] - a[0], b[1] - a[1]
    return np.array([c * dx + s * dy, -s * dx + c * dy, b[2] - a[2]])


def test_set_block_state_moves_a_box_and_gives_it_a_twist():
    sim = world_sim("demo_2robots")
    before = sim.block_poses().copy()
    sim.set_block_state(1, -3.0, 4.0, 0.5)
    np.testing.assert_allclose(sim.block_poses()[1], [-3.0, 4.0, 0.5], atol=1e-5)
    np.testing.assert_allclose(np.delete(sim.block_poses(), 1, axis=0), np.delete(before, 1, axis=0))
    sim.run(1.0)
    np.testing.assert_allclose(sim.block_poses()[1], [-3.0, 4.0, 0.5], atol=1e-4)  # at rest, stays
    sim.set_block_state(1, -3.0, 4.0, 0.0, 0.5, 0.0, 0.0)
    body = sim.box2d.blocks[1]
    assert body.linearVelocity.x == pytest.approx(0.5, abs=1e-6)
    # Coulomb ground friction brakes it at mu g: v^2 / (2 mu g) less half a step's travel (semi-implicit Euler).
    mu, dt = sim.spec.blocks[1].ground_friction, sim.dt
    sim.run(2.0)
    slide = 0.5 ** 2 / (2 * mu * sim.gravity) - 0.5 * 0.5 * dt
    assert sim.block_poses()[1, 0] - (-3.0) == pytest.approx(slide, rel=0.01)


def test_an_animated_block_is_refused():
    sim = world_sim("moving_things")
    k = int(sim.animated_blocks[0])
    before = sim.block_poses()
    with pytest.raises(ValueError, match="keyframe animation"):
        sim.set_block_state(k, 0.0, 0.0, 0.0)
    np.testing.assert_array_equal(sim.block_poses(), before)


STATIC_BLOCK = """
  <block name="pillar"><static>true</static><shape><pt>-0.2 -0.2</pt><pt>0.2 -0.2</pt><pt>0.2 0.2</pt><pt>-0.2 0.2</pt>
  </shape><init_pose>4 0 0</init_pose></block>
"""


def test_a_static_block_takes_a_pose_but_no_velocity():
    sim = Simulation(load_world_string(robot_world_xml(extra=STATIC_BLOCK)))
    with pytest.raises(ValueError, match="static"):
        sim.set_block_state(0, 1.0, 1.0, 0.0, 0.1, 0.0, 0.0)
    np.testing.assert_allclose(sim.block_poses()[0], [4.0, 0.0, 0.0])
    sim.set_block_state(0, 1.0, 1.0, 0.3)
    np.testing.assert_allclose(sim.block_poses()[0], [1.0, 1.0, 0.3], atol=1e-6)


@pytest.mark.parametrize("args, message", [
    ((0, math.nan, 0.0, 0.0), "finite"),
    ((0, 0.0, 0.0, math.inf), "finite"),
    ((0, 2e5, 0.0, 0.0), "outside the world bounds"),
    ((0, 0.0, 0.0, 0.0, 5e3, 0.0, 0.0), "outside the world bounds"),
    ((0, 0.0, 0.0, 0.0, 0.0, 0.0, 1e4), "outside the world bounds"),
    ((3, 0.0, 0.0, 0.0), "no vehicle with index 3"),
    ((-1, 0.0, 0.0, 0.0), "no vehicle with index -1"),
    ((0, "a", 0.0, 0.0), "must be numbers"),
])
def test_bad_teleports_are_refused_in_one_line_and_change_nothing(args, message):
    sim = Simulation(load_world_string(robot_world_xml(init_pose="1 2 0.5")))
    sim.run(0.1)
    pose, omega = sim.body_pose.copy(), sim.wheels.omega.copy()
    with pytest.raises(ValueError, match=message) as error:
        sim.set_vehicle_state(*args)
    assert "\n" not in str(error.value)
    np.testing.assert_array_equal(sim.body_pose, pose)
    np.testing.assert_array_equal(sim.wheels.omega, omega)
