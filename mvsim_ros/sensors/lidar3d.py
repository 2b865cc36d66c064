"""3D lidar (MVSim's `lidar3d`) by OpenGL depth rendering, resampled at the exact beam directions.

Beams: `vert_nrays` rings at the elevations `vertical_ray_angles` (ring 0 the lowest), or evenly over
`vert_fov_degrees` (symmetric about the sensor's horizontal plane) when those are not given; `horz_nrays` azimuths
evenly over 360 deg starting at -180 deg. The scene is rendered as four 90-deg depth faces, each
max(512, horz_resolution_factor x horz_nrays / 4) px wide (`fbo_ncols` sets it), with pixels
vert_resolution_factor times finer vertically than horizontally, tall enough for the steepest ring at the faces'
corners. Each beam reads the depth at its exact (sub-pixel) image position by bilinear interpolation of inverse
depth, which is exact on planar surfaces at any incidence; when one of the four pixels has no return, the nearest
pixel is used instead (MVSim's relative-step limits on interpolation are not used: see the table). Range =
depth / cos(angle between beam and face axis). Noise: Gaussian range error `range_std_noise` [m] from a seeded
generator. Returns at or below min_range, at or beyond max_range are dropped (NaN). The sensor's own vehicle is
rendered unless `ignore_parent_body` is true. With generate_intensity (MVSim's default), each point's intensity is
the grey level (ITU-R BT.601 luma, 0..1) of the rendered colour at the beam's nearest pixel; else 1.

Names and defaults: world/params/sensor_tables.py (sensor.lidar3d). Presets (tag `<model>`, not in MVSim;
explicit tags override them): VLP-16, OS1-64, Helios-32 (world/elements/sensor_checks.py LIDAR3D_PRESETS, resolved
at load). The sensor frame is `<pose_3d>` on the
vehicle: x forward, z up.
"""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.core.schedule import Periodic
from mvsim_ros.sensors.host_placement import host_matrix
from mvsim_ros.sensors.camera import BODY_TO_OPTICAL, Intrinsics, pose3_matrix, render
from mvsim_ros.sensors.lidar2d import vehicles_hidden
from mvsim_ros.sensors.scene import Scene
from mvsim_ros.world.elements.sensors import LIDAR3D_MIN_FACE_PX, sensor_values
from mvsim_ros.world.specs import SensorSpec


