"""A differential robot against closed-form motion: straight line, circle, friction limit, walls."""

import math

import numpy as np
import pytest

from conftest import robot_world_xml
from mvsim_ros.physics import Simulation
from mvsim_ros.world import load_world, load_world_string


def make_sim(**kwargs) -> Simulation:
    return Simulation(load_world_string(robot_world_xml(**kwargs)))


#: Odometry without MVSim's default per-vehicle error multipliers.
EXACT_ODOMETRY = '<odometry x_multiplier="1" y_multiplier="1" yaw_multiplier="1"/>'


def undamped(text: str) -> str:
    """The conftest robot without Box2D's chassis damping (MVSim's default 0.1 1/s), for closed forms without it."""
    return text.replace('<chassis mass="15.0">', '<chassis mass="15.0" linear_damping="0" angular_damping="0">')


def test_straight_line_covers_v_times_t():
    sim = make_sim()
    sim.set_twist(0, 1.0, 0.0)
    sim.run(5.0)
    x, y, yaw = sim.pose[0]
    assert x == pytest.approx(5.0, rel=0.02)
    assert abs(y) < 1e-3 and abs(yaw) < 1e-3
    assert sim.body_twist()[0, 0] == pytest.approx(1.0, abs=0.01)
    # No slip at steady speed: the wheels roll at v / R.
    assert sim.wheels.omega == pytest.approx([1.0 / 0.1, 1.0 / 0.1], rel=0.01)


def fit_circle(points: np.ndarray) -> tuple[float, float, float]:
    a = np.c_[2 * points, np.ones(len(points))]
    b = (points ** 2).sum(axis=1)
    cx, cy, c = np.linalg.lstsq(a, b, rcond=None)[0]
    return cx, cy, math.sqrt(c + cx * cx + cy * cy)


@pytest.mark.parametrize("v, omega", [(0.5, 0.5), (1.0, -0.5)])
def test_circle_radius_is_v_over_omega(v, omega):
    sim = make_sim()
    sim.set_twist(0, v, omega)
    sim.run(2.0)  # transient
    points = []
    for _ in range(int(2 * math.pi / abs(omega) / sim.dt)):  # one full turn
        sim.step()
        points.append(sim.pose[0, :2].copy())
    _, _, radius = fit_circle(np.array(points))
    assert radius == pytest.approx(abs(v / omega), rel=0.02)
    assert sim.body_twist()[0, 2] == pytest.approx(omega, rel=0.02)


def test_acceleration_never_exceeds_mu_g():
    mu = 0.1
    sim = make_sim(mu=mu, max_torque=1e6, kp=1e4, ki=0.0)
    sim.set_twist(0, 3.0, 0.0)
    accelerations = []
    previous = sim.body_twist()[0, 0]
    for _ in range(int(1.5 / sim.dt)):
        sim.step()
        speed = sim.body_twist()[0, 0]
        accelerations.append((speed - previous) / sim.dt)
        previous = speed
    limit = mu * sim.gravity
    assert max(accelerations) <= 1.05 * limit
    # The robot does accelerate, close to the limit on average (the bound is not met trivially).
    assert sim.body_twist()[0, 0] / 1.5 > 0.5 * limit


def test_robot_stops_at_the_wall_and_reports_the_collision(write_world, wall_image):
    image = wall_image(3.0)
    path = write_world(robot_world_xml(grid_file=str(image)))
    sim = Simulation(load_world(path))
    sim.set_twist(0, 2.0, 0.0)
    touched_at = None
    for _ in range(int(4.0 / sim.dt)):
        sim.step()
        if touched_at is None and sim.collision_now[0]:
            touched_at = sim.time
    assert touched_at is not None
    front = sim.pose[0, 0] + 0.25  # chassis front edge [m]
    assert front == pytest.approx(3.0, abs=0.03)  # pressed against the wall face, not through it
    assert sim.take_collisions()[0]
    assert abs(sim.body_twist()[0, 0]) < 0.05


def test_twist_pid_odometry_follows_ground_truth_without_slip():
    sim = make_sim(class_extra=EXACT_ODOMETRY)
    sim.set_twist(0, 0.8, 0.3)
    sim.run(4.0)
    assert sim.odom_pose[0, :2] == pytest.approx(sim.pose[0, :2], abs=0.02)
    assert sim.odom_pose[0, 2] == pytest.approx(sim.pose[0, 2], abs=0.01)


def test_slip_makes_odometry_overestimate_distance():
    sim = make_sim(mu=0.05, max_torque=50.0)
    sim.set_twist(0, 2.0, 0.0)
    sim.run(1.0)
    assert sim.odom_pose[0, 0] > sim.pose[0, 0] + 0.1


def test_watchdog_stops_a_vehicle_whose_commands_went_quiet():
    sim = Simulation(load_world_string(robot_world_xml()), command_timeout=0.2)
    sim.set_twist(0, 1.0, 0.0)
    sim.run(0.19)
    assert sim.commands.v[0] == 1.0
    sim.run(0.03)
    assert sim.commands.v[0] == 0.0
    sim.run(2.0)
    assert abs(sim.body_twist()[0, 0]) < 0.01


