"""Hostile commands through the Python API (issue 11): finite commands are clamped to the vehicle's bounds, never
trusted, so no finite command sequence can make the simulation diverge or leave float32's range.

MVSIM_REDTEAM_SEQUENCES (default 200) sets how many random command sequences run per world (the issue: 10000).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, robot_world_xml
from mvsim_ros.physics import Simulation, SimulationDiverged
from mvsim_ros.physics.command_limits import BOX2D_MAX_TRANSLATION, CommandLimits
from mvsim_ros.world import load_world, load_world_string

HERE = Path(__file__).resolve().parent
WORLDS = sorted((REPO / "worlds").glob("*.world.xml")) + sorted((HERE / "worlds").glob("*.world.xml"))
SEQUENCES = int(os.environ.get("MVSIM_REDTEAM_SEQUENCES", "200"))
FLOAT32_MAX = float(np.finfo(np.float32).max)

#: Values that break naive code: signed zeros, subnormals, float32's edge, just past it, float64's edge.
SPECIAL = (0.0, -0.0, 5e-324, -5e-324, 2.2e-308, 1e-45, 1e308, -1e308, 1.7976931348623157e308, 1e39, -1e39,
           FLOAT32_MAX, -FLOAT32_MAX, 3.5e38, 1.0, -1.0, 1e-7)
NON_FINITE = (math.nan, math.inf, -math.inf)


def hostile_value(rng: np.random.Generator, non_finite: float) -> float:
    """A special value, a log-uniform magnitude over float64's range, or (with probability non_finite) NaN/inf."""
    r = rng.random()
    if r < non_finite:
        return NON_FINITE[rng.integers(len(NON_FINITE))]
    if r < 0.5:
        return SPECIAL[rng.integers(len(SPECIAL))]
    return float(rng.choice((-1.0, 1.0)) * 10.0 ** rng.uniform(-320.0, 308.2))


def state_arrays(sim: Simulation) -> dict[str, np.ndarray]:
    """Every state array a command could reach."""
    w, c = sim.wheels, sim.controllers
    return {"pose": sim.pose, "velocity": sim.velocity, "acceleration": sim.acceleration, "odom_pose": sim.odom_pose,
            "odom_twist": sim.odom_twist, "body_pose": sim.body_pose, "body_velocity": sim.body_velocity,
            "wheel omega": w.omega, "wheel phi": w.phi, "wheel torque": w.torque, "wheel force_x": w.force_x,
            "wheel force_y": w.force_y, "pid integral": c.i_term, "pid last_error": c.last_error,
            "raw torque": c.raw_torque, "steering": sim.steering.delta, "pivot gamma": sim.articulations.gamma,
            "pivot rate": sim.articulations.gamma_rate, "drivetrain integral": sim.drivetrains.motor.i_term,
            "command v": sim.commands.v, "command omega": sim.commands.omega, "command steer": sim.commands.steer}


def out_of_float32(sim: Simulation) -> list[str]:
    """Names of the state arrays holding NaN, inf or magnitudes beyond float32's range."""
    return [name for name, a in state_arrays(sim).items()
            if a.size and not (np.all(np.isfinite(a)) and np.max(np.abs(a)) <= FLOAT32_MAX)]


def send(sim: Simulation, rng: np.random.Generator, k: int, value) -> bool:
    """One random command to vehicle k; True when it raised the documented ValueError (non-finite input, or an
    Ackermann command to a vehicle that cannot steer). Any other exception propagates."""
    kind = rng.integers(3)
    steerable = k in sim.steering.vehicle or k in sim.articulations.vehicle
    try:
        if kind == 0:
            sim.set_twist(k, value(), value())
        elif kind == 1:
            args = (value(), value(), value())
            if not steerable:
                with pytest.raises(ValueError, match="no Ackermann or articulated steering"):
                    sim.set_ackermann(k, *args)
                return False
            sim.set_ackermann(k, *args)
        else:
            sim.set_wheel_torques(k, [value() for _ in range(int(np.sum(sim.wheels.vehicle == k)))])
    except ValueError as error:
        assert "finite" in str(error)
        return True
    return False


