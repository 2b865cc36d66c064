"""What a front end hands the fast path for its clock and vehicle streams: the serialized messages (StreamBuffers)
the compiled loop writes the numbers of an instant into, and where it delivers them (Delivery)."""

from __future__ import annotations

from typing import NamedTuple

from mvsim_ros.runtime.fast_path.delivery import Delivery, empty_delivery
from mvsim_ros.runtime.fast_path.fields import StreamBuffers, empty_buffers


class ClockSink(NamedTuple):
    """The simulated clock: one message whose fields are the time's (sec, nanosec)."""

    buffers: StreamBuffers
    delivery: Delivery


class VehicleSink(NamedTuple):
    """Every vehicle's odometry, ground truth and odom -> base_link transform, one message per vehicle and stream,
    row k for vehicle k, with the columns of vehicle_values (ODOMETRY_COLUMNS, TRANSFORM_COLUMNS); a stream that
    is off has no rows (fields.empty_buffers). `delivery` covers the odometry, ground-truth and transform messages,
    in that order."""

    odometry: StreamBuffers
    truth: StreamBuffers
    transform: StreamBuffers
    delivery: Delivery


class StreamSink(NamedTuple):
    """A front end's clock and vehicle streams."""

    clock: ClockSink
    vehicles: VehicleSink


def no_clock() -> ClockSink:
    """A ClockSink of no message (no clock stream)."""
    return ClockSink(empty_buffers(), empty_delivery())
