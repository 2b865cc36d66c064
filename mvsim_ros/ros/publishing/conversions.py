"""Simulation values -> ROS messages (poses, twists, transforms, times). SI units, REP-103 frames."""

from __future__ import annotations

import time
from dataclasses import dataclass

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Quaternion, TransformStamped
from nav_msgs.msg import Odometry

from mvsim_ros.core import rotations


def sec_nsec(seconds: float, offset_ns: int = 0) -> tuple[int, int]:
    """(sec, nanosec) stamp of a simulated time [s], rounded to the nanosecond, plus `offset_ns` [ns], as
    builtin_interfaces/Time stores it."""
    nanoseconds = int(round(seconds * 1e9)) + offset_ns
    return nanoseconds // 1_000_000_000, nanoseconds % 1_000_000_000


def sim_time_msg(seconds: float, offset_ns: int = 0) -> Time:
    """builtin_interfaces/Time stamp for a simulated time [s] plus `offset_ns` [ns] (rounded to the nanosecond;
    see sec_nsec)."""
    sec, nanosec = sec_nsec(seconds, offset_ns)
    return Time(sec=sec, nanosec=nanosec)


@dataclass(frozen=True)
class Stamps:
    """How one simulation session stamps its messages: the simulated time plus `offset_ns` [ns].

    0 (the default) stamps messages with simulated time, as /clock says it; with `disable_sim_time_clock` the
    offset is the wall time at which simulated time was 0 (`anchored_to_wall_clock`), so that stamps follow the
    system clock while the simulation runs at real time.
    """

    offset_ns: int = 0

    @classmethod
    def anchored_to_wall_clock(cls, sim_time: float) -> "Stamps":
        """Stamps that make simulated time `sim_time` [s] stamp as now (system clock)."""
        return cls(time.time_ns() - int(round(sim_time * 1e9)))

    @property
    def offset_s(self) -> float:
        """The offset [s] added to simulated time."""
        return self.offset_ns * 1e-9

    def sec_nsec(self, seconds: float) -> tuple[int, int]:
        """(sec, nanosec) stamp of simulated time `seconds` [s]."""
        return sec_nsec(seconds, self.offset_ns)

    def time_msg(self, seconds: float) -> Time:
        """builtin_interfaces/Time stamp of simulated time `seconds` [s]."""
        return sim_time_msg(seconds, self.offset_ns)


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
