"""The controlled vehicle's observation: its 2D lidar scans, wheel odometry, pose, and optionally its camera
images, measured from a Simulation at the end of each env step.

Keys: each lidar's and camera's sensor name (prefixed 'lidar_' / 'camera_' where the name is taken), 'odometry'
= (v [m/s], omega [rad/s]) from wheel odometry, 'pose' = (x [m], y [m], yaw [rad] in [-pi, pi)) in the world
frame. Scans: float32 ranges [m] in [0, max_range], a beam without a return (+inf) reads max_range. Images: uint8
(rows, cols, 3) RGB rendered with OpenGL.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from gymnasium import spaces

from mvsim_ros.sensors.gl_context import GlUnavailable
from mvsim_ros.sensors.suite import build_sensors, host_pose3
from mvsim_ros.world.specs import WorldSpec
from mvsim_ros.world.xml.bounds import BOUNDS

#: Keys the environment itself uses.
POSE_KEY, ODOMETRY_KEY = "pose", "odometry"
#: Largest |x|, |y| of a pose [m], |v| [m/s] and |omega| [rad/s] of odometry: the world bounds (world/xml/bounds.py).
POSITION_BOUND = float(BOUNDS["position"].high)
SPEED_BOUND = float(BOUNDS["velocity"].high)
YAW_RATE_BOUND = math.radians(float(BOUNDS["angular_velocity"].high))


def wrap_angle(angle: float) -> float:
    """`angle` [rad] wrapped into [-pi, pi)."""
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


def pose_space() -> spaces.Box:
    """Box of a pose (x [m], y [m], yaw [rad]) within the world bounds."""
    high = np.array([POSITION_BOUND, POSITION_BOUND, math.pi], dtype=np.float32)
    return spaces.Box(-high, high, dtype=np.float32)


def _unique(name: str, prefix: str, taken: set[str]) -> str:
    """`name`, or `prefix + name` (then with a counter) where it is already taken; marks it taken."""
    key, k = name, 1
    if key in taken:
        key = prefix + name
    while key in taken:
        k += 1
        key = f"{prefix}{name}_{k}"
    taken.add(key)
    return key


class Observer:
    """Measures the observation of vehicle `index` of `world` (a WorldSpec).

    cameras: add the vehicle's cameras' RGB images (needs OpenGL: RuntimeError saying why when no context can be
    made, ValueError when the vehicle has no camera). sensor_noise: False zeroes the lidars' range and bearing noise.
    reserved: keys taken by the task (its own observation entries).
    """

    def __init__(self, world: WorldSpec, index: int, cameras: bool = False, sensor_noise: bool = True,
                 reserved: tuple[str, ...] = ()):
        self.world, self.index, self.sensor_noise = world, index, sensor_noise
        sensors = build_sensors(world)
        self._lidar_slots = [j for j, lidar in enumerate(sensors.lidars) if lidar.vehicle == index]
        self._camera_slots = [j for j, cam in enumerate(sensors.cameras)
                              if cam.vehicle == index and cam.rgb is not None]
        taken = {POSE_KEY, ODOMETRY_KEY, *reserved}
        self.lidar_keys = [_unique(sensors.lidars[j].spec.name, "lidar_", taken) for j in self._lidar_slots]
        self.max_ranges = [float(sensors.lidars[j].params.range_max) for j in self._lidar_slots]
        self.cameras = [sensors.cameras[j] for j in self._camera_slots] if cameras else []
        self.camera_keys = [_unique(cam.spec.name, "camera_", taken) for cam in self.cameras]
        if cameras and not self.cameras:
            raise ValueError(f"vehicle '{world.vehicles[index].name}' has no RGB camera to observe")
        self.scene = None
        wants_gl = any(sensors.lidars[j].raytrace_3d for j in self._lidar_slots)
        if self.cameras or wants_gl:
            self.scene = self._make_scene(required=bool(self.cameras))
        self.lidars = [sensors.lidars[j] for j in self._lidar_slots]
        entries: dict[str, spaces.Space] = {}
        for key, lidar, top in zip(self.lidar_keys, self.lidars, self.max_ranges):
            entries[key] = spaces.Box(0.0, np.float32(top), shape=(lidar.params.rays,), dtype=np.float32)
        odometry_high = np.array([SPEED_BOUND, YAW_RATE_BOUND], dtype=np.float32)
        entries[ODOMETRY_KEY] = spaces.Box(-odometry_high, odometry_high, dtype=np.float32)
        entries[POSE_KEY] = pose_space()
        for key, cam in zip(self.camera_keys, self.cameras):
            entries[key] = spaces.Box(0, 255, shape=(cam.rgb.nrows, cam.rgb.ncols, 3), dtype=np.uint8)
        #: The spaces of the entries measured here (a task adds its own).
        self.spaces = entries

    def _make_scene(self, required: bool):
        """The world's GL scene; without an OpenGL context a RuntimeError when cameras need it, else a warning
        (raytrace_3d lidars then ray cast in 2D) and None."""
        try:
            from mvsim_ros.sensors.scene import Scene

            return Scene(self.world)
        except GlUnavailable as exc:
            if required:
                raise RuntimeError(f"cameras=True needs an OpenGL 3.3 context, and none can be made here: {exc}") \
                    from exc
            warnings.warn(f"no OpenGL context: lidars with raytrace_3d ray cast in 2D instead ({exc})", stacklevel=3)
            return None

    def reset(self, seed: int) -> None:
        """Fresh lidars whose noise generators start from `seed` (sensors.suite.noise_generator), and the cameras'
        generators too: the same seed gives the same noise."""
        sensors = build_sensors(self.world, seed)
        self.lidars = [sensors.lidars[j] for j in self._lidar_slots]
        for lidar in self.lidars:
            if lidar.raytrace_3d and self.scene is None:
                lidar.raytrace_3d = False
            if not self.sensor_noise:
                lidar.params.range_noise = lidar.params.angle_noise = 0.0
        fresh = [sensors.cameras[j] for j in self._camera_slots]
        for cam, new in zip(self.cameras, fresh):
            cam.rng = new.rng

    def measure(self, sim) -> dict[str, np.ndarray]:
        """The entries measured now (new arrays on every call)."""
        out: dict[str, np.ndarray] = {}
        if self.scene is not None:
            self.scene.update(sim)
        pose3 = host_pose3(sim, self.index)
        for key, lidar, top in zip(self.lidar_keys, self.lidars, self.max_ranges):
            if lidar.raytrace_3d:
                ranges = lidar.render_scan(self.scene, pose3)
            else:
                ranges = lidar.scan(sim.box2d.world, pose3)
            out[key] = np.minimum(ranges, top).astype(np.float32)
        v, omega = sim.odom_twist[self.index].tolist()
        out[ODOMETRY_KEY] = np.array([_clamp(v, SPEED_BOUND), _clamp(omega, YAW_RATE_BOUND)], dtype=np.float32)
        out[POSE_KEY] = pose_observation(sim.pose[self.index])
        for key, cam in zip(self.camera_keys, self.cameras):
            out[key] = np.array(cam.capture(self.scene, pose3).rgb, dtype=np.uint8)
        return out

    def scan_rays(self) -> list[tuple[tuple[float, float], float, np.ndarray, np.ndarray, float]]:
        """The latest scan of each lidar, to draw: (sensor position (x, y) [m], sensor yaw [rad], beam bearings
        [rad], ranges [m] (+inf: no return), max range [m]); lidars that have not scanned yet are left out."""
        rays = []
        for lidar, top in zip(self.lidars, self.max_ranges):
            sample = lidar.latest
            if sample is not None:
                x, y, _, yaw = (float(c) for c in sample.pose[:4])
                rays.append(((x, y), yaw, lidar.params.angles, np.asarray(sample.ranges, dtype=float), top))
        return rays


def pose_observation(pose) -> np.ndarray:
    """(x, y, yaw) as float32 within pose_space(): positions clipped to the world bounds, yaw wrapped."""
    x, y, yaw = (float(c) for c in pose)
    return np.array([_clamp(x, POSITION_BOUND), _clamp(y, POSITION_BOUND), wrap_angle(yaw)], dtype=np.float32)


def clip_into(value, box: spaces.Box) -> np.ndarray:
    """`value` (numbers, any float dtype) as a new array of the Box's dtype within its bounds: values beyond a
    bound (+/-inf too) read as that bound, NaN as 0 clipped into the bounds."""
    array = np.asarray(value, dtype=np.float64)
    return np.clip(np.where(np.isnan(array), 0.0, array), box.low, box.high).astype(box.dtype)


def _clamp(value: float, bound: float) -> float:
    """`value` within +/- `bound`."""
    return min(max(value, -bound), bound)
