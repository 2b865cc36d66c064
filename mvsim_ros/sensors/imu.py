"""IMU: angular velocity, specific force (acceleration minus gravity) and, optionally, orientation of the sensor
frame.

The physics moves the vehicle in the horizontal plane (Box2D) and the terrain gives it a height, pitch and roll.
The sensor point at r (horizontal offset from the reference point, world frame) accelerates horizontally at
a_ref + alpha x r - omega^2 r; on terrain its vertical acceleration is that of the ground plane under the vehicle
(a_z = -(n_x a_x + n_y a_y) / n_z with n the vehicle's up axis, exact on a plane). The accelerometer reads that
minus gravity, i.e. plus (0, 0, +g) at rest, expressed in the sensor frame: the host's yaw, pitch and roll and the
mounting rotation included, so at rest on a slope facing uphill it reads (g sin theta, 0, g cos theta). The
gyroscope reads the body's yaw rate about world z in the sensor frame (the slow pitch and roll rates of driving
over terrain are left out). Each axis gets white Gaussian noise (angular_velocity_white_noise_std_noise [rad/s],
linear_acceleration_white_noise_std_noise [m/s^2]; MVSim's defaults 2e-4 and 0.017) plus a bias that random-walks
(angular_velocity_random_walk_std_noise [rad/s/sqrt(s)], linear_acceleration_random_walk_std_noise
[m/s^2/sqrt(s)]) by one step per sample over the time since the previous one (the sensor period).

With measure_orientation, the reading also carries the sensor frame's orientation in the world (rotated into
East-North-Up by the <georeference>'s world_to_enu_rotation when the world has one), turned by a random rotation
whose rotation vector has a Gaussian component of std. dev. orientation_std_noise [rad] about each sensor axis.
Names and defaults: world/params/sensor_tables.py (sensor.imu).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mvsim_ros.core.jit import kernel
from mvsim_ros.sensors.host_placement import pose6
from mvsim_ros.core.schedule import Periodic
from mvsim_ros.world.specs import SensorSpec


@dataclass
class ImuReading:
    """One IMU sample: angular velocity [rad/s] and specific force [m/s^2] in the sensor frame, and the sensor
    frame's orientation (3x3 rotation matrix, sensor axes in world coordinates; with measure_orientation, in ENU
    coordinates and with its noise)."""

    angular_velocity: np.ndarray
    linear_acceleration: np.ndarray
    orientation: np.ndarray


class Imu:
    """An IMU at `spec.pose` on its host `vehicle`: a vehicle index, or suite.WORLD_HOST for a world-level IMU
    (fixed in the world: read with zero pose, velocity and acceleration, it gives its own orientation, zero
    angular velocity and +g along world z in its frame). world_to_enu [rad]: rotation of the world's x axis from
    East (the world's <georeference>), applied to the measured orientation."""

    def __init__(self, spec: SensorSpec, vehicle: int, gravity: float, rng: np.random.Generator,
                 world_to_enu: float = 0.0):
        self.spec = spec
        self.vehicle = vehicle
        self.gravity = gravity
        self.rng = rng
        params = spec.params
        self.period = params.sensor_period
        self.gyro_noise = params.angular_velocity_white_noise_std_noise
        self.accel_noise = params.linear_acceleration_white_noise_std_noise
        self.gyro_walk = params.angular_velocity_random_walk_std_noise
        self.accel_walk = params.linear_acceleration_random_walk_std_noise
        #: Whether readings carry a measured orientation, and its noise [rad].
        self.measure_orientation = params.measure_orientation
        self.orientation_noise = params.orientation_std_noise
        c, s = math.cos(world_to_enu), math.sin(world_to_enu)
        self._enu_from_world = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
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
        gyro, accel, sensor_to_world = imu_readings(np.array([pose6(pose)]), np.array([velocity], dtype=float),
                                                    np.array([acceleration], dtype=float),
                                                    np.array([[self.spec.pose.x, self.spec.pose.y]]),
                                                    self.mount[None], self.gravity)
        return self.finish(gyro[0], accel[0], sensor_to_world[0])

    def finish(self, gyro: np.ndarray, accel: np.ndarray, sensor_to_world: np.ndarray) -> ImuReading:
        """The reading from this IMU's noise-free one (`imu_readings`): plus its bias random walks and white noise
        (drawn from its own generator, in a fixed order)."""
        if self.gyro_walk > 0:
            self.gyro_bias += self.rng.normal(0.0, self.gyro_walk * math.sqrt(self.period), 3)
        if self.accel_walk > 0:
            self.accel_bias += self.rng.normal(0.0, self.accel_walk * math.sqrt(self.period), 3)
        gyro = gyro + self.gyro_bias + (self.rng.normal(0.0, self.gyro_noise, 3) if self.gyro_noise > 0 else 0.0)
        accel = accel + self.accel_bias + (self.rng.normal(0.0, self.accel_noise, 3) if self.accel_noise > 0 else 0.0)
        orientation = sensor_to_world
        if self.measure_orientation:
            orientation = self._enu_from_world @ sensor_to_world
            if self.orientation_noise > 0:
                orientation = orientation @ rotation_vector_matrix(self.rng.normal(0.0, self.orientation_noise, 3))
        return ImuReading(gyro, accel, orientation)


def rotation_vector_matrix(v: np.ndarray) -> np.ndarray:
    """The rotation matrix of rotation vector `v` [rad] (axis v/|v|, angle |v|; Rodrigues' formula)."""
    angle = float(np.linalg.norm(v))
    if angle < 1e-12:
        return np.eye(3)
    k = np.asarray(v, dtype=float) / angle
    cross = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(angle) * cross + (1.0 - math.cos(angle)) * cross @ cross


@kernel
def imu_readings(poses, velocities, accelerations, offsets, mounts, gravity):
    """Noise-free readings of N IMUs in one call.

    poses[i] = (x, y, z, yaw, pitch, roll) of IMU i's host [m, rad], R = Rz(yaw) Ry(pitch) Rx(roll);
    velocities[i] = (vx, vy, omega) and accelerations[i] = (ax, ay, alpha) of the host's reference point, world
    frame [m/s, rad/s, m/s^2, rad/s^2]; offsets[i] = the IMU's (x, y) on the host [m]; mounts[i]: its 3x3 rotation
    on the host; gravity [m/s^2]. The IMU point accelerates as the reference point plus alpha x r - omega^2 r; the
    vertical component keeps it on the host's tilted plane. Returns (angular velocity (N, 3) [rad/s], specific
    force (N, 3) [m/s^2], both in the sensor frame, sensor-to-world rotations (N, 3, 3)).
    """
    count = poses.shape[0]
    gyro = np.empty((count, 3))
    accel = np.empty((count, 3))
    frames = np.empty((count, 3, 3))
    body = np.empty((3, 3))
    for i in range(count):
        cy, sy = math.cos(poses[i, 3]), math.sin(poses[i, 3])
        cp, sp = math.cos(poses[i, 4]), math.sin(poses[i, 4])
        cr, sr = math.cos(poses[i, 5]), math.sin(poses[i, 5])
        body[0, 0], body[0, 1], body[0, 2] = cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr
        body[1, 0], body[1, 1], body[1, 2] = sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr
        body[2, 0], body[2, 1], body[2, 2] = -sp, cp * sr, cp * cr
        rx = body[0, 0] * offsets[i, 0] + body[0, 1] * offsets[i, 1]
        ry = body[1, 0] * offsets[i, 0] + body[1, 1] * offsets[i, 1]
        omega, alpha = velocities[i, 2], accelerations[i, 2]
        ax = accelerations[i, 0] - alpha * ry - omega * omega * rx
        ay = accelerations[i, 1] + alpha * rx - omega * omega * ry
        az = -(body[0, 2] * ax + body[1, 2] * ay) / body[2, 2] if body[2, 2] > 1e-6 else 0.0
        world = (ax, ay, az + gravity)
        for r in range(3):
            for c in range(3):
                frames[i, r, c] = body[r, 0] * mounts[i, 0, c] + body[r, 1] * mounts[i, 1, c] + \
                    body[r, 2] * mounts[i, 2, c]
        for c in range(3):  # sensor frame = (sensor-to-world)^T world
            gyro[i, c] = frames[i, 2, c] * omega
            accel[i, c] = frames[i, 0, c] * world[0] + frames[i, 1, c] * world[1] + frames[i, 2, c] * world[2]
    return gyro, accel, frames
