"""2D lidar scans measured and delivered from inside the compiled step loop (streams.steps_with_streams).

At 20 Hz and dt = 5 ms a lidar is due every 10 steps; served from Python, each scan (leaving the compiled steps,
the sensor's pose, the ray cast, the range limits, the message, the delivery, coming back) costs several times the
steps between two scans. `serve_scans` does for the lidars due at an instant what the Python path does
(`Lidar2D.scan`'s pose and bearing arithmetic, the shim's ray scan, the range limits through the same
`limit_ranges`), then writes the float32 ranges and the stamp into each lidar's serialized message and delivers it
(delivery.py): the same bytes.

`FastScans` holds the lidars' arrays and the front end's messages (a `ScanSink`), and hands the schedules, the
noise and the latest samples over and back around each compiled run. A lidar qualifies when it ray casts in 2D (no
raytrace_3d: those render through OpenGL) and the Box2D shim is loaded (`compiled_lidars`); it may ride a vehicle
or stand in the world (fixed in `map`).

Noise: each noisy lidar's bearing and range errors for its next `noise_blocks` scans (as many as the longest run
takes) are drawn from its own generator (Lidar2D.noise_ahead, in the order its scans draw them) into a buffer kept
across compiled runs; the ones used are marked after each run, so a scan has the same numbers whichever path
measures it. The buffer is refilled only when a lidar has used it up (that scan is handed back to Python, and the
next run starts from fresh numbers) or when a scan measured in Python took noise of its own (Lidar2D.noise_taken
moved), so a run costs no copying of noise.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np

from mvsim_ros.core.jit import allocation_free_kernel
from mvsim_ros.core.schedule import DUE_TOLERANCE_S, next_grid_time
from mvsim_ros.physics import box2d_native
from mvsim_ros.physics.box2d_native import mvb_ray_scan
from mvsim_ros.runtime.fast_path.delivery import Delivery, deliver_all, empty_delivery
from mvsim_ros.runtime.fast_path.fields import write_fields
from mvsim_ros.runtime.fast_path.schedules import load_schedule, schedule_fields, schedules, store_schedule
from mvsim_ros.sensors.lidar2d import ScanSample, limit_ranges
from mvsim_ros.sensors.suite import is_world

#: Scans of each noisy lidar whose noise is drawn ahead of a compiled run: enough for the scans of the longest run
#: (a run returns to Python when a lidar has used its blocks up, and Python then measures that scan), at least
#: NOISE_BLOCKS_MIN, and no more than NOISE_VALUES numbers in all allow.
NOISE_BLOCKS_MIN = 32
NOISE_VALUES = 1 << 22


def noise_blocks(total_rays: int, scans_per_run: int = NOISE_BLOCKS_MIN) -> int:
    """Scans of noise drawn ahead per noisy lidar, for lidars of `total_rays` beams in all, of which the busiest
    scans `scans_per_run` times in the longest compiled run."""
    budget = NOISE_VALUES // max(1, 2 * total_rays)
    return max(1, min(budget, max(NOISE_BLOCKS_MIN, scans_per_run)))


class ScanSink(NamedTuple):
    """The front end's scan messages, one per lidar, back to back in one byte array, and where they go."""

    #: All messages' bytes (uint8), read in place by the delivery.
    arena: np.ndarray
    #: Where message i starts in `arena` (intp, lidars + 1: it ends where message i + 1 starts).
    message_start: np.ndarray
    #: Byte offsets in message i of its stamp's seconds and nanoseconds ((lidars, 2) intp) and their field kinds
    #: ((lidars, 2) int64, fields.FIELD_KINDS).
    stamp_offsets: np.ndarray
    stamp_kinds: np.ndarray
    #: Byte offset in message i of its ranges (float32, little-endian, one per ray) (intp).
    ranges_at: np.ndarray
    #: Message i delivered on handle i.
    delivery: Delivery


