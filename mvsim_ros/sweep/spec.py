"""A sweep file (YAML) and the runs it stands for.

    worlds: [worlds/demo_2robots.world.xml, worlds/office_yaml_map.world.xml]   # relative to the sweep file
    vehicle: r1                 # the driven vehicle (default: each world's first)
    seconds: 20.0               # simulated time per run [s]
    seeds: 3                    # seeds 0, 1, 2 (or a list: [7, 11])
    parameters:                 # every combination of the listed values
      world.WALL_H: [2.0, 3.0]            # a ${WALL_H} variable of the world file
      friction.mu: [0.4, 0.8]             # every vehicle's wheel-ground friction parameter
      controller.KP: [50, 100]            # every vehicle's controller parameter
      sensor.range_std_noise: [0.0, 0.02] # every vehicle sensor's parameter (where the sensor has it)
    program:                    # what drives the vehicle (one of)
      schedule: [[0, 0.5, 0.0], [4, 0.5, 0.4]]   # from t [s]: v [m/s], w [rad/s]
      # callable: my_package.drivers:drive       # f(sim, vehicle_index, t) -> (v, w), every control period
    control_period: 0.05        # [s] between commands and metric samples
    goal: [3.0, 2.0, 0.3]       # x, y [m], radius [m]: time_to_goal
    reference:                  # a path for path_error: {circle: [cx, cy, r]} or {polyline: [[x, y], ...]}
      circle: [0.0, 1.25, 1.25]

Each run is (world, parameter values, seed); its id hashes those and the program, so a sweep resumed later
recognises the runs it already has.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

#: Prefixes a parameter name may have, and what they set.
PARAMETER_KINDS = {"world": "a ${variable} of the world file", "friction": "every vehicle's friction parameter",
                   "controller": "every vehicle's controller parameter",
                   "sensor": "every vehicle sensor's parameter of that name"}


class SweepFileError(ValueError):
    """The sweep file is missing, not YAML, or does not describe a sweep (one line: file and what is wrong)."""


@dataclass(frozen=True)
class RunSpec:
    """One run: a world file, parameter values (name -> value), a seed, and the sweep's common settings."""

    world: str
    parameters: tuple[tuple[str, Any], ...]
    seed: int
    settings: dict = field(hash=False, compare=False)

    @property
    def run_id(self) -> str:
        """A stable id of the run (16 hex digits): world, parameters, seed and the settings that shape it."""
        key = json.dumps([self.world, list(self.parameters), self.seed, self.settings], sort_keys=True, default=str)
        return hashlib.sha256(key.encode()).hexdigest()[:16]


@dataclass
class SweepSpec:
    """A sweep file read and checked: its worlds (absolute paths), parameter grid, seeds and settings."""

    source: Path
    worlds: list[str]
    parameters: dict[str, list[Any]]
    seeds: list[int]
    settings: dict

    def runs(self) -> list[RunSpec]:
        """Every run of the sweep: worlds x parameter combinations x seeds, in that order."""
        names = sorted(self.parameters)
        grid = list(itertools.product(*(self.parameters[n] for n in names))) or [()]
        return [RunSpec(world, tuple(zip(names, values)), seed, self.settings)
                for world in self.worlds for values in grid for seed in self.seeds]


def _fail(path: Path, message: str) -> SweepFileError:
    return SweepFileError(f"{path}: {message}")


def load_sweep(path: str | Path) -> SweepSpec:
    """Read and check a sweep file; SweepFileError (one line) when it cannot be used."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise _fail(path, exc.strerror or str(exc)) from None
    except yaml.YAMLError as exc:
        raise _fail(path, f"not YAML: {' '.join(str(exc).split())}") from None
    if not isinstance(data, dict):
        raise _fail(path, "expected a mapping with worlds, parameters, seeds, program")
    known = {"worlds", "vehicle", "seconds", "seeds", "parameters", "program", "control_period", "goal", "reference"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise _fail(path, f"unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    worlds = data.get("worlds")
    if not isinstance(worlds, list) or not worlds or not all(isinstance(w, str) for w in worlds):
        raise _fail(path, "worlds: expected a list of world files")
    worlds = [str((path.parent / w).resolve()) if not Path(w).is_absolute() else w for w in worlds]
    parameters = data.get("parameters") or {}
    if not isinstance(parameters, dict):
        raise _fail(path, "parameters: expected a mapping of name -> list of values")
    for name, values in parameters.items():
        kind = str(name).partition(".")[0]
        if kind not in PARAMETER_KINDS or "." not in str(name):
            raise _fail(path, f"parameter {name!r}: expected <kind>.<name>, kind one of {', '.join(PARAMETER_KINDS)}")
        if not isinstance(values, list) or not values:
            raise _fail(path, f"parameter {name!r}: expected a non-empty list of values")
    seeds = data.get("seeds", 1)
    if isinstance(seeds, int) and not isinstance(seeds, bool) and seeds >= 1:
        seeds = list(range(seeds))
    if not isinstance(seeds, list) or not seeds or not all(isinstance(s, int) and s >= 0 for s in seeds):
        raise _fail(path, "seeds: expected a count >= 1 or a list of seeds >= 0")
    settings = _settings(path, data)
    return SweepSpec(path, worlds, {str(k): list(v) for k, v in parameters.items()}, seeds, settings)


def _number(path: Path, data: dict, key: str, default: float, low: float = 0.0) -> float:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > low:
        raise _fail(path, f"{key}: expected a number > {low:g}, got {value!r}")
    return float(value)


def _settings(path: Path, data: dict) -> dict:
    """What every run shares: vehicle, duration, control period, program, goal, reference path."""
    program = data.get("program") or {"schedule": [[0.0, 0.0, 0.0]]}
    if not isinstance(program, dict) or len(program) != 1 or next(iter(program)) not in ("schedule", "callable"):
        raise _fail(path, "program: expected one of {schedule: [[t, v, w], ...]} or {callable: module:function}")
    if "schedule" in program:
        rows = program["schedule"]
        if not isinstance(rows, list) or not rows or not all(
                isinstance(r, list) and len(r) == 3 and all(isinstance(x, (int, float)) for x in r) for r in rows):
            raise _fail(path, "program.schedule: expected a list of [t, v, w] rows")
    elif not isinstance(program["callable"], str) or ":" not in program["callable"]:
        raise _fail(path, "program.callable: expected 'module:function'")
    goal = data.get("goal")
    if goal is not None and (not isinstance(goal, list) or len(goal) != 3):
        raise _fail(path, "goal: expected [x, y, radius]")
    reference = data.get("reference")
    if reference is not None and (not isinstance(reference, dict) or set(reference) - {"circle", "polyline"}):
        raise _fail(path, "reference: expected {circle: [cx, cy, r]} or {polyline: [[x, y], ...]}")
    vehicle = data.get("vehicle")
    return {"vehicle": None if vehicle is None else str(vehicle), "seconds": _number(path, data, "seconds", 10.0),
            "control_period": _number(path, data, "control_period", 0.05), "program": program, "goal": goal,
            "reference": reference}
