"""Pinhole cameras rendered with OpenGL: MVSim's `camera` (RGB) and `rgbd_camera` (RGB + depth).

Frames. Images are in the ROS optical convention: z forward, x right, y down; pixel (u, v) = (column, row) with
u = fx X/Z + cx, v = fy Y/Z + cy (pixel centres at integer coordinates, as in OpenCV and camera_info's K).
  * `camera`: as in MVSim, `<pose_3d>` is the optical frame itself on the vehicle (MVSim's camera definition uses
    yaw -90, pitch 0, roll -90 so that +Z looks along the vehicle's +X and +X to its right; MVSim's default pose,
    0 0 0.5 90 0 90, also looks forward, with +X to the vehicle's left: the image upside down).
  * `rgbd_camera`: as in MVSim, `<pose_3d>` is the sensor body (+X forward); the depth optical frame is that body
    rotated by yaw -90, roll -90, and the RGB optical frame is the body composed with
    relativePoseIntensityWRTDepth (default yaw -90, roll -90: the two coincide, and one render gives both images
    when their intrinsics match too).
Parameters, their MVSim names and defaults: world/params/sensor_tables.py (sensor.camera, sensor.rgbd): fx = fy =
500 px, 640 x 480, cx = 320, cy = 240 (not recomputed from the size, as in MVSim).

Depth images hold the distance along the optical axis (Z) in metres, float32, written exactly by the fragment
shader (eye-space z), not recovered from the non-linear depth buffer, then quantised as MVSim's depth images are
(rounded down to a whole multiple of depth_resolution) and given Gaussian noise of std. dev. depth_noise_sigma
rounded to depth_resolution. Pixels with nothing within [clip_min, clip_max] read +inf (REP 118's "too far").
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from mvsim_ros.core.jit import kernel
from mvsim_ros.core.schedule import Periodic
from mvsim_ros.sensors.host_placement import host_matrix
from mvsim_ros.sensors.scene import SKY_COLOR, Scene
from mvsim_ros.world.specs import PinholeImage, Pose3, SensorSpec

#: Optical frame relative to an X-forward body: yaw -90 deg, pitch 0, roll -90 deg.
BODY_TO_OPTICAL = Pose3(yaw=-math.pi / 2, roll=-math.pi / 2).rotation()
#: Optical axes (x right, y down, z forward) to OpenGL eye axes (x right, y up, z backward).
OPTICAL_TO_GL = np.diag([1.0, -1.0, -1.0, 1.0])


class Intrinsics(PinholeImage):
    """A pinhole image's size [px], principal point and focal lengths [px] and clip distances [m] (the spec's
    PinholeImage fields), with the matrices rendering needs."""

    @classmethod
    def from_image(cls, image: PinholeImage) -> "Intrinsics":
        """The intrinsics of one image of a camera's spec (world/specs/sensor_params.py)."""
        return cls(**dataclasses.asdict(image))

    def k(self) -> np.ndarray:
        """The 3x3 camera matrix."""
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    def projection(self) -> np.ndarray:
        """OpenGL projection (GL eye -> clip) whose pixel centres fall at u = fx X/Z + cx, v = fy Y/Z + cy, with
        image row 0 at the bottom of the framebuffer's rows as read back (flipped to the top afterwards)."""
        w, h, n, f = self.ncols, self.nrows, self.clip_min, self.clip_max
        p = np.zeros((4, 4))
        p[0, 0], p[0, 2] = 2 * self.fx / w, 1 - (2 * self.cx + 1) / w
        p[1, 1], p[1, 2] = 2 * self.fy / h, (2 * self.cy + 1) / h - 1
        p[2, 2], p[2, 3] = -(f + n) / (f - n), -2 * f * n / (f - n)
        p[3, 2] = -1.0
        return p


class RenderView(NamedTuple):
    """One view a rendered sensor draws per sample: its `intrinsics`, the 4x4 pose of its optical frame on the
    sensor's host (`host_from_optical`, host <- optical), and whether its colours and its depths are read back."""

    intrinsics: Intrinsics
    host_from_optical: np.ndarray
    want_rgb: bool
    want_depth: bool


@dataclass
class CameraFrame:
    """One rendered sample: rgb (rows, cols, 3) uint8 and/or depth (rows, cols) float32 [m], None if not sensed."""

    rgb: np.ndarray | None
    depth: np.ndarray | None


