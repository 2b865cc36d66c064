"""Run a Plan and write the report: PNG figures, metrics.csv and constant_radius.csv, and report.md linking them."""

from __future__ import annotations

import csv
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from mvsim_ros.compare import plots
from mvsim_ros.compare.experiments import (PLANTS, Car, RadiusPoint, constant_radius_test, fit_understeer, open_loop,
                                           seed_car, track_shape)
from mvsim_ros.compare.scenarios import CONTROL_PERIOD_S, EPSILON_M, GAINS, RAMP_TIME_S, Plan
from mvsim_ros.tracking.closed_loop import Run
from mvsim_ros.tracking.vehicle_parameters import simulated_cornering_stiffness

METRIC_FIELDS = ("section", "surface", "case", "plant", "metric", "value", "unit")
RADIUS_FIELDS = ("surface", "front_weight_fraction", "speed_mps", "yaw_rate_radps", "lateral_acceleration_mps2",
                 "steering_rad", "side_slip_rad", "radius_m", "held")


@dataclass
class Metrics:
    """Rows of metrics.csv."""

    rows: list[dict] = field(default_factory=list)

    def add(self, section: str, surface: str, case: str, plant: str, metric: str, value: float, unit: str) -> None:
        self.rows.append(dict(zip(METRIC_FIELDS, (section, surface, case, plant, metric, value, unit))))

    def get(self, section: str, surface: str, case: str, plant: str, metric: str) -> float:
        for row in self.rows:
            if (row["section"], row["surface"], row["case"], row["plant"], row["metric"]) == (
                    section, surface, case, plant, metric):
                return row["value"]
        return math.nan


@dataclass
class Understeer:
    """Constant-radius result of one car: points, fitted gradient and the model's predictions."""

    title: str
    surface: str
    car: Car
    points: list[RadiusPoint]
    k_fit: float
    intercept: float
    k_model: float
    k_effective: float

    @property
    def front_fraction(self) -> float:
        return self.car.geometry.params.front_weight_fraction

    @property
    def predicted_sign(self) -> int:
        """+1 understeer, -1 oversteer, 0 neutral: what the weight distribution predicts with the simulator's equal
        tyre loads (the sign of b - a)."""
        p = self.car.geometry.params
        return int(np.sign(round(p.b - p.a, 9)))

    def case(self) -> dict:
        return {"title": self.title, "points": self.points, "wheelbase": self.car.geometry.params.wheelbase,
                "K_fit": self.k_fit, "intercept": self.intercept, "K_model": self.k_model,
                "K_effective": self.k_effective}


def _steady(run: Run, seconds: float = 1.0) -> Run:
    return run.after(float(run["t"][-1]) - seconds)


def _fmt(value: float, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, float) and math.isinf(value):
        return "diverged"
    return f"{value:.{digits}g}" if abs(value) < 1e4 else f"{value:.3e}"


def understeer_of(car: Car, plan: Plan, title: str) -> Understeer:
    """The constant-radius test of a car and its gradients (fitted, nominal model, model with the simulator's
    effective stiffness at the fitted points' mean speed)."""
    test = plan.constant_radius
    points = constant_radius_test(car, test)
    limit = test.fit_fraction * car.peak_friction * float(car.world.gravity)
    k_fit, intercept = fit_understeer(points, limit)
    params = car.geometry.params
    fitted = [p.speed for p in points if p.held and p.lateral_acceleration <= limit] or [p.speed for p in points]
    speed = float(np.mean(fitted))
    geometry = car.geometry
    cf = simulated_cornering_stiffness(params.cf, geometry.slope_per_load, geometry.gravity, car.dt, speed)
    cr = simulated_cornering_stiffness(params.cr, geometry.slope_per_load, geometry.gravity, car.dt, speed)
    k_effective = params.mass / params.wheelbase * (params.b / cf - params.a / cr)
    return Understeer(title, car.surface, car, points, k_fit, intercept, params.understeer_gradient, k_effective)