def pack_messages(stores: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """One byte array holding the serialized messages row 0 of `stores` (one per lidar) back to back: (arena,
    message_start, a (1, bytes) view of the arena per message, for the front end's delivery)."""
    sizes = [store.shape[1] for store in stores]
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
    arena = np.zeros(int(starts[-1]), dtype=np.uint8)
    rows = []
    for i, store in enumerate(stores):
        arena[starts[i]:starts[i + 1]] = store[0]
        rows.append(arena[starts[i]:starts[i + 1]].reshape(1, sizes[i]))
    return arena, starts, rows


class LidarRig(NamedTuple):
    """Where the lidars sit and what they measure, lidar i's rays being rays ray_start[i]:ray_start[i + 1]."""

    #: The vehicle (body index) carrying each lidar, or a negative number for a lidar fixed in the world (intp).
    vehicle: np.ndarray
    #: Each lidar's mounting (x, y, yaw) [m, m, rad] on its vehicle, or its pose in the world.
    mount: np.ndarray
    #: Every ray's bearing [rad] from its lidar's heading.
    angles: np.ndarray
    #: First ray of each lidar (intp, lidars + 1).
    ray_start: np.ndarray
    #: Each lidar's range limits [m]: readings outside them are no return (+inf).
    range_min: np.ndarray
    range_max: np.ndarray


class HiddenBodies(NamedTuple):
    """The Box2D bodies each lidar does not see (its own vehicle's): lidar i's are bodies[start[i]:start[i + 1]]."""

    bodies: np.ndarray
    start: np.ndarray


class ScanNoise(NamedTuple):
    """Noise drawn ahead: noise[block, 0, ray] bearing [rad] and noise[block, 1, ray] range [m] errors of the
    block-th scan; lidar i's next scan takes block first[i] + used[i], used[i] being the blocks it used in this
    run."""

    noisy: np.ndarray
    noise: np.ndarray
    used: np.ndarray
    first: np.ndarray


class ScanWork(NamedTuple):
    """What a compiled run leaves for Python (ranges [m] of the last scan of each lidar, ray by ray; scanned: whether
    lidar i scanned; origin: its (x, y, heading) [m, m, rad] then) and scratch arrays (bearings, float32 ranges and
    their bytes, the stamp as one (sec, nanosec) row)."""

    ranges: np.ndarray
    scanned: np.ndarray
    origin: np.ndarray
    bearings: np.ndarray
    ranges32: np.ndarray
    ranges32_bytes: np.ndarray
    stamp: np.ndarray


class Scans(NamedTuple):
    """`serve_scans`' lidars: the Box2D world and its static-body index (addresses), their schedules (SCHEDULE records),
    geometry, hidden bodies, noise, messages and work arrays."""

    world: int
    static_index: int
    schedule: np.ndarray
    rig: LidarRig
    hidden: HiddenBodies
    noise: ScanNoise
    sink: ScanSink
    work: ScanWork


@allocation_free_kernel
def serve_scans(now, sec, nsec, body_pose, scans):
    """Scan and deliver with every lidar of `scans` (Scans) due at simulated time `now` [s], stamped (sec, nsec);
    body_pose: the bodies' (x, y, yaw) [m, m, rad]. Returns (messages refused, ok): ok is False when a ray scan
    failed or a lidar's noise drawn ahead is used up (that lidar is left due, for Python to serve)."""
    schedule, rig, sink, work = scans.schedule, scans.rig, scans.sink, scans.work
    noisy, noise, noise_used = scans.noise.noisy, scans.noise.noise, scans.noise.used
    reach = now + DUE_TOLERANCE_S
    time_stamp = work.stamp
    time_stamp[0, 0], time_stamp[0, 1] = sec, nsec
    bearings, scratch32, scratch8 = work.bearings, work.ranges32, work.ranges32_bytes
    failures = 0
    for i in range(schedule.shape[0]):
        if reach < schedule[i].next_s:
            continue
        row = scans.noise.first[i] + noise_used[i]
        if noisy[i] and row >= noise.shape[0]:
            return failures, False  # its noise drawn ahead is used up: Python serves this scan
        k = rig.vehicle[i]
        x, y, yaw = 0.0, 0.0, 0.0  # a lidar fixed in the world: its mounting is its pose
        if k >= 0:
            x, y, yaw = body_pose[k, 0], body_pose[k, 1], body_pose[k, 2]
        c, s = math.cos(yaw), math.sin(yaw)
        origin_x = x + c * rig.mount[i, 0] - s * rig.mount[i, 1]
        origin_y = y + s * rig.mount[i, 0] + c * rig.mount[i, 1]
        heading = yaw + rig.mount[i, 2]
        first, count = rig.ray_start[i], rig.ray_start[i + 1] - rig.ray_start[i]
        for j in range(count):
            bearings[j] = heading + rig.angles[first + j]
        if noisy[i]:
            for j in range(count):
                bearings[j] = bearings[j] + noise[row, 0, first + j]
        out = work.ranges[first:first + count]
        seen_not = scans.hidden.bodies[scans.hidden.start[i]:scans.hidden.start[i + 1]]
        if mvb_ray_scan(scans.world, scans.static_index, origin_x, origin_y, bearings.ctypes, count,
                        rig.range_max[i], seen_not.ctypes, seen_not.size, out.ctypes) != 0:
            return failures, False
        schedule[i].next_s = next_grid_time(schedule[i].next_s, schedule[i].period_s, now)
        if noisy[i]:
            for j in range(count):
                out[j] = out[j] + noise[row, 1, first + j]
            noise_used[i] += 1
        limit_ranges(out, rig.range_min[i], rig.range_max[i])
        for j in range(count):
            scratch32[j] = out[j]
        work.scanned[i] = True
        work.origin[i, 0], work.origin[i, 1], work.origin[i, 2] = origin_x, origin_y, heading
        start = sink.message_start[i]
        message = sink.arena[start:sink.message_start[i + 1]]
        write_fields(message.reshape((1, message.size)), sink.stamp_offsets[i], sink.stamp_kinds[i], time_stamp)
        at = start + sink.ranges_at[i]
        for j in range(4 * count):
            sink.arena[at + j] = scratch8[j]
        failures += deliver_all(sink.delivery.handles[i:i + 1], sink.delivery.messages[i:i + 1])
    return failures, True


def compiled_lidars(lidars: Sequence) -> list[int]:
    """The indices of the lidars `serve_scans` can measure (see the module docstring); none without the shim."""
    if not box2d_native.AVAILABLE:
        return []
    return [i for i, lidar in enumerate(lidars) if not lidar.raytrace_3d]


def empty_sink() -> ScanSink:
    """A ScanSink of no messages."""
    return ScanSink(np.zeros(0, np.uint8), np.zeros(1, np.intp), np.zeros((0, 2), np.intp),
                    np.zeros((0, 2), np.int64), np.zeros(0, np.intp), empty_delivery())


class FastScans:
    """Lidars (Lidar2D) of a Simulation served by `serve_scans` into the front end's messages (`sink`, index for
    index; both may be empty: then nothing is ever due).

    `arguments()` before a compiled run and `after_run()` after it hand the lidars' schedules and noise over and
    back and set each scanned lidar's `latest` sample (what the viewer draws).
    """

    def __init__(self, sim, lidars: Sequence, sink: ScanSink):
        self.sim, self.lidars, self.sink = sim, list(lidars), sink
        count = len(self.lidars)
        self._schedule = schedules(count)
        self._schedule_fields = schedule_fields(self._schedule)
        rays = [lidar.params.rays for lidar in self.lidars]
        ray_start = np.concatenate([[0], np.cumsum(rays)]).astype(np.intp)
        total = int(ray_start[-1])
        self._rig = LidarRig(
            vehicle=np.array([-1 if is_world(lidar.vehicle) else lidar.vehicle for lidar in self.lidars],
                             dtype=np.intp),
            mount=np.array([[lidar.spec.pose.x, lidar.spec.pose.y, lidar.spec.pose.yaw] for lidar in self.lidars],
                           dtype=float).reshape(count, 3),
            angles=np.concatenate([lidar.params.angles for lidar in self.lidars] or [np.zeros(0)]).astype(float),
            ray_start=ray_start,
            range_min=np.array([lidar.params.range_min for lidar in self.lidars], dtype=float),
            range_max=np.array([lidar.params.range_max for lidar in self.lidars], dtype=float))
        noisy = np.array([lidar.noisy for lidar in self.lidars], dtype=np.bool_)
        periods = [lidar.params.period for lidar in self.lidars if lidar.params.period > 0.0]
        per_run = math.ceil(sim.longest_compiled_run * sim.dt / min(periods)) + 1 if periods else NOISE_BLOCKS_MIN
        blocks = noise_blocks(total, per_run) if noisy.any() else 0
        self._noise = ScanNoise(noisy, np.zeros((blocks, 2, total)), np.zeros(count, dtype=np.intp),
                                np.full(count, blocks, dtype=np.intp))
        #: Lidar i's noise_taken when block first[i] of the buffer was its next block (-1: not drawn yet).
        self._noise_taken = np.full(count, -1, dtype=np.int64)
        ranges32 = np.zeros(max(rays, default=0), dtype=np.float32)
        self._work = ScanWork(ranges=np.zeros(total), scanned=np.zeros(count, dtype=bool), origin=np.zeros((count, 3)),
                              bearings=np.zeros(max(rays, default=0)), ranges32=ranges32,
                              ranges32_bytes=ranges32.view(np.uint8), stamp=np.zeros((1, 2)))
        self._hidden_lists: list | None = None
        self._arguments: Scans | None = None
        self._hidden = HiddenBodies(np.zeros(0, np.intp), np.zeros(count + 1, np.intp))

    @classmethod
    def none(cls, sim) -> "FastScans":
        """No lidars: serve_scans' arguments of the same types, with nothing ever due."""
        return cls(sim, [], empty_sink())

    def arguments(self) -> Scans:
        """serve_scans' `scans`, with the lidars' schedules, hidden bodies and noise as they are now (without
        lidars, the same Scans every time: nothing in it changes)."""
        if not self.lidars and self._arguments is not None:
            return self._arguments
        for i, lidar in enumerate(self.lidars):
            load_schedule(self._schedule_fields, i, lidar.schedule)
        self._refresh_hidden()
        self._work.scanned[:] = False
        self._refill_noise()
        world = self.sim.box2d.world
        index = self.lidars[0].static_index_address(world) if self.lidars else 0
        self._arguments = Scans(box2d_native.address(world), index, self._schedule, self._rig, self._hidden,
                                self._noise, self.sink, self._work)
        return self._arguments

    def _refill_noise(self) -> None:
        """Refill each noisy lidar's part of the noise buffer where it is used up or no longer the lidar's next
        numbers (a scan measured in Python took some); the others keep theirs."""
        ray_start, noise = self._rig.ray_start, self._noise
        noise.used[:] = 0
        blocks = len(noise.noise)
        for i, lidar in enumerate(self.lidars):
            if noise.noisy[i] and (noise.first[i] >= blocks or self._noise_taken[i] != lidar.noise_taken):
                noise.noise[:, :, ray_start[i]:ray_start[i + 1]] = lidar.noise_ahead(blocks)
                noise.first[i] = 0
                self._noise_taken[i] = lidar.noise_taken

    def _refresh_hidden(self) -> None:
        """The bodies each lidar does not see (Lidar2D.hidden_bodies), flattened when any list changed."""
        world = self.sim.box2d.world
        lists = [lidar.hidden_bodies(world) for lidar in self.lidars]
        if self._hidden_lists is not None and all(a is b for a, b in zip(lists, self._hidden_lists)):
            return
        self._hidden_lists = lists
        self._hidden = HiddenBodies(np.concatenate(lists or [np.zeros(0, np.intp)]).astype(np.intp),
                                    np.concatenate([[0], np.cumsum([a.size for a in lists])]).astype(np.intp))

    def after_run(self) -> None:
        """Hand the schedules back to the lidars, mark the noise used and give each lidar that scanned its latest
        sample."""
        sim, work, ray_start = self.sim, self._work, self._rig.ray_start
        for i, lidar in enumerate(self.lidars):
            if self._noise.noisy[i]:
                used = int(self._noise.used[i])
                lidar.skip_noise(used)
                self._noise.first[i] += used
                self._noise_taken[i] += used
            store_schedule(self._schedule_fields, i, lidar.schedule)
            if work.scanned[i]:
                first, last = ray_start[i], ray_start[i + 1]
                x, y, heading = (float(v) for v in work.origin[i])
                z = lidar.spec.pose.z + (0.0 if is_world(lidar.vehicle) else float(sim.vehicle_z[lidar.vehicle]))
                lidar.latest = ScanSample(work.ranges[first:last].copy(), (x, y, z, heading, 0.0, 0.0))
