"""Ackermann steering, drivetrains and ideal control against closed-form results (physics seed 001)."""

import math

import numpy as np
import pytest

from conftest import REPO, robot_world_xml
from mvsim_ros.physics import Simulation
from mvsim_ros.physics.vehicles.ackermann import (DRIVETRAIN_CODES, ackermann_wheel_angles, drivetrain_fractions,
                                                  torsen_split)
from mvsim_ros.world import load_world_string

WHEELBASE, TRACK = 2.5, 1.5
CAR_CLASS = (REPO / "worlds" / "definitions" / "car.vehicle.xml").read_text()
PID = "<KP>1500</KP> <KI>500</KI> <KD>0</KD> <I_MAX>1</I_MAX>\n      <max_torque>800</max_torque>"


def car_world(dynamics: str = "ackermann", controller: str = "twist_front_steer_pid", drivetrain: str = "",
              extra: str = "", init_vel: str = "0 0 0", controller_params: str = PID, friction: str = "") -> str:
    text = CAR_CLASS.replace('<dynamics class="ackermann">', f'<dynamics class="{dynamics}">{drivetrain}')
    text = text.replace(f'<controller class="twist_front_steer_pid">\n      {PID}\n    </controller>',
                        f'<controller class="{controller}">{controller_params}</controller>')
    if friction:
        text = text.replace(text[text.index("<friction"):text.index("</friction>") + len("</friction>")], friction)
    return (f'<mvsim_world version="1.0"><simul_timestep>0.005</simul_timestep>{text}{extra}'
            f'<vehicle name="car1" class="car"><init_pose>0 0 0</init_pose><init_vel>{init_vel}</init_vel>'
            '</vehicle></mvsim_world>')


def fit_radius(points: np.ndarray) -> float:
    a = np.c_[2 * points, np.ones(len(points))]
    cx, cy, c = np.linalg.lstsq(a, (points ** 2).sum(axis=1), rcond=None)[0]
    return math.sqrt(c + cx * cx + cy * cy)


@pytest.mark.parametrize("delta_deg", [-30.0, -10.0, 0.5, 10.0, 25.0])
def test_inner_and_outer_wheel_angles_follow_the_ackermann_formula(delta_deg):
    delta = math.radians(delta_deg)
    left, right = ackermann_wheel_angles(np.array([delta]), np.array([TRACK]), np.array([WHEELBASE]),
                                         np.array([math.radians(35)]))
    d = abs(delta)
    outer = math.atan(1.0 / (1.0 / math.tan(d) + TRACK / (2 * WHEELBASE)))
    inner = math.atan(1.0 / (1.0 / math.tan(d) - TRACK / (2 * WHEELBASE)))
    expected = (inner, outer) if delta > 0 else (-outer, -inner)
    assert abs(left[0] - expected[0]) < 1e-9 and abs(right[0] - expected[1]) < 1e-9
    # Both wheels then turn about one centre on the rear axle line, at L / tan(delta) from the reference point.
    centre_left = WHEELBASE / math.tan(left[0]) + TRACK / 2
    centre_right = WHEELBASE / math.tan(right[0]) - TRACK / 2
    assert centre_left == pytest.approx(WHEELBASE / math.tan(delta), rel=1e-12)
    assert centre_right == pytest.approx(WHEELBASE / math.tan(delta), rel=1e-12)


def test_steering_is_clamped_to_the_maximum_angle():
    left, right = ackermann_wheel_angles(np.array([1.2]), np.array([TRACK]), np.array([WHEELBASE]),
                                         np.array([math.radians(35)]))
    limited = ackermann_wheel_angles(np.array([math.radians(35)]), np.array([TRACK]), np.array([WHEELBASE]),
                                     np.array([math.radians(35)]))
    assert (left[0], right[0]) == (limited[0][0], limited[1][0])


def test_car_at_1_mps_and_10_degrees_turns_on_radius_l_over_tan_delta():
    sim = Simulation(load_world_string(car_world()))
    delta = math.radians(10)
    sim.set_ackermann(0, 1.0, delta)
    sim.run(5.0)  # transient
    expected = WHEELBASE / math.tan(delta)
    points = []
    for _ in range(int(0.5 * math.pi * expected / 1.0 / sim.dt)):  # a quarter turn
        sim.step()
        points.append(sim.pose[0, :2].copy())
    assert fit_radius(np.array(points)) == pytest.approx(expected, rel=0.02)
    assert sim.body_twist()[0, 0] == pytest.approx(1.0, rel=0.02)
    left, right = ackermann_wheel_angles(np.array([delta]), np.array([TRACK]), np.array([WHEELBASE]),
                                         np.array([math.radians(35)]))
    yaw = {w.name: sim.wheels.yaw[i] for i, w in enumerate(sim.spec.vehicles[0].wheels)}
    assert abs(yaw["fl_wheel"] - left[0]) < 1e-9 and abs(yaw["fr_wheel"] - right[0]) < 1e-9
    assert yaw["rl_wheel"] == yaw["rr_wheel"] == 0.0