def test_non_finite_commands_are_refused_and_the_last_valid_one_kept():
    sim = make_sim()
    sim.set_twist(0, 0.7, 0.1)
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError):
            sim.set_twist(0, bad, 0.0)
        with pytest.raises(ValueError):
            sim.set_twist(0, 0.0, bad)
    assert (sim.commands.v[0], sim.commands.omega[0]) == (0.7, 0.1)
    sim.run(1.0)
    assert np.isfinite(sim.pose).all()


def test_same_world_and_commands_give_the_same_trajectory():
    results = []
    for _ in range(2):
        sim = make_sim()
        sim.set_twist(0, 1.0, 0.4)
        sim.run(2.0)
        results.append(sim.pose.copy())
    assert np.array_equal(results[0], results[1])


def test_movable_block_is_pushed_and_friction_stops_it():
    block = """<block name="crate"><mass>10</mass><ground_friction>0.3</ground_friction>
      <geometry type="box" lx="0.4" ly="0.4" lz="0.4"/><init_pose>1.0 -0.2 0</init_pose></block>"""
    sim = Simulation(load_world_string(robot_world_xml(extra=block)))
    sim.set_twist(0, 0.5, 0.0)
    sim.run(3.0)
    pushed = sim.block_poses()[0, 0]
    assert pushed > 1.5  # the robot pushed the crate ahead
    sim.set_twist(0, -0.5, 0.0)  # back off; Coulomb friction stops the crate
    sim.run(1.0)
    after = sim.block_poses()[0, 0]
    sim.run(1.0)
    assert sim.block_poses()[0, 0] == pytest.approx(after, abs=1e-6)


def raw_robot_sim(torque: float) -> Simulation:
    xml = robot_world_xml(c_damping=0.0, c_rr=0.0).replace(
        '<controller class="twist_pid">', '<controller class="raw">').replace(
        "<KP>60.0</KP><KI>60.0</KI><KD>0</KD><I_MAX>0.5</I_MAX><max_torque>6.5</max_torque>",
        f"<torque_left>{torque}</torque_left><torque_right>{torque}</torque_right>")
    return Simulation(load_world_string(undamped(xml)))


def test_raw_torque_accelerates_chassis_and_wheel_inertia_as_in_closed_form():
    # Rolling without slip: M a = 2 F and I a / R = tau - R F  =>  a = 2 tau / (R (M + 2 I / R^2)).
    torque, radius, mass, inertia = 0.9, 0.1, 17.0, 0.5 * 1.0 * 0.1 ** 2
    accel = 2 * torque / (radius * (mass + 2 * inertia / radius ** 2))
    sim = raw_robot_sim(torque)
    sim.run(2.0)
    assert sim.body_twist()[0, 0] == pytest.approx(accel * 2.0, rel=0.01)
    assert sim.pose[0, 0] == pytest.approx(0.5 * accel * 2.0 ** 2, rel=0.01)
    assert sim.wheels.omega == pytest.approx([accel * 2.0 / radius] * 2, rel=0.01)  # rolling at v / R
    sim.set_wheel_torques(0, [0.0, 0.0])
    with pytest.raises(ValueError):
        sim.set_wheel_torques(0, [math.nan, 0.0])


def test_a_world_without_vehicles_steps():
    world = load_world_string('<mvsim_world><block name="b"><geometry type="box" lx="1" ly="1" lz="1"/>'
                              '<init_pose>2 3 90</init_pose></block></mvsim_world>')
    sim = Simulation(world)
    sim.run(0.1)
    assert sim.pose.shape == (0, 3)
    assert sim.block_poses()[0] == pytest.approx([2.0, 3.0, math.pi / 2])


@pytest.mark.parametrize("wall", [
    '<walls><wallThickness>0.2</wallThickness><shape><pt>3.1 -5</pt><pt>3.1 0</pt><pt>3.1 0</pt><pt>3.1 5</pt>'
    '</shape></walls>',
    '<element class="vertical_plane"><x0>3.1</x0><y0>-5</y0><x1>3.1</x1><y1>5</y1><thickness>0.2</thickness>'
    '</element>',
])
def test_walls_and_vertical_planes_stop_the_robot(wall):
    sim = Simulation(load_world_string(robot_world_xml(extra=wall)))
    sim.set_twist(0, 1.5, 0.0)
    sim.run(4.0)
    assert sim.pose[0, 0] + 0.25 == pytest.approx(3.0, abs=0.03)  # front edge at the wall face (3.1 - 0.1)
    assert sim.take_collisions()[0]


def variant_world(dynamics: str, wheels: str) -> str:
    """The test robot with another differential dynamics class and its wheel tags."""
    text = robot_world_xml()
    start, end = text.index("<l_wheel"), text.index("<controller")
    head = text[:start].replace('<dynamics class="differential">', f'<dynamics class="{dynamics}">')
    return head + wheels + text[end:]


