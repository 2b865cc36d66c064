"""StepQueue: paused stepping runs exactly the steps asked for, in order, and stops on cancel or abort."""

from __future__ import annotations

import time

from mvsim_ros.runtime.step_queue import JobEnd, StepJob, StepQueue


def test_jobs_run_exactly_their_steps_in_order_with_progress():
    queue, ran, progress = StepQueue(), [], []
    first = queue.add(StepJob(3, lambda done, left: progress.append((done, left))))
    second = queue.add(StepJob(2))
    zero = queue.add(StepJob(0))
    assert zero.done() and zero.result().end is JobEnd.DONE
    assert queue.run(lambda: ran.append(1), deadline=time.monotonic() + 10.0) == 5
    assert len(ran) == 5 and len(queue) == 0
    assert first.result().end is JobEnd.DONE and first.result().completed == 3
    assert second.result().completed == 2
    assert progress[-1] == (3, 0)


def test_deadline_splits_a_job_and_cancel_ends_it_between_steps():
    queue, ran = StepQueue(), []
    cancel = {"now": False}
    future = queue.add(StepJob(10**9, cancel_requested=lambda: cancel["now"]))
    assert queue.run(lambda: ran.append(1), deadline=time.monotonic() - 1.0) == 1  # past deadline: one step
    assert not future.done()
    queue.run(lambda: ran.append(1), deadline=time.monotonic() + 10.0, stop=lambda: len(ran) >= 7)
    assert len(ran) == 7 and not future.done()
    cancel["now"] = True
    assert queue.run(lambda: ran.append(1), deadline=time.monotonic() + 10.0) == 0
    assert future.result().end is JobEnd.CANCELLED and future.result().completed == 7


def test_abort_all_ends_every_queued_job():
    queue = StepQueue()
    futures = [queue.add(StepJob(5)), queue.add(StepJob(6))]
    queue.abort_all("the simulation was reset")
    assert [f.result().end for f in futures] == [JobEnd.ABORTED, JobEnd.ABORTED]
    assert "reset after 0 of 5 steps" in futures[0].result().message
    assert len(queue) == 0
