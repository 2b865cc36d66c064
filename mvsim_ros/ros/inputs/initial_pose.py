"""`<veh>/initialpose`: teleport a vehicle where rviz's "2D Pose Estimate" tool says it is.

rviz publishes geometry_msgs/PoseWithCovarianceStamped on `initialpose` in its fixed frame; with one vehicle and no
forced namespace the vehicle's prefix is '' and that is the very topic subscribed here.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Callable

from geometry_msgs.msg import PoseWithCovarianceStamped
from rclpy.node import Node

from mvsim_ros.physics import Simulation
from mvsim_ros.ros.qos import COMMAND_QOS

#: Largest tilt [rad] of the pose's z axis from the vertical still taken as a planar pose (its yaw is used).
MAX_TILT_RAD = 0.01
#: Frame ids accepted: the world frame ('' is taken as the world frame too).
WORLD_FRAMES = ("", "map")


def planar_pose(msg: PoseWithCovarianceStamped) -> tuple[float, float, float] | str:
    """(x [m], y [m], yaw [rad]) of a pose message in the world frame, or a one-line reason why it is not one:
    a frame other than '' or 'map', a non-finite number, a zero quaternion or a tilt beyond MAX_TILT_RAD. The
    quaternion need not be normalised; z is ignored."""
    frame = msg.header.frame_id
    if frame not in WORLD_FRAMES:
        return f"frame '{frame}' is not the world frame 'map'"
    p, q = msg.pose.pose.position, msg.pose.pose.orientation
    values = (p.x, p.y, q.x, q.y, q.z, q.w)
    if not all(math.isfinite(v) for v in values):
        return f"non-finite values (x={p.x}, y={p.y}, orientation=({q.x}, {q.y}, {q.z}, {q.w}))"
    norm2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w
    if norm2 < 1e-12:
        return "zero quaternion"
    # z axis of the rotated frame: its vertical component is 1 - 2 (x^2 + y^2) for a unit quaternion.
    cos_tilt = 1.0 - 2.0 * (q.x * q.x + q.y * q.y) / norm2
    tilt = math.acos(max(-1.0, min(1.0, cos_tilt)))
    if tilt > MAX_TILT_RAD:
        return f"orientation tilted {tilt:.3g} rad from the vertical (a planar pose needs <= {MAX_TILT_RAD:g} rad)"
    # Heading of the rotated x axis; both arguments scale with |q|^2, so no normalisation is needed.
    yaw = math.atan2(2.0 * (q.w * q.z + q.x * q.y), q.w * q.w + q.x * q.x - q.y * q.y - q.z * q.z)
    return p.x, p.y, yaw


class InitialPoseSubscriptions:
    """`<prefix>initialpose` (geometry_msgs/PoseWithCovarianceStamped) for every vehicle: puts the vehicle at the
    message's planar pose (`Simulation.set_vehicle_state`: velocity zeroed, wheel odometry carries on without a
    jump), then calls `relocalize(index)` (the fake-localization map -> odom refresh, when given). A message
    that is not a planar pose in the world frame, or that the simulation refuses (beyond the world bounds, a
    vehicle joined to an animated block), is ignored with a warning; the covariance is not used.
    """

    def __init__(self, node: Node, sim: Simulation, prefixes: list[str],
                 relocalize: Callable[[int], None] | None = None):
        self.node = node
        self.sim = sim
        self.relocalize = relocalize
        self.subscriptions = [
            node.create_subscription(PoseWithCovarianceStamped, prefix + "initialpose", partial(self._on_pose, i),
                                     COMMAND_QOS)
            for i, prefix in enumerate(prefixes)
        ]

    def _on_pose(self, index: int, msg: PoseWithCovarianceStamped) -> None:
        name = self.sim.vehicle_names[index]
        pose = planar_pose(msg)
        if isinstance(pose, str):
            self.node.get_logger().warning(f"{name}: initialpose ignored: {pose}")
            return
        x, y, yaw = pose
        try:
            self.sim.set_vehicle_state(index, x, y, yaw)
        except ValueError as exc:
            self.node.get_logger().warning(f"{name}: initialpose ignored: {exc}")
            return
        if self.relocalize is not None:
            self.relocalize(index)
        self.node.get_logger().info(f"{name}: moved to initialpose x={x:.3f} m, y={y:.3f} m, yaw={yaw:.3f} rad")
