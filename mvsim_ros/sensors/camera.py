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

import math
from dataclasses import dataclass

import numpy as np

from mvsim_ros.core.schedule import Periodic
from mvsim_ros.sensors.host_placement import host_matrix
from mvsim_ros.sensors.scene import SKY_COLOR, Scene
from mvsim_ros.world.elements.sensors import sensor_values
from mvsim_ros.world.specs import Pose3, SensorSpec

#: Optical frame relative to an X-forward body: yaw -90 deg, pitch 0, roll -90 deg.
BODY_TO_OPTICAL = Pose3(yaw=-math.pi / 2, roll=-math.pi / 2).rotation()
#: Optical axes (x right, y down, z forward) to OpenGL eye axes (x right, y up, z backward).
_OPTICAL_TO_GL = np.diag([1.0, -1.0, -1.0, 1.0])
#: Depth-attachment clear value of depth-only renders [m]: read back as +inf (beyond every clip_max).
_NO_DEPTH = 1e30


@dataclass
class Intrinsics:
    """Image size [px], principal point and focal lengths [px], clip distances [m]."""

    ncols: int
    nrows: int
    cx: float
    cy: float
    fx: float
    fy: float
    clip_min: float
    clip_max: float

    @classmethod
    def from_spec(cls, spec: SensorSpec, prefix: str = "", clip_prefix: str | None = None) -> "Intrinsics":
        """The intrinsics named `<prefix>ncols`, `<prefix>fx`, ... and the clip distances `<clip_prefix>clip_min`,
        `<clip_prefix>clip_max` (clip_prefix defaults to prefix) of a camera's parameters."""
        v = sensor_values(spec)
        clip = prefix if clip_prefix is None else clip_prefix
        return cls(v[prefix + "ncols"], v[prefix + "nrows"], v[prefix + "cx"], v[prefix + "cy"], v[prefix + "fx"],
                   v[prefix + "fy"], v[clip + "clip_min"], v[clip + "clip_max"])

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


@dataclass
class CameraFrame:
    """One rendered sample: rgb (rows, cols, 3) uint8 and/or depth (rows, cols) float32 [m], None if not sensed."""

    rgb: np.ndarray | None
    depth: np.ndarray | None


class _Target:
    """An offscreen framebuffer: RGBA8 colour, R32F optical depth, a depth renderbuffer."""

    def __init__(self, ctx, cols: int, rows: int):
        self.color = ctx.texture((cols, rows), 4)
        self.depth = ctx.texture((cols, rows), 1, dtype="f4")
        self.fbo = ctx.framebuffer(color_attachments=[self.color, self.depth],
                                   depth_attachment=ctx.depth_renderbuffer((cols, rows)))


