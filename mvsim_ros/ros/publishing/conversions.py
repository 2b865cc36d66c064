"""Simulation values -> ROS messages (poses, twists, transforms, times). SI units, REP-103 frames."""

from __future__ import annotations

import time

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Quaternion, TransformStamped
from nav_msgs.msg import Odometry

from mvsim_ros.core import rotations


#: Added to every message stamp [ns]: 0 stamps messages with simulated time (the default, with /clock); the wall
#: time at which simulated time was 0 when `disable_sim_time_clock` stamps them with wall time instead.
_stamp_offset_ns = 0


def set_stamp_offset(seconds: float) -> None:
    """Make every stamp from `sec_nsec` / `sim_time_msg` the simulated time plus `seconds` (0: simulated time)."""
    global _stamp_offset_ns
    _stamp_offset_ns = int(round(seconds * 1e9))


def anchor_stamps_to_wall_clock(sim_time: float) -> None:
    """Stamp messages with wall time: the offset that makes simulated time `sim_time` [s] stamp as now (system
    clock), so stamps follow the wall clock while the simulation runs at real time."""
    global _stamp_offset_ns
    _stamp_offset_ns = time.time_ns() - int(round(sim_time * 1e9))


def stamp_offset() -> float:
    """The offset [s] added to simulated time in message stamps (0 unless stamping with wall time)."""
    return _stamp_offset_ns * 1e-9


def stamp_offset_ns() -> int:
    """The offset [ns] added to every stamp (see set_stamp_offset)."""
    return _stamp_offset_ns


def sec_nsec(seconds: float) -> tuple[int, int]:
    """(sec, nanosec) stamp of a simulated time [s], rounded to the nanosecond, as builtin_interfaces/Time stores
    it: the simulated time itself, plus the stamp offset when stamping with wall time (see set_stamp_offset)."""
    nanoseconds = int(round(seconds * 1e9)) + _stamp_offset_ns
    return nanoseconds // 1_000_000_000, nanoseconds % 1_000_000_000


def sim_time_msg(seconds: float) -> Time:
    """builtin_interfaces/Time stamp for a simulated time [s] (rounded to the nanosecond; see sec_nsec)."""
    sec, nanosec = sec_nsec(seconds)
    return Time(sec=sec, nanosec=nanosec)


def yaw_quaternion(yaw: float) -> Quaternion:
    """geometry_msgs/Quaternion of a rotation by `yaw` [rad] about +z."""
    return quaternion_msg(rotations.yaw_quaternion(yaw))


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
    msg.transform.rotation = quaternion_msg(rotations.ypr_quaternion(pose.yaw, pose.pitch, pose.roll))
    return msg


def quaternion_msg(q) -> Quaternion:
    """geometry_msgs/Quaternion of a unit quaternion (w, x, y, z)."""
    w, x, y, z = (float(c) for c in q)
    return Quaternion(x=x, y=y, z=z, w=w)
