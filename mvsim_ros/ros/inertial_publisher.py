"""IMU (sensor_msgs/Imu) and GNSS (sensor_msgs/NavSatFix) readings on `<veh>/<sensor name>`, each at its own
period of simulated time, with their frames (named after the sensors) fixed to base_link on tf_static.
World-level IMUs and receivers publish on `<sensor name>` (no vehicle prefix), their frames fixed to map."""

from __future__ import annotations


import numpy as np
from geometry_msgs.msg import Quaternion, TransformStamped
from rclpy.node import Node
from sensor_msgs.msg import Imu, NavSatFix, NavSatStatus

from mvsim_ros.physics import Simulation
from mvsim_ros.ros.conversions import pose3_transform, quaternion_msg, sim_time_msg
from mvsim_ros.rotations import matrix_quaternion
from mvsim_ros.ros.qos import reliable
from mvsim_ros.ros.topics import vehicle_frame
from mvsim_ros.sensors.gnss import Gnss
from mvsim_ros.sensors.imu import Imu as ImuSensor
from mvsim_ros.sensors.suite import host_frame, host_motion, host_pose3, topic_prefix
from mvsim_ros.schedule import Periodic


def rotation_quaternion(r: np.ndarray) -> Quaternion:
    """geometry_msgs/Quaternion of a 3x3 rotation matrix."""
    return quaternion_msg(matrix_quaternion(r))


class InertialPublisher:
    """Samples the IMUs and GNSS receivers when due and publishes them."""

    def __init__(self, node: Node, sim: Simulation, imus: list[ImuSensor], gnss: list[Gnss], prefixes: list[str],
                 base_frame: str = "base_link", world_frame: str = "map"):
        self.sim, self.imus, self.gnss, self.base_frame = sim, imus, gnss, base_frame
        self.world_frame = world_frame
        self._imu_pubs = [node.create_publisher(Imu, topic_prefix(prefixes, s.vehicle) + s.spec.name, reliable())
                          for s in imus]
        self._gnss_pubs = [node.create_publisher(NavSatFix, topic_prefix(prefixes, s.vehicle) + s.spec.name,
                                                 reliable())
                           for s in gnss]

    def static_transforms(self) -> dict[int, list[TransformStamped]]:
        """base_link -> sensor frame of every IMU and GNSS receiver, by vehicle index; map -> sensor frame of the
        world ones, under suite.WORLD_HOST."""
        stamp = sim_time_msg(0.0)
        out: dict[int, list[TransformStamped]] = {}
        for sensor in [*self.imus, *self.gnss]:
            out.setdefault(sensor.vehicle, []).append(
                pose3_transform(stamp, host_frame(sensor.vehicle, self.base_frame, self.world_frame),
                                sensor.spec.name, sensor.spec.pose))
        return out

    def schedules(self) -> list[Periodic]:
        """The IMUs' and GNSS receivers' sample schedules, which `publish_due` serves."""
        return [sensor.schedule for sensor in [*self.imus, *self.gnss]]

    def publish_due(self) -> None:
        """Sample and publish every sensor whose period has come."""
        sim, now = self.sim, self.sim.time
        for imu, pub in zip(self.imus, self._imu_pubs):
            if imu.due(now):
                _, velocity, acceleration = host_motion(sim, imu.vehicle)
                reading = imu.read(host_pose3(sim, imu.vehicle), velocity, acceleration)
                msg = Imu()
                msg.header.stamp, msg.header.frame_id = sim_time_msg(now), vehicle_frame(imu.vehicle, imu.spec.name)
                msg.orientation = rotation_quaternion(reading.orientation)
                msg.angular_velocity.x, msg.angular_velocity.y, msg.angular_velocity.z = reading.angular_velocity
                accel = reading.linear_acceleration
                msg.linear_acceleration.x, msg.linear_acceleration.y, msg.linear_acceleration.z = accel
                msg.orientation_covariance[0::4] = [1e-6] * 3
                msg.angular_velocity_covariance[0::4] = [max(imu.gyro_noise ** 2, 1e-12)] * 3
                msg.linear_acceleration_covariance[0::4] = [max(imu.accel_noise ** 2, 1e-12)] * 3
                pub.publish(msg)
        for gnss, pub in zip(self.gnss, self._gnss_pubs):
            if gnss.due(now):
                fix = gnss.read(host_pose3(sim, gnss.vehicle))
                msg = NavSatFix()
                msg.header.stamp, msg.header.frame_id = sim_time_msg(now), vehicle_frame(gnss.vehicle, gnss.spec.name)
                msg.status.service = NavSatStatus.SERVICE_GPS
                msg.status.status = NavSatStatus.STATUS_FIX if fix.has_fix else NavSatStatus.STATUS_NO_FIX
                msg.latitude, msg.longitude, msg.altitude = fix.latitude, fix.longitude, fix.height
                msg.position_covariance[0::4] = list(fix.variance_enu)
                msg.position_covariance_type = NavSatFix.COVARIANCE_TYPE_DIAGONAL_KNOWN
                pub.publish(msg)