def test_twist_command_steers_to_the_commanded_yaw_rate():
    sim = Simulation(load_world_string(car_world()))
    sim.set_twist(0, 2.0, 0.2)
    sim.run(8.0)
    assert sim.steering_angles["car1"] == pytest.approx(math.atan(WHEELBASE * 0.2 / 2.0), rel=1e-9)
    assert sim.body_twist()[0, 2] == pytest.approx(0.2, rel=0.02)
    assert sim.odom_twist[0, 1] == pytest.approx(0.2, rel=0.03)  # rear-wheel odometry


def test_steering_rate_limit():
    sim = Simulation(load_world_string(car_world()))
    sim.set_ackermann(0, 0.0, 0.5, steering_rate=0.25)
    sim.run(1.0)
    assert sim.steering_angles["car1"] == pytest.approx(0.25, abs=1e-9)
    sim.run(1.5)
    assert sim.steering_angles["car1"] == pytest.approx(0.5, abs=1e-9)
    with pytest.raises(ValueError):
        sim.set_ackermann(0, math.nan, 0.0)


def test_ackermann_commands_are_refused_for_a_differential_robot():
    sim = Simulation(load_world_string(robot_world_xml()))
    with pytest.raises(ValueError, match="no Ackermann or articulated steering"):
        sim.set_ackermann(0, 1.0, 0.1)


def test_twist_ideal_differential_robot_follows_the_exact_arc():
    text = robot_world_xml().replace(
        '<controller class="twist_pid">', '<controller class="twist_ideal">').replace(
        "<KP>60.0</KP><KI>60.0</KI><KD>0</KD><I_MAX>0.5</I_MAX><max_torque>6.5</max_torque>", "")
    sim = Simulation(load_world_string(text))
    sim.set_twist(0, 1.0, 1.0)
    sim.run(1.0)
    x, y, yaw = sim.pose[0]
    assert (x, y, yaw) == (pytest.approx(0.841, abs=1e-3), pytest.approx(0.459, abs=1e-3),
                           pytest.approx(1.000, abs=1e-3))
    assert (x, y) == (pytest.approx(math.sin(1.0), abs=1e-6), pytest.approx(1 - math.cos(1.0), abs=1e-6))
    assert sim.wheels.omega == pytest.approx([(1.0 - 0.25) / 0.1, (1.0 + 0.25) / 0.1])  # rolling


# ----------------------------------------------------------------------------------------------- drivetrains

def fractions(kind: str, omegas, params=(0.5, 1.5, 0.5, 1.5, 0.5, 1.5)) -> np.ndarray:
    w = [np.array([o], dtype=float) for o in omegas]
    return drivetrain_fractions(np.array([DRIVETRAIN_CODES[kind]]), *w, np.array([params], dtype=float))[0]


def test_open_differentials_split_by_their_ratios_exactly():
    params = (0.3, 1.5, 0.6, 1.5, 0.45, 1.5)  # front share 0.3; front-left 0.6; rear-left 0.45
    omegas = (10.0, 3.0, 7.0, 1.0)  # open differentials ignore wheel speeds
    assert fractions("open_front", omegas, params).tolist() == [0.6, 0.4, 0.0, 0.0]
    assert fractions("open_rear", omegas, params).tolist() == [0.0, 0.0, 0.45, 0.55]
    assert fractions("open_4wd", omegas, params).tolist() == [0.3 * 0.6, 0.3 * 0.4, 0.7 * 0.45, 0.7 * 0.55]


