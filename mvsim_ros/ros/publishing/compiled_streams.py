"""/clock and the vehicles' odometry, odom -> base_link TF and ground truth, published from inside the compiled
step loop.

These two streams are due every 2 and every 4 steps at the default rates (100 Hz and 50 Hz of simulated time,
dt = 5 ms): served from Python, each of those events costs more than the steps between them. `steps_with_streams`
runs the physics' compiled steps (physics/compiled_steps.advance_steps) straight up to the next instant one of them is
due, writes the numbers into the serialized messages (serialized.write_fields) and hands them to rcl
(batch_publisher.publish_all: `rcl_publish_serialized_message`), all in one call: what the Python path publishes,
byte for byte. It hands back to Python (which then serves that instant itself) when an odometry event needs
Python: a vehicle's collision flag changes, or someone listens to fake localization.

`CompiledStreams.for_publishers` says whether a session's SimPublishers can go this way (rcl reachable, one
serialized batch per stream, little-endian messages, a world whose steps compile); the node then calls
`run(count)` where it would call `Simulation.step_many(count)`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mvsim_ros.physics import Simulation
from mvsim_ros.physics.compiled_steps import RAN, advance_steps, load_state, unload_state
from mvsim_ros.physics.simulation import PHI_WRAP_CHECK_STEPS
from mvsim_ros.ros.publishing.batch_publisher import BatchPublisher, _publish_kernel, publish_all
from mvsim_ros.ros.publishing.compiled_scans import CompiledScans, next_scan_time, serve_scans
from mvsim_ros.ros.publishing.conversions import stamp_offset_ns
from mvsim_ros.ros.publishing.state_publishers import SimPublishers, _vehicle_messages
from mvsim_ros.ros.publishing.serialized import SerializedBatch, write_fields
from mvsim_ros.core.schedule import DUE_TOLERANCE_S, next_grid_time, steps_until


@njit(cache=True)
def _stamp(now, offset_ns):
    """(sec, nanosec) of simulated time `now` [s] rounded to the nanosecond, plus offset_ns (conversions.sec_nsec)."""
    nanoseconds = np.int64(np.rint(now * 1e9)) + offset_ns
    return nanoseconds // 1_000_000_000, nanoseconds % 1_000_000_000


@njit(cache=True)
def steps_with_streams(count, steps, dt, wrap_every, spin, body_pose, body_velocity, world, velocity_iterations,
                       position_iterations, bodies, com_local, vehicle_count, commands, steering, wheels, controllers,
                       friction, odometry, work, clock, vehicles, scans):
    """Up to `count` steps (run_steps' arguments), publishing /clock and the vehicle streams whenever due.

    clock = (on, schedule [next time, period, last time published] [s], handle, message (1-element address
    arrays), store, offsets, kinds, stamp offset [ns] (1-element array)); vehicles = (on, schedule [next time,
    period, time from which an odometry event needs Python: 0 while fake localization has listeners, else inf],
    handles, messages, odom (store, offsets, kinds), truth (...), tf (...), tf on, z, pitch, roll, vz (terrain
    arrays), touching, since_reset (contact counters), collision_state); scans: the lidars' (compiled_scans,
    CompiledScans.arguments).
    Returns run_steps' results plus (failures, handed_back): the number of messages rcl refused, and whether an
    instant due now was left to Python (an odometry event that needs it, or a lidar whose scan failed).
    """
    clock_on, clock_schedule, clock_handle, clock_message, clock_store, clock_offsets, clock_kinds, offset_ns = clock
    (vehicles_on, schedule, handles, messages, odom, truth, tf, tf_on, z, pitch, roll, vz, touching, since_reset,
     collision_state) = vehicles
    odom_pose, odom_twist = odometry[3], odometry[4]
    clock_values = np.zeros((1, 2))
    failures = 0
    handed_back = False
    total = 0
    status = RAN
    load_state(work, spin, body_pose, body_velocity, wheels[4])
    body_pose, body_velocity = work[1], work[2]  # the state advance_steps leaves in the workspace
    while total < count:
        run = count - total
        if clock_on:
            run = min(run, steps_until(clock_schedule[0], steps, dt))
        if vehicles_on:
            run = min(run, steps_until(schedule[0], steps, dt))
        run = min(run, steps_until(next_scan_time(scans[1]), steps, dt))
        done, status = advance_steps(run, steps, dt, wrap_every, world, velocity_iterations, position_iterations,
                                     bodies, com_local, vehicle_count, commands, steering, wheels, controllers,
                                     friction, odometry, work)
        steps += done
        total += done
        if status != RAN or steps % wrap_every == 0:
            break  # Python raises, or wraps the wheel angles, then serves this instant itself
        now = steps * dt
        reach = now + DUE_TOLERANCE_S
        if vehicles_on and reach >= schedule[0]:
            hits_changed = False
            for k in range(vehicle_count):
                if (since_reset[k] or touching[k] > 0) != collision_state[k]:
                    hits_changed = True
            if hits_changed or reach >= schedule[2]:
                handed_back = True
                break  # Python serves this instant: /clock and all
        if clock_on and reach >= clock_schedule[0]:
            if now != clock_schedule[2]:
                clock_schedule[2] = now
                clock_values[0, 0], clock_values[0, 1] = _stamp(now, offset_ns[0])
                write_fields(clock_store, clock_offsets, clock_kinds, clock_values)
                failures += publish_all(clock_handle, clock_message)
            clock_schedule[0] = next_grid_time(clock_schedule[0], clock_schedule[1], now)
        if vehicles_on and reach >= schedule[0]:
            for k in range(vehicle_count):
                since_reset[k] = False  # as Simulation.take_collisions: none changed, nothing to publish
            sec, nsec = _stamp(now, offset_ns[0])
            odom_values, tf_values, truth_values = _vehicle_messages(
                odom_pose, odom_twist, body_pose[:vehicle_count], body_velocity[:vehicle_count], z[:vehicle_count],
                pitch[:vehicle_count], roll[:vehicle_count], vz[:vehicle_count], sec, nsec)
            write_fields(odom[0], odom[1], odom[2], odom_values)
            write_fields(truth[0], truth[1], truth[2], truth_values)
            if tf_on:
                write_fields(tf[0], tf[1], tf[2], tf_values)
            failures += publish_all(handles, messages)
            schedule[0] = next_grid_time(schedule[0], schedule[1], now)
        if reach >= next_scan_time(scans[1]):
            sec, nsec = _stamp(now, offset_ns[0])
            refused, scanned = serve_scans(now, sec, nsec, body_pose, scans)
            failures += refused
            if not scanned:
                handed_back = True
                break
    return (total, status) + unload_state(work) + (failures, handed_back)


class CompiledStreams:
    """A session's /clock and vehicle streams (its SimPublishers), and its lidars' scans when they can
    (compiled_scans), published by `steps_with_streams`.

    Built with `for_publishers` (None when they cannot go this way). `run(count)` advances the simulation as
    `Simulation.step_many(count)` does, publishing what falls due on the way, and leaves the publishers' and the
    lidars' schedules and collision state where their own `publish_due` would have left them.
    """

    def __init__(self, sim: Simulation, publishers: SimPublishers, scans: CompiledScans | None = None):
        self.sim, self.publishers = sim, publishers
        #: The lidars served from the compiled steps (None: Python serves them).
        self.scans = scans
        self._scans = scans if scans is not None else CompiledScans.none(sim)
        p = publishers  # this module works SimPublishers' streams from compiled code: it reads their internals
        self._clock_schedule = np.array([p._clock_timer.next_time, p._clock_timer.period or math.inf, math.nan])
        self._schedule = np.array([p._odom_timer.next_time, p._odom_timer.period or math.inf, math.inf])
        self._offset_ns = np.zeros(1, dtype=np.int64)  # conversions.stamp_offset_ns(), at every run
        if p._clock is not None:
            clock_batch = p._clock_msg
            self._clock_publisher = BatchPublisher([([p._clock], clock_batch.store)])
            clock = (p._clock_timer.period is not None, self._clock_schedule, self._clock_publisher.handles,
                     self._clock_publisher.message_pointers, clock_batch.store, clock_batch.field_offsets,
                     clock_batch.field_kinds, self._offset_ns)
        else:
            empty = np.zeros(0, dtype=np.uintp)
            clock = (False, self._clock_schedule, empty, empty, np.zeros((0, 0), np.uint8), np.zeros(0, np.intp),
                     np.zeros(0, np.int64), self._offset_ns)
        odom, truth = _only_batch(p._odom_msgs), _only_batch(p._truth_msgs)
        tf = _only_batch(p._tf_msgs[0][1]) if p._tf_msgs else odom
        contacts, terrain = sim.box2d.contacts, sim.terrain
        self._collision_state = np.zeros(len(sim.vehicle_names), dtype=bool)
        self._vehicles = (p._odom_timer.period is not None, self._schedule, p._batch.handles,
                          p._batch.message_pointers, _fields(odom), _fields(truth), _fields(tf), bool(p._tf_msgs),
                          terrain.z, terrain.pitch, terrain.roll, terrain.vz, contacts.touching, contacts.since_reset,
                          self._collision_state)
        self._clock = clock

    @classmethod
    def for_publishers(cls, sim: Simulation, publishers: SimPublishers,
                       scan_publisher=None) -> "CompiledStreams | None":
        """CompiledStreams for these publishers (and the ScanPublisher's lidars when CompiledScans can serve them),
        or None where they must publish from Python: the world's steps do not compile, rcl cannot be called
        directly, or a stream is not one little-endian serialized batch."""
        p = publishers
        if sim.compiled_steps_unavailable or _publish_kernel() is None or not p._batch.direct:
            return None
        if p._clock is not None and not (hasattr(p._clock.handle, "pointer") and p._clock_msg.little_endian):
            return None
        rows = [p._odom_msgs, p._truth_msgs] + [rows for _, rows, _ in p._tf_msgs]
        if len(p._tf_msgs) > 1 or any(merged for _, _, merged in p._tf_msgs):
            return None
        if not all(len(r.groups) == 1 and r.groups[0][2].little_endian for r in rows):
            return None
        scans = CompiledScans.for_publisher(sim, scan_publisher) if scan_publisher is not None else None
        return cls(sim, publishers, scans)

    def run(self, count: int) -> None:
        """Advance `count` steps (fewer when an odometry event needs Python: it is then due now, and the caller's
        `publish_due` serves it), publishing /clock and the vehicle streams as they fall due."""
        p, sim = self.publishers, self.sim
        self._clock_schedule[0] = p._clock_timer.next_time
        self._clock_schedule[2] = math.nan if p._clock_published is None else p._clock_published
        self._schedule[0] = p._odom_timer.next_time
        self._schedule[2] = 0.0 if p.check_listeners() else math.inf  # fake localization is Python's
        self._collision_state[:] = p._collision_state
        self._offset_ns[0] = stamp_offset_ns()
        scans = self._scans.arguments()
        try:
            while count > 0:
                done, (failures, handed_back) = sim.run_compiled(count, steps_with_streams, self._clock,
                                                                 self._vehicles, scans)
                count -= done
                if failures:
                    p._batch.failures += failures
                    p._node.get_logger().warning("the middleware refused /clock, odometry, TF or scan messages",
                                                 throttle_duration_sec=10.0)
                if handed_back or sim.steps % PHI_WRAP_CHECK_STEPS == 0:
                    break
        finally:
            self._scans.after_run()
        p._clock_timer.next_time = float(self._clock_schedule[0])
        if not math.isnan(self._clock_schedule[2]):
            p._clock_published = float(self._clock_schedule[2])
        p._odom_timer.next_time = float(self._schedule[0])


def _only_batch(rows) -> SerializedBatch:
    """The one SerializedBatch of a publishers' _VehicleRows."""
    return rows.groups[0][2]


def _fields(batch: SerializedBatch) -> tuple:
    return batch.store, batch.field_offsets, batch.field_kinds
