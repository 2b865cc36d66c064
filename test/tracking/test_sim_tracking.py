"""The seed's car in the real simulator (worlds/seed002_car.world.xml, Pacejka tyres): tracking with the seed's
gains, ice against dry, the low-acceleration yaw rate against the kinematic bicycle, and the understeer gradient's
sign against the weight distribution."""

import math

import numpy as np
import pytest

from mvsim_ros.compare.experiments import constant_radius_test, fit_understeer, seed_car
from mvsim_ros.compare.scenarios import ConstantRadius
from mvsim_ros.physics import Simulation
from mvsim_ros.tracking.closed_loop import run_open_loop, run_tracking
from mvsim_ros.tracking.kinematic_controller import KinematicController
from mvsim_ros.tracking.plants import SimulationPlant
from mvsim_ros.tracking.seed_car import seed_car_world
from mvsim_ros.tracking.shapes import make_shape
from mvsim_ros.tracking.tracker import TrajectoryTracker
from mvsim_ros.tracking.vehicle_parameters import vehicle_geometry

EPSILON = 0.1


def track(surface: str, shape, laps: float = 2.0):
    """The tracker with the seed's defaults (Kp = 5, Ki = Kd = 0, feed-forward) and the kinematic controller on
    the simulated car; returns the run and one lap's duration."""
    world = seed_car_world(surface)
    params = vehicle_geometry(world).params
    controller = KinematicController(params.wheelbase, EPSILON, params.max_steering_angle)
    run = run_tracking(SimulationPlant(Simulation(world)), TrajectoryTracker(shape, pl_distance=EPSILON), controller,
                       laps * shape.period())
    return run, shape.period()


def test_the_car_tracks_the_circle_within_5_cm_after_the_first_lap():
    run, lap = track("dry", make_shape("circle", R=2.0, W=0.5))  # 1 m/s, the tracker node's defaults
    assert not run.diverged
    assert run.rms_error(lap) < 0.05
    steady = run.after(lap)
    assert np.allclose(np.hypot(steady["x"], steady["y"] - 2.0), 2.0, atol=0.05)  # the rear axle on the circle


def test_the_car_tracks_the_figure_eight_within_10_cm_after_the_first_lap():
    run, lap = track("dry", make_shape("figure_eight", a=3.0, W=0.5))
    assert not run.diverged
    assert run.rms_error(lap) < 0.10


def test_on_ice_the_error_grows():
    circle = make_shape("circle", R=2.0, W=0.5)
    dry, lap = track("dry", circle)
    ice, _ = track("ice", circle)
    assert ice.rms_error(lap) > 5.0 * dry.rms_error(lap)
    assert ice.rms_error(lap) > 0.01  # the car slides out by centimetres (peak friction 0.1)


@pytest.mark.parametrize("speed, delta", [(0.5, 0.1), (1.0, 0.1), (1.0, 0.2), (1.5, 0.05)])
def test_steady_yaw_rate_at_low_lateral_acceleration_is_the_kinematic_bicycles(speed, delta):
    world = seed_car_world("dry")
    wheelbase = vehicle_geometry(world).params.wheelbase
    plant = SimulationPlant(Simulation(world))
    run = run_open_loop(plant, lambda t: (speed, delta), 8.0)
    steady = run.after(6.0)
    v, r = float(np.mean(steady["vx"])), float(np.mean(steady["r"]))
    assert v == pytest.approx(speed, rel=0.01)
    assert v * r < 1.0  # low lateral acceleration [m/s^2]
    assert r == pytest.approx(v * math.tan(delta) / wheelbase, rel=0.02)


@pytest.mark.parametrize("front_fraction", [None, 0.62], ids=["seed car 45% front", "62% front"])
def test_understeer_gradient_has_the_sign_the_weight_distribution_predicts(front_fraction):
    """Equal tyre loads (MVSim) make C_f = C_r, so K = M / L (b / C_f - a / C_r) has the sign of b - a: the
    front-heavy car understeers (K > 0), the seed's car, 45 % on the front axle, oversteers (K < 0)."""
    car = seed_car("dry", front_fraction)
    params = car.geometry.params
    test = ConstantRadius(fractions=(0.05, 0.15, 0.3), settle_laps=0.7, min_settle=5.0, measure_laps=0.3)
    points = constant_radius_test(car, test)
    assert all(p.held for p in points)
    assert all(abs(p.radius - 2.0) < 0.02 for p in points)
    k_fit, intercept = fit_understeer(points, 0.35 * 9.81)
    assert intercept == pytest.approx(math.atan(params.wheelbase / 2.0), abs=0.003)  # L / R at zero a_y
    predicted = np.sign(params.b - params.a)
    assert np.sign(params.understeer_gradient) == predicted
    assert np.sign(k_fit) == predicted
    assert (front_fraction is None) == (k_fit < 0)