#: Colour write masks of a RenderTarget's two colour attachments: both written, or the optical depth alone.
_ALL = ((True, True, True, True), (True, True, True, True))
_DEPTH_ONLY = ((False, False, False, False), (True, True, True, True))


class RenderTarget:
    """An offscreen framebuffer: RGBA8 colour and R32F optical depth [m] as colour attachments 0 and 1, a depth
    renderbuffer; `depth_only` holds the depth texture alone, so that it is cleared to +inf while the colour
    texture is cleared to the sky. Draw into it after `start`."""

    def __init__(self, ctx, cols: int, rows: int):
        self.color = ctx.texture((cols, rows), 4)
        self.depth = ctx.texture((cols, rows), 1, dtype="f4")
        self.fbo = ctx.framebuffer(color_attachments=[self.color, self.depth],
                                   depth_attachment=ctx.depth_renderbuffer((cols, rows)))
        self.depth_only = ctx.framebuffer(color_attachments=[self.depth])

    def start(self, want_rgb: bool = True) -> None:
        """Clear the framebuffer and bind it for drawing: optical depth +inf (nothing drawn), depth buffer far,
        colour the sky; without `want_rgb` the colour attachment is neither cleared nor drawn (write-masked)."""
        mask = _ALL if want_rgb else _DEPTH_ONLY
        if self.fbo.color_mask != mask:
            self.fbo.color_mask = mask
        if want_rgb:
            self.fbo.clear(*SKY_COLOR, 1.0, depth=1.0)
            self.depth_only.clear(math.inf, 0.0, 0.0, 0.0)  # clearing binds depth_only: use() fbo again below
        else:
            self.fbo.clear(math.inf, 0.0, 0.0, 0.0, depth=1.0)
        self.fbo.use()

    def read_rgb(self, out: np.ndarray, offset: int = 0) -> np.ndarray:
        """Read the colour attachment's RGB (no alpha; rows bottom first) into the C-ordered uint8 array `out`,
        from byte `offset` on."""
        self.fbo.read_into(out, components=3, attachment=0, alignment=1, write_offset=offset)
        return out

    def read_depth(self, out: np.ndarray, offset: int = 0) -> np.ndarray:
        """Read the optical depth attachment [m] (rows bottom first) into the C-ordered float32 array `out`, from
        byte `offset` on."""
        self.fbo.read_into(out, components=1, attachment=1, dtype="f4", write_offset=offset)
        return out


def target(targets: dict, ctx, cols: int, rows: int) -> RenderTarget:
    """The framebuffer of size cols x rows [px] from the cache `targets`, made on first use."""
    found = targets.get((cols, rows))
    if found is None:
        found = targets[(cols, rows)] = RenderTarget(ctx, cols, rows)
    return found


def draw_view(scene: Scene, fb: RenderTarget, intrinsics: Intrinsics, world_from_optical: np.ndarray,
              want_rgb: bool = True) -> None:
    """Draw `scene` into the framebuffer `fb` through a pinhole camera at the 4x4 pose `world_from_optical`; the
    renderer may still be working on it when this returns (`read_view` waits for it)."""
    fb.start(want_rgb)
    scene.draw(OPTICAL_TO_GL @ np.linalg.inv(world_from_optical), intrinsics.projection(), intrinsics.clip_max)


def read_view(fb: RenderTarget, intrinsics: Intrinsics, want_rgb: bool = True, want_depth: bool = True) -> CameraFrame:
    """The images `draw_view` drew into `fb`, read back straight into new arrays and returned as views of them
    with the rows reversed (the framebuffer's first row is the image's last), no copy; depths beyond clip_max, and
    pixels where nothing was drawn, read +inf."""
    rows, cols = intrinsics.nrows, intrinsics.ncols
    rgb = fb.read_rgb(np.empty((rows, cols, 3), dtype=np.uint8))[::-1] if want_rgb else None
    depth = fb.read_depth(np.empty((rows, cols), dtype=np.float32))[::-1] if want_depth else None
    return CameraFrame(rgb, depth)