@pytest.mark.parametrize("path", WORLDS, ids=[p.name for p in WORLDS])
def test_random_finite_and_non_finite_command_sequences_never_diverge(path):
    sim = Simulation(load_world(path))
    rng = np.random.default_rng(abs(hash(path.name)) % 2**32)
    n = len(sim.vehicle_names)
    rejected = diverged = steps = 0
    for sequence in range(SEQUENCES):
        non_finite = 0.1 if sequence % 2 else 0.0  # half the sequences are purely finite
        alternate = rng.random() < 0.2  # +/- the same huge magnitude, every step
        magnitude = SPECIAL[rng.integers(len(SPECIAL))]
        sign = 1.0

        def value():
            nonlocal sign
            if alternate:
                sign = -sign
                return sign * magnitude
            return hostile_value(rng, non_finite)

        for _ in range(int(rng.integers(1, 9))):
            k = int(rng.integers(n))
            rejected += send(sim, rng, k, value)
            hold = int(rng.integers(0, 200)) if rng.random() < 0.05 else int(rng.integers(0, 12))
            for _ in range(hold):
                try:
                    sim.step()
                except SimulationDiverged:
                    diverged += 1
                    sim = Simulation(load_world(path))
                    break
                steps += 1
            bad = out_of_float32(sim)
            assert not bad, f"{path.name}, sequence {sequence}: {bad} left float32's range"
    assert diverged == 0, f"{path.name}: {diverged} divergences in {SEQUENCES} sequences"
    assert steps > SEQUENCES and rejected > 0


# --------------------------------------------------------------------------------------------- bounds, closed form
def robot_sim(**kwargs) -> Simulation:
    return Simulation(load_world_string(robot_world_xml(**kwargs)))


def test_differential_bounds_follow_wheels_torque_and_damping():
    # 0.2 m wheels (R = 0.1 m) with 6.5 N m motors against 0.05 N m s/rad bearings: v_max = R T / C_damping.
    sim = robot_sim(max_torque=6.5, c_damping=0.05)
    assert sim.limits.max_speed[0] == pytest.approx(0.1 * 6.5 / 0.05)
    assert sim.limits.max_yaw_rate[0] == pytest.approx(2 * sim.limits.max_speed[0] / 0.5)  # 2 v_max / track
    # Without bearing damping only Box2D's cap is left: half its 2 m per step.
    free = robot_sim(c_damping=0.0, timestep=0.01)
    assert free.limits.max_speed[0] == pytest.approx(0.5 * BOX2D_MAX_TRANSLATION / 0.01)
    assert free.limits.max_yaw_rate[0] == pytest.approx(0.5 * (math.pi / 2) / 0.01)  # Box2D's pi/2 per step


def test_twist_beyond_the_bounds_is_clamped_with_a_note():
    sim = robot_sim()
    note = sim.set_twist(0, 1e308, -1e39)
    assert sim.commands.v[0] == sim.limits.max_speed[0] == pytest.approx(13.0)
    assert sim.commands.omega[0] == -sim.limits.max_yaw_rate[0]
    assert "speed 1e+308 m/s clamped to 13 m/s" in note and "yaw rate -1e+39 rad/s clamped to -52 rad/s" in note
    assert sim.set_twist(0, 1.0, -0.0) is None
    assert math.copysign(1.0, sim.commands.omega[0]) == -1.0  # -0.0 passes untouched


def test_clamped_command_drives_at_the_bound_like_the_bound_itself():
    clamped, at_bound = robot_sim(), robot_sim()
    clamped.set_twist(0, 1e308, 0.0)
    at_bound.set_twist(0, float(at_bound.limits.max_speed[0]), 0.0)
    for _ in range(3000):
        clamped.step()
        at_bound.step()
    assert np.array_equal(clamped.pose, at_bound.pose) and np.array_equal(clamped.velocity, at_bound.velocity)
    # Terminal speed: the motor torque T is taken by bearing damping, rolling resistance and the ground force F
    # that holds the chassis damping (c = 0.1 1/s, MVSim's default; Box2D scales v by 1 - c dt each step, so
    # 2 F = M c v / (1 - c dt), M = 17 kg): T - C_rr F_z R - C_damping v / R = R F with F_z = 15 kg g / 2, so
    # v = (2 / R)(T - C_rr F_z R) / (2 C_damping / R^2 + M c / (1 - c dt)).
    radius, torque, c_damping, c = 0.1, 6.5, 0.05, 0.1
    drive = torque - 0.01 * 15.0 * 9.81 / 2 * radius
    terminal = (2 / radius) * drive / (2 * c_damping / radius ** 2 + 17.0 * c / (1 - c * clamped.dt))
    assert clamped.body_twist()[0, 0] == pytest.approx(terminal, rel=0.02)


def test_ideal_vehicle_drives_exactly_at_the_clamped_speed():
    world = robot_world_xml().replace('<controller class="twist_pid">', '<controller class="twist_ideal">')
    sim = Simulation(load_world_string(world))
    note = sim.set_twist(0, 1e39, 0.0)  # above float32's range: Box2D could not even take it
    assert "clamped to 200 m/s" in note
    sim.step()
    assert sim.body_twist()[0, 0] == pytest.approx(200.0, rel=1e-6)


def test_in_range_commands_are_untouched_bit_for_bit():
    bounded, unbounded = robot_sim(), robot_sim()
    unbounded.commands.limits = None
    for v, omega, steps in ((0.7, 0.3, 400), (-1.2, -0.9, 300), (5e-324, -0.0, 100), (12.9, 51.0, 200)):
        assert bounded.set_twist(0, v, omega) is None
        unbounded.set_twist(0, v, omega)
        for _ in range(steps):
            bounded.step()
            unbounded.step()
        assert np.array_equal(bounded.pose, unbounded.pose)
        assert np.array_equal(bounded.wheels.omega, unbounded.wheels.omega)