def _rz(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


class Lidar3D:
    """One 3D lidar at `spec.pose` on its host `vehicle`: a vehicle index, or suite.WORLD_HOST for a lidar fixed
    in the world (scanned at host pose zero: `spec.pose` is then its world pose)."""

    def __init__(self, spec: SensorSpec, vehicle: int, rng: np.random.Generator):
        self.spec = spec
        self.vehicle = vehicle
        self.rng = rng
        v = sensor_values(spec)
        self.vert_fov = v["vert_fov_degrees"]
        self.rings, self.columns = v["vert_nrays"], v["horz_nrays"]
        self.range_min, self.range_max = v["min_range"], v["max_range"]
        self.range_noise = v["range_std_noise"]
        self.period = v["sensor_period"]
        self.ignore_parent_body = v["ignore_parent_body"]
        #: Whether point intensities are the grey level of the rendered scene (else 1).
        self.generate_intensity = v["generate_intensity"]
        self._grey = self._intensity = None
        angles = v["vertical_ray_angles"]
        self.schedule = Periodic(self.period)
        if angles:
            self.elevations = np.array(sorted(angles), dtype=float)
        else:
            self.elevations = (np.linspace(-0.5 * self.vert_fov, 0.5 * self.vert_fov, self.rings) if self.rings > 1
                               else np.zeros(1))
        self.azimuths = -math.pi + 2 * math.pi * np.arange(self.columns) / self.columns
        width = v["fbo_ncols"] or max(LIDAR3D_MIN_FACE_PX, math.ceil(v["horz_resolution_factor"] * self.columns / 4))
        width = max(64, width + width % 2)
        f = 0.5 * (width - 2)  # 90 deg across, beams at +-45 deg stay one pixel inside
        fy = f * v["vert_resolution_factor"]
        steepest = float(np.max(np.abs(self.elevations)))
        half_h = fy * math.tan(steepest) / math.cos(math.pi / 4) + 2
        height = 2 * int(math.ceil(half_h)) + 2
        near = max(0.01, min(0.05, 0.5 * self.range_min or 0.05))
        # Far plane beyond max_range, so that pixels next to a return near max_range still interpolate.
        self.face = Intrinsics(width, height, (width - 1) / 2, (height - 1) / 2, f, fy, near, 2 * self.range_max)
        # Every beam: face, sub-pixel position, and the cosine between beam and face axis.
        el, az = np.meshgrid(self.elevations, self.azimuths, indexing="ij")  # (rings, columns)
        face = np.round(az / (math.pi / 2)).astype(int) % 4
        delta = az - face * (math.pi / 2)
        delta = (delta + math.pi) % (2 * math.pi) - math.pi
        u = self.face.cx - f * np.tan(delta)
        v = self.face.cy - fy * np.tan(el) / np.cos(delta)
        self._face, self._u, self._v = face.ravel(), u.ravel(), v.ravel()
        self._cos = (np.cos(el) * np.cos(delta)).ravel()
        self._directions = np.stack([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)], -1).reshape(-1, 3)
        self.ring_index = np.repeat(np.arange(self.rings, dtype=np.uint16), self.columns)
        rot = spec.pose.rotation()
        self._vehicle_from_sensor = pose3_matrix(spec.pose, rot)
        self._vehicle_from_faces = [pose3_matrix(spec.pose, rot @ _rz(k * math.pi / 2) @ BODY_TO_OPTICAL)
                                    for k in range(4)]
        self._targets: dict = {}
        #: The latest scan: (ranges as `scan` returns them, 4x4 world pose of the sensor frame), None before it.
        self.latest: tuple[np.ndarray, np.ndarray] | None = None

    def due(self, now: float) -> bool:
        """True (and the next sample scheduled) when a sample is due at simulated time `now` [s]."""
        return self.schedule.due(now)

    def render_faces(self, scene: Scene, vehicle_pose) -> np.ndarray:
        """(4, rows, cols) depth [m] of the four faces (+inf: nothing), the host at pose (x, y, yaw) or
        (x, y, z, yaw, pitch, roll). With generate_intensity, the faces' grey levels (0..1, ITU-R BT.601 luma of
        the rendered colour) are kept for `scan`."""
        base = host_matrix(vehicle_pose)
        with vehicles_hidden(scene, self._unrendered):
            frames = [render(scene, self._targets, self.face, base @ m, want_rgb=self.generate_intensity)
                      for m in self._vehicle_from_faces]
        if self.generate_intensity:
            rgb = np.stack([frame.rgb for frame in frames]).astype(np.float32)
            self._grey = (rgb @ np.array([0.299, 0.587, 0.114], dtype=np.float32)) / 255.0
        return np.stack([frame.depth for frame in frames])

    def _unrendered(self, count: int) -> np.ndarray:
        """Which of `count` vehicles are not rendered: the own one with ignore_parent_body."""
        return (np.arange(count) == self.vehicle) & self.ignore_parent_body

    def scan(self, scene: Scene, vehicle_pose) -> np.ndarray:
        """Ranges [m] of every beam, (rings, columns), ring 0 the lowest; NaN: no return."""
        depth = self.render_faces(scene, vehicle_pose)
        rows, cols = self.face.nrows, self.face.ncols
        u = np.clip(self._u, 0, cols - 1.000001)
        v = np.clip(self._v, 0, rows - 1.000001)
        u0, v0 = np.floor(u).astype(int), np.floor(v).astype(int)
        fu, fv = u - u0, v - v0
        flat = depth.reshape(-1)
        base = self._face * rows * cols + v0 * cols + u0
        z00, z01 = flat[base], flat[base + 1]
        z10, z11 = flat[base + cols], flat[base + cols + 1]
        with np.errstate(divide="ignore"):
            inv = ((1 - fv) * ((1 - fu) / z00 + fu / z01) + fv * ((1 - fu) / z10 + fu / z11))
            z = 1.0 / inv
        pixel = self._face * rows * cols + np.rint(v).astype(int) * cols + np.rint(u).astype(int)
        nearest = flat[pixel]
        if self.generate_intensity:
            self._intensity = self._grey.reshape(-1)[pixel]
        gaps = ~(np.isfinite(z00) & np.isfinite(z01) & np.isfinite(z10) & np.isfinite(z11))
        z = np.where(gaps, nearest, z)
        ranges = z / self._cos
        if self.range_noise > 0:
            ranges = ranges + self.rng.normal(0.0, self.range_noise, ranges.size)
        ranges[~np.isfinite(ranges) | (ranges <= self.range_min) | (ranges >= self.range_max)] = np.nan
        ranges = ranges.reshape(self.rings, self.columns)
        self.latest = (ranges, host_matrix(vehicle_pose) @ self._vehicle_from_sensor)
        return ranges

    def intensities(self, ranges: np.ndarray) -> np.ndarray:
        """Intensity (0..1) of the beams with a return of the latest scan (`ranges` as it returned them), in
        `points`' order: the grey level where the beam meets the rendered scene with generate_intensity, else 1."""
        ok = np.isfinite(ranges.reshape(-1))
        if not self.generate_intensity or self._intensity is None:
            return np.ones(int(ok.sum()), dtype=np.float32)
        return self._intensity[ok].astype(np.float32)

    def points(self, ranges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, 3) points in the sensor frame and their ring numbers, for the beams with a return."""
        flat = ranges.reshape(-1)
        ok = np.isfinite(flat)
        return (self._directions[ok] * flat[ok, None]).astype(np.float32), self.ring_index[ok]