def render(scene: Scene, targets: dict, intrinsics: Intrinsics, world_from_optical: np.ndarray,
           want_rgb: bool = True, want_depth: bool = True) -> CameraFrame:
    """Render `scene` through a pinhole camera at the 4x4 pose `world_from_optical` (targets: a cache of
    framebuffers by size)."""
    size = (intrinsics.ncols, intrinsics.nrows)
    target = targets.get(size)
    if target is None:
        target = targets[size] = _Target(scene.ctx, *size)
    target.fbo.use()
    # One clear colour for both attachments: with RGB wanted, the sky colour and alpha 0 marks "nothing drawn";
    # depth only: a huge red clears the depth attachment beyond any clip range (RGBA8 clamps it, unused).
    target.fbo.clear(*(SKY_COLOR if want_rgb else (_NO_DEPTH, 0.0, 0.0)), 0.0, depth=1.0)
    scene.draw(_OPTICAL_TO_GL @ np.linalg.inv(world_from_optical), intrinsics.projection())
    rows, cols = intrinsics.nrows, intrinsics.ncols
    rgb = depth = rgba = None
    if want_rgb:
        rgba = np.frombuffer(target.fbo.read(components=4, attachment=0), dtype=np.uint8).reshape(rows, cols, 4)
        rgba = rgba[::-1]
        rgb = np.ascontiguousarray(rgba[:, :, :3])
    if want_depth:
        raw = np.frombuffer(target.fbo.read(components=1, attachment=1, dtype="f4"), dtype=np.float32)
        depth = raw.reshape(rows, cols)[::-1].copy()
        far = depth > intrinsics.clip_max
        if rgba is not None:
            far |= rgba[:, :, 3] == 0
        depth[far] = np.inf
    return CameraFrame(rgb, depth)


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
        values = sensor_values(spec)
        self.period = values["sensor_period"]
        self.schedule = Periodic(self.period)
        body = pose3_matrix(spec.pose)
        if spec.kind == "rgbd_camera":
            rotation = spec.pose.rotation() @ BODY_TO_OPTICAL
            self.rgb = Intrinsics.from_spec(spec, "rgb_") if values["sense_rgb"] else None
            self.depth = Intrinsics.from_spec(spec, "depth_") if values["sense_depth"] else None
            self.depth_noise = values["depth_noise_sigma"]
            self.depth_resolution = values["depth_resolution"]
            #: Whether the depth image (and its CameraInfo) is published (MVSim's publish_ros_depth_image), and
            #: whether the points carry colour (publish_ros_colored_pointcloud).
            self.publish_depth_image = values["publish_ros_depth_image"]
            self.colored_points = values["publish_ros_colored_pointcloud"]
            vehicle_from_rgb = body @ pose3_matrix(values["relativePoseIntensityWRTDepth"])
        else:
            rotation = spec.pose.rotation()
            self.rgb, self.depth, self.depth_noise, self.depth_resolution = Intrinsics.from_spec(spec), None, 0.0, 0.0
            self.publish_depth_image = self.colored_points = False
            vehicle_from_rgb = pose3_matrix(spec.pose, rotation)
        #: The optical frame on the host (the pose of the frame named after the sensor, from base_link, or from
        #: map for a world camera); for an rgbd_camera, the depth image's.
        self.optical_pose = _matrix_pose(pose3_matrix(spec.pose, rotation))
        #: The RGB image's optical frame on the host (the same as optical_pose but for an rgbd_camera whose
        #: relativePoseIntensityWRTDepth moves it).
        self.rgb_optical_pose = _matrix_pose(vehicle_from_rgb)
        self._vehicle_from_optical = pose3_matrix(spec.pose, rotation)
        self._vehicle_from_rgb = vehicle_from_rgb
        self._rgb_apart = not np.allclose(vehicle_from_rgb, self._vehicle_from_optical, atol=1e-12)
        #: 4x4 pose of the depth optical frame in the RGB one, None when the two coincide.
        self.rgb_from_depth = (np.linalg.inv(vehicle_from_rgb) @ self._vehicle_from_optical if self._rgb_apart
                               else None)
        self._targets: dict = {}
        #: The latest frame `capture` rendered, None before the first.
        self.latest: CameraFrame | None = None

    def due(self, now: float) -> bool:
        """True (and the next sample scheduled) when a sample is due at simulated time `now` [s]."""
        return self.schedule.due(now)

    def world_from_optical(self, vehicle_pose) -> np.ndarray:
        """4x4 pose of the optical frame in the world, with the host at pose (x, y, yaw) or
        (x, y, z, yaw, pitch, roll) (see sensors/host_placement.py)."""
        return host_matrix(vehicle_pose) @ self._vehicle_from_optical

    def capture(self, scene: Scene, vehicle_pose) -> CameraFrame:
        """Render the images of this camera with its host at pose (x, y, yaw) or (x, y, z, yaw, pitch, roll)
        (zeros for the world)."""
        pose = self.world_from_optical(vehicle_pose)
        if self.rgb is not None and self.depth is not None and self.rgb == self.depth and not self._rgb_apart:
            frame = render(scene, self._targets, self.depth, pose)
        else:
            rgb_pose = host_matrix(vehicle_pose) @ self._vehicle_from_rgb if self._rgb_apart else pose
            rgb = render(scene, self._targets, self.rgb, rgb_pose, True, False).rgb if self.rgb is not None else None
            depth = (render(scene, self._targets, self.depth, pose, False, True).depth
                     if self.depth is not None else None)
            frame = CameraFrame(rgb, depth)
        if frame.depth is not None:
            frame = CameraFrame(frame.rgb, self._depth_reading(frame.depth))
        self.latest = frame
        return frame

    def _depth_reading(self, depth: np.ndarray) -> np.ndarray:
        """Rendered depths [m] as the sensor gives them: rounded down to a whole multiple of depth_resolution, plus
        Gaussian noise (depth_noise_sigma) rounded to that step; a noisy depth beyond clip_max keeps its value
        without noise. +inf (nothing in range) stays."""
        finite = np.isfinite(depth)
        step = self.depth_resolution
        values = depth[finite].astype(np.float64)
        if step > 0:
            values = np.floor(values / step + 1e-9) * step
        if self.depth_noise > 0:
            noise = self.rng.normal(0.0, self.depth_noise, values.size)
            if step > 0:
                noise = np.round(noise / step) * step
            noisy = values + noise
            values = np.where(noisy <= self.depth.clip_max, noisy, values)
        depth[finite] = values.astype(np.float32)
        return depth


def _matrix_pose(m: np.ndarray) -> Pose3:
    yaw, pitch, roll = rotation_to_ypr(m[:3, :3])
    return Pose3(float(m[0, 3]), float(m[1, 3]), float(m[2, 3]), yaw, pitch, roll)
