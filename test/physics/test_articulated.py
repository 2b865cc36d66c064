"""Articulated-steer vehicles (seed 004) against the closed-form kinematics of two units on a pivot.

Rear axle (base_link) at distance l_r behind the pivot, front axle l_f ahead of it, joint angle gamma:
  yaw rate  theta_dot = (v_f sin(gamma) - l_f gamma_dot cos(gamma)) / (l_f cos(gamma) + l_r)  (v_f: front axle)
  rear-axle turn radius at constant gamma  R_r = (l_f + l_r cos(gamma)) / sin(gamma)
  twist (v, omega) with l_f = l_r = L  ->  gamma = 2 atan(omega L / v)
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mvsim_ros.physics import Simulation
from mvsim_ros.physics.footprint import articulated_outline
from mvsim_ros.physics.vehicles.articulated import articulated_footprint, chassis_corners
from mvsim_ros.world import WorldFileError, load_world_string


def articulated_world(l_f: float = 1.2, l_r: float = 1.2, controller: str = "twist_pid", extra: str = "",
                      max_deg: float = 40.0, rate_deg: float = 30.0, mu: float = 0.9) -> str:
    gains = "<KP>3000</KP><KI>500</KI><I_MAX>1</I_MAX><max_torque>3000</max_torque>" if controller != "raw" else ""
    return f"""<mvsim_world version="1.0">
  <simul_timestep>0.005</simul_timestep>
  <vehicle name="a1">
    <dynamics class="articulated">
      <chassis mass="800"/> <front_chassis mass="700"/>
      <wheel_separation_front>{l_f}</wheel_separation_front>
      <wheel_separation_rear>{l_r}</wheel_separation_rear>
      <max_articulation_deg>{max_deg}</max_articulation_deg>
      <max_articulation_rate_deg>{rate_deg}</max_articulation_rate_deg>
      <rl_wheel pos="0 0.8" mass="30" width="0.3" diameter="0.8"/>
      <rr_wheel pos="0 -0.8" mass="30" width="0.3" diameter="0.8"/>
      <fl_wheel pos="0 0.8" mass="30" width="0.3" diameter="0.8"/>
      <fr_wheel pos="0 -0.8" mass="30" width="0.3" diameter="0.8"/>
      {extra}
      <controller class="{controller}">{gains}</controller>
    </dynamics>
    <friction class="default"><mu>{mu}</mu><C_damping>1.0</C_damping><C_rr>0.0</C_rr></friction>
  </vehicle>
