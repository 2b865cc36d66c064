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
    run_timeout: 600            # [s] of wall time a run may take before it fails as timed out

A world not found relative to the sweep file is looked for where the simulator node looks for world files (the
current directory, then the package's worlds: mvsim_ros.world.files.world_path).

Each run is (world, parameter values, seed); its id hashes those and the program, so a sweep resumed later
recognises the runs it already has (run_timeout is not part of it). The file is read within the budgets of
`safe_yaml`, and a sweep of more than MAX_RUNS runs is refused before any run is built (the count is the product of
the numbers of worlds, of each parameter's values and of seeds).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mvsim_ros.sweep.errors import SweepError
from mvsim_ros.sweep.safe_yaml import YamlBudgetError, read_yaml
from mvsim_ros.world import WorldFileError
from mvsim_ros.world.files.world_path import resolve_world_path

#: Prefixes a parameter name may have, and what they set.
PARAMETER_KINDS = {"world": "a ${variable} of the world file", "friction": "every vehicle's friction parameter",
                   "controller": "every vehicle's controller parameter",
                   "sensor": "every vehicle sensor's parameter of that name"}
#: Most runs a sweep may have (worlds x parameter combinations x seeds); `mvsim_sweep --max-runs` changes it.
MAX_RUNS = 100_000
#: Default wall-time limit of one run [s].
DEFAULT_RUN_TIMEOUT = 600.0
#: Seeds and integer parameter values fit a signed 64-bit integer (a Parquet column).
_INT_LIMIT = 1 << 63
#: The sweep file's keys.
KEYS = ("worlds", "vehicle", "seconds", "seeds", "parameters", "program", "control_period", "goal", "reference",
        "run_timeout")


class SweepFileError(SweepError, ValueError):
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
    run_timeout: float = DEFAULT_RUN_TIMEOUT  # [s] of wall time per run
    max_runs: int = MAX_RUNS

    def run_count(self) -> int:
        """The number of runs, computed from the axes' lengths (no run is built)."""
        return len(self.worlds) * math.prod(len(v) for v in self.parameters.values()) * len(self.seeds)

    def runs(self) -> list[RunSpec]:
        """Every run of the sweep: worlds x parameter combinations x seeds, in that order; SweepFileError when
        there are more than `max_runs`."""
        _check_count(self.source, self.run_count(), self.max_runs)
        names = sorted(self.parameters)
        grid = list(itertools.product(*(self.parameters[n] for n in names))) or [()]
        return [RunSpec(world, tuple(zip(names, values)), seed, self.settings)
                for world in self.worlds for values in grid for seed in self.seeds]


def _fail(path: Path, message: str) -> SweepFileError:
    return SweepFileError(f"{path}: {message}")


def _check_count(path: Path, count: int, limit: int) -> None:
    if count > limit:
        raise _fail(path, f"{count} runs (worlds x parameter values x seeds), over the limit of {limit} runs")


def _read(path: Path) -> dict:
    """The file's YAML mapping (SweepFileError when unreadable, over a budget, not YAML or not a mapping)."""
    try:
        data = read_yaml(path)
    except OSError as exc:
        raise _fail(path, exc.strerror or str(exc)) from None
    except YamlBudgetError as exc:
        raise _fail(path, f"refused: {exc}") from None
    except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError) as exc:
        raise _fail(path, f"not YAML: {' '.join(str(exc).split())}"[:300]) from None
    if not isinstance(data, dict):
        raise _fail(path, "expected a mapping with worlds, parameters, seeds, program")
    unknown = sorted(str(k) for k in set(data) - set(KEYS))
    if unknown:
        raise _fail(path, f"unknown key(s) {', '.join(unknown)[:200]} (known: {', '.join(sorted(KEYS))})")
    return data


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -_INT_LIMIT < value < _INT_LIMIT


def _is_path(value: Any) -> bool:
    return isinstance(value, str) and value != "" and "\0" not in value


def _check_values(path: Path, name: str, values: Any) -> None:
    """A parameter's values: a non-empty list of numbers, of strings or of booleans (one Parquet column)."""
    if not isinstance(values, list) or not values:
        raise _fail(path, f"parameter {name!r}: expected a non-empty list of values")
    kinds = {"number" if isinstance(v, float) or _is_int(v) else "boolean" if isinstance(v, bool)
             else "string" if isinstance(v, str) else "other" for v in values}
    if len(kinds) != 1 or "other" in kinds:
        raise _fail(path, f"parameter {name!r}: expected a list of numbers, of strings or of booleans")


def load_sweep(path: str | Path, max_runs: int = MAX_RUNS) -> SweepSpec:
    """Read and check a sweep file; SweepFileError (one line) when it cannot be used or has more than `max_runs`
    runs."""
    path = Path(path)
    data = _read(path)
    worlds = data.get("worlds")
    if not isinstance(worlds, list) or not worlds or not all(_is_path(w) for w in worlds):
        raise _fail(path, "worlds: expected a list of world files")
    parameters = data.get("parameters") or {}
    if not isinstance(parameters, dict):
        raise _fail(path, "parameters: expected a mapping of name -> list of values")
    for name, values in parameters.items():
        kind = str(name).partition(".")[0]
        if kind not in PARAMETER_KINDS or "." not in str(name):
            raise _fail(path, f"parameter {str(name)[:100]!r}: expected <kind>.<name>, kind one of "
                              f"{', '.join(PARAMETER_KINDS)}")
        _check_values(path, str(name), values)
    seeds = data.get("seeds", 1)
    if not (_is_int(seeds) and seeds >= 1) and not (isinstance(seeds, list) and seeds and all(
            _is_int(s) and s >= 0 for s in seeds)):
        raise _fail(path, "seeds: expected a count >= 1 or a list of seeds >= 0 (below 2**63)")
    seed_count = seeds if isinstance(seeds, int) else len(seeds)
    _check_count(path, len(worlds) * math.prod(len(v) for v in parameters.values()) * seed_count, max_runs)
    worlds = [_world_file(path, w) for w in worlds]
    settings = _settings(path, data)
    return SweepSpec(path, worlds, {str(k): list(v) for k, v in parameters.items()},
                     list(range(seeds)) if isinstance(seeds, int) else seeds, settings,
                     _number(path, data, "run_timeout", DEFAULT_RUN_TIMEOUT), max_runs)


def _world_file(path: Path, name: str) -> str:
    """The absolute path of a world the sweep file `path` names: relative to the sweep file's folder; a name not
    found there is looked for as the simulator node looks for world files (mvsim_ros.world.files.world_path: the
    current directory, then the package's worlds); one found nowhere stays relative to the sweep file, and its runs
    fail saying so."""
    beside = Path(name) if Path(name).is_absolute() else (path.parent / name).resolve()
    if beside.exists():
        return str(beside)
    try:
        return str(resolve_world_path(name))
    except WorldFileError:
        return str(beside)


def _number(path: Path, data: dict, key: str, default: float, low: float = 0.0) -> float:
    """The finite number > `low` under `key` (`default` when absent)."""
    value = data.get(key, default)
    try:
        number = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
    except OverflowError:
        number = math.inf
    if not (math.isfinite(number) and number > low):
        raise _fail(path, f"{key}: expected a finite number > {low:g}, got {repr(value)[:40]}")
    return number


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
