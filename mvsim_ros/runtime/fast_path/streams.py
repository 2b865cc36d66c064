"""The simulated clock and the vehicles' odometry, odom -> base_link transform and ground truth, delivered from
inside the compiled step loop, with the 2D lidars' scans (scans.py).

These streams are due every 2 and every 4 steps at the default rates (100 Hz and 50 Hz of simulated time,
dt = 5 ms): served from Python, each of those events costs more than the steps between them. `steps_with_streams`
runs the physics' compiled steps (physics/compiled_steps.advance_steps) straight up to the next instant one of them
is due, writes the numbers of that instant into the front end's serialized messages (fields.write_fields) and
delivers them (delivery.py), all in one call: what the front end's Python path sends, byte for byte. It hands back
to Python (which then serves that instant itself) when a vehicle event needs Python: a vehicle's collision flag
changes, or the front end asked for every vehicle event (`VehicleEvents.python_from_s`).

The front end builds a `Streams` from its StreamSink (sinks.py) and runs it through
`Simulation.run_compiled(count, steps_with_streams, streams)`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mvsim_ros.core.jit import allocation_free_kernel
from mvsim_ros.core.schedule import DUE_TOLERANCE_S, next_grid_time, steps_until
from mvsim_ros.physics.compiled_steps import RAN, advance_steps, load_state
from mvsim_ros.runtime.fast_path.delivery import deliver
from mvsim_ros.runtime.fast_path.fields import stamp, write_buffers
from mvsim_ros.runtime.fast_path.scans import Scans, serve_scans
from mvsim_ros.runtime.fast_path.schedules import next_due
from mvsim_ros.runtime.fast_path.sinks import StreamSink
from mvsim_ros.runtime.fast_path.vehicle_values import (ODOMETRY_COLUMNS, TRANSFORM_COLUMNS, VehicleMotion,
                                                        vehicle_values_into)


class Terrain(NamedTuple):
    """The terrain under each body (the simulation's arrays): height z [m], pitch and roll [rad], vertical speed
    vz [m/s]."""

    z: np.ndarray
    pitch: np.ndarray
    roll: np.ndarray
    vz: np.ndarray


class VehicleEvents(NamedTuple):
    """What decides whether a vehicle event needs Python: each vehicle's contacts (touching: contacts now;
    since_reset: touched since the last event, cleared at each event), its collision flag as last published, and
    the simulated time [s] from which every vehicle event goes to Python (1-element array: 0 for all, inf for
    none)."""

    touching: np.ndarray
    since_reset: np.ndarray
    collision_state: np.ndarray
    python_from_s: np.ndarray


class StreamWork(NamedTuple):
    """Where `steps_with_streams` puts the numbers of an instant before writing them into the messages: the clock's
    (sec, nanosec) row and the vehicles' rows (vehicle_values' columns; the columns it leaves at zero stay zero)."""

    clock: np.ndarray
    odometry: np.ndarray
    transform: np.ndarray
    truth: np.ndarray


def stream_work(vehicles: int) -> StreamWork:
    """A StreamWork for `vehicles` vehicles."""
    return StreamWork(np.zeros((1, 2)), np.zeros((vehicles, ODOMETRY_COLUMNS)), np.zeros((vehicles, TRANSFORM_COLUMNS)),
                      np.zeros((vehicles, ODOMETRY_COLUMNS)))


class Streams(NamedTuple):
    """`steps_with_streams`' streams: the clock's and the vehicles' schedules (1-element arrays of
    schedules.SCHEDULE; the clock's last_s is the time it last went out), the front end's messages, the terrain,
    the vehicle events, the lidars (scans.Scans), the stamps' offset [ns] (1-element int64 array) and the
    StreamWork."""

    clock_schedule: np.ndarray
    vehicle_schedule: np.ndarray
    sink: StreamSink
    terrain: Terrain
    events: VehicleEvents
    scans: Scans
    offset_ns: np.ndarray
    work: StreamWork


@allocation_free_kernel
def _deliver_vehicles(n, sec, nsec, work, model, streams):
    """Write the odometry, ground truth and transform of the `n` vehicles (the first n bodies), stamped (sec, nsec),
    and deliver them; returns how many messages were refused."""
    terrain, events, sink = streams.terrain, streams.events, streams.sink.vehicles
    for k in range(n):
        events.since_reset[k] = False  # as Simulation.take_collisions: no flag changed, nothing else to send
    motion = VehicleMotion(model.odometry.pose, model.odometry.twist, work.pose[:n], work.velocity[:n],
                           terrain.z[:n], terrain.pitch[:n], terrain.roll[:n], terrain.vz[:n])
    rows = streams.work
    odometry, transform, truth = rows.odometry[:n], rows.transform[:n], rows.truth[:n]
    vehicle_values_into(motion, sec, nsec, odometry, transform, truth)
    write_buffers(sink.odometry, odometry)
    write_buffers(sink.truth, truth)
    write_buffers(sink.transform, transform)
    return deliver(sink.delivery)


@allocation_free_kernel
def _needs_python(reach, vehicle_count, events):
    """Whether the vehicle event due at `reach` [s] must be served from Python: a collision flag changed, or the
    front end takes every event from `events.python_from_s`."""
    for k in range(vehicle_count):
        if (events.since_reset[k] or events.touching[k] > 0) != events.collision_state[k]:
            return True
    return reach >= events.python_from_s[0]


@allocation_free_kernel
def steps_with_streams(count, steps, dt, wrap_every, start, engine, model, work, streams):
    """Up to `count` steps (run_steps' arguments: count, steps, dt [s], wrap_every, start, engine, model, work),
    delivering the clock, the vehicle streams and the lidars' scans of `streams` (Streams) whenever due.

    Returns (steps run, status) as run_steps does, then (refused, handed_back): the number of messages the
    delivery refused, and whether an instant due now was left to Python (a vehicle event that needs it, or a lidar
    whose scan failed).
    """
    clock, schedule = streams.clock_schedule[0], streams.vehicle_schedule[0]
    scans, offset_ns = streams.scans, streams.offset_ns[0]
    clock_values = streams.work.clock
    failures = 0
    handed_back = False
    total = 0
    status = RAN
    load_state(work, start, model)
    while total < count:
        run = min(count - total, steps_until(clock.next_s, steps, dt), steps_until(schedule.next_s, steps, dt),
                  steps_until(next_due(scans.schedule), steps, dt))
        done, status = advance_steps(run, steps, dt, wrap_every, engine, model, work)
        steps += done
        total += done
        if status != RAN:
            break  # Python raises
        now = steps * dt
        reach = now + DUE_TOLERANCE_S
        vehicles_due = reach >= schedule.next_s
        if vehicles_due and _needs_python(reach, engine.vehicle_count, streams.events):
            handed_back = True
            break  # Python serves this instant: the clock and all
        if reach >= clock.next_s:
            if now != clock.last_s:
                clock.last_s = now
                clock_values[0, 0], clock_values[0, 1] = stamp(now, offset_ns)
                write_buffers(streams.sink.clock.buffers, clock_values)
                failures += deliver(streams.sink.clock.delivery)
            clock.next_s = next_grid_time(clock.next_s, clock.period_s, now)
        if vehicles_due:
            sec, nsec = stamp(now, offset_ns)
            failures += _deliver_vehicles(engine.vehicle_count, sec, nsec, work, model, streams)
            schedule.next_s = next_grid_time(schedule.next_s, schedule.period_s, now)
        if reach >= next_due(scans.schedule):
            sec, nsec = stamp(now, offset_ns)
            refused, scanned = serve_scans(now, sec, nsec, work.pose, scans)
            failures += refused
            if not scanned:
                handed_back = True
                break
        if steps % wrap_every == 0:
            break  # Python wraps the wheel angles (which no stream reads) and serves its own sinks due now
    return total, status, failures, handed_back
