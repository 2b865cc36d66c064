"""Fake localization: each vehicle's true pose as AMCL would publish it once localized (`<veh>/amcl_pose`, latched,
and `<veh>/particlecloud`, frame map), and its map -> odom transform (for tf_static)."""

from __future__ import annotations

import math
import time

import numpy as np
from geometry_msgs.msg import Pose, PoseArray, PoseWithCovarianceStamped

from mvsim_ros.physics import Simulation
from mvsim_ros.ros.publishing.batch_publisher import BatchPublisher
from mvsim_ros.ros.publishing.outlet import Outlets
from mvsim_ros.ros.publishing.state.vehicle_rows import VehicleRows
from mvsim_ros.ros.qos import latched, reliable

#: The stamp and pose fields of amcl_pose and particlecloud (the same values as the first 9 odometry fields).
AMCL_POSE_FIELDS = [
    "header.stamp.sec", "header.stamp.nanosec",
    "pose.pose.position.x", "pose.pose.position.y", "pose.pose.position.z",
    "pose.pose.orientation.x", "pose.pose.orientation.y", "pose.pose.orientation.z", "pose.pose.orientation.w",
]
PARTICLE_CLOUD_FIELDS = [
    "header.stamp.sec", "header.stamp.nanosec",
    "poses.0.position.x", "poses.0.position.y", "poses.0.position.z",
    "poses.0.orientation.x", "poses.0.orientation.y", "poses.0.orientation.z", "poses.0.orientation.w",
]
#: How often [s of wall time] the fake-localization outlets are asked whether anyone subscribes (subscribers come
#: and go in wall time, whatever the simulation's speed).
LISTENER_CHECK_S = 0.5


def map_to_odom(true_pose, odom_pose) -> tuple[float, float, float]:
    """Planar map -> odom transform (x, y, yaw) [m, m, rad] that puts base_link at `true_pose` in map when the
    odometry says `odom_pose` in odom: T(map, odom) = T(map, base_link) T(odom, base_link)^-1 (what AMCL publishes
    once it has localized the robot)."""
    yaw = float(true_pose[2]) - float(odom_pose[2])
    c, s = math.cos(yaw), math.sin(yaw)
    x = float(true_pose[0]) - (c * float(odom_pose[0]) - s * float(odom_pose[1]))
    y = float(true_pose[1]) - (s * float(odom_pose[0]) + c * float(odom_pose[1]))
    return x, y, math.atan2(math.sin(yaw), math.cos(yaw))


class MapToOdom:
    """Each vehicle's planar map -> odom transform (x, y, yaw) [m, m, rad]: identity while the odometry agrees with
    the true pose, reset by `relocalize` after a vehicle was moved without its odometry following (a teleport)."""

    def __init__(self, sim: Simulation):
        self.sim = sim
        self._transforms = [map_to_odom(sim.pose[i], sim.odom_pose[i]) for i in range(len(sim.vehicle_names))]

    def __call__(self, index: int) -> tuple[float, float, float]:
        """Vehicle `index`'s map -> odom transform."""
        return self._transforms[index]

    def relocalize(self, index: int) -> None:
        """Set vehicle `index`'s map -> odom to T(map, base_link true) T(odom, base_link)^-1, so that map ->
        base_link is the true pose while odom -> base_link goes on continuously, as AMCL does after a
        relocalization."""
        self._transforms[index] = map_to_odom(self.sim.pose[index], self.sim.odom_pose[index])


class FakeLocalization:
    """amcl_pose (latched) and particlecloud (frame `map_frame`, one pose: the true one) of every vehicle, serialized
    once and only their numbers rewritten; published only while someone subscribes (asked every LISTENER_CHECK_S of
    wall time): nothing else in the stack reads them, and their two messages per vehicle would otherwise double the
    cost of every odometry publication."""

    def __init__(self, outlets: Outlets, prefixes: list[str], map_frame: str):
        count = len(prefixes)
        amcl = PoseWithCovarianceStamped()
        amcl.header.frame_id = map_frame
        amcl.pose.pose.orientation.w = 1.0
        cloud = PoseArray(poses=[Pose()])
        cloud.header.frame_id = map_frame
        amcl_outlets = [outlets.create(PoseWithCovarianceStamped, p + "amcl_pose", latched(1)) for p in prefixes]
        cloud_outlets = [outlets.create(PoseArray, p + "particlecloud", reliable(1)) for p in prefixes]
        self._rows = [VehicleRows([amcl] * count, AMCL_POSE_FIELDS, amcl_outlets),
                      VehicleRows([cloud] * count, PARTICLE_CLOUD_FIELDS, cloud_outlets)]
        self._outlets = amcl_outlets + cloud_outlets
        self._batch = BatchPublisher([stream for rows in self._rows for stream in rows.streams()])
        self._checked = -math.inf  # time.monotonic() of the last check
        self._listened = False

    def check_listeners(self) -> bool:
        """Whether anyone subscribes to amcl_pose or particlecloud, asked of the middleware at most every
        LISTENER_CHECK_S of wall time."""
        if self._outlets and time.monotonic() - self._checked >= LISTENER_CHECK_S:
            self._checked = time.monotonic()
            self._listened = any(outlet.publisher.get_subscription_count() for outlet in self._outlets)
        return self._listened

    def publish(self, truth: np.ndarray) -> None:
        """Publish the true poses when someone listens (as of the last `check_listeners`): `truth` holds one
        ground-truth row per vehicle (ODOMETRY_FIELDS order; its stamp and pose fields are used)."""
        if not self._listened:
            return
        for rows in self._rows:
            rows.fill(truth[:, :9])
        self._batch.publish()


__all__ = ["FakeLocalization", "LISTENER_CHECK_S", "MapToOdom", "map_to_odom"]
