"""Ward–Iagnemma, ellipse-curve and Pacejka friction against hand-computed values of seeds 001 / 002, bounds on
random inputs for every model, gravity on slopes, world-file parsing, and two whole-simulation comparisons."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import robot_world_xml
from mvsim_ros.physics import Simulation
from mvsim_ros.physics.friction import FRICTION_MODELS, wheel_forces
from mvsim_ros.physics.friction.pacejka import magic_formula
from mvsim_ros.world import WorldFileError, load_world_string
from mvsim_ros.world.elements.vehicles import FRICTION_CLASSES, PACEJKA_SURFACES

G = 9.81
DT = 0.01
FZ, R, M = 50.0, 0.1, 1.0
LOAD = FZ + M * G  # N = m_wp g: the chassis share plus the wheel's own weight


def call(model, v_x=0.0, v_y=0.0, omega=0.0, torque=0.0, torque_slope=0.0, fz=FZ, grade_x=0.0, grade_y=0.0,
         r=R, m=M, dt=DT, **params):
    """One wheel through a model; params override FRICTION_CLASSES defaults. Returns (F_x, F_y, omega_new)."""
    names = FRICTION_MODELS[model].param_names
    values = {**FRICTION_CLASSES[model], **params}
    inertia = 0.5 * m * r * r
    arrays = [np.array([float(a)]) for a in (v_x, v_y, omega, torque, torque_slope, fz, grade_x, grade_y, r,
                                             inertia, m)]
    row = np.array([[values[name] for name in names]], dtype=float)
    fx, fy, w, _ = wheel_forces(model, *arrays, row, G, dt)
    return float(fx[0]), float(fy[0]), float(w[0])


def test_every_model_is_simulated_under_its_world_file_name():
    assert set(FRICTION_MODELS) == {"default", "wardiagnemma", "ellipse", "pacejka"}
    assert set(FRICTION_CLASSES) == set(FRICTION_MODELS)  # every class the loader accepts can be simulated
    for name, (_, names) in FRICTION_MODELS.items():
        assert set(names) == set(FRICTION_CLASSES[name])  # every column has a world-file parameter and default


# -- Ward–Iagnemma ---------------------------------------------------------------------------------------------
WI = dict(mu=0.8, C_damping=0.0, A_roll=50.0, R1=0.0075, R2=0.02, C_rr=0.0)


def test_ward_iagnemma_rolling_resistance_at_one_metre_per_second():
    # F_rr = -sign(v) N [R1 (1 - e^-A_roll) + R2] at v = 1 m/s; a rolling wheel with no torque feels just that.
    expected = -LOAD * (0.0075 * (1.0 - math.exp(-50.0)) + 0.02)
    fx, fy, w = call("wardiagnemma", v_x=1.0, omega=1.0 / R, **WI)
    assert math.isclose(fx, expected, rel_tol=1e-12) and fy == 0.0
    assert math.isclose(w, 1.0 / R, rel_tol=1e-12)  # the resistive torque R F_rr keeps the wheel rolling
    fx_back, _, _ = call("wardiagnemma", v_x=-1.0, omega=-1.0 / R, **WI)
    assert math.isclose(fx_back, -expected, rel_tol=1e-12)


def test_ward_iagnemma_rolling_resistance_is_smooth_at_rest_and_grows_with_speed():
    assert call("wardiagnemma", **WI)[0] == 0.0
    v = 0.01  # the static term fades in as 1 - exp(-A_roll v)
    fx, _, _ = call("wardiagnemma", v_x=v, omega=v / R, **WI)
    assert math.isclose(fx, -LOAD * (0.0075 * (1 - math.exp(-0.5)) + 0.02 * v), rel_tol=1e-12)
    v = 5.0
    fx, _, _ = call("wardiagnemma", v_x=v, omega=v / R, **WI)
    assert math.isclose(fx, -LOAD * (0.0075 + 0.02 * v), rel_tol=1e-12)


def test_ward_iagnemma_adds_rolling_resistance_before_the_coulomb_clamp():
    f_max = 0.8 * LOAD
    fx, _, _ = call("wardiagnemma", v_x=1.0, omega=1.0 / R, torque=-100.0, **WI)  # braking past the limit
    assert math.isclose(fx, -f_max, rel_tol=1e-12)
    fx, _, _ = call("wardiagnemma", v_x=1.0, omega=1.0 / R, torque=100.0, **WI)
    assert math.isclose(fx, f_max, rel_tol=1e-12)
    # Traction just past mu N plus F_rr (-0.0275 N at 1 m/s) is back under it: F_rr is added before the clamp
    # (after it, the force would be mu N + F_rr).
    f_rr = -LOAD * (0.0075 * (1 - math.exp(-50.0)) + 0.02)
    traction = f_max - 0.5 * f_rr
    fx, _, _ = call("wardiagnemma", v_x=1.0, omega=1.0 / R, torque=traction * R, **WI)
    assert math.isclose(fx, traction + f_rr, rel_tol=1e-9) and fx < f_max


def test_ward_iagnemma_without_rolling_resistance_is_the_default_model():
    kwargs = dict(v_x=0.7, v_y=-0.02, omega=5.0, torque=1.5, torque_slope=0.4, mu=0.6, C_damping=0.2, C_rr=0.01)
    wi = call("wardiagnemma", R1=0.0, R2=0.0, A_roll=50.0, **kwargs)
    default = call("default", **kwargs)
    assert wi == pytest.approx(default, rel=1e-12)


def test_ward_iagnemma_keeps_the_tyre_hysteresis_torque():
    c_rr, omega = 0.02, 10.0
    fx, _, _ = call("wardiagnemma", v_x=omega * R, omega=omega, **{**WI, "R2": 0.0, "R1": 0.0, "C_rr": c_rr})
    assert math.isclose(fx, -c_rr * FZ * R * math.tanh(100 * omega) / R, rel_tol=1e-12)


# -- ellipse curves --------------------------------------------------------------------------------------------
ELLIPSE = dict(C_damping=0.0, C_rr=0.0, C_alpha=8.5, slip_angle_saturation=0.1, C_alpha_s=0.5, C_s=7.5,
               slip_ratio_saturation=0.1, C_s_alpha=0.5)


def test_ellipse_forces_at_a_chosen_slip():
    # s = 0.05 (wheel 5 % faster than the ground: v_w = v / 0.95), alpha = 0.05 rad: both below saturation.
    v, s, alpha = 1.0, 0.05, 0.05
    omega = v / (1 - s) / R
    bound_x = LOAD * 7.5 * s * math.sqrt(1 - 0.5 * (alpha / 0.1) ** 2)
    bound_y = LOAD * 8.5 * alpha * math.sqrt(1 - 0.5 * (s / 0.1) ** 2)
    fx, fy, _ = call("ellipse", v_x=v, v_y=v * math.tan(alpha), omega=omega, torque=50.0, **ELLIPSE)
    assert math.isclose(fx, bound_x, rel_tol=1e-9)
    assert math.isclose(fy, -bound_y, rel_tol=1e-9)
    # The same slips to the other side and backwards give the mirrored forces (bounds are magnitudes).
    fx, fy, _ = call("ellipse", v_x=v, v_y=-v * math.tan(alpha), omega=omega, torque=-50.0, **ELLIPSE)
    assert math.isclose(fx, -bound_x, rel_tol=1e-9) and math.isclose(fy, bound_y, rel_tol=1e-9)
    fx, fy, _ = call("ellipse", v_x=-v, v_y=-v * math.tan(alpha), omega=-omega, torque=-50.0, **ELLIPSE)
    assert math.isclose(fx, -bound_x, rel_tol=1e-9) and math.isclose(fy, bound_y, rel_tol=1e-9)


def test_ellipse_saturated_slips():
    # Locked wheel (s = -1) sliding at 45 degrees: both slips saturated, bounds N C s_s sqrt(1 - C_coupling).
    fx, fy, w = call("ellipse", v_x=1.0, v_y=1.0, omega=0.0, torque_slope=1e9, **ELLIPSE)
    assert math.isclose(fx, -LOAD * 7.5 * 0.1 * math.sqrt(0.5), rel_tol=1e-12)
    assert math.isclose(fy, -LOAD * 8.5 * 0.1 * math.sqrt(0.5), rel_tol=1e-12)
    assert abs(w) < 1e-6  # the braked wheel stays locked


def test_ellipse_needs_slip_for_grip():
    # Rolling without slip (s = 0): no longitudinal force, the motor torque only spins the wheel up.
    fx, _, w = call("ellipse", v_x=1.0, omega=1.0 / R, torque=0.5, **ELLIPSE)
    assert fx == 0.0
    assert math.isclose(w, 1.0 / R + 0.5 / (0.5 * M * R * R) * DT, rel_tol=1e-12)
    # MVSim's low-speed guards: below 1e-3 m/s no slip angle, so no lateral force; a wheel at rest has s = 1.
    _, fy, _ = call("ellipse", v_y=5e-4, **ELLIPSE)
    assert fy == 0.0
    fx, _, _ = call("ellipse", torque=100.0, **ELLIPSE)
    assert math.isclose(fx, LOAD * 7.5 * 0.1, rel_tol=1e-12)


# -- Pacejka ---------------------------------------------------------------------------------------------------
def pacejka_params(surface):
    b, c, d, e = PACEJKA_SURFACES[surface]
    return dict(Bx=b, Cx=c, Dx=d, Ex=e, By=b, Cy=c, Dy=d, Ey=e, C_damping=0.0, C_rr=0.0)


def hand_magic(x, b, c, d, e):
    return d * math.sin(c * math.atan(b * x - e * (b * x - math.atan(b * x))))


def test_seed_002_surface_table():
    assert PACEJKA_SURFACES == {"dry": (10.0, 1.9, 1.0, 0.97), "wet": (12.0, 2.3, 0.82, 1.0),
                                "snow": (5.0, 2.0, 0.3, 1.0), "ice": (4.0, 2.0, 0.1, 1.0)}


@pytest.mark.parametrize("surface", sorted(PACEJKA_SURFACES))
def test_pacejka_peak_force_per_unit_load_is_d(surface):
    # Scan the slip ratio through the model (tiny dt: the implicit correction vanishes, F = N f(kappa)).
    params = pacejka_params(surface)
    v = 5.0
    peak_x = peak_y = 0.0
    for kappa in np.linspace(0.0, 0.9, 1801):
        fx, _, _ = call("pacejka", v_x=v, omega=v / (1 - kappa) / R, dt=1e-7, **params)
        peak_x = max(peak_x, fx / LOAD)
    for alpha in np.linspace(0.0, 1.2, 1201):
        _, fy, _ = call("pacejka", v_x=v, v_y=v * math.tan(alpha), omega=v / R, dt=1e-7, **params)
        peak_y = max(peak_y, -fy / LOAD)
    d = PACEJKA_SURFACES[surface][2]
    assert peak_x == pytest.approx(d, rel=0.01)
    assert peak_y == pytest.approx(d, rel=0.01)
    # ... and the curve the kernel uses is the formula of seed 002.
    for x in (-1.0, -0.1, 0.0, 0.05, 0.2, 1.0):
        assert magic_formula(x, *PACEJKA_SURFACES[surface])[0] == pytest.approx(
            hand_magic(x, *PACEJKA_SURFACES[surface]), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("surface", sorted(PACEJKA_SURFACES))
def test_pacejka_no_slip_no_force(surface):
    fx, fy, w = call("pacejka", v_x=5.0, omega=10.0, r=0.5, **pacejka_params(surface))  # omega R == v exactly
    assert fx == 0.0 and fy == 0.0 and w == 10.0
    assert call("pacejka", **pacejka_params(surface)) == (0.0, 0.0, 0.0)


def test_pacejka_locked_wheel_slides_on_the_curve_and_stays_locked():
    # kappa = -1 is past the peak: the force is the magic formula there, F_x = N f(-1); the brake holds omega = 0.
    for surface in PACEJKA_SURFACES:
        fx, fy, w = call("pacejka", v_x=10.0, omega=0.0, torque_slope=1e9, **pacejka_params(surface))
        assert math.isclose(fx, LOAD * hand_magic(-1.0, *PACEJKA_SURFACES[surface]), rel_tol=1e-12)
        assert fy == 0.0 and abs(w) < 1e-6
    # Dry: f(-1) = sin(1.9 atan(-10 + 0.97 (10 - atan 10))) = -0.91452...
    assert hand_magic(-1.0, *PACEJKA_SURFACES["dry"]) == pytest.approx(-0.91452, abs=1e-5)


def test_pacejka_braking_torque_locks_a_rolling_wheel():
    fx, _, w = call("pacejka", v_x=10.0, omega=10.0 / R, torque_slope=1e9, **pacejka_params("dry"))
    assert abs(w) < 1e-3
    assert -LOAD <= fx < -0.5 * LOAD


def test_pacejka_driven_wheel_spins_up_past_the_traction_limit():
    fx, _, w = call("pacejka", v_x=1.0, omega=1.0 / R, torque=50.0, **pacejka_params("ice"))
    assert 0.0 < fx <= 0.1 * LOAD
    inertia = 0.5 * M * R * R
    assert math.isclose(w, 1.0 / R + (50.0 - R * fx) / inertia * DT, rel_tol=1e-12)


def test_pacejka_force_follows_the_slip_at_the_end_of_the_step():
    # A wheel spinning forward (kappa ~ +1) that a large torque turns backwards within the step: the ground force
    # opposes where the slip ends (backwards), not where it started.
    fx, _, w = call("pacejka", v_x=0.05, omega=90.0, torque=-100.0, dt=0.005, **pacejka_params("dry"))
    assert w < 0.0 and -LOAD <= fx < 0.0
    fx, _, _ = call("pacejka", v_x=0.05, omega=90.0, torque=0.0, dt=0.005, **pacejka_params("dry"))
    assert 0.0 < fx <= LOAD


def test_pacejka_steady_acceleration_sits_on_the_curve():
    # A wheel driving its share of mass with a constant torque: after the transient the ground force is the magic
    # formula at the wheel's slip, and it carries the torque (minus what spins the wheel up with the mass).
    params = pacejka_params("dry")
    m_wp, torque, inertia = FZ / G + M, 2.0, 0.5 * M * R * R
    v, omega = 1.0, 1.0 / R
    for _ in range(300):
        fx, _, omega = call("pacejka", v_x=v, omega=omega, torque=torque, dt=0.005, **params)
        v += fx / m_wp * 0.005
    kappa = (omega * R - v) / max(v, omega * R)
    assert fx == pytest.approx(LOAD * hand_magic(kappa, *PACEJKA_SURFACES["dry"]), rel=0.01)
    assert fx == pytest.approx(torque / R / (1 + inertia / (R * R * m_wp)), rel=0.01)
    assert 0.0 < kappa < 0.05


def test_pacejka_combined_slip_stays_on_the_friction_ellipse():
    params = dict(pacejka_params("dry"), Dy=0.8)
    fx, fy, _ = call("pacejka", v_x=1.0, v_y=0.5, omega=0.0, torque_slope=1e9, **params)
    assert (fx / LOAD) ** 2 + (fy / (0.8 * LOAD)) ** 2 == pytest.approx(1.0, rel=1e-12)
    fx_alone, _, _ = call("pacejka", v_x=1.0, omega=0.0, torque_slope=1e9, **params)
    assert abs(fx) < abs(fx_alone)  # lateral slip takes longitudinal grip


def test_pacejka_lateral_force_opposes_side_slip_and_never_overshoots():
    # A tiny side slip at speed: the force is at most the impulse that stops it within the step.
    m_wp = FZ / G + M
    _, fy, _ = call("pacejka", v_x=2.0, v_y=1e-4, omega=2.0 / R, **pacejka_params("dry"))
    assert -1e-4 * m_wp / DT <= fy < 0.0
    _, fy, _ = call("pacejka", v_x=-2.0, v_y=-0.3, omega=-2.0 / R, **pacejka_params("dry"))
    assert 0.0 < fy <= LOAD


# -- every model: bounds on random inputs ----------------------------------------------------------------------
def bound_checks(model, fx, fy, fz, m, params):
    load = fz + m * G
    tol = 1e-9 * (1.0 + load)
    if model in ("default", "wardiagnemma"):
        assert abs(fx) <= params["mu"] * load + tol and abs(fy) <= params["mu"] * load + tol
    elif model == "ellipse":
        assert abs(fy) <= load * params["C_alpha"] * params["slip_angle_saturation"] + tol
        assert abs(fx) <= load * params["C_s"] * params["slip_ratio_saturation"] + tol
    else:
        usage = (fx / (load * params["Dx"])) ** 2 + (fy / (load * params["Dy"])) ** 2
        assert usage <= 1.0 + 1e-9
        assert math.hypot(fx, fy) <= load * max(params["Dx"], params["Dy"]) + tol


def speeds(limit):
    return st.one_of(st.just(0.0), st.floats(-1e-3, 1e-3), st.floats(-limit, limit))


@settings(max_examples=150, deadline=None)
@given(
    model=st.sampled_from(sorted(FRICTION_MODELS)), v_x=speeds(50.0), v_y=speeds(20.0),
    omega=st.one_of(st.just(0.0), st.floats(-500, 500)), torque=st.one_of(st.just(0.0), st.floats(-1e5, 1e5)),
    torque_slope=st.one_of(st.just(0.0), st.floats(0, 1e6)), fz=st.one_of(st.just(0.0), st.floats(0, 1e4)),
    grade_x=st.floats(-1e3, 1e3), grade_y=st.floats(-1e3, 1e3), m=st.floats(0.05, 20),
    surface=st.sampled_from(sorted(PACEJKA_SURFACES)), mu=st.floats(0, 2), c_rr=st.floats(0, 0.1),
)
def test_every_model_gives_finite_forces_within_its_bound(model, v_x, v_y, omega, torque, torque_slope, fz,
                                                          grade_x, grade_y, m, surface, mu, c_rr):
    params = dict(FRICTION_CLASSES[model], C_rr=c_rr)
    if "mu" in params:
        params["mu"] = mu
    if model == "pacejka":
        params.update({k: v for k, v in pacejka_params(surface).items() if k not in ("C_damping", "C_rr")})
    fx, fy, w = call(model, v_x=v_x, v_y=v_y, omega=omega, torque=torque, torque_slope=torque_slope, fz=fz,
                     grade_x=grade_x, grade_y=grade_y, m=m, **params)
    assert math.isfinite(fx) and math.isfinite(fy) and math.isfinite(w)
    bound_checks(model, fx, fy, fz, m, params)


# -- gravity on slopes -----------------------------------------------------------------------------------------
def traction_limit(model):
    params = FRICTION_CLASSES[model]
    if model == "ellipse":  # at rest s = 1 (saturated) and alpha = 0
        return LOAD * params["C_s"] * params["slip_ratio_saturation"]
    if model == "pacejka":
        return LOAD * params["Dx"]
    return LOAD * params["mu"]


@pytest.mark.parametrize("model", sorted(FRICTION_MODELS))
def test_wheel_at_rest_is_held_on_a_slope_below_the_friction_limit(model):
    grade = 0.4 * traction_limit(model)
    fx, _, w = call(model, grade_x=grade)
    assert fx == -grade and w == 0.0
    fx, _, _ = call(model, grade_x=-grade)
    assert fx == grade
    fx, _, _ = call(model, grade_x=3.0 * traction_limit(model))  # beyond it: friction gives what it has
    assert fx == pytest.approx(-traction_limit(model), rel=1e-12)


@pytest.mark.parametrize("model", sorted(FRICTION_MODELS))
def test_wheel_at_rest_on_a_side_slope(model):
    grade = 0.3 * traction_limit(model)
    _, fy, _ = call(model, grade_y=grade)
    # The ellipse method has no lateral grip without a slip angle (MVSim's F_y^max = N C_alpha sat(alpha) ...).
    assert fy == (0.0 if model == "ellipse" else -grade)


# -- world files -----------------------------------------------------------------------------------------------
def world(friction: str, controller: str | None = None, init_vel: str | None = None) -> str:
    """The conftest robot (17 kg, 0.2 m wheels) with another <friction> (and controller / initial velocity), without
    chassis damping (the friction model alone slows it)."""
    text = robot_world_xml(c_damping=0.001).replace('<chassis mass="15.0">',
                                                    '<chassis mass="15.0" linear_damping="0" angular_damping="0">')
    start, end = text.index("<friction"), text.index("</friction>") + len("</friction>")
    text = text[:start] + friction + text[end:]
    if controller is not None:
        start, end = text.index("<controller"), text.index("</controller>") + len("</controller>")
        text = text[:start] + controller + text[end:]
    if init_vel is not None:
        text = text.replace("</init_pose>", f"</init_pose><init_vel>{init_vel}</init_vel>")
    return text


def friction_of(xml: str):
    return load_world_string(world(xml)).vehicles[0].friction


def test_pacejka_surface_presets_and_explicit_coefficients():
    spec = friction_of('<friction class="pacejka"><surface>ice</surface><C_rr>0.01</C_rr></friction>')
    assert spec.model == "pacejka"
    assert spec.params == {"Bx": 4.0, "Cx": 2.0, "Dx": 0.1, "Ex": 1.0, "By": 4.0, "Cy": 2.0, "Dy": 0.1, "Ey": 1.0,
                           "C_damping": 0.01, "C_rr": 0.01}
    assert friction_of('<friction class="pacejka"/>').params["Dx"] == 1.0  # dry by default
    # Per-direction tags beat shared ones, which beat the surface, in any order.
    spec = friction_of('<friction class="pacejka"><Dy>0.5</Dy><D>0.7</D><E>-0.5</E><surface>Wet</surface>'
                       '<Bx>9</Bx></friction>')
    assert (spec.params["Bx"], spec.params["By"], spec.params["Cx"]) == (9.0, 12.0, 2.3)
    assert (spec.params["Dx"], spec.params["Dy"], spec.params["Ex"], spec.params["Ey"]) == (0.7, 0.5, -0.5, -0.5)


@pytest.mark.parametrize("friction, message", [
    ('<friction class="pacejka"><surface>gravel</surface></friction>',
     "unknown surface 'gravel'; valid: dry, wet, snow, ice"),
    ('<friction class="pacejka"><E>1.5</E></friction>', "friction 'pacejka' E: 1.5 is outside the accepted range"),
    ('<friction class="pacejka"><Dx>-1</Dx></friction>', "friction 'pacejka' Dx: -1 is outside the accepted range"),
    ('<friction class="pacejka"><B>stiff</B></friction>', "B: expected a number"),
    ('<friction class="ellipse"><slip_ratio_saturation>0</slip_ratio_saturation></friction>',
     "slip_ratio_saturation must be > 0"),
])
def test_bad_friction_parameters_are_located_errors(friction, message):
    with pytest.raises(WorldFileError, match=message):
        load_world_string(world(friction))


def test_unknown_pacejka_tag_is_a_warning():
    spec = load_world_string(world('<friction class="pacejka"><mu>0.5</mu></friction>'))
    assert any("unknown parameter <mu> for friction 'pacejka'" in w for w in spec.warnings)


def test_friction_aliases_still_load():
    assert friction_of('<friction class="ward_iagnemma"/>').model == "wardiagnemma"
    assert friction_of('<friction class="ellipse_curve"/>').model == "ellipse"


# -- whole simulation ------------------------------------------------------------------------------------------
RAW = '<controller class="raw"/>'


def coast(friction: str, duration: float = 12.0) -> tuple[float | None, float]:
    """Time [s] until a raw-controlled robot rolling at 2 m/s with zero torque drops below 0.05 m/s (None if it
    does not within `duration`), and its speed at the end."""
    sim = Simulation(load_world_string(world(friction, RAW, "2 0 0")))
    stop = None
    while sim.time < duration:
        sim.step()
        if stop is None and sim.body_twist()[0, 0] < 0.05:
            stop = sim.time
    return stop, float(sim.body_twist()[0, 0])


def test_ward_iagnemma_robot_coasts_to_a_stop_sooner_than_with_default_friction():
    stop_default, v_default = coast('<friction class="default"><C_damping>0.001</C_damping><C_rr>0</C_rr></friction>')
    stop_wi, v_wi = coast('<friction class="wardiagnemma"><C_damping>0.001</C_damping></friction>')
    assert stop_default is None and v_default > 1.5  # only the bearing damping slows it
    # dv/dt = -g (R1 (1 - exp(-A v)) + R2 v) (the robot's weight rests on its wheels): stops in ~9.4 s.
    assert stop_wi is not None and 7.0 < stop_wi < 10.5 and abs(v_wi) < 1e-3


def braking_distance(surface: str) -> float:
    """Distance [m] a raw-controlled robot at 10 m/s travels until it stops, wheels braked far past traction."""
    sim = Simulation(load_world_string(world(f'<friction class="pacejka"><surface>{surface}</surface></friction>',
                                             RAW, "10 0 0")))
    sim.set_wheel_torques(0, [-500.0, -500.0])
    start = sim.pose[0, 0]
    while sim.body_twist()[0, 0] > 0.0 and sim.time < 30.0:
        sim.step()
    return float(sim.pose[0, 0] - start)


def test_pacejka_braking_distance_scales_with_the_surface_peak():
    # Wheels past the traction limit slide at kappa ~ -1: d = v^2 / (2 mu g), mu = D |sin(C atan(...))| ~ D.
    dry, ice = braking_distance("dry"), braking_distance("ice")
    assert dry == pytest.approx(10.0 ** 2 / (2 * 0.9145 * G), rel=0.03)
    assert ice / dry == pytest.approx(PACEJKA_SURFACES["dry"][2] / PACEJKA_SURFACES["ice"][2], rel=0.10)
