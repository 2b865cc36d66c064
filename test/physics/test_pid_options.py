"""MVSim's PID options in the wheel controllers (physics/controllers.py), against their closed forms: one PID row
driven step by step through WheelControllers.torque_law."""

import math

import numpy as np
import pytest

from mvsim_ros.physics.controllers import WheelControllers

DT = 0.01
ONE = np.ones(1)


def row(**params) -> WheelControllers:
    """One PID row (a wheel of radius 1 m, so that speed = spin) with MVSim's twist_pid defaults and `params`."""
    p = {"KP": 10.0, "KI": 0.0, "KD": 0.0, "max_torque": 100.0, **params}
    return WheelControllers.from_rows([p], [0.0], [0])


def step(pid: WheelControllers, setpoint: float, speed: float) -> tuple[float, float]:
    const, slope = pid.torque_law(np.array([setpoint]), np.array([speed]), ONE, DT)
    return float(const[0]), float(slope[0])


def test_proportional_term_is_the_implicit_law():
    const, slope = step(row(KP=7.0), 2.0, 0.5)
    assert (const, slope) == (14.0, 7.0)  # tau = KP (sp - R omega_new)


def test_plain_derivative_is_zero_at_the_first_step_then_the_error_difference():
    pid = row(KP=0.0, KD=3.0)
    assert step(pid, 1.0, 0.0)[0] == 0.0
    assert step(pid, 1.0, 0.4)[0] == pytest.approx(3.0 * (0.6 - 1.0) / DT)


def test_filtered_derivative_follows_its_first_order_lag():
    kd, n, error = 2.0, 20.0, 0.5
    pid = row(KP=0.0, KD=kd, N=n)
    for k in range(1, 30):
        const, _ = step(pid, error, 0.0)
        assert const == pytest.approx(kd * error * (1.0 - (1.0 - DT * n) ** k), rel=1e-12)


def test_integral_is_unbounded_without_i_max_or_anti_windup():
    pid = row(KP=1.0, KI=10.0, max_torque=1.0)
    for k in range(1, 50):
        step(pid, 2.0, 0.0)
        assert pid.i_term[0] == pytest.approx(10.0 * 2.0 * DT * k, rel=1e-12)


def test_back_calculation_anti_windup():
    kp, ki, limit, error = 1.0, 10.0, 1.0, 2.0
    pid = row(KP=kp, KI=ki, max_torque=limit, enable_antiwindup=True)
    expected = 0.0
    for _ in range(200):
        step(pid, error, 0.0)
        expected += ki * error * DT
        unsaturated = kp * error + expected
        expected += ki / kp * (max(-limit, min(limit, unsaturated)) - unsaturated) * DT
        assert pid.i_term[0] == pytest.approx(expected, rel=1e-12)
    # It settles where the correction balances the growth: I = limit - KI e dt (the correction follows the growth).
    assert pid.i_term[0] == pytest.approx(limit - ki * error * DT, rel=1e-6)


@pytest.mark.parametrize("order", [1, 2])
def test_reference_filter_step_response(order):
    tau = 0.1
    a = math.exp(-DT / tau)
    pid = row(KP=1.0, enable_reference_filter=True, reference_filter_tau=tau, reference_filter_order=order)
    for k in range(1, 100):
        const, _ = step(pid, 1.0, 0.5)  # P only: const = KP * filtered setpoint
        expected = 1.0 - a ** k if order == 1 else 1.0 - a ** k - k * (1.0 - a) * a ** k
        assert const == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_feedforward_is_added_to_the_output():
    pid = row(KP=2.0, enable_feedforward=True)
    pid.feedforward[0] = 3.5
    assert step(pid, 1.0, 1.0)[0] == pytest.approx(2.0 + 3.5)
    assert row(KP=2.0).ff_gain[0] == 0.0 and row(KP=2.0, enable_feedforward=True).ff_gain[0] == 1.0


def test_stop_gate_turns_the_motors_off_and_resets_the_pid():
    pid = row(KP=10.0, KI=5.0, KD=1.0)
    step(pid, 1.0, 0.0)
    assert pid.i_term[0] > 0.0 and not pid.first[0]
    assert step(pid, 0.0005, 0.03) == (0.0, 0.0)  # setpoint below 0.001 m/s, speed below 0.05 m/s
    assert pid.i_term[0] == 0.0 and pid.last_error[0] == 0.0 and pid.first[0]


