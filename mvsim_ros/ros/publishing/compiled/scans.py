"""The ROS side of the lidars' fast path (runtime/fast_path/scans.py): a ScanPublisher's serialized LaserScans,
copied into one byte array and published straight through rcl from inside the compiled steps.

`CompiledScans.for_publisher` takes those of a ScanPublisher's lidars that can go this way: ray cast in 2D (no
raytrace_3d), on a vehicle or fixed in the world, published serialized (little-endian CDR) through rcl directly,
with the Box2D shim loaded. Python serves the others (the session hands only these over).
"""

from __future__ import annotations

import numpy as np

from mvsim_ros.physics import Simulation
from mvsim_ros.ros.publishing.batch_publisher import BatchPublisher
from mvsim_ros.runtime.fast_path.delivery import empty_delivery
from mvsim_ros.runtime.fast_path.scans import FastScans, ScanSink, compiled_lidars, pack_messages


class CompiledScans(FastScans):
    """A ScanPublisher's lidars served by the fast path, their LaserScans (SerializedScan) copied into one byte
    array and published through their own BatchPublisher (kept here, with the message structs it owns, for as long
    as the compiled code delivers through it)."""

    def __init__(self, sim: Simulation, lidars: list, messages: list, outlets: list):
        """lidars (Lidar2D), their SerializedScan messages and outlets (ros/publishing/outlet.py), index for
        index."""
        count = len(lidars)
        batches = [message.batch for message in messages]
        arena, starts, rows = pack_messages([batch.store for batch in batches])
        #: Publishes message i of the byte array on publisher i.
        self.publisher = BatchPublisher([([outlet], row) for outlet, row in zip(outlets, rows)])
        sink = ScanSink(
            arena=arena, message_start=starts,
            stamp_offsets=np.array([b.field_offsets for b in batches], dtype=np.intp).reshape(count, 2),
            stamp_kinds=np.array([b.field_kinds for b in batches], dtype=np.int64).reshape(count, 2),
            ranges_at=np.array([message.ranges_offset for message in messages], dtype=np.intp),
            delivery=self.publisher.delivery if self.publisher.direct else empty_delivery())
        super().__init__(sim, lidars, sink)

    @classmethod
    def for_publisher(cls, sim: Simulation, scans) -> "CompiledScans | None":
        """CompiledScans for those of a ScanPublisher's lidars that qualify (see the module docstring), or None
        when none does."""
        serialized = scans.serialized_scans()
        if serialized is None:
            return None
        taken = [i for i in compiled_lidars(scans.lidars) if serialized[i][0].batch.little_endian]
        if not taken:
            return None
        compiled = cls(sim, [scans.lidars[i] for i in taken], [serialized[i][0] for i in taken],
                       [serialized[i][1] for i in taken])
        return compiled if compiled.publisher.direct else None
