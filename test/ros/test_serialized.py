"""Batch-patched serialized messages must deserialize to exactly the messages built the ordinary way."""

import math

import numpy as np
import pytest
from geometry_msgs.msg import TransformStamped
from nav_msgs.msg import Odometry
from rclpy.serialization import deserialize_message
from tf2_msgs.msg import TFMessage

from mvsim_ros.ros.publishing.conversions import planar_odometry, planar_transform, sim_time_msg
from mvsim_ros.ros.publishing.state.odom_transforms import TRANSFORM_FIELDS
from mvsim_ros.ros.publishing.state.odometry import ODOMETRY_FIELDS
from mvsim_ros.ros.publishing import serialized
from mvsim_ros.ros.publishing.serialized import SerializedBatch, field_layout


def test_each_row_equals_the_built_odometry_message():
    cases = [(12.345, (1.5, -2.25, 0.7), (0.4, -0.1, -0.3)), (0.0, (0.0, 0.0, -3.0), (0.0, 0.0, 0.0)),
             (2.0e5 + 0.999999999, (-1e3, 7.0, math.pi), (12.0, 0.0, 1.0))]
    template = planar_odometry(sim_time_msg(0.0), "odom", "base_link", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    template.pose.covariance[0] = 0.25  # constant fields between the patched ones stay as in the template
    batch = SerializedBatch(template, ODOMETRY_FIELDS, len(cases))
    values = []
    for t, (x, y, yaw), (vx, vy, wz) in cases:
        stamp = sim_time_msg(t)
        values.append([stamp.sec, stamp.nanosec, x, y, 0, 0, 0, math.sin(yaw / 2), math.cos(yaw / 2),
                       vx, vy, 0, 0, 0, wz])
    batch.fill(np.array(values))
    for i, (t, pose, twist) in enumerate(cases):
        expected = planar_odometry(sim_time_msg(t), "odom", "base_link", pose, twist)
        expected.pose.covariance[0] = 0.25
        assert deserialize_message(batch.row(i), Odometry) == expected


def test_fields_are_found_when_alignment_padding_holds_a_sentinel(monkeypatch):
    """The serializer leaves CDR alignment padding uninitialised: it can hold an earlier message's bytes, such as a
    stamp sentinel. Here the 6 padding bytes before the first double (after child_frame_id) hold the bytes of the
    nanosec sentinel, as seen in a long-running node; every field must still be found where it really lies."""
    template = planar_odometry(sim_time_msg(0.0), "odom", "base_link", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    clean = field_layout(template, ODOMETRY_FIELDS)
    real_serialize = serialized.serialize_message

    def serialize_with_dirty_padding(message):
        data = bytearray(real_serialize(message))
        end = data.index(b"base_link\x00") + len(b"base_link\x00")
        padding = -(end - 4) % 8  # to the next 8-byte boundary of the CDR body (after the 4-byte header)
        assert padding == 6
        data[end:end + padding] = bytes.fromhex("de3a0100de3a")  # the nanosec sentinel's bytes (0x3ADE0001)
        return bytes(data)

    monkeypatch.setattr(serialized, "serialize_message", serialize_with_dirty_padding)
    dirty = field_layout(template, ODOMETRY_FIELDS)
    assert dirty[1:] == clean[1:]
    batch = SerializedBatch(template, ODOMETRY_FIELDS, 1)
    stamp = sim_time_msg(3.5)
    batch.fill(np.array([[stamp.sec, stamp.nanosec, 1.0, 2.0, 0, 0, 0, 0, 1.0, 0.5, 0, 0, 0, 0, 0.25]]))
    assert deserialize_message(batch.row(0), Odometry) == planar_odometry(stamp, "odom", "base_link", (1.0, 2.0, 0.0),
                                                                          (0.5, 0.0, 0.25))


def test_rows_of_a_transform_inside_a_list():
    template = TFMessage(transforms=[planar_transform(sim_time_msg(0.0), "odom", "base_link", (0.0, 0.0, 0.0))])
    batch = SerializedBatch(template, TRANSFORM_FIELDS, 2)
    batch.fill(np.array([[7, 5, 3.25, -1.0, 0, 0, 0, 0.0, 1.0], [8, 0, 0.0, 2.0, 0, 0, 0, 1.0, 0.0]]))
    first, second = (deserialize_message(batch.row(i), TFMessage).transforms[0] for i in range(2))
    assert (first.header.stamp.sec, first.header.stamp.nanosec, first.transform.translation.x) == (7, 5, 3.25)
    assert (second.header.stamp.sec, second.transform.translation.y, second.transform.rotation.z) == (8, 2.0, 1.0)
    assert first.child_frame_id == second.child_frame_id == "base_link"


def test_only_numeric_fields_can_be_patched_and_order_matters():
    with pytest.raises(TypeError, match="child_frame_id"):
        SerializedBatch(TransformStamped(), ["child_frame_id"], 1)
    with pytest.raises(ValueError, match="serialized order"):
        SerializedBatch(TransformStamped(), ["transform.translation.y", "transform.translation.x"], 1)


def test_compiled_field_writer_writes_what_fill_writes():
    """write_fields (used from compiled loops) and SerializedBatch.fill give the same bytes, integers exactly."""
    from mvsim_ros.ros.publishing.serialized import write_fields

    batch = SerializedBatch(planar_odometry(sim_time_msg(0.0), "odom", "base_link", (0, 0, 0), (0, 0, 0)),
                            ODOMETRY_FIELDS, 3)
    values = np.random.default_rng(3).normal(size=(3, len(ODOMETRY_FIELDS)))
    values[:, 0] = [5, 7, 2 ** 31 - 1]  # sec (int32)
    values[:, 1] = [999_999_999, 0, 4_000_000_000]  # nanosec (uint32)
    blank = batch.store.copy()
    batch.fill(values)
    filled = batch.store.copy()
    batch.store[:] = blank
    write_fields(batch.store, batch.field_offsets, batch.field_kinds, values)
    assert batch.little_endian
    assert batch.store.tobytes() == filled.tobytes()
    odom = deserialize_message(batch.store[2].tobytes(), Odometry)
    assert (odom.header.stamp.sec, odom.header.stamp.nanosec) == (2 ** 31 - 1, 4_000_000_000)
    assert odom.pose.pose.position.x == values[2, 2]


def test_serialized_scan_deserializes_to_the_scan_built_field_by_field():
    import array

    from sensor_msgs.msg import LaserScan

    from mvsim_ros.ros.publishing.scan_publisher import SerializedScan

    def template():
        msg = LaserScan()
        msg.header.frame_id = "r1/laser1"
        msg.angle_min, msg.angle_max, msg.angle_increment = -1.5, 1.5, 3.0 / 180
        msg.scan_time, msg.range_min, msg.range_max = 0.05, 0.01, 20.0
        return msg

    ranges = np.linspace(0.5, 19.0, 181)
    ranges[[3, 90]] = np.inf
    scan = SerializedScan(template(), 181)
    scan.write((12, 345_000_000), ranges)
    got = deserialize_message(scan.batch.store[0].tobytes(), LaserScan)
    expected = template()
    expected.header.stamp.sec, expected.header.stamp.nanosec = 12, 345_000_000
    expected.ranges = array.array("f", ranges.astype(np.float32).tobytes())
    assert got.header == expected.header
    for field in ("angle_min", "angle_max", "angle_increment", "time_increment", "scan_time", "range_min",
                  "range_max"):
        assert getattr(got, field) == np.float32(getattr(expected, field)), field  # float32 fields
    assert np.asarray(got.ranges).tobytes() == np.asarray(expected.ranges).tobytes()
    assert len(got.intensities) == 0
