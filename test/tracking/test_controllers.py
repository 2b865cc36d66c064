"""The kinematic and dynamic controllers against seed 002's formulas, the single-track models against closed forms,
and the controllers driving the models along the seed's shapes."""

import math

import numpy as np
import pytest

from mvsim_ros.tracking.bicycle import BicycleParameters, steady_state_side_slip, steady_state_yaw_rate
from mvsim_ros.tracking.closed_loop import run_tracking
from mvsim_ros.tracking.dynamic_controller import DynamicCommand, DynamicController, dynamic_linearization
from mvsim_ros.tracking.guard import CommandGuard
from mvsim_ros.tracking.kinematic_controller import KinematicController, kinematic_linearization
from mvsim_ros.tracking.shapes import make_shape
from mvsim_ros.tracking.single_track import KinematicBicycle, LinearDynamicBicycle, expm
from mvsim_ros.tracking.tracker import TrajectoryTracker

RNG = np.random.default_rng(2002)
CAR = BicycleParameters(mass=5.36, a=0.1773, b=0.1477, cf=499.5, cr=499.5, iz=0.1312,
                        max_steering_angle=math.radians(25))


def seed_kinematic(vpx, vpy, theta, wheelbase, eps):
    """Seed 002, 5.5.4, as printed (l = wheelbase)."""
    v = vpx * math.cos(theta) + vpy * math.sin(theta)
    phi = math.atan(wheelbase / eps * (vpy * math.cos(theta) - vpx * math.sin(theta))
                    / (vpx * math.cos(theta) + vpy * math.sin(theta)))
    return v, phi


def seed_dynamic(vpx, vpy, psi, psi_dot, beta, m, a, b, cf, cr, eps):
    """Seed 002, 5.4.4 (with the matrix's sin(beta + psi), which the seed misprints as sin(beta + omega))."""
    v = math.cos(beta + psi) * vpx + math.sin(beta + psi) * vpy
    omega = -math.sin(beta + psi) / eps * vpx + math.cos(beta + psi) / eps * vpy
    delta = m * v / cf * omega + (cf + cr) / cf * beta - (b * cr - a * cf) / cf * psi_dot / v
    return v, delta, omega


def test_kinematic_controller_is_the_seeds_formula_on_random_inputs():
    for _ in range(2000):
        vpx, vpy = RNG.uniform(-3, 3, 2)
        theta = RNG.uniform(-4, 4)
        wheelbase, eps = RNG.uniform(0.1, 3.0), RNG.uniform(0.01, 1.0)
        expected = seed_kinematic(vpx, vpy, theta, wheelbase, eps)
        got = kinematic_linearization(vpx, vpy, theta, wheelbase, eps)
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)
        cmd = KinematicController(wheelbase, eps, math.pi / 2).command(vpx, vpy, theta)
        assert (cmd.speed, cmd.steering_angle) == pytest.approx(expected, rel=1e-12, abs=1e-12)
        assert cmd.yaw_rate == pytest.approx(expected[0] * math.tan(expected[1]) / wheelbase, rel=1e-9, abs=1e-12)


def test_kinematic_controller_makes_p_move_as_asked():
    """The inverse of the linearization: the bicycle's P moves with the desired velocity."""
    for _ in range(200):
        vpx, vpy, theta = *RNG.uniform(-2, 2, 2), RNG.uniform(-3, 3)
        wheelbase, eps = 0.325, 0.1
        v, phi = kinematic_linearization(vpx, vpy, theta, wheelbase, eps)
        omega = v * math.tan(phi) / wheelbase
        p_dot = (v * math.cos(theta) - eps * omega * math.sin(theta),
                 v * math.sin(theta) + eps * omega * math.cos(theta))
        assert p_dot == pytest.approx((vpx, vpy), abs=1e-9)


def test_kinematic_controller_limits_steering_and_handles_a_zero_speed():
    controller = KinematicController(0.325, 0.1, math.radians(25))
    assert controller.command(0.0, 1.0, 0.0).steering_angle == pytest.approx(math.radians(25))  # sideways: full lock
    assert controller.command(0.0, -1.0, 0.0).steering_angle == pytest.approx(-math.radians(25))
    stop = controller.command(0.0, 0.0, 1.0)
    assert stop == (0.0, 0.0, 0.0)  # a stop: no steering, not NaN
    assert kinematic_linearization(0.0, 2.0, 0.0, 0.325, 0.1) == (0.0, math.pi / 2)