def car_sim() -> Simulation:
    car = (REPO / "worlds" / "definitions" / "car.vehicle.xml").read_text()
    return Simulation(load_world_string(f'<mvsim_world version="1.0"><simul_timestep>0.005</simul_timestep>{car}'
                                        '<vehicle name="car1" class="car"/></mvsim_world>'))


def test_steering_is_clamped_to_the_vehicles_max_steer():
    sim = car_sim()
    max_steer = math.radians(35)  # the car's <max_steer_ang_deg>
    assert sim.limits.max_steer[0] == pytest.approx(max_steer)
    note = sim.set_ackermann(0, 1.0, 1e308, -1e308)
    assert "steering angle 1e+308 rad clamped to 0.610865 rad" in note
    assert sim.commands.steer[0] == pytest.approx(max_steer)
    assert sim.commands.steer_rate[0] == sim.limits.max_steer_rate[0]
    sim.run(1.0)
    assert sim.steering_angles["car1"] == pytest.approx(max_steer, abs=1e-12)
    # It turns on the circle of the clamped angle: yaw rate v tan(delta_max) / l (wheelbase 2.5 m).
    sim.run(4.0)
    assert sim.body_twist()[0, 2] == pytest.approx(1.0 * math.tan(max_steer) / 2.5, rel=0.03)


def test_raw_wheel_torques_are_clamped_to_a_bound_from_the_wheel():
    world = robot_world_xml().replace('<controller class="twist_pid">', '<controller class="raw">')
    world = world.replace("<max_torque>6.5</max_torque>", "")
    sim = Simulation(load_world_string(world))
    # No max_torque: twice the traction torque at friction coefficient 1, 2 (F_z + m_wheel g) R.
    bound = 2.0 * (15.0 * 9.81 / 2 + 1.0 * 9.81) * 0.1
    assert sim.limits.max_torque == pytest.approx([bound, bound])
    note = sim.set_wheel_torques(0, [1e308, -3.5e38])
    assert sim.controllers.raw_torque.tolist() == pytest.approx([bound, -bound])
    assert "wheel 0 torque 1e+308 N m clamped" in note and "wheel 1 torque -3.5e+38 N m clamped" in note
    assert sim.set_wheel_torques(0, [1.0, -0.0]) is None
    with_limit = robot_sim(max_torque=4.0)
    with_limit.set_wheel_torques(0, [1e9, 1e9])
    assert with_limit.controllers.raw_torque.tolist() == [4.0, 4.0]


@pytest.mark.parametrize("bad", NON_FINITE)
def test_non_finite_commands_raise_and_keep_the_last_valid_one(bad):
    sim, car = robot_sim(), car_sim()
    sim.set_twist(0, 0.5, 0.2)
    car.set_ackermann(0, 2.0, 0.1, 0.0)
    with pytest.raises(ValueError, match="finite"):
        sim.set_twist(0, bad, 0.0)
    with pytest.raises(ValueError, match="finite"):
        car.set_ackermann(0, 1.0, 0.0, bad)
    with pytest.raises(ValueError, match="finite"):
        sim.set_wheel_torques(0, [bad, 0.0])
    assert (sim.commands.v[0], sim.commands.omega[0]) == (0.5, 0.2)
    assert (car.commands.v[0], car.commands.steer[0]) == (2.0, 0.1)


def test_world_file_setpoints_are_clamped_too():
    world = robot_world_xml().replace("<max_torque>6.5</max_torque>", "<max_torque>6.5</max_torque><V>500</V>")
    sim = Simulation(load_world_string(world))
    assert sim.commands.v[0] == pytest.approx(13.0)
    assert isinstance(sim.limits, CommandLimits)


def test_wheel_spin_is_held_at_the_motors_top_speed():
    # A raw wheel driven far past its traction with no bearing damping would spin up without end; it stops at a
    # rim speed of Box2D's own limit, 2 m per step: max_spin = 2 m / (dt R).
    world = robot_world_xml(c_damping=0.0, mu=0.01)
    world = world.replace('<controller class="twist_pid">', '<controller class="raw">')
    sim = Simulation(load_world_string(world))
    max_spin = BOX2D_MAX_TRANSLATION / (sim.dt * 0.1)
    assert sim.limits.max_spin == pytest.approx([max_spin, max_spin])
    sim.set_wheel_torques(0, [6.5, 6.5])
    sim.run(20.0)  # 6.5 N m on a 0.005 kg m^2 wheel: 1300 rad/s^2, past the limit within 4 s
    assert sim.wheels.omega.tolist() == pytest.approx([max_spin, max_spin])