def build_report(out: Path, plan: Plan, log: Callable[[str], None] = print) -> Path:
    """Run everything in `plan`, write the files into `out` (created), return the path of report.md."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    metrics = Metrics()
    cars = {surface: seed_car(surface) for surface in plan.surfaces}
    figures: dict[str, str] = {}

    tracking: dict[str, dict[str, dict[str, Run]]] = {}
    for surface, car in cars.items():
        tracking[surface] = {}
        for spec in plan.shapes:
            tracking[surface][spec.name] = {plant: track_shape(car, spec, plant) for plant in PLANTS}
            for plant, run in tracking[surface][spec.name].items():
                after = run.after(spec.settle)
                metrics.add("tracking", surface, spec.name, plant, "rms_error_after_settle", run.rms_error(spec.settle),
                            "m")
                metrics.add("tracking", surface, spec.name, plant, "max_error_after_settle",
                            math.inf if run.diverged else float(np.max(after["error"], initial=0.0)), "m")
        name = f"tracking_{surface}.png"
        plots.tracking_figure(out / name, surface, tracking[surface])
        figures[name] = name
        log(f"tracking on {surface}: done ({time.monotonic() - started:.0f} s)")

    step, ramp = plan.steer_step, plan.speed_ramp
    step_runs = {s: {p: open_loop(car, step, p) for p in PLANTS} for s, car in cars.items()}
    ramp_runs = {s: {p: open_loop(car, ramp, p) for p in PLANTS} for s, car in cars.items()}
    for surface, car in cars.items():
        wheelbase = car.geometry.params.wheelbase
        for plant, run in step_runs[surface].items():
            steady = _steady(run)
            v, r = float(np.mean(steady["vx"])), float(np.mean(steady["r"]))
            kinematic = v * math.tan(step.delta) / wheelbase
            metrics.add("steer_step", surface, f"delta={step.delta:g}", plant, "steady_yaw_rate", r, "rad/s")
            metrics.add("steer_step", surface, f"delta={step.delta:g}", plant, "yaw_rate_over_kinematic",
                        r / kinematic if kinematic else math.nan, "-")
            metrics.add("steer_step", surface, f"delta={step.delta:g}", plant, "steady_side_slip",
                        float(np.mean(steady["beta"])), "rad")
        for plant, run in ramp_runs[surface].items():
            for speed in (1.0, 2.0, 3.0):
                if run["vx"].size and run["vx"].max() >= speed:
                    k = int(np.argmax(run["vx"] >= speed))
                    metrics.add("speed_ramp", surface, f"delta={ramp.delta:g}", plant, f"yaw_rate_at_{speed:g}mps",
                                float(run["r"][k]), "rad/s")
    wheelbase = next(iter(cars.values())).geometry.params.wheelbase
    figures["steer_step.png"] = plots.step_figure(out / "steer_step.png", step_runs, step.t_step, step.delta,
                                                  wheelbase).name
    figures["speed_ramp.png"] = plots.ramp_figure(out / "speed_ramp.png", ramp_runs, ramp.delta, wheelbase).name
    log(f"open-loop runs: done ({time.monotonic() - started:.0f} s)")

    surface_cases = [understeer_of(car, plan, surface) for surface, car in cars.items()]
    dry = "dry" if "dry" in cars else next(iter(cars))
    seed_case = next(c for c in surface_cases if c.surface == dry)
    weight_cases = [Understeer(f"seed car, {seed_case.front_fraction:.0%} front", dry, seed_case.car,
                               seed_case.points, seed_case.k_fit, seed_case.intercept, seed_case.k_model,
                               seed_case.k_effective)]
    for fraction in plan.weight_fractions:
        weight_cases.append(understeer_of(seed_car(dry, fraction), plan, f"{fraction:.0%} front"))
    for case in surface_cases:
        case.title = f"{case.surface} ({case.front_fraction:.0%} front)"
    for group, cases in (("understeer_surface", surface_cases), ("understeer_weight", weight_cases)):
        for case in cases:
            label = f"front={case.front_fraction:.3f}"
            metrics.add(group, case.surface, label, "simulator", "understeer_gradient_fit", case.k_fit, "rad/(m/s^2)")
            metrics.add(group, case.surface, label, "dynamic", "understeer_gradient_nominal", case.k_model,
                        "rad/(m/s^2)")
            metrics.add(group, case.surface, label, "dynamic", "understeer_gradient_simulator_stiffness",
                        case.k_effective, "rad/(m/s^2)")
            metrics.add(group, case.surface, label, "-", "predicted_sign", case.predicted_sign, "-")
    radius = plan.constant_radius.radius
    figures["understeer.png"] = plots.understeer_figure(
        out / "understeer.png", [c.case() for c in surface_cases], radius,
        f"Constant radius R = {radius:g} m: steering against lateral acceleration").name
    figures["understeer_weight.png"] = plots.understeer_figure(
        out / "understeer_weight.png", [c.case() for c in weight_cases], radius,
        f"Weight distribution and understeer ({dry}, R = {radius:g} m)").name
    log(f"constant-radius tests: done ({time.monotonic() - started:.0f} s)")

    controllers = {}
    if plan.dynamic_controller:
        car = cars[dry]
        for spec in plan.shapes:
            run = track_shape(car, spec, "simulator", controller="dynamic")
            controllers[spec.name] = run.rms_error(spec.settle)
            metrics.add("controllers", dry, spec.name, "simulator", "rms_error_dynamic_controller",
                        controllers[spec.name], "m")
        log(f"dynamic controller: done ({time.monotonic() - started:.0f} s)")

    _write_csv(out / "metrics.csv", METRIC_FIELDS, metrics.rows)
    radius_rows = []
    for case in surface_cases + weight_cases[1:]:
        for p in case.points:
            radius_rows.append(dict(zip(RADIUS_FIELDS, (case.surface, round(case.front_fraction, 4), p.speed,
                                                        p.yaw_rate, p.lateral_acceleration, p.steering, p.side_slip,
                                                        p.radius, p.held))))
    _write_csv(out / "constant_radius.csv", RADIUS_FIELDS, radius_rows)
    text = _markdown(plan, cars, metrics, surface_cases, weight_cases, controllers, figures)
    path = out / "report.md"
    path.write_text(text, encoding="utf-8")
    log(f"report written to {path} ({time.monotonic() - started:.0f} s)")
    return path


def _write_csv(path: Path, fields: tuple[str, ...], rows: list[dict]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _markdown(plan: Plan, cars: dict[str, Car], metrics: Metrics, surface_cases: list[Understeer],
              weight_cases: list[Understeer], controllers: dict[str, float], figures: dict[str, str]) -> str:
    first = next(iter(cars.values()))
    p, g = first.geometry.params, first.geometry
    step, ramp, test = plan.steer_step, plan.speed_ramp, plan.constant_radius
    parts = [
        "# The 1/10-scale racecar: the simulator against the single-track model",
        "",
        "Generated by `python -m mvsim_ros.compare --out docs/compare` (mvsim_ros/compare; `--quick` for a short "
        "run). Numbers are in [metrics.csv](metrics.csv) and [constant_radius.csv](constant_radius.csv).",
        "",
        "## The car and the models",
        "",
        "The 1/10-scale racecar, `worlds/seed002_car.world.xml`, on the four Pacejka surfaces. "
        "Three plants get the same inputs:",
        "",
        "- **simulated car**: the mvsim_ros simulation (Box2D chassis, four Pacejka tyres with equal loads, "
        "front-wheel-drive speed PID, Ackermann steering), time step "
        f"{first.dt * 1e3:g} ms;",
        "- **kinematic bicycle**: no slip, yaw rate v tan(delta) / L;",
        "- **linear-tyre bicycle**: lateral and yaw dynamics with cornering stiffnesses C_f, C_r (speed follows "
        "the command at once).",
        "",
        "Single-track parameters read from the world (`mvsim_ros.tracking.vehicle_parameters`):",
        "",
        _table(["M [kg]", "a [m]", "b [m]", "L [m]", "I_z [kg m^2]", "front weight", "steering limit [deg]"],
               [[_fmt(p.mass), _fmt(p.a), _fmt(p.b), _fmt(p.wheelbase), _fmt(p.iz),
                 f"{p.front_weight_fraction:.1%}", _fmt(math.degrees(p.max_steering_angle))]]),
        "",
        _table(["surface", "C_f = C_r [N/rad]", "peak friction D", "K nominal [deg/(m/s^2)]"],
               [[s, _fmt(c.geometry.params.cf), _fmt(c.peak_friction),
                 _fmt(math.degrees(c.geometry.params.understeer_gradient))] for s, c in cars.items()]),
        "",
        f"Every closed-loop run uses the trajectory tracker (Kp = {GAINS.kp:g}, Ki = {GAINS.ki:g}, Kd = {GAINS.kd:g}, "
        f"feed-forward {'on' if GAINS.feed_forward else 'off'}, point P at epsilon = {EPSILON_M:g} m, reference "
        "heading from the trajectory) and the kinematic controller (exact linearization), sampled every "
        f"{CONTROL_PERIOD_S * 1e3:g} ms; the references start smoothly over {RAMP_TIME_S:g} s (same paths). "
        "The tracking error is the distance from the rear-axle point to the reference point.",
        "",
        "## Tracking the five shapes",
        "",
    ]
    header = ["surface", "shape"] + [f"{plant} RMS [m]" for plant in PLANTS]
    rows = []
    for surface in cars:
        for spec in plan.shapes:
            rows.append([surface, spec.name] + [_fmt(metrics.get("tracking", surface, spec.name, plant,
                                                                 "rms_error_after_settle")) for plant in PLANTS])
    parts += ["RMS error after the first lap (closed shapes) or the first half of the run (open ones):", "",
              _table(header, rows), ""]
    parts += [f"![tracking on {s}](tracking_{s}.png)" for s in cars if f"tracking_{s}.png" in figures]
    parts += [
        "",
        "The kinematic bicycle tracks every shape to within millimetres (the linearization is exact for it; what "
        "is left comes from holding each command for a sampling period); the linear-tyre model loses what its "
        "slip costs. The simulated car follows them on grippy surfaces; where a shape "
        "asks for more acceleration than the surface gives (snow, ice: peak friction 0.3 and 0.1), it slides off "
        "and the error grows, which no linear model shows.",
        "",
        "## Steering step",
        "",
        f"Straight at {step.speed:g} m/s, then a steering step of {step.delta:g} rad at t = {step.t_step:g} s. "
        "Steady yaw rate against the kinematic bicycle's v tan(delta) / L:",
        "",
    ]
    rows = []
    case = f"delta={step.delta:g}"
    for surface in cars:
        rows.append([surface] + [
            f"{_fmt(metrics.get('steer_step', surface, case, plant, 'steady_yaw_rate'))} "
            f"({_fmt(metrics.get('steer_step', surface, case, plant, 'yaw_rate_over_kinematic'), 4)})"
            for plant in PLANTS])
    parts += [_table(["surface"] + [f"{plant} yaw rate [rad/s] (ratio)" for plant in PLANTS], rows), "",
              "![steering step](steer_step.png)", "",
              "## Speed ramp", "",
              f"Steering held at {ramp.delta:g} rad, speed ramped from {ramp.v0:g} to {ramp.v1:g} m/s over "
              f"{ramp.ramp:g} s: the kinematic yaw rate grows linearly with speed; the tyres' slip bends it "
              "(slightly up for this oversteering car), and the simulated car's saturates once the surface's grip "
              "is used up.", "", "![speed ramp](speed_ramp.png)", ""]

    parts += [
        "## Steady-state cornering (ISO 4138, constant radius)",
        "",
        f"The tracker holds the rear axle on R = {test.radius:g} m at speeds giving lateral accelerations of "
        f"{', '.join(f'{f:g}' for f in test.fractions)} x D g; each point is averaged over the steady part. The "
        "understeer gradient K is the slope of the steering angle against the lateral acceleration "
        f"(fitted up to {test.fit_fraction:g} D g); K > 0 understeer, K < 0 oversteer. The linear-tyre model "
        "predicts K = M / L (b / C_f - a / C_r): with the simulator's equal tyre loads (C_f = C_r) its sign is "
        "the sign of b - a, i.e. front-heavy cars understeer.",
        "",
    ]
    rows = [[c.surface, f"{c.front_fraction:.1%}", _fmt(math.degrees(c.k_fit)), _fmt(math.degrees(c.k_model)),
             _fmt(math.degrees(c.k_effective)), {1: "understeer", -1: "oversteer", 0: "neutral"}[c.predicted_sign],
             _agrees(c)] for c in surface_cases]
    parts += [_table(["surface", "front weight", "K simulated [deg/(m/s^2)]", "K model, nominal C",
                      "K model, simulator's C", "predicted", "sign agrees"], rows), "",
              "![understeer per surface](understeer.png)", "",
              "### Weight distribution", "",
              "The same car with its chassis moved so that another share of the weight is on the front axle "
              f"({cars.get('dry', first).surface}):", ""]
    rows = [[c.title, f"{c.front_fraction:.1%}", _fmt(math.degrees(c.k_fit)), _fmt(math.degrees(c.k_model)),
             _fmt(math.degrees(c.k_effective)), {1: "understeer", -1: "oversteer", 0: "neutral"}[c.predicted_sign],
             _agrees(c)] for c in weight_cases]
    parts += [_table(["car", "front weight", "K simulated [deg/(m/s^2)]", "K model, nominal C",
                      "K model, simulator's C", "predicted", "sign agrees"], rows), "",
              "![weight distribution](understeer_weight.png)", ""]
    parts += [
        "At low lateral acceleration the simulated car turns as the kinematic bicycle does (yaw-rate ratio close "
        "to 1 in the steering-step table), and its understeer gradient has the sign the weight distribution "
        "predicts. Its magnitude differs from the nominal linear model's by up to about a quarter. One cause is "
        "the simulator's time stepping: its Pacejka kernel evaluates the lateral force at the end of each step "
        "(stable for stiff slip), which divides the cornering stiffness by 1 + B C D g dt / v at small slip "
        f"(x{1 + g.slope_per_load * g.gravity * first.dt / 1.0:.2f} at 1 m/s with dt = {first.dt * 1e3:g} ms; the "
        "'simulator's C' columns use that stiffness at the test's mean speed), which accounts for most of the "
        "difference where the car oversteers. The others are what the single track leaves out: two wheels per "
        "axle at Ackermann angles, the driven front wheels' traction, and the tyres' non-linearity within the "
        "fitted range; they show most where the car understeers, whose simulated gradient is below both "
        "predictions.",
        "",
    ]
    if controllers:
        rows = [[name, _fmt(metrics.get("tracking", "dry", name, "simulator", "rms_error_after_settle")),
                 _fmt(rms)] for name, rms in controllers.items()]
        parts += ["## Kinematic against dynamic controller", "",
                  "The simulated car on dry ground, tracked with either controller (the dynamic one with P at "
                  "epsilon along the velocity of the centre of gravity, which is then the tracked point):", "",
                  _table(["shape", "kinematic controller RMS [m]", "dynamic controller RMS [m]"], rows), ""]
    return "\n".join(parts) + "\n"


def _agrees(case: Understeer) -> str:
    if not math.isfinite(case.k_fit):
        return "n/a"
    return "yes" if int(np.sign(case.k_fit)) == case.predicted_sign else "no"


__all__ = ["build_report"]
