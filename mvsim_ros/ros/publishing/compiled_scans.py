"""2D lidar scans measured and published from inside the compiled step loop (compiled_streams.steps_with_streams).

At 20 Hz and dt = 5 ms a lidar is due every 10 steps; served from Python, each scan (leaving the compiled steps,
the sensor's pose, the ray cast, the range limits, the message, the publish, coming back) cost several times the
steps between two scans. `serve_scans` does what `ScanPublisher.publish_due` does for the lidars due at an instant
(`Lidar2D.scan`'s pose and bearing arithmetic, the shim's ray scan, the range limits, the float32 ranges and the
stamp written into the serialized LaserScan, rcl's serialized publish), the same bytes on the same publishers.

`CompiledScans.for_publisher` takes a ScanPublisher's lidars this way when every one of them can: ray cast in 2D
(no raytrace_3d), carried by a vehicle, published serialized, and the Box2D shim loaded. Otherwise Python serves all
of them. Noise: each noisy lidar's bearing and range errors for its next `noise_blocks` scans are drawn
from its own generator before a compiled run (Lidar2D.noise_ahead, in the order its scans draw them) and the
ones used are marked after it, so a scan has the same numbers whichever path measures it; a lidar that has used
them all is handed back to Python for that scan, and the next run draws more.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mvsim_ros.physics import Simulation, box2d_native
from mvsim_ros.physics.box2d_native import mvb_ray_scan
from mvsim_ros.ros.publishing.batch_publisher import BatchPublisher, publish_all
from mvsim_ros.ros.publishing.serialized import write_fields
from mvsim_ros.core.schedule import DUE_TOLERANCE_S, next_grid_time
from mvsim_ros.sensors.lidar2d import ScanSample
from mvsim_ros.sensors.suite import is_world

#: Scans of each noisy lidar whose noise is drawn ahead of a compiled run: as many as NOISE_VALUES numbers allow,
#: between NOISE_BLOCKS_MIN and NOISE_BLOCKS_MAX (a run returns to Python when a lidar has used its blocks up).
NOISE_BLOCKS_MIN, NOISE_BLOCKS_MAX = 32, 64
NOISE_VALUES = 1 << 20


def noise_blocks(total_rays: int) -> int:
    """Scans of noise drawn ahead per noisy lidar, for lidars of `total_rays` beams in all."""
    return max(NOISE_BLOCKS_MIN, min(NOISE_BLOCKS_MAX, NOISE_VALUES // max(1, 2 * total_rays)))


@njit(cache=True)
def next_scan_time(schedule):
    """The earliest next sample time [s] of the lidars (schedule rows: next time, period), inf when none."""
    earliest = math.inf
    for i in range(schedule.shape[0]):
        earliest = min(earliest, schedule[i, 0])
    return earliest


@njit(cache=True)
def serve_scans(now, sec, nsec, body_pose, scans):
    """Scan and publish with every lidar due at simulated time `now` [s], stamped (sec, nsec); body_pose: the
    bodies' (x, y, yaw) [m, rad]. `scans`: see CompiledScans.arguments. Returns (messages rcl refused, ok): ok is
    False when a ray scan failed (its lidar is left due, for Python to serve)."""
    (world, schedule, vehicle, mount, angles, ray_start, range_min, range_max, hidden, hidden_start, bearings,
     ranges, scanned, origin, arena, message_start, stamp_offsets, stamp_kinds, ranges_at, scratch32, scratch8,
     handles, messages, noisy, noise, noise_used, index) = scans
    reach = now + DUE_TOLERANCE_S
    stamp = np.empty((1, 2))
    stamp[0, 0], stamp[0, 1] = sec, nsec
    failures = 0
    for i in range(schedule.shape[0]):
        if reach < schedule[i, 0]:
            continue
        if noisy[i] and noise_used[i] >= noise.shape[0]:
            return failures, False  # its noise drawn ahead is used up: Python serves this scan
        row = noise_used[i]
        k = vehicle[i]
        x, y, yaw = body_pose[k, 0], body_pose[k, 1], body_pose[k, 2]
        c, s = math.cos(yaw), math.sin(yaw)
        origin_x = x + c * mount[i, 0] - s * mount[i, 1]
        origin_y = y + s * mount[i, 0] + c * mount[i, 1]
        heading = yaw + mount[i, 2]
        first, count = ray_start[i], ray_start[i + 1] - ray_start[i]
        for j in range(count):
            bearings[j] = heading + angles[first + j]
        if noisy[i]:
            for j in range(count):
                bearings[j] = bearings[j] + noise[row, 0, first + j]
        out = ranges[first:first + count]
        seen_not = hidden[hidden_start[i]:hidden_start[i + 1]]
        if mvb_ray_scan(world, index, origin_x, origin_y, bearings.ctypes, count, range_max[i], seen_not.ctypes,
                        seen_not.size, out.ctypes) != 0:
            return failures, False
        schedule[i, 0] = next_grid_time(schedule[i, 0], schedule[i, 1], now)
        if noisy[i]:
            for j in range(count):
                out[j] = out[j] + noise[row, 1, first + j]
            noise_used[i] += 1
        for j in range(count):
            if out[j] < range_min[i] or out[j] > range_max[i]:
                out[j] = math.inf
            scratch32[j] = out[j]
        scanned[i] = True
        origin[i, 0], origin[i, 1], origin[i, 2] = origin_x, origin_y, heading
        start = message_start[i]
        message = arena[start:message_start[i + 1]]
        write_fields(message.reshape((1, message.size)), stamp_offsets[i], stamp_kinds[i], stamp)
        at = start + ranges_at[i]
        arena[at:at + 4 * count] = scratch8[:4 * count]
        failures += publish_all(handles[i:i + 1], messages[i:i + 1])
    return failures, True


class CompiledScans:
    """A ScanPublisher's lidars, served by `serve_scans` from the compiled steps (see the module docstring).

    Their messages live in one byte array (`arena`), copied from the publisher's serialized LaserScans, published
    through their own BatchPublisher; `arguments()` before a compiled run, `after_run()` after it hand the
    lidars' schedules over and back and set each scanned lidar's `latest` sample (what the viewer draws).
    """

    def __init__(self, sim: Simulation, lidars: list, messages: list, publishers: list):
        """lidars (Lidar2D), their SerializedScan messages and rclpy publishers, index for index (all may be
        empty: then nothing is ever due)."""
        self.sim, self.lidars = sim, lidars
        count = len(lidars)
        self._schedule = np.array([[math.inf if lidar.schedule.period is None else lidar.schedule.next_time,
                                    lidar.schedule.period or math.inf] for lidar in lidars]).reshape(count, 2)
        self._vehicle = np.array([lidar.vehicle for lidar in lidars], dtype=np.intp)
        self._mount = np.array([[lidar.spec.pose.x, lidar.spec.pose.y, lidar.spec.pose.yaw] for lidar in lidars],
                               dtype=float).reshape(count, 3)
        rays = [lidar.params.rays for lidar in lidars]
        self._ray_start = np.concatenate([[0], np.cumsum(rays)]).astype(np.intp)
        self._angles = np.concatenate([lidar.params.angles for lidar in lidars] or [np.zeros(0)]).astype(float)
        self._range_min = np.array([lidar.params.range_min for lidar in lidars], dtype=float)
        self._range_max = np.array([lidar.params.range_max for lidar in lidars], dtype=float)
        self._bearings = np.zeros(max(rays, default=0))
        self._ranges = np.zeros(int(self._ray_start[-1]))
        self._scanned = np.zeros(count, dtype=bool)
        self._origin = np.zeros((count, 3))
        self._hidden_lists: list | None = None
        self._hidden, self._hidden_start = np.zeros(0, np.intp), np.zeros(count + 1, np.intp)
        batches = [message.batch for message in messages]
        sizes = [batch.store.shape[1] for batch in batches]
        self._message_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
        self._arena = np.zeros(int(self._message_start[-1]), dtype=np.uint8)
        for i, batch in enumerate(batches):
            self._arena[self._message_start[i]:self._message_start[i + 1]] = batch.store[0]
        self._stamp_offsets = np.array([batch.field_offsets for batch in batches], dtype=np.intp).reshape(count, 2)
        self._stamp_kinds = np.array([batch.field_kinds for batch in batches], dtype=np.int64).reshape(count, 2)
        self._ranges_at = np.array([message.ranges_offset for message in messages], dtype=np.intp)
        self._noisy = np.array([lidar.noisy for lidar in lidars], dtype=np.bool_)
        blocks = noise_blocks(int(self._ray_start[-1])) if self._noisy.any() else 0
        self._noise = np.zeros((blocks, 2, int(self._ray_start[-1])))
        self._noise_used = np.zeros(count, dtype=np.intp)
        self._scratch32 = np.zeros(max(rays, default=0), dtype=np.float32)
        self._scratch8 = self._scratch32.view(np.uint8)
        rows = [self._arena[self._message_start[i]:self._message_start[i + 1]].reshape(1, sizes[i])
                for i in range(count)]
        self._publisher = BatchPublisher([([pub], row) for pub, row in zip(publishers, rows)])

    @classmethod
    def for_publisher(cls, sim: Simulation, scans) -> "CompiledScans | None":
        """CompiledScans for a ScanPublisher, or None when one of its lidars must be served from Python (see the
        module docstring)."""
        if not box2d_native.AVAILABLE or not getattr(scans, "_serialized", False):
            return None
        for lidar in scans.lidars:
            if lidar.raytrace_3d or is_world(lidar.vehicle):
                return None
        if not all(message.batch.little_endian for message in scans._messages):
            return None
        compiled = cls(sim, scans.lidars, scans._messages, scans._publishers)
        return compiled if compiled._publisher.direct else None

    @classmethod
    def none(cls, sim: Simulation) -> "CompiledScans":
        """No lidars: serve_scans' arguments of the same types, with nothing ever due."""
        return cls(sim, [], [], [])

    def arguments(self) -> tuple:
        """serve_scans' `scans` tuple, with the lidars' schedules and hidden bodies as they are now."""
        for i, lidar in enumerate(self.lidars):
            if lidar.schedule.period is not None:
                self._schedule[i, 0] = lidar.schedule.next_time
        self._refresh_hidden()
        self._scanned[:] = False
        self._noise_used[:] = 0
        for i, lidar in enumerate(self.lidars):
            if self._noisy[i]:
                self._noise[:, :, self._ray_start[i]:self._ray_start[i + 1]] = lidar.noise_ahead(len(self._noise))
        world = self.sim.box2d.world
        index = self.lidars[0].ground_index_address(world) if self.lidars else 0
        return (box2d_native.address(world), self._schedule, self._vehicle, self._mount, self._angles,
                self._ray_start, self._range_min, self._range_max, self._hidden, self._hidden_start, self._bearings,
                self._ranges, self._scanned, self._origin, self._arena, self._message_start, self._stamp_offsets,
                self._stamp_kinds, self._ranges_at, self._scratch32, self._scratch8, self._publisher.handles,
                self._publisher.message_pointers, self._noisy, self._noise, self._noise_used, index)

    def _refresh_hidden(self) -> None:
        """The bodies each lidar does not see (Lidar2D.hidden_bodies), flattened when any list changed."""
        world = self.sim.box2d.world
        lists = [lidar.hidden_bodies(world) for lidar in self.lidars]
        if self._hidden_lists is not None and all(a is b for a, b in zip(lists, self._hidden_lists)):
            return
        self._hidden_lists = lists
        self._hidden = np.concatenate(lists or [np.zeros(0, np.intp)]).astype(np.intp)
        self._hidden_start = np.concatenate([[0], np.cumsum([a.size for a in lists])]).astype(np.intp)

    def after_run(self) -> None:
        """Hand the schedules back to the lidars and give each one that scanned its latest sample."""
        sim = self.sim
        for i, lidar in enumerate(self.lidars):
            if self._noisy[i]:
                lidar.skip_noise(int(self._noise_used[i]))
            if lidar.schedule.period is not None:
                lidar.schedule.next_time = float(self._schedule[i, 0])
            if self._scanned[i]:
                first, last = self._ray_start[i], self._ray_start[i + 1]
                x, y, heading = (float(v) for v in self._origin[i])
                z = float(sim.vehicle_z[lidar.vehicle]) + lidar.spec.pose.z
                lidar.latest = ScanSample(self._ranges[first:last].copy(), (x, y, z, heading, 0.0, 0.0))