@pytest.mark.parametrize("kwargs, message", [
    ({"epsilon": 0.0}, "epsilon must be > 0"), ({"epsilon": -0.1}, "epsilon must be > 0"),
    ({"epsilon": math.nan}, "epsilon must be finite"), ({"wheelbase": 0.0}, r"wheelbase \(l\) must be > 0"),
    ({"max_steering_angle": 2.0}, "must be <= pi/2"), ({"max_steering_angle": math.inf}, "must be finite"),
])
def test_kinematic_controller_refuses_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        KinematicController(**kwargs)


def test_nan_never_reaches_the_command():
    controller = KinematicController()
    guard = CommandGuard(controller.command(0.0, 0.0, 0.0))
    good, warning = guard.accept(controller.command(1.0, 0.2, 0.1))
    assert warning is None
    for bad in (controller.command(math.nan, 0.2, 0.1), controller.command(1.0, 0.2, math.inf)):
        assert not all(math.isfinite(v) for v in bad)
        sent, warning = guard.accept(bad)
        assert sent == good and "non-finite" in warning
    assert guard.refused == 2


def test_dynamic_controller_is_the_seeds_formula_on_random_inputs():
    for _ in range(2000):
        vpx, vpy = RNG.uniform(0.2, 3, 2) * RNG.choice([-1, 1], 2)
        psi, psi_dot, beta = RNG.uniform(-4, 4), RNG.uniform(-2, 2), RNG.uniform(-0.3, 0.3)
        m, a, b = RNG.uniform(1, 2000), RNG.uniform(0.05, 2), RNG.uniform(0.05, 2)
        cf, cr, eps = RNG.uniform(10, 1e5), RNG.uniform(10, 1e5), RNG.uniform(0.01, 1.0)
        v, delta, omega = seed_dynamic(vpx, vpy, psi, psi_dot, beta, m, a, b, cf, cr, eps)
        if abs(v) < 1e-3:
            continue
        params = BicycleParameters(m, a, b, cf, cr)
        got = dynamic_linearization(vpx, vpy, psi, psi_dot, beta, params, eps)
        assert (got.speed, got.steering_angle, got.course_rate) == pytest.approx(
            (v, delta, omega), rel=1e-12, abs=1e-12)
        assert got.longitudinal_speed == pytest.approx(v * math.cos(beta), rel=1e-12, abs=1e-12)


def test_dynamic_controller_regularises_the_standstill_and_refuses_bad_parameters():
    assert math.isnan(dynamic_linearization(0.0, 0.0, 0.0, 0.1, 0.0, CAR, 0.1).steering_angle)  # the seed at V = 0
    cmd = DynamicController(CAR, 0.1, min_speed=0.1).command(0.0, 0.0, 0.0, 0.1, 0.0)
    expected = -(CAR.b * CAR.cr - CAR.a * CAR.cf) / CAR.cf * 0.1 / 0.1
    assert cmd.steering_angle == pytest.approx(expected, abs=1e-12)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        DynamicController(CAR, 0.0)
    with pytest.raises(ValueError, match="C_f must be > 0"):
        BicycleParameters(5.0, 0.2, 0.1, -1.0, 100.0)
    with pytest.raises(ValueError, match="M must be finite"):
        BicycleParameters(math.nan, 0.2, 0.1, 100.0, 100.0)
    guard = CommandGuard(DynamicCommand(0.0, 0.0, 0.0, 0.0))
    assert guard.accept(dynamic_linearization(0.0, 0.0, 0.0, 0.1, 0.0, CAR, 0.1))[0] == (0.0, 0.0, 0.0, 0.0)


def test_kinematic_bicycle_drives_the_exact_arc():
    model = KinematicBicycle(0.325)
    model.command(1.2, 0.2)
    model.advance(3.0)
    radius = 0.325 / math.tan(0.2)
    yaw = 1.2 * 3.0 / radius
    assert model.pose() == pytest.approx((radius * math.sin(yaw), radius * (1 - math.cos(yaw)), yaw), abs=1e-12)


