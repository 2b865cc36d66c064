"""Where the microseconds of one simulation step go, at 1 and 50 differential robots (worlds/bench/): prints markdown
tables for the README.

Columns: `step()` with pybox2d's Python API for the bodies (how every step ran before the Box2D shim), `step()`
with the shim, and `step_many` (all phases in one compiled call). For `step()` each phase's functions are wrapped
with a timer (their call overhead included) and "Python between phases" is the rest of that wrapped step's time
(the ~13 wrappers add about 2 us to it), so the rows add up to the total; the unwrapped step's own best time is
given below it, timed in other loops; `step_many` runs as one compiled call,
so only Box2D's own step (the same C++ code, timed alone on the same world) is split off. Each figure is the best
of several timed loops (least disturbed by other load); the machine's noise is still +-10-20 %.

    .venv/bin/python tools/profile_step.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path

from mvsim_ros.physics import Simulation, box2d_native, simulation as simulation_module
from mvsim_ros.world import load_world

WORLDS = Path(__file__).resolve().parents[1] / "worlds" / "bench"


def best_us(action, count: int, repeat: int) -> float:
    """Best time [us] per call of `action` over `repeat` loops of `count` calls."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(count):
            action()
        best = min(best, (time.perf_counter() - start) / count)
    return best * 1e6


def simulation(robots: int, box2d_shim: bool = True) -> Simulation:
    sim = Simulation(load_world(WORLDS / f"differential_{robots}.world.xml"), box2d_shim=box2d_shim)
    for k in range(robots):
        sim.set_twist(k, 0.5, 0.0)
    sim.step_many(100)
    return sim


#: Phase of step() -> the functions it calls (module-level names in simulation.py, or Simulation methods).
PHASES = {
    "1-2. commands, steering, controllers": ["apply_watchdog", "wheel_setpoints", "torque_law"],
    "3. wheel contact velocities": ["contact_velocities"],
    "4. friction, motor torques": ["_solve_wheels", "applied_torque"],
    "5. body wrenches, push to Box2D": ["body_wrenches", "_push_wrenches"],
    "6. Box2D step (b2World::Step)": ["_step_box2d"],
    "7. read bodies, spin angles, odometry": ["_read_bodies", "advance_spin_angles",
                                              "integrate_differential_odometry"],
}


def phase_times(sim: Simulation, steps: int, repeat: int) -> dict[str, float]:
    """Best-of-`repeat` time [us per step] of each phase of `steps` step() calls, its functions wrapped."""
    spent: dict[str, float] = defaultdict(float)
    originals = []

    def timed(name, function):
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - start
        return wrapper

    targets = {"apply_watchdog": sim.commands, "torque_law": sim.controllers, "_solve_wheels": sim,
               "_push_wrenches": sim, "_step_box2d": sim, "_read_bodies": sim}
    for names in PHASES.values():
        for name in names:
            owner = targets.get(name, simulation_module)
            originals.append((owner, name, getattr(owner, name), owner is simulation_module))
            setattr(owner, name, timed(name, getattr(owner, name)))
    best: dict[str, float] = {}
    best_loop = float("inf")
    try:
        for _ in range(repeat):
            spent.clear()
            start = time.perf_counter()
            for _ in range(steps):
                sim.step()
            loop = time.perf_counter() - start
            if loop < best_loop:  # the least disturbed run gives every figure, so that they add up
                best_loop = loop
                best = {phase: sum(spent[n] for n in names) / steps * 1e6 for phase, names in PHASES.items()}
                best["Python between phases"] = loop / steps * 1e6 - sum(best.values())
    finally:
        for owner, name, original, module_level in originals:
            if module_level:
                setattr(owner, name, original)
            else:
                delattr(owner, name)  # the instance attribute goes; the class's method shows again
    return best


def profile(robots: int, repeat: int) -> dict[str, tuple[float, float, float | None]]:
    """{row: (step() with pybox2d, step() with the shim, step_many)} [us per step]."""
    columns = []
    for shim in (False, True):
        sim = simulation(robots, box2d_shim=shim)
        phases = phase_times(sim, 300, repeat)
        total = best_us(sim.step, 300, repeat)
        columns.append((phases, total))
    box2d = best_us(lambda: sim.box2d.world.Step(sim.dt, sim.spec.b2d_vel_iters, sim.spec.b2d_pos_iters), 300,
                    repeat)
    many = best_us(lambda: sim.step_many(300), 1, repeat) / 300
    table: dict[str, tuple[float, float, float | None]] = {}
    for phase in PHASES:
        compiled = box2d if phase.startswith("6.") else None
        table[phase] = (columns[0][0][phase], columns[1][0][phase], compiled)
    table["all phases but Box2D's step, compiled"] = (None, None, many - box2d)
    table["Python between phases"] = (columns[0][0]["Python between phases"], columns[1][0]["Python between phases"],
                                      0.0)
    table["**total per step**"] = (sum(columns[0][0].values()), sum(columns[1][0].values()), many)
    table["(step() without the timers)"] = (columns[0][1], columns[1][1], None)
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    if not box2d_native.AVAILABLE:
        raise SystemExit(box2d_native.UNAVAILABLE_REASON)
    for robots in (1, 50):
        table = profile(robots, args.repeat)
        print(f"\n| {robots} robot{'s' if robots > 1 else ''}, us per step | step(), pybox2d | step(), shim | "
              "step_many |\n|---|---|---|---|")
        for row, values in table.items():
            cells = " | ".join("" if v is None else f"{v:.1f}" for v in values)
            print(f"| {row} | {cells} |")


if __name__ == "__main__":
    main()
