"""One run of a sweep, in the calling process: build the world with the run's parameters and seed, drive the
vehicle by the program, and measure (no ROS).

Metrics of the driven vehicle, sampled every control period (SI units):
    path_length [m]            distance travelled (ground truth)
    final_x, final_y [m]       where it ended
    time_to_goal [s]           first time within the goal's radius (NaN: never, or no goal)
    collisions                 contacts begun (with walls, blocks or vehicles)
    energy [J]                 sum over its wheels of |drive torque x spin rate| x period
    min_obstacle_distance [m]  shortest range its 2D lidars measured, each at its own rate (NaN: no lidar)
    path_error_mean, path_error_max [m]   distance to the reference path (NaN: no reference)
A run that cannot be built or that diverges is a failed row: status 'failed' and the reason, metrics NaN.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

import numpy as np

from mvsim_ros.sweep.program import driver_of
from mvsim_ros.world import with_sensor_params
from mvsim_ros.sweep.spec import RunSpec

METRICS = ("path_length", "final_x", "final_y", "time_to_goal", "collisions", "energy", "min_obstacle_distance",
           "path_error_mean", "path_error_max")


def _with_parameters(world, parameters: list[tuple[str, Any]]):
    """The world spec with the friction, controller and sensor parameters of the run set on every vehicle."""
    vehicles = []
    for vehicle in world.vehicles:
        friction, controller, sensors = vehicle.friction, vehicle.controller, list(vehicle.sensors)
        for name, value in parameters:
            kind, _, key = name.partition(".")
            if kind == "friction":
                if key not in friction.params:
                    raise KeyError(f"friction parameter {key!r} of vehicle {vehicle.name!r} "
                                   f"(model {friction.model}; known: {', '.join(sorted(friction.params))})")
                friction = dataclasses.replace(friction, params={**friction.params, key: float(value)})
            elif kind == "controller":
                if key not in controller.params:
                    raise KeyError(f"controller parameter {key!r} of vehicle {vehicle.name!r} "
                                   f"({controller.kind}; known: {', '.join(sorted(controller.params))})")
                controller = dataclasses.replace(controller, params={**controller.params, key: float(value)})
            elif kind == "sensor":
                sensors = [with_sensor_params(s, {key: value}) if key in s.params else s for s in sensors]
        vehicles.append(dataclasses.replace(vehicle, friction=friction, controller=controller, sensors=sensors))
    return dataclasses.replace(world, vehicles=vehicles)


def _distance_to_path(x: float, y: float, reference: dict) -> float:
    """Distance [m] from (x, y) to a circle {circle: [cx, cy, r]} or a polyline {polyline: [[x, y], ...]}."""
    if "circle" in reference:
        cx, cy, r = reference["circle"]
        return abs(math.hypot(x - cx, y - cy) - r)
    points = np.asarray(reference["polyline"], dtype=float)
    a, b = points[:-1], points[1:]
    ab = b - a
    t = np.clip(((np.array([x, y]) - a) * ab).sum(axis=1) / np.maximum((ab * ab).sum(axis=1), 1e-12), 0.0, 1.0)
    nearest = a + t[:, None] * ab
    return float(np.min(np.hypot(nearest[:, 0] - x, nearest[:, 1] - y)))


def results_row(run: RunSpec, failure: BaseException | str | None = None) -> dict:
    """A results row of `run` before it is measured: run_id, world, `param:<name>` columns, seed, status ('ok', or
    'failed' with `failure` as its reason: an exception, or the reason itself), the METRICS (NaN), simulated and
    wall seconds (0)."""
    if failure is None or isinstance(failure, str):
        reason = failure or ""
    else:
        reason = f"{type(failure).__name__}: {' '.join(str(failure).split())}"[:500]
    return {"run_id": run.run_id, "world": run.world, "seed": run.seed,
            **{f"param:{k}": v for k, v in run.parameters}, "status": "ok" if failure is None else "failed",
            "reason": reason, **{m: math.nan for m in METRICS}, "sim_seconds": 0.0, "wall_seconds": 0.0}


def execute_run(run: RunSpec) -> dict:
    """The run's results row (results_row, measured). Never raises for a problem of the run itself (a failed row
    says what it was)."""
    row = results_row(run)
    start = time.perf_counter()
    try:
        _measure(run, row)
    except Exception as exc:  # noqa: BLE001 (a refused world, a diverged simulation, a driver error: a failed row)
        row = results_row(run, exc)
    row["wall_seconds"] = time.perf_counter() - start
    return row


def _measure(run: RunSpec, row: dict) -> None:
    """Build the run's world and drive its vehicle for the run's duration through the runtime Runner: the program's
    command every control period, the vehicle's 2D lidars measured by a SensorRunner on their own schedules; fills
    `row`'s metrics."""
    from mvsim_ros.physics import Simulation
    from mvsim_ros.runtime.runner import Runner
    from mvsim_ros.runtime.sensor_runner import SensorRunner
    from mvsim_ros.sensors.suite import Sensors, build_sensors
    from mvsim_ros.world import load_world

    settings, params = run.settings, list(run.parameters)
    variables = {k.partition(".")[2]: str(v) for k, v in params if k.startswith("world.")}
    world = _with_parameters(load_world(run.world, random_seed=run.seed, variables=variables), params)
    sim = Simulation(world, command_timeout=0.0)
    vehicle = 0 if settings["vehicle"] is None else sim.vehicle_index(settings["vehicle"])
    lidars = [lidar for lidar in build_sensors(world, seed=run.seed).lidars if lidar.vehicle == vehicle]
    nearest = _NearestRange()
    runner = Runner(sim, 0.0, [SensorRunner(sim, Sensors(lidars=lidars), on_measured=nearest.take)])
    wheels = np.flatnonzero(sim.wheels.vehicle == vehicle)
    drive, period = driver_of(settings["program"]), settings["control_period"]
    per_period = max(1, round(period / sim.dt))
    total = max(1, round(settings["seconds"] / sim.dt))
    goal, reference = settings["goal"], settings["reference"]
    x0, y0 = sim.pose[vehicle][:2]
    length = energy = 0.0
    collisions, touching, errors, reached = 0, False, [], math.nan
    sim.take_collisions()
    while sim.steps < total:
        v, w = drive(sim, vehicle, sim.time)
        sim.set_twist(vehicle, float(v), float(w))
        until = min(sim.steps + per_period, total)
        while sim.steps < until:  # batches up to each lidar sample, served in between
            runner.advance(until - sim.steps)
        x, y = (float(c) for c in sim.pose[vehicle][:2])
        length += math.hypot(x - x0, y - y0)
        x0, y0 = x, y
        energy += float(np.abs(sim.drive_torque[wheels] * sim.wheels.omega[wheels]).sum()) * per_period * sim.dt
        hit = bool(sim.take_collisions()[vehicle])
        collisions += hit and not touching
        touching = bool(sim.collision_now[vehicle])
        if goal is not None and math.isnan(reached) and math.hypot(x - goal[0], y - goal[1]) <= goal[2]:
            reached = sim.time
        if reference is not None:
            errors.append(_distance_to_path(x, y, reference))
    closest = nearest.range
    row.update(path_length=length, final_x=x0, final_y=y0, time_to_goal=reached, collisions=float(collisions),
               energy=energy, min_obstacle_distance=closest if lidars and math.isfinite(closest) else math.nan,
               sim_seconds=sim.time)
    if errors:
        row.update(path_error_mean=float(np.mean(errors)), path_error_max=float(np.max(errors)))


class _NearestRange:
    """The shortest finite range [m] of the 2D lidar scans handed to `take` (math.inf before any)."""

    def __init__(self) -> None:
        self.range = math.inf

    def take(self, measured) -> None:
        """Fold in the scans of one runtime.sensor_runner.Measured."""
        for _, ranges in measured.scans:
            finite = ranges[np.isfinite(ranges)]
            if finite.size:
                self.range = min(self.range, float(finite.min()))
