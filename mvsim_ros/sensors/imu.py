"""IMU: angular velocity, specific force (acceleration minus gravity) and orientation of the sensor frame.

The physics moves the vehicle in the horizontal plane (Box2D) and the terrain gives it a height, pitch and roll.
The sensor point at r (horizontal offset from the reference point, world frame) accelerates horizontally at
a_ref + alpha x r - omega^2 r; on terrain its vertical acceleration is that of the ground plane under the vehicle
(a_z = -(n_x a_x + n_y a_y) / n_z with n the vehicle's up axis, exact on a plane). The accelerometer reads that
minus gravity, i.e. plus (0, 0, +g) at rest, expressed in the sensor frame: the host's yaw, pitch and roll and the
mounting rotation included, so at rest on a slope facing uphill it reads (g sin theta, 0, g cos theta). The
gyroscope reads the body's yaw rate about world z in the sensor frame (the slow pitch and roll rates of driving
over terrain are left out). Each axis gets white Gaussian noise (angular_velocity_std_noise
[rad/s], linear_acceleration_std_noise [m/s^2]) plus a bias that random-walks
(angular_velocity_bias_random_walk [rad/s/sqrt(s)], linear_acceleration_bias_random_walk [m/s^2/sqrt(s)]).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mvsim_ros.sensors.host_placement import host_matrix
from mvsim_ros.sensors.sensor_params import number, positive_period
from mvsim_ros.schedule import Periodic
from mvsim_ros.world.specs import SensorSpec


@dataclass
class ImuReading:
    """One IMU sample: angular velocity [rad/s] and specific force [m/s^2] in the sensor frame, and the sensor
    frame's orientation in the world (3x3 rotation matrix, sensor axes in world coordinates)."""

    angular_velocity: np.ndarray
    linear_acceleration: np.ndarray
    orientation: np.ndarray


class Imu:
    """An IMU at `spec.pose` on its host `vehicle`: a vehicle index, or suite.WORLD_HOST for a world-level IMU
    (fixed in the world: read with zero pose, velocity and acceleration, it gives its own orientation, zero
    angular velocity and +g along world z in its frame)."""

    def __init__(self, spec: SensorSpec, vehicle: int, gravity: float, rng: np.random.Generator):
        self.spec = spec
        self.vehicle = vehicle
        self.gravity = gravity
        self.rng = rng
        self.period = positive_period(spec, 0.05)
        self.gyro_noise = number(spec, "angular_velocity_std_noise", default=0.0)
        self.accel_noise = number(spec, "linear_acceleration_std_noise", default=0.0)
        self.gyro_walk = number(spec, "angular_velocity_bias_random_walk", default=0.0)
        self.accel_walk = number(spec, "linear_acceleration_bias_random_walk", default=0.0)
        self.gyro_bias = np.zeros(3)
        self.accel_bias = np.zeros(3)
        self.mount = spec.pose.rotation()
        self.schedule = Periodic(self.period)

    def due(self, now: float) -> bool:
        """True (and the next sample scheduled) when a sample is due at simulated time `now` [s]."""
        return self.schedule.due(now)

    def read(self, pose: np.ndarray, velocity: np.ndarray, acceleration: np.ndarray) -> ImuReading:
        """Sample from the host's pose (x, y, yaw) or (x, y, z, yaw, pitch, roll), velocity (vx, vy, omega) and
        acceleration (ax, ay, alpha) of its reference point, world frame (all zeros for the world)."""
        omega, alpha = velocity[2], acceleration[2]
        body_to_world = host_matrix(pose)[:3, :3]
        r = body_to_world @ np.array([self.spec.pose.x, self.spec.pose.y, 0.0])
        rx, ry = r[0], r[1]
        ax, ay = acceleration[0] - alpha * ry - omega * omega * rx, acceleration[1] + alpha * rx - omega * omega * ry
        up = body_to_world[:, 2]
        az = -(up[0] * ax + up[1] * ay) / up[2] if up[2] > 1e-6 else 0.0
        accel_world = np.array([ax, ay, az + self.gravity])
        sensor_to_world = body_to_world @ self.mount
        world_to_sensor = sensor_to_world.T
        gyro = world_to_sensor @ np.array([0.0, 0.0, omega])
        accel = world_to_sensor @ accel_world
        if self.gyro_walk > 0:
            self.gyro_bias += self.rng.normal(0.0, self.gyro_walk * math.sqrt(self.period), 3)
        if self.accel_walk > 0:
            self.accel_bias += self.rng.normal(0.0, self.accel_walk * math.sqrt(self.period), 3)
        gyro = gyro + self.gyro_bias + (self.rng.normal(0.0, self.gyro_noise, 3) if self.gyro_noise > 0 else 0.0)
        accel = accel + self.accel_bias + (self.rng.normal(0.0, self.accel_noise, 3) if self.accel_noise > 0 else 0.0)
        return ImuReading(gyro, accel, sensor_to_world)