def render(scene: Scene, targets: dict, intrinsics: Intrinsics, world_from_optical: np.ndarray,
           want_rgb: bool = True, want_depth: bool = True) -> CameraFrame:
    """Render `scene` through a pinhole camera at the 4x4 pose `world_from_optical` (targets: a cache of
    framebuffers by size) and read the images back (`read_view`)."""
    fb = target(targets, scene.ctx, intrinsics.ncols, intrinsics.nrows)
    draw_view(scene, fb, intrinsics, world_from_optical, want_rgb)
    return read_view(fb, intrinsics, want_rgb, want_depth)


def pose3_matrix(pose: Pose3, rotation: np.ndarray | None = None) -> np.ndarray:
    """4x4 transform of a Pose3 (optionally with its rotation replaced)."""
    m = np.eye(4)
    m[:3, :3] = pose.rotation() if rotation is None else rotation
    m[:3, 3] = (pose.x, pose.y, pose.z)
    return m


def rotation_to_ypr(r: np.ndarray) -> tuple[float, float, float]:
    """(yaw, pitch, roll) [rad] of a rotation matrix R = Rz(yaw) Ry(pitch) Rx(roll)."""
    pitch = -math.asin(max(-1.0, min(1.0, r[2, 0])))
    return math.atan2(r[1, 0], r[0, 0]), pitch, math.atan2(r[2, 1], r[2, 2])