</mvsim_world>
"""


def make(**kwargs) -> Simulation:
    return Simulation(load_world_string(articulated_world(**kwargs), file="<articulated test>"))


def front_axle_speed(sim: Simulation) -> float:
    vx, vy, _ = sim.body_velocity[1]
    yaw = sim.unit_pose[0, 2]
    return float(vx * math.cos(yaw) + vy * math.sin(yaw))


def fitted_radius(points: np.ndarray) -> float:
    """Least-squares circle through (x, y) points."""
    a = np.c_[2 * points, np.ones(len(points))]
    cx, cy, c = np.linalg.lstsq(a, (points ** 2).sum(axis=1), rcond=None)[0]
    return math.sqrt(c + cx ** 2 + cy ** 2)


@pytest.mark.parametrize("l_f, l_r", [(1.2, 1.2), (1.2, 1.6), (1.5, 0.9)])
def test_constant_articulation_turns_at_the_seed_yaw_rate_and_radius(l_f, l_r):
    sim = make(l_f=l_f, l_r=l_r)
    gamma = math.radians(20)
    sim.set_ackermann(0, 1.0, gamma)  # steering mode: the pivot angle itself, at 1 m/s
    sim.run(8.0)
    assert sim.articulation_angles["a1"] == pytest.approx(gamma, abs=math.radians(0.1))
    assert sim.body_twist()[0, 0] == pytest.approx(1.0, rel=0.01)
    measured = sim.articulations.gamma[0]
    seed = front_axle_speed(sim) * math.sin(measured) / (l_f * math.cos(measured) + l_r)  # gamma_dot = 0
    assert sim.velocity[0, 2] == pytest.approx(seed, rel=0.03)
    path = []
    for _ in range(600):
        sim.step()
        path.append(sim.pose[0, :2].copy())
    expected_radius = (l_f + l_r * math.cos(measured)) / math.sin(measured)
    assert fitted_radius(np.array(path)) == pytest.approx(expected_radius, rel=0.03)
    # The odometry (wheel speeds + joint encoder, seed formula) reports the same yaw rate.
    assert sim.odom_twist[0, 1] == pytest.approx(sim.velocity[0, 2], rel=0.03)


@pytest.mark.parametrize("v, omega", [(1.0, 0.3), (0.8, -0.2), (-0.8, 0.2)])
def test_twist_settles_at_the_seed_angle_and_the_commanded_yaw_rate(v, omega):
    length = 1.2
    sim = make(l_f=length, l_r=length)
    sim.set_twist(0, v, omega)
    sim.run(10.0)
    expected_gamma = 2 * math.atan(omega * length / v)
    assert math.degrees(sim.articulations.gamma[0]) == pytest.approx(math.degrees(expected_gamma), abs=1.0)
    assert sim.velocity[0, 2] == pytest.approx(omega, rel=0.03)
    assert sim.body_twist()[0, 0] == pytest.approx(v, rel=0.03)


def test_unequal_units_still_turn_at_the_commanded_yaw_rate():
    l_f, l_r, v, omega = 1.0, 1.6, 1.0, 0.25
    sim = make(l_f=l_f, l_r=l_r)
    sim.set_twist(0, v, omega)
    sim.run(10.0)
    gamma = sim.articulations.gamma[0]
    # Steady state from the rear axle: omega (l_r cos(gamma) + l_f) = v sin(gamma).
    assert omega * (l_r * math.cos(gamma) + l_f) == pytest.approx(v * math.sin(gamma), rel=0.02)
    assert sim.velocity[0, 2] == pytest.approx(omega, rel=0.03)


def test_pivot_respects_its_rate_and_angle_limits():
    sim = make(rate_deg=20.0, max_deg=35.0)
    sim.set_ackermann(0, 0.5, math.radians(80))  # beyond the joint's limit
    rates, angles = [], []
    for _ in range(int(4.0 / sim.dt)):
        sim.step()
        rates.append(sim.articulations.gamma_rate[0])
        angles.append(sim.articulations.gamma[0])
    assert max(np.abs(rates)) <= math.radians(20.0) * 1.02
    assert max(rates) > math.radians(20.0) * 0.9  # it does move at the limit rate
    assert angles[-1] == pytest.approx(math.radians(35.0), abs=math.radians(0.3))
    assert max(angles) <= math.radians(35.0) + math.radians(0.5)
    # Time to swing 35 deg at 20 deg/s: the angle is still moving after 1.5 s.
    assert angles[int(1.5 / sim.dt)] < math.radians(33.0)


def test_standstill_twist_stays_finite_and_goes_to_full_lock():
    sim = make()
    sim.set_twist(0, 0.0, 0.5)  # a yaw rate without speed: gamma = 2 atan(omega L / 0) -> full lock, no NaN
    sim.run(3.0)
    assert np.all(np.isfinite(sim.body_pose))
    assert sim.articulations.gamma[0] == pytest.approx(math.radians(40), abs=math.radians(0.5))
    sim.set_twist(0, 0.0, 0.0)  # nothing asked: the pivot holds where it is
    sim.run(1.0)
    assert sim.articulations.gamma[0] == pytest.approx(math.radians(40), abs=math.radians(0.5))
    assert np.hypot(*sim.velocity[0, :2]) < 0.05


def test_raw_controller_takes_wheel_torques_and_a_pivot_angle():
    sim = make(controller="raw")
    sim.set_ackermann(0, 0.0, math.radians(-15))  # the pivot angle (raw: the speed part is not used)
    sim.set_wheel_torques(0, [150.0, 150.0, 150.0, 150.0])
    sim.run(3.0)
    assert sim.articulations.gamma[0] == pytest.approx(math.radians(-15), abs=math.radians(0.3))
    assert sim.body_twist()[0, 0] > 0.5  # driven forward by the torques
    assert sim.velocity[0, 2] < 0  # turning right with gamma < 0


def test_odometry_follows_the_true_path_through_a_slalom():
    exact = '<odometry x_multiplier="1" y_multiplier="1" yaw_multiplier="1"/>'  # not MVSim's drawn errors
    sim = Simulation(load_world_string(articulated_world().replace("</dynamics>", "</dynamics>" + exact)))
    for omega in (0.3, -0.3, 0.3):
        sim.set_twist(0, 1.0, omega)
        sim.run(4.0)
    error = np.hypot(*(sim.odom_pose[0, :2] - sim.pose[0, :2]))
    travelled = 12.0
    assert error < 0.02 * travelled
    heading_error = (sim.odom_pose[0, 2] - sim.pose[0, 2] + math.pi) % (2 * math.pi) - math.pi
    assert abs(heading_error) < math.radians(2)


CORNERS = {"trailer_top_left": (3.4, 0.9), "trailer_top_right": (3.4, -0.9),
           "tractor_bottom_left": (-0.8, 0.85), "tractor_bottom_right": (-0.8, -0.85)}


@pytest.mark.parametrize("gamma_deg", [0.0, 30.0, -30.0])
def test_footprint_vertices_are_the_rotated_corners(gamma_deg):
    pivot = 1.2
    g = math.radians(gamma_deg)
    outline = articulated_footprint(CORNERS, pivot, g)

    def about_pivot(x, y):  # closed form: rotate (x - pivot, y) by gamma, shift back
        return (pivot + (x - pivot) * math.cos(g) - y * math.sin(g), (x - pivot) * math.sin(g) + y * math.cos(g))

    expected = [(-0.8, -0.85), (1.2, -0.85), about_pivot(1.2, -0.9), about_pivot(3.4, -0.9), about_pivot(3.4, 0.9),
                about_pivot(1.2, 0.9), (1.2, 0.85), (-0.8, 0.85)]
    assert np.allclose(outline, expected, atol=1e-3)
    if gamma_deg == 30.0:  # spot check of one corner by hand: front-left at (1.2 + 2.2 cos30 - 0.9 sin30, ...)
        assert outline[4] == pytest.approx((1.2 + 1.905256 - 0.45, 1.1 + 0.779423), abs=1e-3)
    area = 0.5 * sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(outline, outline[1:] + outline[:1]))
    assert area == pytest.approx(2.0 * 1.7 + 2.2 * 1.8, rel=0.02)  # both rectangles (a sliver overlaps)
    assert area > 0  # counter-clockwise


def test_footprint_from_the_world_corners_or_from_the_chassis():
    corner_tags = "".join(f"<{k}>{x} {y}</{k}>" for k, (x, y) in CORNERS.items())
    sim = make(extra=corner_tags)
    assert articulated_outline(sim.spec.vehicles[0], 0.0)[3] == pytest.approx((3.4, -0.9))
    spec = make().spec.vehicles[0]  # no corners: the chassis outlines' bounding boxes
    corners = chassis_corners(spec.chassis.shape, spec.articulation.front_chassis.shape, 1.2, 1.2)
    assert corners["trailer_top_left"] == pytest.approx((1.2 + 1.2 + 0.6, 0.7))
    assert corners["tractor_bottom_right"] == pytest.approx((-0.6, -0.7))


def test_loader_errors_name_the_problem():
    with pytest.raises(WorldFileError, match="give all four or none .*tractor_bottom_left"):
        load_world_string(articulated_world(extra="<trailer_top_left>1 1</trailer_top_left>"
                                                  "<trailer_top_right>1 -1</trailer_top_right>"
                                                  "<tractor_bottom_right>-1 -1</tractor_bottom_right>"))
    with pytest.raises(WorldFileError, match="max_articulation_deg must be below 90"):
        load_world_string(articulated_world(max_deg=95))
    with pytest.raises(WorldFileError, match="wheel_separation_front must be > 0"):
        load_world_string(articulated_world(l_f=0))
    with pytest.raises(WorldFileError, match="valid: raw, twist_pid, front_steer_pid"):
        load_world_string(articulated_world(controller="twist_ideal"))


def test_the_front_unit_collides_and_counts_for_its_vehicle():
    # A wall across the path 4 m ahead of base_link: the front unit (its bucket reaching 1.2 + 1.2 + 0.6 m
    # ahead) hits first and stops the vehicle there; the contact is the vehicle's.
    wall = ('<block name="wall"><static>true</static><shape><pt>4 -3</pt><pt>4.5 -3</pt><pt>4.5 3</pt>'
            '<pt>4 3</pt></shape></block>')
    text = articulated_world().replace("</mvsim_world>", wall + "</mvsim_world>")
    sim = Simulation(load_world_string(text, file="<articulated wall>"))
    sim.set_twist(0, 1.0, 0.0)
    sim.run(4.0)
    assert sim.take_collisions()[0]
    front_edge = sim.unit_pose[0, 0] + 0.6  # the front chassis reaches 0.6 m ahead of its axle
    assert front_edge == pytest.approx(4.0, abs=0.05)
    assert abs(sim.body_twist()[0, 0]) < 0.05
