"""Simulated time on `/clock` (rosgraph_msgs/Clock), at its own rate of simulated time."""

from __future__ import annotations

import numpy as np
from rosgraph_msgs.msg import Clock

from mvsim_ros.core.schedule import Periodic
from mvsim_ros.physics import Simulation
from mvsim_ros.ros.publishing.batch_publisher import BatchPublisher
from mvsim_ros.ros.publishing.conversions import Stamps, sim_time_msg
from mvsim_ros.ros.publishing.outlet import Outlets
from mvsim_ros.ros.publishing.serialized import SerializedBatch
from mvsim_ros.ros.qos import reliable
from mvsim_ros.runtime.fast_path.sinks import ClockSink


class ClockStream:
    """/clock at `rate_hz` [Hz of simulated time] (reliable), serialized once and only its stamp rewritten; a
    time already sent is not sent again."""

    def __init__(self, outlets: Outlets, sim: Simulation, rate_hz: float, stamps: Stamps):
        self.sim = sim
        self.stamps = stamps
        self.outlet = outlets.create(Clock, "/clock", reliable())
        #: When /clock is next due.
        self.schedule = Periodic.at_rate(rate_hz)
        #: The serialized message (one row), what the compiled fast path writes too.
        self.message = SerializedBatch(Clock(clock=sim_time_msg(0.0)), ["clock.sec", "clock.nanosec"], 1)
        self._values = np.zeros((1, 2))
        #: The simulated time [s] last sent (None before the first).
        self.published: float | None = None
        #: The message as the compiled fast path delivers it (made by `compiled_sink`, kept for as long as the
        #: compiled code may deliver through it).
        self._batch: BatchPublisher | None = None

    def publish_due(self) -> None:
        """/clock if due at the simulation's current time."""
        if self.schedule.due(self.sim.time):
            self.publish_now()

    def publish_now(self) -> None:
        """/clock at the simulation's current time, whether due or not (e.g. after steps run while paused, so that
        a stepped simulation's clock reads where it stopped); nothing when this time was already published."""
        now = self.sim.time
        if now == self.published:
            return
        self.published = now
        self._values[0] = self.stamps.sec_nsec(now)
        self.message.fill(self._values)
        self.outlet.publish_serialized(self.message.row(0))

    def compiled_sink(self) -> ClockSink | None:
        """The message and its delivery for the compiled fast path, or None when it cannot go that way (rcl not
        reachable directly, or a big-endian serialization)."""
        if self._batch is None:
            self._batch = BatchPublisher([([self.outlet], self.message.store)])
        if not (self._batch.direct and self.message.little_endian):
            return None
        return ClockSink(self.message.buffers, self._batch.delivery)


__all__ = ["ClockStream"]
