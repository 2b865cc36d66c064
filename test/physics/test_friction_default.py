"""The default friction model against hand-computed values of physics seed 001's equations."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mvsim_ros.physics.friction import wheel_forces

G = 9.81
DT = 0.01


def call(v_x=0.0, v_y=0.0, omega=0.0, torque=0.0, fz=50.0, r=0.1, m=1.0, mu=0.8, c_damp=0.0, c_rr=0.0,
         slope=0.0, grade_x=0.0, grade_y=0.0):
    """One wheel; `slope` is the motor law's torque slope, grade_x / grade_y the gravity-slope force [N]."""
    inertia = 0.5 * m * r * r
    v_x, v_y, omega, torque, slope, fz, grade_x, grade_y, r, inertia, m = [
        np.atleast_1d(np.asarray(a, dtype=float))
        for a in (v_x, v_y, omega, torque, slope, fz, grade_x, grade_y, r, inertia, m)]
    params = np.array([[mu, c_damp, c_rr]], dtype=float)
    fx, fy, w, _ = wheel_forces("default", v_x, v_y, omega, torque, slope, fz, grade_x, grade_y, r, inertia, m,
                                params, G, DT)
    return float(fx[0]), float(fy[0]), float(w[0])


def test_pure_rolling_wheel_feels_no_force_and_keeps_spinning_at_v_over_r():
    fx, fy, w = call(v_x=1.0, omega=1.0 / 0.1)
    assert fx == 0.0 and fy == 0.0
    assert w == 10.0  # omega * R = v


def test_lateral_force_cancels_side_slip_within_one_step():
    # m_wp = Fz/g + m = 50/9.81 + 1; wanted Fy = -v_y m_wp / dt = -0.01 * 6.0968 / 0.01
    fx, fy, _ = call(v_x=0.0, v_y=0.01)
    assert math.isclose(fy, -(50 / G + 1.0), rel_tol=1e-12)


def test_lateral_force_is_clamped_to_the_coulomb_limit():
    _, fy, _ = call(v_y=5.0)
    assert math.isclose(fy, -0.8 * (50 / G + 1.0) * G, rel_tol=1e-12)


def test_longitudinal_force_from_torque_balance():
    # Wheel at rest on a vehicle at rest, torque 2 N m: alpha_no_slip = 0, so Fx = tau / R = 20 N (< Fmax).
    fx, _, w = call(torque=2.0)
    assert math.isclose(fx, 20.0, rel_tol=1e-12)
    assert w == 0.0  # all of the torque went into the ground: no spin-up


def test_longitudinal_force_saturates_and_the_wheel_spins_up():
    r, m = 0.1, 1.0
    inertia = 0.5 * m * r * r
    f_max = 0.8 * (50 / G + m) * G
    fx, _, w = call(torque=100.0)
    assert math.isclose(fx, f_max, rel_tol=1e-12)
    assert math.isclose(w, (100.0 - r * f_max) / inertia * DT, rel_tol=1e-12)


def test_rolling_resistance_torque_brakes_a_rolling_wheel():
    # T_rr = C_rr Fz R tanh(100 omega): with a rolling wheel and no motor torque it pushes backwards.
    c_rr, fz, r, omega = 0.02, 50.0, 0.1, 10.0
    fx, _, _ = call(v_x=omega * r, omega=omega, c_rr=c_rr, fz=fz)
    t_rr = c_rr * fz * r * math.tanh(100 * omega)
    assert math.isclose(fx, -t_rr / r, rel_tol=1e-12)


def test_bearing_damping_term():
    c_damp, omega, r = 0.3, 10.0, 0.1
    fx, _, _ = call(v_x=omega * r, omega=omega, c_damp=c_damp)
    assert math.isclose(fx, -c_damp * omega / r, rel_tol=1e-12)


@settings(max_examples=300, deadline=None)
@given(
    v_x=st.floats(-50, 50), v_y=st.floats(-50, 50), omega=st.floats(-500, 500), torque=st.floats(-1e4, 1e4),
    fz=st.floats(0, 1e4), mu=st.floats(0, 2), c_rr=st.floats(0, 0.1),
)
def test_forces_stay_within_the_friction_bound_and_finite(v_x, v_y, omega, torque, fz, mu, c_rr):
    fx, fy, w = call(v_x=v_x, v_y=v_y, omega=omega, torque=torque, fz=fz, mu=mu, c_rr=c_rr, c_damp=0.1)
    bound = mu * (fz / G + 1.0) * G
    assert abs(fx) <= bound * (1 + 1e-12) + 1e-12
    assert abs(fy) <= bound * (1 + 1e-12) + 1e-12
    assert math.isfinite(w)


