"""The slope force each friction model holds at the contact patch (F_hold, the fourth output of
friction.wheel_forces): on flat ground the forces of the model's plain law and no held force; on a slope, the part
of F_x that holds the slope, which the wheel's drivetrain carries."""

import math

import numpy as np
import pytest

from mvsim_ros.physics.friction import FRICTION_MODELS, wheel_forces
from mvsim_ros.world.elements.vehicles import FRICTION_CLASSES

G, DT, N = 9.81, 0.005, 400


def inputs(model: str, seed: int, slopes: bool = True):
    rng = np.random.default_rng(seed)
    names = FRICTION_MODELS[model].param_names
    params = np.tile([FRICTION_CLASSES[model][p] for p in names], (N, 1))
    slope = rng.uniform(-300, 300, (2, N)) * (1.0 if slopes else 0.0)
    return (rng.uniform(-3, 3, N), rng.uniform(-0.5, 0.5, N), rng.uniform(-30, 30, N), rng.uniform(-20, 20, N),
            rng.uniform(0, 5, N), rng.uniform(0, 500, N), slope[0], slope[1], np.full(N, 0.1), np.full(N, 0.005),
            np.full(N, 1.0), params, G, DT)


# -- closed forms, written out from the models' equations (MVSim docs; friction/*.py module docstrings) ---------
FZ, R, M, INERTIA = 60.0, 0.1, 1.0, 0.005
M_WP = FZ / G + M  # the mass the wheel carries
LOAD = M_WP * G  # N = F_z + m_wheel g


def one_wheel(model, v_x=0.0, v_y=0.0, omega=0.0, torque=0.0, torque_slope=0.0, slope_x=0.0, slope_y=0.0):
    """The model's (F_x, F_y, omega_new, F_hold) for one wheel of FZ, R, M, INERTIA with its default parameters."""
    names = FRICTION_MODELS[model].param_names
    row = np.array([[FRICTION_CLASSES[model][p] for p in names]])
    arrays = [np.array([float(a)]) for a in (v_x, v_y, omega, torque, torque_slope, FZ, slope_x, slope_y, R,
                                             INERTIA, M)]
    return tuple(float(a[0]) for a in wheel_forces(model, *arrays, row, G, DT))


def clamp(x, bound):
    return min(max(x, -bound), bound)


def coulomb_law(v_x, v_y, omega, torque, torque_slope, mu, c_damping, extra_torque=0.0):
    """The default model's flat-ground law (F_x, F_y, omega_new): the side-slip impulse and the no-slip torque
    balance I (v_x / R - omega) / dt = tau - R F_x - C_damping omega (+ extra_torque), both clamped to mu N."""
    f_max = mu * LOAD
    f_y = clamp(-v_y * M_WP / DT, f_max)
    net = torque - c_damping * omega + extra_torque
    rolling = v_x / R
    f_x = clamp((net - torque_slope * rolling - INERTIA * (rolling - omega) / DT) / R, f_max)
    omega_new = (INERTIA / DT * omega + net - R * f_x) / (INERTIA / DT + torque_slope)
    return f_x, f_y, omega_new


def ellipse_law(v_x, v_y, omega, torque, p):
    """The ellipse-curve method's flat-ground law (F_x, F_y, omega_new), no torque slope."""
    alpha = math.atan2(abs(v_y), abs(v_x))
    v_w = omega * R
    s = min(max((v_w - v_x) / abs(v_w), -1.0), 1.0)
    s_sat, a_sat = p["slip_ratio_saturation"], p["slip_angle_saturation"]
    max_x = LOAD * p["C_s"] * min(abs(s), s_sat) * math.sqrt(1.0 - p["C_s_alpha"] * (min(alpha, a_sat) / a_sat) ** 2)
    s_fraction = min(abs(s), s_sat) / s_sat
    max_y = LOAD * p["C_alpha"] * min(alpha, a_sat) * math.sqrt(1.0 - p["C_alpha_s"] * s_fraction ** 2)
    f_y = clamp(-v_y * M_WP / DT, max_y)
    net = torque - p["C_damping"] * omega
    f_x = clamp((net - INERTIA * (v_x / R - omega) / DT) / R, max_x)
    return f_x, f_y, (INERTIA / DT * omega + net - R * f_x) / (INERTIA / DT)


def static_capacity(model):
    """The longitudinal force [N] a wheel at rest can hold: mu N, N C_s sat(s = 1) for the ellipse method (slip
    ratio 1 at rest, no slip angle), N Dx for Pacejka."""
    p = FRICTION_CLASSES[model]
    if model == "ellipse":
        return LOAD * p["C_s"] * min(1.0, p["slip_ratio_saturation"])
    if model == "pacejka":
        return LOAD * p["Dx"]
    return LOAD * p["mu"]


FLAT_CASES = [  # (v_x, v_y, omega, torque): driving with slip, braking, sliding sideways, reversing
    (1.0, 0.05, 8.0, 2.0),
    (2.0, -0.2, 25.0, -1.5),
    (-0.5, 0.3, -3.0, 0.4),
]


