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

The four faces are drawn into framebuffers of their own and read back into one buffer kept from scan to scan; the
beams' pixel positions and interpolation weights are computed once, and one compiled pass resamples them. The
colours are read back only when `intensities` asks for them (from the framebuffers, untouched until the next scan).

Names and defaults: world/params/sensor_tables.py (sensor.lidar3d). Presets (tag `<model>`, not in MVSim;
explicit tags override them): VLP-16, OS1-64, Helios-32 (world/elements/sensor_checks.py LIDAR3D_PRESETS, resolved
at load). The sensor frame is `<pose_3d>` on the
vehicle: x forward, z up.
"""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.core.jit import kernel
from mvsim_ros.core.schedule import Periodic
from mvsim_ros.sensors.host_placement import host_matrix
from mvsim_ros.sensors.camera import BODY_TO_OPTICAL, Intrinsics, RenderTarget, RenderView, draw_view, pose3_matrix
from mvsim_ros.sensors.lidar2d import vehicles_hidden
from mvsim_ros.sensors.scene import Scene
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
        params = spec.params
        self.vert_fov = params.vert_fov_degrees
        self.rings, self.columns = params.vert_nrays, params.horz_nrays
        self.range_min, self.range_max = params.min_range, params.max_range
        self.range_noise = params.range_std_noise
        self.period = params.sensor_period
        self.ignore_parent_body = params.ignore_parent_body
        #: Whether point intensities are the grey level of the rendered scene (else 1).
        self.generate_intensity = params.generate_intensity
        angles = params.vertical_ray_angles
        self.schedule = Periodic(self.period)
        if angles:
            self.elevations = np.array(sorted(angles), dtype=float)
        else:
            self.elevations = (np.linspace(-0.5 * self.vert_fov, 0.5 * self.vert_fov, self.rings) if self.rings > 1
                               else np.zeros(1))
        self.azimuths = -math.pi + 2 * math.pi * np.arange(self.columns) / self.columns
        width = params.face_width_px()
        width = max(64, width + width % 2)
        f = 0.5 * (width - 2)  # 90 deg across, beams at +-45 deg stay one pixel inside
        fy = f * params.vert_resolution_factor
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
        self._sampling = _beam_sampling(self._face, self._u, self._v, height, width)
        rot = spec.pose.rotation()
        self._vehicle_from_sensor = pose3_matrix(spec.pose, rot)
        self._vehicle_from_faces = [pose3_matrix(spec.pose, rot @ _rz(k * math.pi / 2) @ BODY_TO_OPTICAL)
                                    for k in range(4)]
        #: The framebuffers of the four faces (made on the first scan) and the buffer their depths are read into:
        #: its row k * rows + r is row rows - 1 - r of face k.
        self._targets: list[RenderTarget] = []
        self._depths = np.empty((4 * height, width), dtype=np.float32)
        #: Whether scans draw the colours that intensities come from (with generate_intensity): a publisher whose
        #: points nobody receives turns it off; `intensities` then draws them when asked.
        self.colors_wanted = True
        #: (scene, host pose) of the latest draw, and whether the framebuffers' colours belong to it.
        self._drawn: tuple | None = None
        self._colors_fresh = False
        #: 4x4 world pose of the sensor frame of the scan drawn last.
        self._pending_pose = np.eye(4)
        self._intensity = None
        #: The latest scan: (ranges as `scan` returns them, 4x4 world pose of the sensor frame), None before it.
        self.latest: tuple[np.ndarray, np.ndarray] | None = None

    def due(self, now: float) -> bool:
        """True (and the next sample scheduled) when a sample is due at simulated time `now` [s]."""
        return self.schedule.due(now)

    def render_views(self) -> list[RenderView]:
        """The four depth faces a scan draws (their colours too with generate_intensity), in drawing order."""
        return [RenderView(self.face, m, self.generate_intensity, True) for m in self._vehicle_from_faces]

    def render_faces(self, scene: Scene, vehicle_pose) -> np.ndarray:
        """(4, rows, cols) depth [m] of the four faces (+inf: nothing), the host at pose (x, y, yaw) or
        (x, y, z, yaw, pitch, roll): a new array, image rows top first."""
        self._draw(scene, vehicle_pose, self.generate_intensity)
        rows, cols = self.face.nrows, self.face.ncols
        return self._read_depths().reshape(4, rows, cols)[:, ::-1].copy()

    def _draw(self, scene: Scene, vehicle_pose, colors: bool) -> None:
        """Draw the four faces, each into its own framebuffer, with their colours or depths only (the renderer may
        still be at work on return)."""
        rows, cols = self.face.nrows, self.face.ncols
        if not self._targets:
            self._targets = [RenderTarget(scene.ctx, cols, rows) for _ in range(4)]
        base = host_matrix(vehicle_pose)
        with vehicles_hidden(scene, self._unrendered):
            for fb, m in zip(self._targets, self._vehicle_from_faces):
                draw_view(scene, fb, self.face, base @ m, colors)
        self._drawn = (scene, vehicle_pose)
        self._colors_fresh = colors
        self._intensity = None

    def _read_depths(self) -> np.ndarray:
        """Read the faces' depths into the kept buffer, which is returned ((4 rows, cols) float32 [m]; face k's
        image rows bottom first from row k rows on)."""
        rows = self.face.nrows
        for k, fb in enumerate(self._targets):
            fb.read_depth(self._depths, k * self._depths[:rows].nbytes)
        return self._depths

    def _unrendered(self, count: int) -> np.ndarray:
        """Which of `count` vehicles are not rendered: the own one with ignore_parent_body."""
        return (np.arange(count) == self.vehicle) & self.ignore_parent_body

    def scan(self, scene: Scene, vehicle_pose) -> np.ndarray:
        """Ranges [m] of every beam, (rings, columns), ring 0 the lowest; NaN: no return."""
        self.submit(scene, vehicle_pose)
        return self.collect()

    def submit(self, scene: Scene, vehicle_pose) -> None:
        """Draw the faces of a scan (as `scan`) without waiting for the renderer; `collect` finishes the scan.
        The colours are drawn with generate_intensity unless `colors_wanted` is off."""
        self._draw(scene, vehicle_pose, self.generate_intensity and self.colors_wanted)
        self._pending_pose = host_matrix(vehicle_pose) @ self._vehicle_from_sensor

    def collect(self) -> np.ndarray:
        """The ranges of the scan `submit` drew (as `scan` returns them); also kept in `latest`."""
        flat = self._read_depths().reshape(-1)
        noise = (self.rng.normal(0.0, self.range_noise, self._cos.size) if self.range_noise > 0
                 else np.zeros(0))
        ranges = np.empty(self._cos.size)
        _resample(flat, *self._sampling, self._cos, noise, self.range_min, self.range_max, ranges)
        ranges = ranges.reshape(self.rings, self.columns)
        self.latest = (ranges, self._pending_pose)
        return ranges

    def intensities(self, ranges: np.ndarray) -> np.ndarray:
        """Intensity (0..1) of the beams with a return of the latest scan (`ranges` as it returned them), in
        `points`' order: the grey level where the beam meets the rendered scene with generate_intensity, else 1.
        When the scan was drawn without its colours (`colors_wanted` off), they are drawn now, from the same scene
        and pose: call this before the scene moves on."""
        ok = np.isfinite(ranges.reshape(-1))
        if not self.generate_intensity or self._drawn is None:
            return np.ones(int(ok.sum()), dtype=np.float32)
        if self._intensity is None:
            if not self._colors_fresh:
                self._draw(*self._drawn, colors=True)
            rows, cols = self.face.nrows, self.face.ncols
            rgb = np.empty((4 * rows, cols, 3), dtype=np.uint8)
            for k, fb in enumerate(self._targets):
                fb.read_rgb(rgb, k * rgb[:rows].nbytes)
            beam_rgb = rgb.reshape(-1, 3)[self._sampling[4]].astype(np.float32)
            self._intensity = (beam_rgb @ np.array([0.299, 0.587, 0.114], dtype=np.float32)) / 255.0
        return self._intensity[ok].astype(np.float32)

    def points(self, ranges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, 3) points in the sensor frame and their ring numbers, for the beams with a return."""
        flat = ranges.reshape(-1)
        ok = np.isfinite(flat)
        return (self._directions[ok] * flat[ok, None]).astype(np.float32), self.ring_index[ok]


