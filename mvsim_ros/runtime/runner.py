"""The one simulation loop: pacing, run state and the schedule of everything served on the simulated clock.

Every front end drives a Runner: the ROS node from its wall-clock timer, `mvsim_view` from its own thread, the
benchmarks in a plain loop. What a front end serves (publishers, sensors, log files, a viewer) enters as sinks: each
says when it is next due on the simulated clock (`next_due()`, seconds) and serves what is due at the simulation's
current time (`serve_due()`). The runner steps the simulation straight up to the earliest due instant, in one
batch (`Simulation.step_many`, or a front end's `stepper` that does the same and may serve some streams from inside
compiled steps), and then serves the sinks in the order they were given. Between two due instants no Python runs.

Run state: playing (stepping with the wall clock at the real-time factor, or as fast as possible at 0), paused (only
steps asked for run: page steps `step(n)` and step jobs with progress and completion, `step_queue`), and the
simulation may be swapped for another (`attach`, after a reset, a spawn or a deletion).
"""

from __future__ import annotations

import math
import time
from typing import Callable, Protocol, Sequence

from mvsim_ros.core.schedule import steps_until
from mvsim_ros.runtime.pacing import MAX_LAG_S, Pacer
from mvsim_ros.runtime.step_queue import StepQueue

#: Most steps run between two looks at the wall clock at a real-time factor of 0 (when nothing is due sooner),
#: so that a turn of the loop ends near its deadline.
MAX_BATCH_STEPS = 1000
#: Most page steps (`step(n)`) that may wait at once.
MAX_PENDING_STEPS = 10_000


class Sink(Protocol):
    """Something served on the simulated clock."""

    def next_due(self) -> float:
        """Simulated time [s] at which it is next due (math.inf: never)."""

    def serve_due(self) -> None:
        """Serve whatever is due at the simulation's current time."""


class CallbackSink:
    """A Sink made of two functions: `next_due() -> float` [s] and `serve() -> None`."""

    def __init__(self, next_due: Callable[[], float], serve: Callable[[], None]):
        self.next_due = next_due
        self.serve_due = serve