@pytest.mark.parametrize("model", ["default", "wardiagnemma", "ellipse"])
@pytest.mark.parametrize("case", FLAT_CASES)
def test_on_flat_ground_the_forces_are_the_plain_law_and_nothing_is_held(model, case):
    v_x, v_y, omega, torque = case
    p = FRICTION_CLASSES[model]
    if model == "default":
        expected = coulomb_law(v_x, v_y, omega, torque, 0.0, p["mu"], p["C_damping"])
    elif model == "wardiagnemma":  # the rolling resistance F_rr enters the torque balance as R F_rr
        f_rr = -math.copysign(LOAD * (p["R1"] * (1.0 - math.exp(-p["A_roll"] * abs(v_x))) + p["R2"] * abs(v_x)),
                              v_x)
        expected = coulomb_law(v_x, v_y, omega, torque, 0.0, p["mu"], p["C_damping"], R * f_rr)
    else:
        expected = ellipse_law(v_x, v_y, omega, torque, p)
    f_x, f_y, omega_new, held = one_wheel(model, v_x, v_y, omega, torque)
    assert held == 0.0
    np.testing.assert_allclose((f_x, f_y, omega_new), expected, rtol=1e-12, atol=1e-12)


def test_pacejka_on_flat_ground_a_freely_rolling_wheel_feels_no_force_and_holds_nothing():
    bearing = FRICTION_CLASSES["pacejka"]["C_damping"] * 15.0  # the motor just overcomes the bearing damping
    assert one_wheel("pacejka", v_x=1.5, omega=15.0, torque=bearing) == (0.0, 0.0, 15.0, 0.0)


@pytest.mark.parametrize("model", sorted(FRICTION_MODELS))
@pytest.mark.parametrize("degrees", [5.0, 20.0, 60.0])
@pytest.mark.parametrize("torque_slope", [0.0, 40.0])  # free wheel, and a wheel whose controller brakes it
def test_a_wheel_at_rest_on_a_slope_holds_m_g_sin_theta_up_to_its_static_capacity(model, degrees, torque_slope):
    along = M_WP * G * math.sin(math.radians(degrees))  # gravity along the ground on the wheel's share of mass
    capacity = static_capacity(model)
    for sign in (1.0, -1.0):
        f_x, f_y, omega_new, held = one_wheel(model, torque_slope=torque_slope, slope_x=sign * along)
        expected = -sign * min(along, capacity)
        assert held == pytest.approx(expected, rel=1e-12)
        assert f_x == held  # at rest there is no traction force: all of F_x holds the slope
        assert omega_new == 0.0 and f_y == 0.0  # the slope force stays out of the wheel's spin


@pytest.mark.parametrize("model", ["default", "wardiagnemma"])
def test_traction_at_the_coulomb_limit_leaves_no_capacity_to_hold_the_slope(model):
    p = FRICTION_CLASSES[model]
    f_x, _, _, held = one_wheel(model, v_x=0.0, omega=0.0, torque=1e3, slope_x=-0.3 * LOAD)
    assert held == 0.0 and f_x == pytest.approx(p["mu"] * LOAD, rel=1e-12)


def test_pacejka_scales_a_wheel_at_rest_on_a_double_slope_onto_its_friction_ellipse():
    p = FRICTION_CLASSES["pacejka"]
    cap_x, cap_y = LOAD * p["Dx"], LOAD * p["Dy"]
    slope_x, slope_y = 0.8 * cap_x, 0.9 * cap_y  # each within its capacity, together beyond the ellipse
    f_x, f_y, _, held = one_wheel("pacejka", slope_x=slope_x, slope_y=slope_y)
    scale = 1.0 / math.hypot(slope_x / cap_x, slope_y / cap_y)
    assert f_x == pytest.approx(-slope_x * scale, rel=1e-12) and held == f_x
    assert f_y == pytest.approx(-slope_y * scale, rel=1e-12)


@pytest.mark.parametrize("model", ["default", "wardiagnemma", "ellipse"])
def test_the_held_force_is_what_the_slope_adds_to_f_x_and_it_leaves_the_spin_alone(model):
    fx, fy, omega, held = wheel_forces(model, *inputs(model, 2))
    fx0, _, omega0, held0 = wheel_forces(model, *inputs(model, 2, slopes=False))
    np.testing.assert_allclose(fx - fx0, held, atol=1e-9)
    np.testing.assert_array_equal(omega, omega0)
    assert np.all(held0 == 0.0)
    slope_x = inputs(model, 2)[6]
    assert np.all(held * slope_x <= 0.0) and np.all(np.abs(held) <= np.abs(slope_x))  # against it, never more


def test_pacejka_holds_against_the_slope_within_its_ellipse():
    args = inputs("pacejka", 3)
    fx, fy, _, held = wheel_forces("pacejka", *args)
    slope_x = args[6]
    assert np.all(held * slope_x <= 1e-12) and np.all(np.abs(held) <= np.abs(slope_x) + 1e-9)
