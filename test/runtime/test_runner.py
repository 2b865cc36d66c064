"""The runtime Runner: pacing to a real-time factor, run state, and sinks served exactly at their due instants."""

import math

import pytest

from conftest import robot_world_xml

from mvsim_ros.core.schedule import Periodic
from mvsim_ros.physics import Simulation
from mvsim_ros.runtime.pacing import Pacer, RateMeter
from mvsim_ros.runtime.runner import MAX_BATCH_STEPS, CallbackSink, Runner
from mvsim_ros.world import load_world_string


@pytest.fixture
def sim():
    return Simulation(load_world_string(robot_world_xml()))


class Recorder:
    """A sink due every `period` [s] of simulated time that records when it was served."""

    def __init__(self, sim, period):
        self.sim = sim
        self.schedule = Periodic(period)
        self.served = []

    def next_due(self):
        return self.schedule.next_time

    def serve_due(self):
        if self.schedule.due(self.sim.time):
            self.served.append(round(self.sim.time, 9))


def test_pacer_steps_due_is_the_wall_time_times_the_factor_over_dt():
    pacer = Pacer(2.0)
    pacer.anchor(100.0, 0.0)
    # 0.1 s of wall time at 2x: 0.2 s of simulated time = 40 steps of 5 ms
    assert pacer.steps_due(100.1, 0.0, 0.005) == 40
    # half a step rounds to the nearest step, as stepping one at a time would run them
    assert pacer.steps_due(100.1 + 0.0012, 0.0, 0.005) == 40
    assert pacer.steps_due(100.1 + 0.0013, 0.0, 0.005) == 41
    assert pacer.steps_due(100.1, 0.2, 0.005) == 0


def test_pacer_catches_up_at_most_the_lag_then_slips():
    pacer = Pacer(1.0, max_lag_s=0.25)
    pacer.anchor(0.0, 0.0)
    assert pacer.steps_due(10.0, 0.0, 0.005) == 50  # 10 s behind: only 0.25 s of backlog (50 steps) is kept
    assert pacer.steps_due(10.0, 0.25, 0.005) == 0  # and after those, the simulation is where the pace says
    assert pacer.sleep_time(10.0, 0.25, 0.005, at_most=1.0) == pytest.approx(0.005)


def test_rate_meter_measures_simulated_over_wall_time():
    meter = RateMeter(window_s=1.0)
    meter.restart(0.0, 0.0)
    assert meter.update(0.5, 3.0) == 0.0  # the window is not over yet
    assert meter.update(2.0, 3.0) == pytest.approx(1.5)
    assert meter.update(3.0, 3.0, running=False) == 0.0


def test_sinks_are_served_exactly_at_their_due_instants_in_batches(sim):
    fast, slow = Recorder(sim, 0.02), Recorder(sim, 0.05)
    batches = []

    def stepper(n):
        batches.append(n)
        sim.step_many(n)

    runner = Runner(sim, 0.0, [fast, slow], stepper=stepper)
    for _ in range(12):
        runner.advance(1000)
    # Periodic work is due at t = 0: the first step serves it; then each on its own grid.
    assert fast.served == pytest.approx([0.005, 0.02, 0.04, 0.06, 0.08, 0.1, 0.12, 0.14, 0.16, 0.18])
    assert slow.served == pytest.approx([0.005, 0.05, 0.1, 0.15])
    # each batch ran straight up to the next instant something was due, and no further
    ends = [round(sum(batches[:k + 1]) * sim.dt, 9) for k in range(len(batches))]
    assert ends == sorted(set(fast.served) | set(slow.served))


def test_as_fast_as_possible_runs_until_the_deadline_and_stops_on_request(sim):
    runner = Runner(sim, 0.0)
    calls = []

    def stop():
        calls.append(sim.steps)
        return len(calls) > 3

    ran = runner.run(0.0, math.inf, should_stop=stop)
    assert ran == sim.steps == 3 * MAX_BATCH_STEPS  # whole batches (no sink is ever due), checked between them


@pytest.mark.parametrize("factor", [0.0, 1.0])
def test_playing_stops_exactly_at_the_end_step(sim, factor):
    runner = Runner(sim, factor, [Recorder(sim, 0.02)], max_lag_s=1e9)
    runner.rebase(wall=0.0)
    runner.end_step = 1234
    assert not runner.finished
    runner.run(1e6, math.inf)  # a wall clock far ahead: far more steps due than the end allows
    assert sim.steps == 1234 and runner.finished
    assert runner.run(2e6, math.inf) == 0 and sim.steps == 1234


def test_paced_run_takes_the_steps_the_wall_clock_asks_for(sim):
    runner = Runner(sim, 1.0)
    runner.rebase(wall=50.0)
    assert runner.run(50.1, 50.1) == 20  # 0.1 s at 1x, 5 ms steps
    assert sim.time == pytest.approx(0.1)
    assert runner.run(50.1, 50.1) == 0


def test_pause_step_and_play(sim):
    runner = Runner(sim, 1.0, max_steps_per_turn=200)
    runner.step(3)
    assert runner.paused and runner.pending_steps == 3
    assert runner.run(0.0, math.inf) == 3 and sim.steps == 3 and runner.pending_steps == 0
    assert runner.run(1e6, math.inf) == 0  # paused: the wall clock moves nothing
    runner.step(500)
    assert runner.due_steps(0.0) == 200 and runner.pending_steps == 300  # one turn's worth at a time
    runner.play()
    assert not runner.paused and runner.pending_steps == 0


def test_attach_swaps_the_simulation_and_its_sinks(sim):
    first = Recorder(sim, 0.01)
    runner = Runner(sim, 0.0, [first])
    runner.advance(10)
    other = Simulation(sim.spec)
    second = Recorder(other, 0.01)
    runner.attach(other, [second])
    runner.advance(10)
    assert other.steps == 1 and sim.steps == 1 and second.served == [0.005]
    assert first.served == [0.005]


def test_callback_sink_serves_through_its_functions(sim):
    served = []
    runner = Runner(sim, 0.0, [CallbackSink(lambda: 0.03, lambda: served.append(sim.time))])
    runner.advance(100)
    assert sim.time == pytest.approx(0.03) and served == [pytest.approx(0.03)]
