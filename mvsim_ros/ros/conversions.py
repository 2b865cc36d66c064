"""Simulation values -> ROS messages (poses, twists, transforms, times). SI units, REP-103 frames."""

from __future__ import annotations

import math

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Quaternion, TransformStamped
from nav_msgs.msg import Odometry

from mvsim_ros.rotations import ypr_quaternion


def sec_nsec(seconds: float) -> tuple[int, int]:
    """(sec, nanosec) of a time [s], rounded to the nanosecond, as builtin_interfaces/Time stores it."""
    nanoseconds = int(round(seconds * 1e9))
    return nanoseconds // 1_000_000_000, nanoseconds % 1_000_000_000


def sim_time_msg(seconds: float) -> Time:
    """builtin_interfaces/Time for a simulated time [s] (rounded to the nanosecond)."""
    sec, nanosec = sec_nsec(seconds)
    return Time(sec=sec, nanosec=nanosec)


def yaw_quaternion(yaw: float) -> Quaternion:
    """Quaternion of a rotation by `yaw` [rad] about +z."""
    return Quaternion(x=0.0, y=0.0, z=math.sin(0.5 * yaw), w=math.cos(0.5 * yaw))


def planar_odometry(
    stamp: Time, frame_id: str, child_frame_id: str, pose: tuple[float, float, float],
    twist: tuple[float, float, float],
) -> Odometry:
    """nav_msgs/Odometry for a planar pose (x, y, yaw) in `frame_id` and a twist (vx, vy, omega) in the child frame."""
    msg = Odometry()
    msg.header.stamp = stamp
    msg.header.frame_id = frame_id
    msg.child_frame_id = child_frame_id
    msg.pose.pose.position.x = float(pose[0])
    msg.pose.pose.position.y = float(pose[1])
    msg.pose.pose.orientation = yaw_quaternion(float(pose[2]))
    msg.twist.twist.linear.x = float(twist[0])
    msg.twist.twist.linear.y = float(twist[1])
    msg.twist.twist.angular.z = float(twist[2])
    return msg


def planar_transform(stamp: Time, parent: str, child: str, pose: tuple[float, float, float]) -> TransformStamped:
    """geometry_msgs/TransformStamped placing `child` at planar pose (x, y, yaw) in `parent`."""
    msg = TransformStamped()
    msg.header.stamp = stamp
    msg.header.frame_id = parent
    msg.child_frame_id = child
    msg.transform.translation.x = float(pose[0])
    msg.transform.translation.y = float(pose[1])
    msg.transform.rotation = yaw_quaternion(float(pose[2]))
    return msg


def pose3_transform(stamp: Time, parent: str, child: str, pose) -> TransformStamped:
    """geometry_msgs/TransformStamped placing `child` at a 3D pose (x, y, z [m], yaw, pitch, roll [rad],
    rotations about z, then y, then x) in `parent`."""
    msg = TransformStamped()
    msg.header.stamp = stamp
    msg.header.frame_id = parent
    msg.child_frame_id = child
    msg.transform.translation.x, msg.transform.translation.y = float(pose.x), float(pose.y)
    msg.transform.translation.z = float(pose.z)
    msg.transform.rotation = quaternion_msg(ypr_quaternion(pose.yaw, pose.pitch, pose.roll))
    return msg


def quaternion_msg(q) -> Quaternion:
    """geometry_msgs/Quaternion of a unit quaternion (w, x, y, z)."""
    w, x, y, z = (float(c) for c in q)
    return Quaternion(x=x, y=y, z=z, w=w)
