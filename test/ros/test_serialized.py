"""Patched serialized messages must deserialize to exactly the message built the ordinary way."""

import math

import pytest
from rclpy.serialization import deserialize_message
from nav_msgs.msg import Odometry
from tf2_msgs.msg import TFMessage
from geometry_msgs.msg import TransformStamped

from mvsim_ros.ros.conversions import planar_odometry, planar_transform, sim_time_msg
from mvsim_ros.ros.serialized import SerializedMessage


def test_patched_odometry_equals_the_built_message():
    fields = ["header.stamp.sec", "header.stamp.nanosec", "pose.pose.position.x", "pose.pose.position.y",
              "pose.pose.orientation.z", "pose.pose.orientation.w", "twist.twist.linear.x", "twist.twist.angular.z"]
    template = planar_odometry(sim_time_msg(0.0), "odom", "base_link", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    fast = SerializedMessage(template, fields)
    for t, pose, twist in [(12.345, (1.5, -2.25, 0.7), (0.4, 0.0, -0.3)), (0.0, (0.0, 0.0, -3.0), (0.0, 0.0, 0.0))]:
        expected = planar_odometry(sim_time_msg(t), "odom", "base_link", pose, twist)
        values = [expected.header.stamp.sec, expected.header.stamp.nanosec, pose[0], pose[1],
                  math.sin(pose[2] / 2), math.cos(pose[2] / 2), twist[0], twist[2]]
        got = deserialize_message(fast.pack(*values), Odometry)
        assert got == expected


def test_patched_transform_inside_a_list():
    template = TFMessage(transforms=[planar_transform(sim_time_msg(0.0), "odom", "base_link", (0.0, 0.0, 0.0))])
    fast = SerializedMessage(template, ["transforms.0.header.stamp.sec", "transforms.0.transform.translation.x"])
    got = deserialize_message(fast.pack(7, 3.25), TFMessage)
    assert got.transforms[0].header.stamp.sec == 7
    assert got.transforms[0].transform.translation.x == 3.25
    assert got.transforms[0].child_frame_id == "base_link"


def test_only_numeric_fields_can_be_patched():
    with pytest.raises(TypeError, match="child_frame_id"):
        SerializedMessage(TransformStamped(), ["child_frame_id"])
