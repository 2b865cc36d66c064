"""What ends the node's run by itself (mvsim_ros/runtime/run_end.py), on a plain Simulation and Runner: the step of
`stop_after`, and the instant `stop_when_idle` finds the vehicles left alone (the node over DDS:
test_run_end_dds.py)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from mvsim_ros.physics import Simulation
from mvsim_ros.runtime.run_end import IDLE_CHECK_PERIOD_S, IdleWatch, end_step, quiet_time
from mvsim_ros.runtime.runner import Runner
from mvsim_ros.world import load_world

WORLD = Path(__file__).resolve().parents[2] / "worlds" / "demo_2robots.world.xml"


def test_end_step_is_the_first_step_at_or_past_the_duration():
    assert end_step(0.0, 0.005) is None
    assert end_step(20.0, 0.005) == 4000 and end_step(20.0, 0.01) == 2000
    assert end_step(0.0001, 0.005) == 1
    assert end_step(20.002, 0.005) == 4001
    assert quiet_time(1.0) == 1.0 and quiet_time(0.0) == 1.0 and quiet_time(0.3) == 0.3


def idle_run(command_at: float | None, factor: float = 0.0):
    """A runner on the demo world with an IdleWatch that ends playing where it fires; r1 gets one twist at
    `command_at` [s] (None: never). Returns (sim, runner, the times the watch fired at)."""
    sim = Simulation(load_world(WORLD), command_timeout=1.0)
    fired = []

    def on_idle():
        fired.append(sim.time)
        runner.end_step = sim.steps

    runner = Runner(sim, factor, [IdleWatch(sim, quiet_time(1.0), on_idle)])
    if command_at is not None:
        sim.step_many(round(command_at / sim.dt))
        sim.set_twist(0, 0.5, 0.2)
        runner.rebase()
    return sim, runner, fired


def test_parked_vehicles_never_commanded_do_not_end_the_run():
    sim, runner, fired = idle_run(None)
    runner.end_step = 6000  # 30 s
    runner.run(0.0, time.monotonic() + 60)
    assert sim.time == pytest.approx(30.0) and fired == []


@pytest.mark.parametrize("factor", [0.0, 1000.0])
def test_the_run_ends_at_the_first_check_with_every_vehicle_at_rest(factor):
    sim, runner, fired = idle_run(2.0, factor)
    deadline = time.monotonic() + 60
    while not runner.finished and time.monotonic() < deadline:
        runner.run(time.monotonic(), deadline, should_stop=lambda: runner.finished)
    assert runner.finished and len(fired) == 1
    # No command since 2 s; r1 driven until the watchdog stopped it (after 3 s); the end is one of the checks at
    # 3.0, 3.1, 3.2, ... s of simulated time, the first with both robots at rest.
    assert sim.time == fired[0]
    checks = (sim.time - 3.0) / IDLE_CHECK_PERIOD_S
    assert 1 <= checks <= 10 and checks == pytest.approx(round(checks), abs=1e-6)
    assert abs(sim.velocity).max() < 1e-3
    assert abs(sim.pose[0, 0] - load_world(WORLD).vehicles[0].init_pose.x) > 0.1