def test_braking_to_zero_never_pushes_along_the_motion():
    pid = row(KP=10.0, KI=100.0)
    for _ in range(100):  # a large positive integral
        step(pid, 1.0, 0.0)
    const, slope = step(pid, 0.0, 0.5)  # moving forwards, setpoint zero: the integral would push forwards
    assert (const, slope) == (0.0, 0.0)
    pid = row(KP=10.0)
    const, slope = step(pid, 0.0, 0.5)  # a P term brakes: kept as the implicit law
    assert (const, slope) == (0.0, 10.0)


def test_zero_and_stop_thresholds_are_parameters():
    pid = row(KP=10.0, zero_threshold=0.2, stop_threshold=1.0)
    assert step(pid, 0.1, 0.9) == (0.0, 0.0)


def test_max_torque_zero_means_no_limit_as_mvsim():
    assert math.isinf(row(max_torque=0.0).max_torque[0]) and row(max_torque=5.0).max_torque[0] == 5.0


# -- in the whole simulation ------------------------------------------------------------------------------------

def options_world() -> str:
    """Three robots, each with other PID options and odometry multipliers (x and y differing)."""
    robots = []
    for k, options in enumerate((
            "<N>20</N><KD>0.5</KD><enable_antiwindup>true</enable_antiwindup>",
            "<enable_reference_filter>true</enable_reference_filter><reference_filter_order>2</reference_filter_order>"
            "<reference_filter_tau>0.3</reference_filter_tau>",
            "<I_MAX>0.2</I_MAX><enable_feedforward>true</enable_feedforward>")):
        robots.append(f"""<vehicle name="r{k}"><init_pose>0 {2 * k} 0</init_pose>
  <odometry x_multiplier="1.05" y_multiplier="0.95" yaw_multiplier="1.02"/>
  <dynamics class="differential"><chassis mass="15"/>
    <l_wheel pos="0 0.25" mass="1" width="0.05" diameter="0.2"/><r_wheel pos="0 -0.25" mass="1" width="0.05"
      diameter="0.2"/>
    <controller class="twist_pid"><KP>30</KP><KI>40</KI><max_torque>5</max_torque>{options}</controller>
  </dynamics></vehicle>""")
    return '<mvsim_world version="1.0">' + "".join(robots) + "</mvsim_world>"


def test_compiled_steps_give_the_same_bits_with_every_pid_option():
    from mvsim_ros.physics import Simulation, box2d_native
    from mvsim_ros.world import load_world_string

    if not box2d_native.AVAILABLE:
        pytest.skip(box2d_native.UNAVAILABLE_REASON)
    world = load_world_string(options_world())
    one, many = Simulation(world), Simulation(world)
    assert many.compiled_steps_unavailable == ""
    for sim in (one, many):
        for k in range(3):
            sim.set_twist(k, 0.8, 0.3 * (k - 1))
    for _ in range(300):
        one.step()
    many.step_many(300)
    for sim in (one, many):  # a stop: the gate and the braking rule
        for k in range(3):
            sim.set_twist(k, 0.0, 0.0)
    for _ in range(300):
        one.step()
    many.step_many(300)
    a, b = one.controllers, many.controllers
    for x, y in [(one.body_pose, many.body_pose), (one.odom_pose, many.odom_pose),
                 (one.wheels.omega, many.wheels.omega), (a.i_term, b.i_term), (a.d_state, b.d_state),
                 (a.ref_y1, b.ref_y1), (a.ref_y2, b.ref_y2)]:
        assert x.tobytes() == y.tobytes()
    # Every robot braked to below the stop threshold, where its motors go off and it coasts (as in MVSim).
    assert np.all(np.abs(one.body_twist()[:, 0]) < 0.05)


def test_slope_feedforward_is_the_torque_that_holds_the_chassis():
    from pathlib import Path

    from mvsim_ros.physics import Simulation
    from mvsim_ros.world import load_world_string

    path = Path(__file__).resolve().parents[1] / "worlds" / "terrain_slope10.world.xml"
    text = path.read_text().replace("<max_torque>30</max_torque>",
                                    "<max_torque>30</max_torque><enable_feedforward>true</enable_feedforward>"
                                    "<feedforward_gain>0.5</feedforward_gain>")
    sim = Simulation(load_world_string(text, file=str(path)))
    sim.step()
    theta = math.radians(10.0)  # facing uphill: pitch = -theta
    expected = 0.5 * 20.0 * 9.81 * math.sin(theta) * 0.1 / 2  # gain m g sin(theta) R_mean / 2 driven wheels
    assert sim.controllers.feedforward == pytest.approx([expected] * 4, rel=1e-3)
