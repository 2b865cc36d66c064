"""/clock and the vehicle streams as the compiled fast path writes and delivers them (runtime/fast_path/sinks.py)."""

from __future__ import annotations

from mvsim_ros.ros.publishing.batch_publisher import BatchPublisher
from mvsim_ros.ros.publishing.state.clock import ClockStream
from mvsim_ros.ros.publishing.state.odom_transforms import OdomTransforms
from mvsim_ros.ros.publishing.state.odometry import OdometryStream
from mvsim_ros.runtime.fast_path.fields import empty_buffers
from mvsim_ros.runtime.fast_path.sinks import StreamSink, VehicleSink, no_clock


def compiled_stream_sink(vehicle_batch: BatchPublisher, clock: ClockStream | None, odometry: OdometryStream,
                         truth: OdometryStream, transforms: OdomTransforms | None) -> StreamSink | None:
    """The serialized messages of /clock (None: off), odometry, ground truth and odom -> base_link (None: off) with
    their delivery (`vehicle_batch`: odometry, ground truth and transforms, in that order), or None when one of them
    cannot go that way: rcl is not reachable directly, a stream is not one little-endian serialized batch, or the
    transforms of several vehicles share one message (single TF tree)."""
    if not vehicle_batch.direct:
        return None
    clock_sink = no_clock()
    if clock is not None:
        clock_sink = clock.compiled_sink()
        if clock_sink is None:
            return None
    if transforms is not None and transforms.merged:
        return None
    batches = [odometry.rows.single_batch(), truth.rows.single_batch()]
    if transforms is not None:
        batches.append(transforms.groups[0][1].single_batch())
    if any(batch is None for batch in batches):
        return None
    transform = batches[2].buffers if transforms is not None else empty_buffers()
    return StreamSink(clock_sink, VehicleSink(batches[0].buffers, batches[1].buffers, transform,
                                              vehicle_batch.delivery))


__all__ = ["compiled_stream_sink"]