@pytest.mark.parametrize("dynamics, wheels", [
    ("differential_3_wheels", '<l_wheel pos="0 0.25" mass="1" width="0.05" diameter="0.2"/>'
                              '<r_wheel pos="0 -0.25" mass="1" width="0.05" diameter="0.2"/>'
                              '<caster_wheel pos="0.2 0" mass="0.5" width="0.03" diameter="0.08"/>'),
    ("differential_4_wheels", '<lr_wheel pos="-0.12 0.25" mass="1" width="0.05" diameter="0.2"/>'
                              '<rr_wheel pos="-0.12 -0.25" mass="1" width="0.05" diameter="0.2"/>'
                              '<lf_wheel pos="0.12 0.25" mass="1" width="0.05" diameter="0.2"/>'
                              '<rf_wheel pos="0.12 -0.25" mass="1" width="0.05" diameter="0.2"/>'),
])
def test_three_and_four_wheel_differentials_drive_and_turn(dynamics, wheels):
    sim = Simulation(load_world_string(variant_world(dynamics, wheels)))
    assert sim.spec.vehicles[0].dynamics == dynamics
    sim.set_twist(0, 1.0, 0.0)
    sim.run(3.0)
    assert sim.body_twist()[0, 0] == pytest.approx(1.0, abs=0.02)
    assert abs(sim.pose[0, 1]) < 1e-3
    sim.set_twist(0, 0.5, 0.5)
    sim.run(4.0)
    # A free caster does not resist the turn; skid-steer wheels slip sideways, with their speeds still tracked.
    assert sim.body_twist()[0, 2] == pytest.approx(0.5, rel=0.02)


def test_setpoints_from_the_world_file_drive_the_robot_without_commands():
    text = robot_world_xml().replace("<KD>0</KD>", "<KD>0</KD><V>0.5</V><W>30</W>")  # W in deg/s, as MVSim
    sim = Simulation(load_world_string(text))
    sim.run(3.0)
    assert sim.body_twist()[0, 0] == pytest.approx(0.5, rel=0.02)
    assert sim.body_twist()[0, 2] == pytest.approx(math.radians(30), rel=0.02)


@pytest.mark.parametrize("kp", [60.0, 1000.0])
def test_a_saturated_motor_does_not_chatter_between_its_torque_limits(kp):
    # A 100 N m motor on 0.1 m wheels far exceeds traction: the robot accelerates at the friction limit mu g
    # (not stuck, as an explicit bang-bang torque would leave it) and then holds the setpoint.
    mu = 0.1
    sim = Simulation(load_world_string(undamped(robot_world_xml(mu=mu, max_torque=100.0, kp=kp))))
    sim.set_twist(0, 3.0, 0.0)
    sim.run(2.0)
    assert sim.body_twist()[0, 0] == pytest.approx(mu * sim.gravity * 2.0, rel=0.02)
    sim.run(2.0)
    assert sim.body_twist()[0, 0] == pytest.approx(3.0, abs=0.05)
    assert np.all(np.abs(sim.wheels.torque) <= 100.0)


def test_pid_integral_is_bounded_by_i_max():
    from mvsim_ros.physics.controllers import WheelControllers

    one = np.ones(1)
    pid = WheelControllers.from_rows([{"KP": 0.0, "KI": 10.0, "I_MAX": 0.5, "max_torque": 1e9}], [0.0], [0])
    for _ in range(1000):  # a wheel held still under a 1 m/s setpoint: the error integrates
        pid.torque_law(one, np.zeros(1), 0.1 * one, 0.01)
    assert pid.i_term[0] == pytest.approx(10.0 * 0.5, rel=1e-12)  # KI I_MAX [N m]


def test_rolling_resistance_override_from_a_property_region():
    region = ('<element class="property_region"><x_min>-50</x_min><x_max>50</x_max><y_min>-50</y_min>'
              '<y_max>50</y_max><property_name>friction_C_rr</property_name><value_double>0.2</value_double>'
              '</element>')
    speeds = []
    for extra in ("", region):
        text = robot_world_xml(c_rr=0.0, c_damping=0.0, extra=extra).replace(
            '<controller class="twist_pid">', '<controller class="raw">').replace(
            "<KP>60.0</KP><KI>60.0</KI><KD>0</KD><I_MAX>0.5</I_MAX><max_torque>6.5</max_torque>", "").replace(
            "<init_pose>0 0 0</init_pose>", "<init_pose>0 0 0</init_pose><init_vel>1 0 0</init_vel>")
        sim = Simulation(load_world_string(undamped(text)))
        sim.run(0.2)
        speeds.append(sim.body_twist()[0, 0])
    assert speeds[0] == pytest.approx(1.0, abs=1e-3)  # C_rr = 0: coasts on
    # C_rr = 0.2 inside the region: T_rr = C_rr F_z R decelerates at about C_rr g (chassis weight over total mass)
    assert speeds[1] == pytest.approx(1.0 - 0.2 * 9.81 * 15.0 / 18.0 * 0.2, rel=0.1)