def test_implicit_motor_term_matches_the_explicit_law_when_rolling():
    # A rolling wheel: tau = const - slope * omega_new with omega_new = v/R; the force equals the explicit case.
    fx_implicit, _, w = call(v_x=1.0, omega=10.0, torque=5.0, slope=0.3)
    fx_explicit, _, _ = call(v_x=1.0, omega=10.0, torque=5.0 - 0.3 * 10.0)
    assert math.isclose(fx_implicit, fx_explicit, rel_tol=1e-12)
    assert math.isclose(w, 10.0, rel_tol=1e-12)


def test_implicit_motor_term_keeps_a_slipping_wheel_stable_at_any_gain():
    # A wheel on ice (mu = 0.01) under a stiff speed loop: omega_new solves the torque balance exactly.
    r, m, slope, const = 0.1, 1.0, 1e4 * 0.1, 1e4 * 3.0  # K_P = 1e4, setpoint 3 m/s
    fx, _, w = call(v_x=0.0, omega=0.0, torque=const, slope=slope, mu=0.01, r=r, m=m)
    inertia = 0.5 * m * r * r
    assert math.isclose(inertia * w / DT, const - slope * w - r * fx, rel_tol=1e-9)
    assert 0.0 < w * r < 3.0  # approaches the setpoint without overshooting it


# -- gravity on slopes (seed 001 "Gravity Slope Handling"; MVSim's DefaultFriction.cpp) ---------------------------
F_MAX = 0.8 * (50 / G + 1.0) * G  # mu * m_wp * g for the call() defaults


def test_wheel_at_rest_on_a_slope_is_held_exactly():
    # Below the friction limit the contact patch cancels the slope force exactly; the wheel does not turn.
    fx, fy, w = call(grade_x=0.3 * F_MAX, grade_y=-0.2 * F_MAX)
    assert fx == -0.3 * F_MAX and fy == 0.2 * F_MAX
    assert w == 0.0


def test_slope_force_beyond_the_friction_limit_is_only_partly_held():
    fx, fy, _ = call(grade_x=2.0 * F_MAX, grade_y=-3.0 * F_MAX)
    assert fx == -F_MAX and fy == F_MAX


def test_longitudinal_slope_gets_the_capacity_traction_leaves_and_stays_out_of_the_spin_balance():
    # Torque 2 N m at rest: traction 20 N (as on flat ground), then the slope with F_max - 20 N of capacity.
    fx_flat, _, w_flat = call(torque=2.0)
    fx, _, w = call(torque=2.0, grade_x=F_MAX)
    assert fx_flat == 20.0 and math.isclose(fx, 20.0 - (F_MAX - 20.0), rel_tol=1e-12)
    assert w == w_flat == 0.0
    fx, _, _ = call(torque=2.0, grade_x=-5.0)  # within capacity: held fully
    assert math.isclose(fx, 25.0, rel_tol=1e-12)


def test_lateral_slope_joins_the_side_slip_impulse_before_the_clamp():
    m_wp = 50 / G + 1.0
    _, fy, _ = call(v_y=0.01, grade_y=3.0)
    assert math.isclose(fy, -0.01 * m_wp / DT - 3.0, rel_tol=1e-12)


def test_zero_slope_gives_the_flat_ground_model():
    rng = np.random.default_rng(7)
    n = 1000
    args = [rng.uniform(-5, 5, n), rng.uniform(-1, 1, n), rng.uniform(-60, 60, n), rng.uniform(-20, 20, n),
            rng.uniform(0, 3, n), rng.uniform(0, 500, n)]
    consts = [np.full(n, 0.1), np.full(n, 0.005), np.full(n, 1.0), np.tile([0.8, 0.1, 0.02], (n, 1)), G, DT]
    zero = np.zeros(n)
    flat = wheel_forces("default", *args, zero, zero, *consts)[:3]
    # The slope terms reduce to "- 0.0" and "- clamp(0, ...)" (bit for bit); the flat model by hand, in numpy
    # (whose tanh may differ from libm's in the last bit):
    fz, mu, c_d, c_rr = args[5], 0.8, 0.1, 0.02
    m_wp = fz / G + 1.0
    f_max = mu * m_wp * G
    net = args[3] - c_d * args[2] - c_rr * fz * 0.1 * np.tanh(100.0 * args[2])
    roll = args[0] / 0.1
    wanted = (net - args[4] * roll - 0.005 * (roll - args[2]) / DT) / 0.1
    fx = np.minimum(np.maximum(wanted, -f_max), f_max)
    fy = np.minimum(np.maximum(-args[1] * m_wp / DT, -f_max), f_max)
    w = (0.005 / DT * args[2] + net - 0.1 * fx) / (0.005 / DT + args[4])
    for got, expected in zip(flat, (fx, fy, w)):
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-12)
