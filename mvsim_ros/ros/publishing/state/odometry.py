"""Per-vehicle nav_msgs/Odometry streams: wheel odometry (`<veh>/odom`, odom -> base_link) and ground truth
(`<veh>/base_pose_ground_truth`, map -> base_link), serialized once and only their numbers rewritten per publication
(see serialized.py)."""

from __future__ import annotations

import numpy as np
from nav_msgs.msg import Odometry

from mvsim_ros.ros.publishing.conversions import planar_odometry, sim_time_msg
from mvsim_ros.ros.publishing.outlet import Outlets
from mvsim_ros.ros.publishing.state.vehicle_rows import VehicleRows
from mvsim_ros.ros.qos import reliable

#: Patched fields, in serialized order: the columns of runtime/fast_path/vehicle_values.py's rows. Neighbouring
#: fields are written together, so the always-zero ones between them (z, roll/pitch parts) are listed too: 3 writes
#: per odometry message.
ODOMETRY_FIELDS = [
    "header.stamp.sec", "header.stamp.nanosec",
    "pose.pose.position.x", "pose.pose.position.y", "pose.pose.position.z",
    "pose.pose.orientation.x", "pose.pose.orientation.y", "pose.pose.orientation.z", "pose.pose.orientation.w",
    "twist.twist.linear.x", "twist.twist.linear.y", "twist.twist.linear.z",
    "twist.twist.angular.x", "twist.twist.angular.y", "twist.twist.angular.z",
]

#: Diagonal of the 6x6 pose/twist covariances (x, y, z, roll, pitch, yaw) of wheel odometry: planar motion is known
#: well, z/roll/pitch are unobserved (large variance), as planar odometry sources usually report.
PLANAR_COVARIANCE_DIAGONAL = (1e-4, 1e-4, 1e6, 1e6, 1e6, 1e-4)


def planar_covariance() -> list[float]:
    """The row-major 6x6 covariance with PLANAR_COVARIANCE_DIAGONAL on its diagonal."""
    cov = [0.0] * 36
    for i, value in enumerate(PLANAR_COVARIANCE_DIAGONAL):
        cov[7 * i] = value
    return cov


class OdometryStream:
    """nav_msgs/Odometry of every vehicle on `<prefix><topic>` (reliable, keep-last `history_depth`), in
    `parent_frames[i]` with child `child_frames[i]` (frame ids as the TF layout names them); with `covariance`, the
    pose and twist carry planar_covariance(). `rows` holds the serialized messages; `fill` writes one row of
    ODOMETRY_FIELDS values per vehicle (runtime/fast_path/vehicle_values.py)."""

    def __init__(self, outlets: Outlets, topic: str, prefixes: list[str], parent_frames: list[str],
                 child_frames: list[str], history_depth: int, covariance: bool = False):
        history = reliable(history_depth)
        self.outlets = [outlets.create(Odometry, prefix + topic, history) for prefix in prefixes]
        zero_time, origin = sim_time_msg(0.0), (0.0, 0.0, 0.0)
        templates = []
        for parent, child in zip(parent_frames, child_frames):
            msg = planar_odometry(zero_time, parent, child, origin, origin)
            if covariance:
                msg.pose.covariance = msg.twist.covariance = planar_covariance()
            templates.append(msg)
        self.rows = VehicleRows(templates, ODOMETRY_FIELDS, self.outlets)

    def fill(self, values: np.ndarray) -> None:
        """Write every vehicle's message: values[i] (ODOMETRY_FIELDS) for vehicle i."""
        self.rows.fill(values)


__all__ = ["ODOMETRY_FIELDS", "OdometryStream", "planar_covariance"]
