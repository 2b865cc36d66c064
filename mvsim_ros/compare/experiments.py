"""The runs of the comparison: one car (the racecar, on one surface, optionally with its weight moved), three plants
(the simulator, the kinematic and the linear-tyre single-track models) and the scenarios of scenarios.py."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mvsim_ros.compare.scenarios import (CONTROL_PERIOD_S, EPSILON_M, GAINS, RAMP_TIME_S, ConstantRadius, SpeedRamp,
                                         SteerStep, TrackedShape)
from mvsim_ros.physics import Simulation
from mvsim_ros.tracking.closed_loop import Run, run_open_loop, run_tracking
from mvsim_ros.tracking.dynamic_controller import DynamicController
from mvsim_ros.tracking.kinematic_controller import KinematicController
from mvsim_ros.tracking.plants import SimulationPlant
from mvsim_ros.tracking.seed_car import seed_car_world
from mvsim_ros.tracking.shapes import make_shape
from mvsim_ros.tracking.single_track import KinematicBicycle, LinearDynamicBicycle
from mvsim_ros.tracking.tracker import TrajectoryTracker
from mvsim_ros.tracking.vehicle_parameters import VehicleGeometry, vehicle_geometry
from mvsim_ros.world.specs import WorldSpec
from mvsim_ros.world.elements.vehicles import PACEJKA_SURFACES

#: The plants, in the order they are plotted.
PLANTS = ("simulator", "kinematic", "dynamic")


@dataclass(frozen=True)
class Car:
    """The racecar on a surface: its world, single-track geometry and the surface's peak friction D."""

    surface: str
    world: WorldSpec
    geometry: VehicleGeometry

    @property
    def peak_friction(self) -> float:
        """Pacejka D of the surface (peak force per unit load)."""
        return PACEJKA_SURFACES[self.surface][2]

    @property
    def dt(self) -> float:
        return float(self.world.timestep)


def seed_car(surface: str, front_fraction: float | None = None) -> Car:
    """The racecar on `surface`; front_fraction: move the chassis so that this share of the weight is on the
    front axle by statics (None: the car as built)."""
    world = seed_car_world(surface)
    if front_fraction is not None:
        world = seed_car_world(surface, chassis=chassis_for_front_fraction(world, front_fraction))
    return Car(surface, world, vehicle_geometry(world))


def chassis_for_front_fraction(world: WorldSpec, fraction: float) -> tuple[float, float]:
    """(rear x, front x) [m] of a chassis outline as long as the car's that puts its centre of gravity at
    fraction x wheelbase ahead of the rear axle (the outline's own centroid moves; the wheels stay)."""
    vehicle = world.vehicles[0]
    xs = [p[0] for p in vehicle.chassis.shape]
    length = max(xs) - min(xs)
    geometry = vehicle_geometry(world)
    wheel_mass = sum(w.mass for w in vehicle.wheels)
    wheel_moment = sum(w.mass * w.x for w in vehicle.wheels)
    target = geometry.rear_axle_x + fraction * geometry.params.wheelbase
    centre = (target * (vehicle.chassis.mass + wheel_mass) - wheel_moment) / vehicle.chassis.mass
    return centre - 0.5 * length, centre + 0.5 * length


def make_plant(kind: str, car: Car):
    """A fresh plant of `kind` (PLANTS) for the car, at rest at the origin."""
    params = car.geometry.params
    if kind == "simulator":
        return SimulationPlant(Simulation(car.world))
    if kind == "kinematic":
        return KinematicBicycle(params.wheelbase, params.max_steering_angle)
    if kind == "dynamic":
        return LinearDynamicBicycle(params, dt=car.dt)
    raise ValueError(f"unknown plant {kind!r}; valid: {', '.join(PLANTS)}")


def track_shape(car: Car, spec: TrackedShape, plant: str, controller: str = "kinematic") -> Run:
    """The tracker (default gains, epsilon, ramp) with the kinematic or dynamic controller driving a plant."""
    shape = make_shape(spec.name, ramp_time=RAMP_TIME_S, **spec.params)
    params = car.geometry.params
    tracker = TrajectoryTracker(shape, GAINS, EPSILON_M)
    if controller == "kinematic":
        control, offset = KinematicController(params.wheelbase, EPSILON_M, params.max_steering_angle), 0.0
    else:
        control, offset = DynamicController(params, EPSILON_M), car.geometry.cog_offset
    return run_tracking(make_plant(plant, car), tracker, control, spec.duration, CONTROL_PERIOD_S, offset)


def open_loop(car: Car, scenario: SteerStep | SpeedRamp, plant: str) -> Run:
    """A plant under the scenario's inputs."""
    return run_open_loop(make_plant(plant, car), scenario.inputs, scenario.duration, CONTROL_PERIOD_S,
                         car.geometry.cog_offset)


@dataclass(frozen=True)
class RadiusPoint:
    """One steady state of the constant-radius test: speed [m/s], yaw rate [rad/s], lateral acceleration
    a_y = v r [m/s^2], steering angle [rad], side slip at the centre of gravity [rad], radius actually driven
    [m], and whether the run stayed on the circle (error < 10 % of R)."""

    speed: float
    yaw_rate: float
    lateral_acceleration: float
    steering: float
    side_slip: float
    radius: float
    held: bool


def constant_radius_point(car: Car, test: ConstantRadius, speed: float) -> RadiusPoint:
    """Drive the simulated car on the test's circle at `speed` and average the steady state."""
    radius = test.radius
    spec = TrackedShape("circle", {"R": radius, "W": speed / radius})
    lap = 2.0 * math.pi * radius / speed
    settle = max(test.settle_laps * lap, test.min_settle) + RAMP_TIME_S
    run = track_shape(car, TrackedShape(spec.name, spec.params, settle + test.measure_laps * lap, settle),
                      "simulator")
    steady = run.after(settle)
    centre_x, centre_y = 0.0, radius
    driven = np.hypot(steady["x"] - centre_x, steady["y"] - centre_y)
    v, r = float(np.mean(steady["vx"])), float(np.mean(steady["r"]))
    held = (not run.diverged) and steady["t"].size > 0 and float(np.max(steady["error"])) < 0.1 * radius
    return RadiusPoint(v, r, v * r, float(np.mean(steady["steer_cmd"])), float(np.mean(steady["beta"])),
                       float(np.mean(driven)), bool(held))


def constant_radius_test(car: Car, test: ConstantRadius) -> list[RadiusPoint]:
    """The test's points for the car (speeds from the lateral-acceleration fractions of its surface's grip)."""
    g = float(car.world.gravity)
    points = []
    for fraction in test.fractions:
        speed = max(math.sqrt(fraction * car.peak_friction * g * test.radius), test.min_speed)
        points.append(constant_radius_point(car, test, speed))
    return points


def fit_understeer(points: list[RadiusPoint], limit: float) -> tuple[float, float]:
    """(K [rad per m/s^2], intercept [rad]) of the least-squares line steering = intercept + K a_y through the
    held points with a_y <= limit [m/s^2] (NaN when fewer than two)."""
    chosen = [p for p in points if p.held and p.lateral_acceleration <= limit]
    if len(chosen) < 2:
        return math.nan, math.nan
    a_y = np.array([p.lateral_acceleration for p in chosen])
    delta = np.array([p.steering for p in chosen])
    slope, intercept = np.polyfit(a_y, delta, 1)
    return float(slope), float(intercept)


__all__ = ["Car", "PLANTS", "RadiusPoint", "chassis_for_front_fraction", "constant_radius_point",
           "constant_radius_test", "fit_understeer", "make_plant", "open_loop", "seed_car", "track_shape"]