class Camera:
    """A `camera` or `rgbd_camera` on its host `vehicle`: a vehicle index, or suite.WORLD_HOST for a camera
    fixed in the world (captured at host pose zero: `spec.pose` is then its world pose; it sees every vehicle)."""

    def __init__(self, spec: SensorSpec, vehicle: int, rng: np.random.Generator):
        self.spec = spec
        self.kind = spec.kind
        self.vehicle = vehicle
        self.rng = rng
        params = spec.params
        self.period = params.sensor_period
        self.schedule = Periodic(self.period)
        body = pose3_matrix(spec.pose)
        if spec.kind == "rgbd_camera":
            rotation = spec.pose.rotation() @ BODY_TO_OPTICAL
            self.rgb = Intrinsics.from_image(params.rgb_image()) if params.sense_rgb else None
            self.depth = Intrinsics.from_image(params.depth_image()) if params.sense_depth else None
            self.depth_noise = params.depth_noise_sigma
            self.depth_resolution = params.depth_resolution
            #: Whether the depth image (and its CameraInfo) is published (MVSim's publish_ros_depth_image), and
            #: whether the points carry colour (publish_ros_colored_pointcloud).
            self.publish_depth_image = params.publish_ros_depth_image
            self.colored_points = params.publish_ros_colored_pointcloud
            vehicle_from_rgb = body @ pose3_matrix(params.relativePoseIntensityWRTDepth)
        else:
            rotation = spec.pose.rotation()
            self.rgb, self.depth = Intrinsics.from_image(params.image()), None
            self.depth_noise = self.depth_resolution = 0.0
            self.publish_depth_image = self.colored_points = False
            vehicle_from_rgb = pose3_matrix(spec.pose, rotation)
        vehicle_from_optical = pose3_matrix(spec.pose, rotation)
        #: The optical frame on the host (the pose of the frame named after the sensor, from base_link, or from
        #: map for a world camera); for an rgbd_camera, the depth image's.
        self.optical_pose = _matrix_pose(vehicle_from_optical)
        #: The RGB image's optical frame on the host (the same as optical_pose but for an rgbd_camera whose
        #: relativePoseIntensityWRTDepth moves it).
        self.rgb_optical_pose = _matrix_pose(vehicle_from_rgb)
        self._vehicle_from_optical = vehicle_from_optical
        rgb_apart = not np.allclose(vehicle_from_rgb, vehicle_from_optical, atol=1e-12)
        #: 4x4 pose of the depth optical frame in the RGB one, None when the two coincide.
        self.rgb_from_depth = np.linalg.inv(vehicle_from_rgb) @ vehicle_from_optical if rgb_apart else None
        #: The views a sample draws, each named for its framebuffer ('both', 'rgb', 'depth'): one view gives both
        #: images when they share their intrinsics and pose.
        if self.rgb is not None and self.rgb == self.depth and not rgb_apart:
            self._views = {"both": RenderView(self.depth, vehicle_from_optical, True, True)}
        else:
            self._views = {}
            if self.rgb is not None:
                self._views["rgb"] = RenderView(self.rgb, vehicle_from_rgb if rgb_apart else vehicle_from_optical,
                                                True, False)
            if self.depth is not None:
                self._views["depth"] = RenderView(self.depth, vehicle_from_optical, False, True)
        #: Framebuffers by view name, made on first use; the views drawn and not yet read.
        self._targets: dict[str, RenderTarget] = {}
        self._pending: list[tuple[RenderTarget, RenderView]] = []
        #: The latest frame `capture` rendered, None before the first.
        self.latest: CameraFrame | None = None

    def due(self, now: float) -> bool:
        """True (and the next sample scheduled) when a sample is due at simulated time `now` [s]."""
        return self.schedule.due(now)

    def render_views(self) -> list[RenderView]:
        """The views a sample draws, in drawing order: one for RGB and depth together when they share intrinsics
        and pose, else the RGB view and/or the depth view."""
        return list(self._views.values())

    def world_from_optical(self, vehicle_pose) -> np.ndarray:
        """4x4 pose of the optical frame in the world, with the host at pose (x, y, yaw) or
        (x, y, z, yaw, pitch, roll) (see sensors/host_placement.py)."""
        return host_matrix(vehicle_pose) @ self._vehicle_from_optical

    def capture(self, scene: Scene, vehicle_pose) -> CameraFrame:
        """Render the images of this camera with its host at pose (x, y, yaw) or (x, y, z, yaw, pitch, roll)
        (zeros for the world)."""
        self.submit(scene, vehicle_pose)
        return self.collect()

    def submit(self, scene: Scene, vehicle_pose) -> None:
        """Draw the images of this camera (as `capture`) without waiting for the renderer; `collect` reads them.
        Each view has a framebuffer of its own, so that none is drawn over before it is read."""
        base = host_matrix(vehicle_pose)
        self._pending = []
        for name, view in self._views.items():
            fb = self._targets.get(name)
            if fb is None:
                fb = self._targets[name] = RenderTarget(scene.ctx, view.intrinsics.ncols, view.intrinsics.nrows)
            draw_view(scene, fb, view.intrinsics, base @ view.host_from_optical, view.want_rgb)
            self._pending.append((fb, view))

    def collect(self) -> CameraFrame:
        """The frame `submit` drew: read back, depths as the sensor gives them; also kept as `latest`."""
        rgb = depth = None
        for fb, view in self._pending:
            frame = read_view(fb, view.intrinsics, view.want_rgb, view.want_depth)
            rgb = frame.rgb if frame.rgb is not None else rgb
            depth = frame.depth if frame.depth is not None else depth
        self._pending = []
        frame = CameraFrame(rgb, None if depth is None else self._depth_reading(depth))
        self.latest = frame
        return frame

    def _depth_reading(self, depth: np.ndarray) -> np.ndarray:
        """Rendered depths [m] as the sensor gives them: rounded down to a whole multiple of depth_resolution, plus
        Gaussian noise (depth_noise_sigma) rounded to that step; a noisy depth beyond clip_max keeps its value
        without noise. +inf (nothing in range) stays."""
        count = np.count_nonzero(np.isfinite(depth)) if self.depth_noise > 0 else 0
        noise = self.rng.normal(0.0, self.depth_noise, count) if count else np.zeros(0)
        _quantise(depth, self.depth_resolution, noise, self.depth.clip_max)
        return depth


@kernel
def _quantise(depth, step, noise, clip_max):
    """In place, over the finite entries of the 2-D float32 `depth` [m] row by row: d = floor(d / step + 1e-9) step
    (step > 0), then plus the next entry of `noise` rounded to a multiple of step, kept only where that sum is at
    most clip_max. `noise` has one entry per finite depth (or none: no noise)."""
    k = 0
    rows, cols = depth.shape
    for r in range(rows):
        for c in range(cols):
            d = np.float64(depth[r, c])
            if not np.isfinite(d):
                continue
            if step > 0:
                d = np.floor(d / step + 1e-9) * step
            if noise.size:
                n = noise[k]
                k += 1
                if step > 0:
                    n = np.round(n / step) * step  # half to even, as numpy rounds
                if d + n <= clip_max:
                    d = d + n
            depth[r, c] = d


def _matrix_pose(m: np.ndarray) -> Pose3:
    yaw, pitch, roll = rotation_to_ypr(m[:3, :3])
    return Pose3(float(m[0, 3]), float(m[1, 3]), float(m[2, 3]), yaw, pitch, roll)
