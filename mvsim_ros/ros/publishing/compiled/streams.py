"""The ROS side of the compiled fast path (runtime/fast_path/streams.py): /clock and the vehicles' odometry,
odom -> base_link TF and ground truth of a session's SimPublishers, and its lidars' scans when they can
(compiled/scans.py), published through rcl from inside the compiled step loop.

`CompiledStreams.for_publishers` says whether a session's publishers can go this way (a world whose steps compile,
and SimPublishers.stream_sink: rcl reachable, one little-endian serialized batch per stream); the node then calls
`run(count)` where it would call `Simulation.step_many(count)`. Around each compiled run it hands the publishers'
schedules, last /clock time, collision flags and stamp offset to the fast path and back.
"""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.physics import Simulation
from mvsim_ros.physics.simulation import PHI_WRAP_CHECK_STEPS
from mvsim_ros.ros.publishing.compiled.scans import CompiledScans
from mvsim_ros.ros.publishing.state_publishers import SimPublishers
from mvsim_ros.runtime.fast_path.scans import FastScans
from mvsim_ros.runtime.fast_path.schedules import load_schedule, schedule_fields, schedules, store_schedule
from mvsim_ros.runtime.fast_path.sinks import StreamSink
from mvsim_ros.runtime.fast_path.streams import Streams, Terrain, VehicleEvents, steps_with_streams, stream_work


class CompiledStreams:
    """A session's /clock and vehicle streams (its SimPublishers), and its lidars' scans when they can
    (CompiledScans), published by `steps_with_streams`.

    Built with `for_publishers` (None when they cannot go this way). `run(count)` advances the simulation as
    `Simulation.step_many(count)` does, publishing what falls due on the way, and leaves the publishers' and the
    lidars' schedules and collision state where their own `publish_due` would have left them.
    """

    def __init__(self, sim: Simulation, publishers: SimPublishers, sink: StreamSink,
                 scans: CompiledScans | None = None):
        self.sim, self.publishers = sim, publishers
        #: The lidars served from the compiled steps (None: Python serves them).
        self.scans = scans
        self._scans = scans if scans is not None else FastScans.none(sim)
        terrain, contacts = sim.terrain, sim.box2d.contacts
        self._sink = sink
        self._clock, self._vehicles = schedules(1), schedules(1)
        self._clock_fields, self._vehicle_fields = schedule_fields(self._clock), schedule_fields(self._vehicles)
        self._terrain = Terrain(terrain.z, terrain.pitch, terrain.roll, terrain.vz)
        self._events = VehicleEvents(contacts.touching, contacts.since_reset,
                                     np.zeros(len(sim.vehicle_names), dtype=bool), np.array([math.inf]))
        self._offset_ns = np.zeros(1, dtype=np.int64)
        self._work = stream_work(len(sim.vehicle_names))

    @classmethod
    def for_publishers(cls, sim: Simulation, publishers: SimPublishers,
                       scan_publisher=None) -> "CompiledStreams | None":
        """CompiledStreams for these publishers (and the ScanPublisher's lidars when CompiledScans can serve them),
        or None where they must publish from Python: the world's steps do not compile, or the publishers' streams
        cannot be written and published from compiled code (SimPublishers.stream_sink)."""
        if sim.compiled_steps_unavailable:
            return None
        sink = publishers.stream_sink()
        if sink is None:
            return None
        scans = CompiledScans.for_publisher(sim, scan_publisher) if scan_publisher is not None else None
        return cls(sim, publishers, sink, scans)

    def run(self, count: int) -> None:
        """Advance `count` steps (fewer when an odometry event needs Python: it is then due now, and the caller's
        `publish_due` serves it), publishing /clock and the vehicle streams as they fall due."""
        p, sim = self.publishers, self.sim
        clock, vehicles, events = self._clock_fields, self._vehicle_fields, self._events
        load_schedule(clock, 0, p.clock_schedule)
        clock.last_s[0] = math.nan if p.clock_published is None else p.clock_published
        load_schedule(vehicles, 0, p.odometry_schedule)
        events.python_from_s[0] = 0.0 if p.check_listeners() else math.inf  # fake localization is Python's
        events.collision_state[:] = p.collision_state
        self._offset_ns[0] = p.context.stamps.offset_ns
        streams = Streams(self._clock, self._vehicles, self._sink, self._terrain, events, self._scans.arguments(),
                          self._offset_ns, self._work)
        try:
            while count > 0:
                done, (failures, handed_back) = sim.run_compiled(count, steps_with_streams, streams)
                count -= done
                if failures:
                    p.report_refused(failures)
                if handed_back or sim.steps % PHI_WRAP_CHECK_STEPS == 0:
                    break
        finally:
            self._scans.after_run()
        store_schedule(clock, 0, p.clock_schedule)
        published = float(clock.last_s[0])
        if not math.isnan(published):
            p.clock_published = published
        store_schedule(vehicles, 0, p.odometry_schedule)