def _beam_sampling(face: np.ndarray, u: np.ndarray, v: np.ndarray, rows: int, cols: int):
    """Where each beam reads the faces' framebuffer (faces stacked bottom to top, each's image rows bottom first):
    flat indices of the four pixels around its image position (u, v) [px] ((v0, u0), (v0, u0 + 1), (v0 + 1, u0),
    (v0 + 1, u0 + 1)), of its nearest pixel, and its bilinear weights fu, fv."""
    u = np.clip(u, 0, cols - 1.000001)
    v = np.clip(v, 0, rows - 1.000001)
    u0, v0 = np.floor(u).astype(np.intp), np.floor(v).astype(np.intp)

    def index(row, col):
        return (face * rows + rows - 1 - row) * cols + col

    return (index(v0, u0), index(v0, u0 + 1), index(v0 + 1, u0), index(v0 + 1, u0 + 1),
            index(np.rint(v).astype(np.intp), np.rint(u).astype(np.intp)), u - u0, v - v0)


@kernel
def _resample(flat, i00, i01, i10, i11, nearest, fu, fv, cos, noise, range_min, range_max, out):
    """Range [m] of every beam into `out`: the inverse depth interpolated bilinearly between the four pixels
    around the beam (flat indices i00 ... i11 into the faces' depths `flat`, weights fu, fv), or the nearest
    pixel's depth where one of the four has no return; divided by the cosine between beam and face axis, plus
    `noise` (empty: none); NaN unless in (range_min, range_max)."""
    for b in range(out.size):
        z00, z01 = np.float64(flat[i00[b]]), np.float64(flat[i01[b]])
        z10, z11 = np.float64(flat[i10[b]]), np.float64(flat[i11[b]])
        if np.isfinite(z00) and np.isfinite(z01) and np.isfinite(z10) and np.isfinite(z11):
            u, v = fu[b], fv[b]
            z = 1.0 / ((1 - v) * ((1 - u) / z00 + u / z01) + v * ((1 - u) / z10 + u / z11))
        else:
            z = np.float64(flat[nearest[b]])
        r = z / cos[b]
        if noise.size:
            r = r + noise[b]
        out[b] = r if np.isfinite(r) and range_min < r < range_max else np.nan
