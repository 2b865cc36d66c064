"""Stepping a paused simulation on request: a queue of step jobs that the node's loop timer works through.

A front end adds a job (the ROS node: for a StepSimulation call or a SimulateSteps goal, and awaits its future);
the runtime Runner, while the simulation is paused, runs the jobs' steps (each one a normal step: physics, logs,
publications) for up to one turn's worth of wall time, then returns so that the front end serves other work
(commands, other services, cancel requests). A job's future resolves to a JobOutcome once its last step is done,
or when it is cancelled or aborted. The future is any object with `done()`, `set_result()` and `result()`: a
`concurrent.futures.Future` by default, or one the front end's event loop can await (rclpy's `Future`).
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from enum import Enum
from typing import Callable

from concurrent.futures import Future


class JobEnd(Enum):
    """How a step job ended."""

    DONE = "done"
    CANCELLED = "cancelled"
    ABORTED = "aborted"


@dataclass(frozen=True)
class JobOutcome:
    """The end of a step job: how, the steps it completed, and why when it did not complete."""

    end: JobEnd
    completed: int
    message: str = ""


class StepJob:
    """`steps` steps to run; `progress(completed, remaining)` is called after each turn's share of them and at the
    end; `cancel_requested()` is asked before each step; `future` receives the JobOutcome (a new
    concurrent.futures.Future when None)."""

    def __init__(self, steps: int, progress: Callable[[int, int], None] | None = None,
                 cancel_requested: Callable[[], bool] | None = None, future=None):
        self.steps = int(steps)
        self.completed = 0
        self.progress = progress
        self.cancel_requested = cancel_requested
        self.future = future if future is not None else Future()

    def finish(self, end: JobEnd, message: str = "") -> None:
        """Resolve the future (once)."""
        if not self.future.done():
            self.future.set_result(JobOutcome(end, self.completed, message))


class StepQueue:
    """Step jobs, run first come first served."""

    def __init__(self) -> None:
        self._jobs: deque[StepJob] = deque()

    def __len__(self) -> int:
        return len(self._jobs)

    def add(self, job: StepJob):
        """Queue `job`; returns its future (a JobOutcome). A job of zero steps is done at once."""
        if job.steps <= 0:
            job.finish(JobEnd.DONE)
        else:
            self._jobs.append(job)
        return job.future

    def run(self, step: Callable[[], None], deadline: float, stop: Callable[[], bool] = lambda: False) -> int:
        """Run queued steps with `step()` until the queue is empty, the monotonic clock passes `deadline` [s] or
        `stop()` is true (checked between steps, at least one step is run when a job waits). Returns the number of
        steps run."""
        count = 0
        while self._jobs and not stop():
            job = self._jobs[0]
            if job.cancel_requested is not None and job.cancel_requested():
                self._jobs.popleft()
                self._report(job)
                job.finish(JobEnd.CANCELLED, f"cancelled after {job.completed} of {job.steps} steps")
                continue
            step()
            count += 1
            job.completed += 1
            if job.completed >= job.steps:
                self._jobs.popleft()
                self._report(job)
                job.finish(JobEnd.DONE)
            elif time.monotonic() >= deadline:
                self._report(job)
                break
        return count

    def abort_all(self, reason: str) -> None:
        """End every queued job now (e.g. the simulation was played, reset or is quitting)."""
        while self._jobs:
            job = self._jobs.popleft()
            job.finish(JobEnd.ABORTED, f"{reason} after {job.completed} of {job.steps} steps")

    @staticmethod
    def _report(job: StepJob) -> None:
        if job.progress is not None:
            job.progress(job.completed, job.steps - job.completed)


__all__ = ["JobEnd", "JobOutcome", "StepJob", "StepQueue"]
