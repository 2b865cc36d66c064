"""IMU (sensor_msgs/Imu) and GNSS (sensor_msgs/NavSatFix) readings on `<veh>/<sensor name>`, each at its own
period of simulated time, with their frames (named after the sensors) fixed to base_link on tf_static.
World-level IMUs and receivers publish on `<sensor name>` (no vehicle prefix), their frames fixed to map.
An IMU's orientation is published with its covariance (orientation_std_noise squared on the diagonal) when it has
measure_orientation; otherwise the message says it has none (orientation_covariance[0] = -1, identity quaternion).
"""

from __future__ import annotations


import numpy as np
from geometry_msgs.msg import TransformStamped
from rclpy.node import Node
from sensor_msgs.msg import Imu, NavSatFix, NavSatStatus

from mvsim_ros.ros.publishing.batch_publisher import RowsPublisher
from mvsim_ros.ros.publishing.context import PublishingContext
from mvsim_ros.ros.publishing.conversions import pose3_transform, quaternion_msg
from mvsim_ros.core.rotations import matrix_quaternion
from mvsim_ros.ros.qos import reliable
from mvsim_ros.ros.publishing.serialized import SerializedBatch
from mvsim_ros.runtime.sensor_runner import Measured, SensorRunner
from mvsim_ros.sensors.gnss import Gnss
from mvsim_ros.sensors.imu import Imu as ImuSensor, ImuReading
from mvsim_ros.sensors.suite import host_frame, topic_prefix


#: The fields of an Imu message a sample writes, in serialized order.
IMU_FIELDS = ["header.stamp.sec", "header.stamp.nanosec", "orientation.x", "orientation.y", "orientation.z",
              "orientation.w", "angular_velocity.x", "angular_velocity.y", "angular_velocity.z",
              "linear_acceleration.x", "linear_acceleration.y", "linear_acceleration.z"]


class InertialPublisher:
    """Publishes the readings of the IMUs and GNSS receivers of `runner` (a runtime SensorRunner) as they are
    measured. `context`: the session's PublishingContext (a plain one on `node` when not given)."""

    def __init__(self, node: Node, runner: SensorRunner, prefixes: list[str], base_frame: str = "base_link",
                 world_frame: str = "map", context: PublishingContext | None = None):
        self.imus: list[ImuSensor] = runner.imus
        self.gnss: list[Gnss] = runner.gnss
        self.base_frame = base_frame
        self.world_frame = world_frame
        self.context = context if context is not None else PublishingContext.plain(node, prefixes)
        outlets = self.context.outlets
        self._imu_outlets = [outlets.create(Imu, topic_prefix(prefixes, s.vehicle) + s.spec.name, reliable())
                             for s in self.imus]
        self._imu_templates = [self._imu_template(imu) for imu in self.imus]
        #: IMU messages kept serialized and sent with one publish call per instant (None with publishers that
        #: are not rclpy's: those get Imu messages).
        self._imu_batches = None
        if all(outlet.takes_serialized for outlet in self._imu_outlets):
            self._imu_batches = [SerializedBatch(msg, IMU_FIELDS, 1) for msg in self._imu_templates]
            self._imu_rows = RowsPublisher(self._imu_outlets, [batch.store for batch in self._imu_batches])
        self._gnss_outlets = [outlets.create(NavSatFix, topic_prefix(prefixes, s.vehicle) + s.spec.name, reliable())
                              for s in self.gnss]

    def static_transforms(self) -> dict[int, list[TransformStamped]]:
        """base_link -> sensor frame of every IMU and GNSS receiver, by vehicle index; map -> sensor frame of the
        world ones, under suite.WORLD_HOST."""
        stamp = self.context.stamps.time_msg(0.0)
        out: dict[int, list[TransformStamped]] = {}
        for sensor in [*self.imus, *self.gnss]:
            out.setdefault(sensor.vehicle, []).append(
                pose3_transform(stamp, host_frame(sensor.vehicle, self.base_frame, self.world_frame),
                                sensor.spec.name, sensor.spec.pose))
        return out

    def _imu_template(self, imu: ImuSensor) -> Imu:
        msg = Imu()
        msg.header.frame_id = self.context.frame(imu.vehicle, imu.spec.name)
        msg.orientation.w = 1.0
        if imu.measure_orientation:
            msg.orientation_covariance[0::4] = [max(imu.orientation_noise ** 2, 1e-12)] * 3
        else:  # no orientation estimate (sensor_msgs/Imu: element 0 of its covariance is -1)
            msg.orientation_covariance[0] = -1.0
        msg.angular_velocity_covariance[0::4] = [max(imu.gyro_noise ** 2, 1e-12)] * 3
        msg.linear_acceleration_covariance[0::4] = [max(imu.accel_noise ** 2, 1e-12)] * 3
        return msg

    def _publish_imus(self, readings: list[tuple[int, ImuReading]], now: float) -> None:
        """Publish the IMU readings (index, reading) measured at simulated time `now` [s]."""
        sec, nsec = self.context.stamps.sec_nsec(now)
        for index, reading in readings:
            imu = self.imus[index]
            w, x, y, z = matrix_quaternion(reading.orientation) if imu.measure_orientation else (1.0, 0.0, 0.0, 0.0)
            row = [sec, nsec, x, y, z, w, *reading.angular_velocity, *reading.linear_acceleration]
            if self._imu_batches is not None:
                self._imu_batches[index].fill(np.array([row], dtype=float))
                continue
            msg = self._imu_templates[index]
            msg.header.stamp = self.context.stamps.time_msg(now)
            msg.orientation = quaternion_msg((w, x, y, z))
            msg.angular_velocity.x, msg.angular_velocity.y, msg.angular_velocity.z = row[6:9]
            msg.linear_acceleration.x, msg.linear_acceleration.y, msg.linear_acceleration.z = row[9:12]
            self._imu_outlets[index].publish(msg)
        if self._imu_batches is not None:
            self._imu_rows.publish([index for index, _ in readings])

    def publish(self, measured: Measured) -> None:
        """Publish the IMU and GNSS readings measured at one instant (`measured.imus`, `measured.fixes`)."""
        now = measured.time
        if measured.imus:
            self._publish_imus(measured.imus, now)
        for index, fix in measured.fixes:
            gnss, outlet = self.gnss[index], self._gnss_outlets[index]
            msg = NavSatFix()
            msg.header.stamp = self.context.stamps.time_msg(now)
            msg.header.frame_id = self.context.frame(gnss.vehicle, gnss.spec.name)
            msg.status.service = NavSatStatus.SERVICE_GPS
            msg.status.status = NavSatStatus.STATUS_FIX if fix.has_fix else NavSatStatus.STATUS_NO_FIX
            msg.latitude, msg.longitude, msg.altitude = fix.latitude, fix.longitude, fix.height
            msg.position_covariance[0::4] = list(fix.variance_enu)
            msg.position_covariance_type = NavSatFix.COVARIANCE_TYPE_DIAGONAL_KNOWN
            outlet.publish(msg)