def test_expm_matches_closed_forms():
    rotation = expm(np.array([[0.0, -2.0], [2.0, 0.0]]))
    assert rotation == pytest.approx(np.array([[math.cos(2), -math.sin(2)], [math.sin(2), math.cos(2)]]), abs=1e-12)
    assert expm(np.diag([-50.0, 3.0])) == pytest.approx(np.diag([math.exp(-50), math.exp(3)]), rel=1e-10)


@pytest.mark.parametrize("speed, delta", [(0.5, 0.05), (1.0, 0.1), (2.0, 0.05), (3.0, 0.02)])
def test_linear_dynamic_bicycle_reaches_the_closed_form_steady_state(speed, delta):
    model = LinearDynamicBicycle(CAR, dt=0.002)
    model.command(speed, delta)
    model.advance(6.0)
    assert model.r == pytest.approx(steady_state_yaw_rate(CAR, speed, delta), rel=1e-6)
    assert model.side_slip == pytest.approx(steady_state_side_slip(CAR, speed, model.r), rel=1e-3, abs=1e-9)
    # oversteering car (b < a with equal stiffness): a little more yaw rate than the kinematic bicycle
    assert CAR.understeer_gradient < 0 and model.r > speed * delta / CAR.wheelbase


SHAPE_RUNS = [("line", {}, 10.0), ("parabola", {}, 6.0), ("circle", {}, 2 * 4 * math.pi),
              ("figure_eight", {"W": 0.3}, 2 * math.pi / 0.3), ("cycloid", {}, 4 * math.pi)]


@pytest.mark.parametrize("name, params, duration", SHAPE_RUNS, ids=[r[0] for r in SHAPE_RUNS])
def test_kinematic_controller_drives_the_kinematic_bicycle_along_every_shape(name, params, duration):
    """The seed's shapes as written (no ramp), the car at rest at the origin: final error < 1 cm."""
    shape = make_shape(name, **params)
    run = run_tracking(KinematicBicycle(0.325), TrajectoryTracker(shape, pl_distance=0.1),
                       KinematicController(0.325, 0.1, math.pi / 2), duration)
    assert not run.diverged and run.refused == 0
    assert run["error"][-1] < 0.01
    assert float(np.max(run.after(0.5 * duration)["error"])) < 0.01


def test_the_seeds_vehicle_heading_reference_leaves_the_closed_form_steady_error_on_a_circle():
    """P_ref along the yaw (the seed as written): e' = -Kp e + PL W (rotating), so |e| = PL W / sqrt(Kp^2 + W^2)."""
    shape = make_shape("circle", R=2.0, W=0.5)
    tracker = TrajectoryTracker(shape, pl_distance=0.1, reference_heading="vehicle")
    run = run_tracking(KinematicBicycle(0.325), tracker, KinematicController(0.325, 0.1, math.pi / 2), 40.0)
    steady = run.after(20.0)["error"]
    assert np.allclose(steady, 0.1 * 0.5 / math.hypot(5.0, 0.5), rtol=1e-9)


def test_dynamic_controller_drives_the_linear_tyre_bicycle_around_the_circle():
    shape = make_shape("circle", ramp_time=1.0, R=2.0, W=0.5)
    run = run_tracking(LinearDynamicBicycle(CAR), TrajectoryTracker(shape, pl_distance=0.1),
                       DynamicController(CAR, 0.1), 2 * 4 * math.pi + 1.0, cog_offset=CAR.b)
    assert run.rms_error(4 * math.pi + 1.0) < 0.005
    # the kinematic controller on the same model leaves the error its slip costs: larger
    kinematic = run_tracking(LinearDynamicBicycle(CAR), TrajectoryTracker(shape, pl_distance=0.1),
                             KinematicController(CAR.wheelbase, 0.1, CAR.max_steering_angle), 2 * 4 * math.pi + 1.0)
    assert kinematic.rms_error(4 * math.pi + 1.0) > run.rms_error(4 * math.pi + 1.0)