class Runner:
    """Runs `sim` (a physics Simulation) at `realtime_factor` (simulated s per wall s; 0 = as fast as possible),
    serving `sinks` whenever they are due.

    stepper: runs n steps as `sim.step_many(n)` does (default); a front end may give one that also serves streams
    from inside the steps, and may run fewer steps when it hands an instant back to Python.
    max_steps_per_turn: most steps one `run` takes (None: as many as are due), so that a front end that serves
    other things between turns (a stop request, a viewer) gets to them.
    """

    def __init__(self, sim, realtime_factor: float = 1.0, sinks: Sequence[Sink] = (),
                 stepper: Callable[[int], None] | None = None, max_lag_s: float = MAX_LAG_S,
                 max_steps_per_turn: int | None = None):
        self.pacer = Pacer(realtime_factor, max_lag_s)
        self.max_steps_per_turn = max_steps_per_turn
        #: The step count at which playing stops (None: never): a run of a fixed duration ends exactly there.
        self.end_step: int | None = None
        self.paused = False
        #: Page steps waiting (run while paused, one at a time, at most MAX_PENDING_STEPS).
        self.pending_steps = 0
        #: Step jobs waiting (run while paused, before the page steps).
        self.step_queue = StepQueue()
        self.attach(sim, sinks, stepper)

    # -- what runs ---------------------------------------------------------------------------------------------
    def attach(self, sim, sinks: Sequence[Sink] = (), stepper: Callable[[int], None] | None = None) -> None:
        """Run `sim` from now on, serving `sinks` (in this order); the pace restarts from its current time."""
        self.sim = sim
        self.sinks = list(sinks)
        self.stepper = stepper if stepper is not None else sim.step_many
        self.rebase()

    @property
    def realtime_factor(self) -> float:
        """Simulated seconds per wall second aimed at (0: as fast as possible)."""
        return self.pacer.realtime_factor

    def rebase(self, wall: float | None = None) -> None:
        """Pace from the current simulated time at wall time `wall` [s] (now when None): no catching up of the time
        spent paused or rebuilding."""
        self.pacer.anchor(time.monotonic() if wall is None else wall, self.sim.time)

    # -- run state ---------------------------------------------------------------------------------------------
    def pause(self) -> None:
        """Stop stepping with the wall clock (steps asked for still run)."""
        self.paused = True

    def play(self) -> None:
        """Step with the wall clock again from the current simulated time; waiting page steps are dropped."""
        if self.paused:
            self.paused = False
            self.pending_steps = 0
            self.rebase()

    def step(self, n: int, at_most: int = MAX_PENDING_STEPS) -> None:
        """Pause, then run `n` more steps (at most `at_most` waiting in all)."""
        self.paused = True
        self.pending_steps = min(at_most, self.pending_steps + max(0, int(n)))

    def take_pending(self, at_most: int) -> int:
        """Up to `at_most` of the waiting page steps, taken off the count."""
        n = min(self.pending_steps, max(0, at_most))
        self.pending_steps -= n
        return n

    # -- stepping ----------------------------------------------------------------------------------------------
    def next_due(self) -> float:
        """Simulated time [s] at which the earliest sink is next due (math.inf when none ever is)."""
        due = math.inf
        for sink in self.sinks:
            when = sink.next_due()
            if when < due:
                due = when
        return due

    def serve_due(self) -> None:
        """Serve every sink due at the current simulated time."""
        for sink in self.sinks:
            sink.serve_due()

    def step_once(self) -> None:
        """One step, then what it made due."""
        self.sim.step()
        self.serve_due()

    def advance(self, at_most: int) -> int:
        """Run up to `at_most` (>= 1) steps in one batch, stopping after the first step at which a sink is due, and
        serve the sinks. Returns the number of steps run (>= 1 unless the stepper handed back at once)."""
        sim = self.sim
        first = sim.steps
        self.stepper(min(at_most, steps_until(self.next_due(), first, sim.dt)))
        self.serve_due()
        return sim.steps - first

    def due_steps(self, wall: float) -> int:
        """Steps to run now at wall time `wall` [s], at most `max_steps_per_turn`: while paused, the waiting page
        steps (taken off the count); playing, those the pace asks for (at a real-time factor of 0, one batch:
        `max_steps_per_turn`, else MAX_BATCH_STEPS), never past `end_step`."""
        if self.paused:
            return self.take_pending(self.max_steps_per_turn or MAX_PENDING_STEPS)
        if self.pacer.as_fast_as_possible:
            due = self.max_steps_per_turn or MAX_BATCH_STEPS
        else:
            due = self.pacer.steps_due(wall, self.sim.time, self.sim.dt)
            due = due if self.max_steps_per_turn is None else min(due, self.max_steps_per_turn)
        return due if self.end_step is None else max(0, min(due, self.end_step - self.sim.steps))

    @property
    def finished(self) -> bool:
        """Whether playing has reached `end_step`."""
        return self.end_step is not None and self.sim.steps >= self.end_step

    def run(self, wall: float, deadline: float, should_stop: Callable[[], bool] = lambda: False,
            between: Callable[[], None] = lambda: None) -> int:
        """One turn of the loop at wall time `wall` [s]: the steps due by the run state and the pace, ending by wall
        time `deadline` [s] where the work is unbounded (paused steps, a real-time factor of 0) or when
        `should_stop()` says so. `between` is called after each batch (e.g. a viewer's service). Returns the number
        of steps run."""
        ran = 0
        if self.paused:
            ran = self.step_queue.run(self.step_once, deadline, stop=should_stop)
            pending = self.due_steps(wall)
            while pending and time.monotonic() < deadline and not should_stop():
                self.step_once()
                pending -= 1
                ran += 1
                between()
            self.pending_steps += pending  # what the deadline left waits for the next turn
            return ran
        if self.pacer.as_fast_as_possible:
            while time.monotonic() < deadline and not should_stop():
                due = self.due_steps(wall)
                if due <= 0:
                    break
                ran += self.advance(due)
                between()
            return ran
        remaining = self.due_steps(wall)
        while remaining > 0 and not should_stop():
            done = self.advance(remaining)
            if done <= 0:
                break
            ran += done
            remaining -= done
            between()
        return ran

    def sleep_time(self, wall: float, at_most: float) -> float:
        """Wall seconds [s] until the next step is due (at most `at_most`; `at_most` while paused with nothing to
        run)."""
        if self.paused:
            return 0.0 if self.pending_steps or len(self.step_queue) else at_most
        return self.pacer.sleep_time(wall, self.sim.time, self.sim.dt, at_most)