@pytest.mark.parametrize("w1, w2, bias, split, expected", [
    (10.0, 4.0, 2.0, 0.5, (0.4, 0.6)),    # delta_lock = 10 - 2*4 = 2, delta_t = 0.2: faster wheel 0.5*0.8
    (10.0, 4.0, 1.5, 0.5, (0.3, 0.7)),    # delta_t = (10 - 6) / 10 = 0.4
    (4.0, 10.0, 1.5, 0.5, (0.7, 0.3)),    # mirrored
    (5.0, 4.0, 2.0, 0.5, (0.5, 0.5)),     # within the bias ratio: no locking
    (0.0, 4.0, 2.0, 0.3, (0.3, 0.7)),     # a shaft at rest: nominal split
    (10.0, 4.0, 2.0, 0.4, (0.32 / 1.04, 0.72 / 1.04)),  # f1 = 0.4*0.8, f2 = 0.6*1.2 -> normalised
])
def test_torsen_split_follows_the_seed_equations(w1, w2, bias, split, expected):
    t1, t2 = torsen_split(w1, w2, bias, split)
    assert (t1, t2) == (pytest.approx(expected[0], abs=1e-12), pytest.approx(expected[1], abs=1e-12))


def test_torsen_4wd_combines_centre_and_axle_differentials():
    f = fractions("torsen_4wd", (10.0, 4.0, 3.0, 3.0), (0.5, 1.5, 0.5, 1.5, 0.5, 1.5))
    front, rear = torsen_split(14.0, 6.0, 1.5, 0.5)
    fl, fr = torsen_split(10.0, 4.0, 1.5, 0.5)
    assert f.tolist() == pytest.approx([front * fl, front * fr, rear * 0.5, rear * 0.5], abs=1e-12)
    assert f.sum() == pytest.approx(1.0)


def time_to_reach(sim: Simulation, speed: float, limit: float = 15.0) -> float:
    while sim.time < limit:
        sim.step()
        if sim.body_twist()[0, 0] >= speed:
            return sim.time
    return math.inf


def test_torsen_rear_beats_open_rear_on_split_mu():
    # Left wheels on ice (mu 0.05), right wheels on asphalt (mu 0.8); the motor torque saturates.
    regions = "".join(
        f'<element class="property_region"><x_min>-10</x_min><x_max>100</x_max><y_min>{y0}</y_min>'
        f'<y_max>{y1}</y_max><property_name>friction_mu</property_name><value_double>{mu}</value_double></element>'
        for y0, y1, mu in ((0.0, 10.0, 0.05), (-10.0, 0.0, 0.8)))
    times = {}
    for kind in ("open_rear", "torsen_rear"):
        drivetrain = (f'<drivetrain type="{kind}"><rear_left_right_bias>3.0</rear_left_right_bias></drivetrain>')
        params = "<KP>3000</KP><KI>0</KI><KD>0</KD><max_torque>900</max_torque>"
        sim = Simulation(load_world_string(car_world("ackermann_drivetrain", "twist_front_steer_pid", drivetrain,
                                                     regions, controller_params=params)))
        sim.set_twist(0, 5.0, 0.0)
        times[kind] = time_to_reach(sim, 1.0)  # the open one's top speed is 1.27 m/s against chassis damping
    assert times["torsen_rear"] < times["open_rear"] < math.inf


def test_front_steer_pid_drives_on_its_world_file_setpoints():
    params = PID + "<V>1.0</V><STEER_ANG>10</STEER_ANG>"  # STEER_ANG in degrees, as MVSim reads it
    sim = Simulation(load_world_string(car_world(controller="front_steer_pid", controller_params=params)))
    sim.run(5.0)
    assert sim.steering_angles["car1"] == pytest.approx(math.radians(10), abs=1e-12)
    assert sim.body_twist()[0, 2] == pytest.approx(1.0 * math.tan(math.radians(10)) / WHEELBASE, rel=0.02)


def test_unknown_drivetrain_type_is_an_error():
    from mvsim_ros.world import WorldFileError

    with pytest.raises(WorldFileError, match="unknown drivetrain type 'hydraulic'; valid: open_front"):
        load_world_string(car_world("ackermann_drivetrain", drivetrain='<drivetrain type="hydraulic"/>'))
    # Without <drivetrain>: MVSim's torsen_4wd at its defaults.
    drivetrain = load_world_string(car_world("ackermann_drivetrain")).vehicles[0].drivetrain
    assert drivetrain.type == "torsen_4wd" and drivetrain.params["front_rear_bias"] == 1.5


def test_steering_rate_limit_from_the_world_file():
    limit = "<max_steer_ang_deg>35.0</max_steer_ang_deg>"
    world = car_world().replace(limit, limit + "<max_steer_rate_deg>20</max_steer_rate_deg>")
    sim = Simulation(load_world_string(world))
    sim.set_ackermann(0, 0.0, math.radians(30))
    sim.run(1.0)
    assert sim.steering_angles["car1"] == pytest.approx(math.radians(20), abs=1e-9)
