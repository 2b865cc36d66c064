"""Rendered cameras as sensor_msgs/Image + CameraInfo, each at its own period of simulated time.

Names follow MVSim's node, so that rviz configurations made for MVSim work unchanged:
`camera` <name>: `<veh>/<name>/image_raw` (rgb8) and `<veh>/<name>/camera_info`, frame `<name>`.
`rgbd_camera` <name>: `<veh>/<name>_rgb/image_raw` (rgb8) + `<veh>/<name>_rgb/camera_info`, frame `<name>_rgb`;
`<veh>/<name>_depth/image_raw` + `<veh>/<name>_depth/camera_info`, frame `<name>_depth`; sensor_msgs/PointCloud2
`<veh>/<name>_points`, frame `<name>_points` (x, y, z float32 in that frame; with publish_ros_colored_pointcloud,
also rgb packed as float32 as depth_image_proc does, from the pixel of the RGB image each point projects to; only
pixels with a depth reading). The depth
image is 16UC1 by default (REP 118: millimetres along the optical axis, 0 = no reading, readings beyond
65.535 m saturate at 65535), or 32FC1 (metres, +inf = nothing in range) with `depth_encoding`.
Every camera frame (`<name>`, `<name>_rgb`, `<name>_depth`, `<name>_points`) is an optical frame (z forward, x
right, y down; an rgbd_camera's `_depth` and `_points` frames coincide, and `_rgb` with them unless its
relativePoseIntensityWRTDepth moves the RGB camera), fixed to base_link on the vehicle's tf_static. MVSim gives the
depth and points frames the sensor body's axes (x forward) instead; here the points are expressed in the optical
frame their TF names, which is what depth_image_proc would produce from the depth image. An rgbd_camera with
publish_ros_depth_image false publishes no depth image (its points still).
`lidar3d`: sensor_msgs/PointCloud2 on `<veh>/<name>_points` (fields x, y, z, intensity float32 (grey level of the
scene with generate_intensity, else 1), ring uint16; only
beams with a return; frame `<name>_points` as in MVSim, the sensor's own axes: x forward, z up).
World-level cameras and 3D lidars publish the same streams without the `<veh>/` prefix, their frames fixed to
map; they see every vehicle. The sensors are rendered by the session's runtime SensorRunner (which warns and runs
without cameras when no OpenGL context can be made); this module only turns their frames into messages.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from geometry_msgs.msg import TransformStamped
from rclpy.node import Node
from sensor_msgs.msg import CameraInfo, Image, PointCloud2, PointField

from mvsim_ros.core.jit import kernel
from mvsim_ros.ros.publishing.context import PublishingContext
from mvsim_ros.ros.publishing.conversions import pose3_transform
from mvsim_ros.ros.publishing.outlet import Outlet, Outlets
from mvsim_ros.ros.qos import reliable
from mvsim_ros.runtime.sensor_runner import Measured, SensorRunner
from mvsim_ros.sensors.camera import Camera, Intrinsics
from mvsim_ros.sensors.lidar3d import Lidar3D
from mvsim_ros.sensors.suite import host_frame, topic_prefix


def camera_info(intrinsics: Intrinsics, frame: str) -> CameraInfo:
    """CameraInfo of an ideal pinhole (no distortion) with its K, P and R."""
    msg = CameraInfo()
    msg.header.frame_id = frame
    msg.width, msg.height = intrinsics.ncols, intrinsics.nrows
    msg.distortion_model = "plumb_bob"
    msg.d = [0.0] * 5
    k = intrinsics.k()
    msg.k = [float(v) for v in k.ravel()]
    msg.r = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    msg.p = [float(k[0, 0]), 0.0, float(k[0, 2]), 0.0, 0.0, float(k[1, 1]), float(k[1, 2]), 0.0, 0.0, 0.0, 1.0, 0.0]
    return msg


#: PointCloud2 layout of 3D lidar points: x, y, z, intensity (float32), ring (uint16), 2 bytes of padding.
POINT_DTYPE = np.dtype({"names": ["x", "y", "z", "intensity", "ring"],
                        "formats": ["<f4", "<f4", "<f4", "<f4", "<u2"],
                        "offsets": [0, 4, 8, 12, 16], "itemsize": 20})
POINT_FIELDS = [PointField(name="x", offset=0, datatype=PointField.FLOAT32, count=1),
                PointField(name="y", offset=4, datatype=PointField.FLOAT32, count=1),
                PointField(name="z", offset=8, datatype=PointField.FLOAT32, count=1),
                PointField(name="intensity", offset=12, datatype=PointField.FLOAT32, count=1),
                PointField(name="ring", offset=16, datatype=PointField.UINT16, count=1)]


#: PointCloud2 layout of an RGB-D camera's points: x, y, z, rgb (float32 holding 0x00RRGGBB, as depth_image_proc).
RGBD_POINT_DTYPE = np.dtype({"names": ["x", "y", "z", "rgb"], "formats": ["<f4", "<f4", "<f4", "<u4"],
                             "offsets": [0, 4, 8, 12], "itemsize": 16})
RGBD_POINT_FIELDS = [PointField(name=n, offset=4 * i, datatype=PointField.FLOAT32, count=1)
                     for i, n in enumerate(("x", "y", "z", "rgb"))]
#: PointCloud2 layout of an RGB-D camera's points without colour (MVSim's default): x, y, z (float32).
XYZ_POINT_DTYPE = np.dtype({"names": ["x", "y", "z"], "formats": ["<f4", "<f4", "<f4"], "offsets": [0, 4, 8],
                            "itemsize": 12})
XYZ_POINT_FIELDS = RGBD_POINT_FIELDS[:3]


def depth_points(depth: np.ndarray, intrinsics: Intrinsics, rgb: np.ndarray | None = None,
                 rgb_intrinsics: Intrinsics | None = None, rgb_from_depth: np.ndarray | None = None) -> np.ndarray:
    """Points (RGBD_POINT_DTYPE) of the pixels of a depth image with a finite depth, row by row: pixel (u, v) at
    depth d is ((u - cx) d / fx, (v - cy) d / fy, d). The colour is the RGB pixel the point projects to (black
    where it falls outside or behind it); rgb_from_depth: the 4x4 pose of the depth optical frame in the RGB
    one, None when they coincide."""
    out = np.zeros(np.count_nonzero(np.isfinite(depth)), dtype=RGBD_POINT_DTYPE)
    _fill_points(out, depth, intrinsics, rgb, rgb_intrinsics, rgb_from_depth)
    return out


def _fill_points(out: np.ndarray, depth: np.ndarray, intrinsics: Intrinsics, rgb: np.ndarray | None,
                 rgb_intrinsics: Intrinsics | None, rgb_from_depth: np.ndarray | None) -> None:
    """Write the points of `depth_points` into `out` (RGBD_POINT_DTYPE, or XYZ_POINT_DTYPE without rgb), one entry
    per finite depth, in one compiled pass."""
    values = out.view(np.float32).reshape(len(out), -1)
    i = intrinsics
    if rgb is None:
        _points_kernel(depth, i.cx, i.cy, i.fx, i.fy, values, values.view(np.uint32), _NO_RGB, 0, 0.0, 0.0, 0.0,
                       0.0, _IDENTITY4)
        return
    ri = rgb_intrinsics or intrinsics
    same = ri == intrinsics and rgb.shape[:2] == depth.shape and rgb_from_depth is None
    mode = 1 if same else 2
    _points_kernel(depth, i.cx, i.cy, i.fx, i.fy, values, values.view(np.uint32), rgb, mode, ri.cx, ri.cy, ri.fx,
                   ri.fy, _IDENTITY4 if rgb_from_depth is None else np.asarray(rgb_from_depth, dtype=np.float64))


_NO_RGB = np.zeros((0, 0, 3), dtype=np.uint8)
_IDENTITY4 = np.eye(4)


@kernel
def _points_kernel(depth, cx, cy, fx, fy, values, words, rgb, mode, rcx, rcy, rfx, rfy, m):
    """One row of `values` (float32 x, y, z [m], then with mode > 0 the packed 0x00RRGGBB in `words`, the same
    memory as uint32) per finite depth, row by row. mode 0: no colour; 1: the colour of the same pixel; 2: of the
    RGB pixel (rounded half to even) the point projects to through the RGB camera (rcx, rcy, rfx, rfy) after the
    4x4 transform m, black outside or behind it."""
    rows, cols = depth.shape
    k = 0
    for v in range(rows):
        for u in range(cols):
            d = np.float64(depth[v, u])
            if not np.isfinite(d):
                continue
            x = (u - cx) * d / fx
            y = (v - cy) * d / fy
            values[k, 0], values[k, 1], values[k, 2] = x, y, d
            if mode == 1:
                words[k, 3] = (np.uint32(rgb[v, u, 0]) << 16) | (np.uint32(rgb[v, u, 1]) << 8) | np.uint32(rgb[v, u, 2])
            elif mode == 2:
                px = m[0, 0] * x + m[0, 1] * y + m[0, 2] * d + m[0, 3]
                py = m[1, 0] * x + m[1, 1] * y + m[1, 2] * d + m[1, 3]
                pz = m[2, 0] * x + m[2, 1] * y + m[2, 2] * d + m[2, 3]
                cu = np.rint(rfx * px / pz + rcx) if pz > 0 else -1.0
                cv = np.rint(rfy * py / pz + rcy) if pz > 0 else -1.0
                if 0 <= cu < rgb.shape[1] and 0 <= cv < rgb.shape[0]:
                    a, b = int(cv), int(cu)
                    words[k, 3] = ((np.uint32(rgb[a, b, 0]) << 16) | (np.uint32(rgb[a, b, 1]) << 8)
                                   | np.uint32(rgb[a, b, 2]))
                else:
                    words[k, 3] = 0
            k += 1


#: Depth encodings of `depth_encoding`: REP 118's millimetres as uint16, or metres as float32.
DEPTH_ENCODINGS = ("16UC1", "32FC1")
#: Largest depth a 16UC1 image holds [mm].
MAX_DEPTH_MM = 65535


def depth_image_data(depth: np.ndarray, encoding: str) -> tuple[bytes, int]:
    """(little-endian pixel bytes, bytes per pixel) of a depth image in metres (float32, +inf: no reading) for
    `encoding`: '32FC1' as it is; '16UC1' rounded to millimetres, 0 where there is no finite positive reading,
    saturated at MAX_DEPTH_MM beyond 65.535 m."""
    if encoding == "32FC1":
        return depth.astype("<f4", copy=False).tobytes(), 4
    if encoding != "16UC1":
        raise ValueError(f"depth encoding must be one of {', '.join(DEPTH_ENCODINGS)}, got {encoding!r}")
    mm = np.zeros(depth.shape, dtype="<u2")
    valid = np.isfinite(depth) & (depth > 0)
    mm[valid] = np.minimum(np.rint(depth[valid].astype(np.float64) * 1000.0), MAX_DEPTH_MM)
    return mm.tobytes(), 2


def cloud_message(cloud: np.ndarray, fields, stamp, frame_id: str) -> PointCloud2:
    """An unorganised, dense, little-endian PointCloud2 of a structured numpy array whose dtype matches `fields`."""
    msg = PointCloud2()
    msg.header.stamp, msg.header.frame_id = stamp, frame_id
    msg.height, msg.width = 1, len(cloud)
    msg.fields = fields
    msg.is_bigendian, msg.is_dense = False, True
    msg.point_step, msg.row_step = cloud.dtype.itemsize, cloud.dtype.itemsize * len(cloud)
    msg.data = cloud.tobytes()
    return msg


def depth_cloud(cam: Camera, depth: np.ndarray, rgb: np.ndarray | None, stamp,
                frame_id: str | None = None) -> PointCloud2:
    """The finite-depth pixels of one RGB-D frame as an unorganised PointCloud2 in the optical frame `frame_id`
    (by default the camera's `<name>_points`): x, y, z, and rgb when the camera has publish_ros_colored_pointcloud
    (and senses RGB)."""
    frame = frame_id if frame_id is not None else camera_frames(cam)["points"]
    colored = cam.colored_points and rgb is not None
    points = np.zeros(np.count_nonzero(np.isfinite(depth)), dtype=RGBD_POINT_DTYPE if colored else XYZ_POINT_DTYPE)
    _fill_points(points, depth, cam.depth, rgb if colored else None, cam.rgb, cam.rgb_from_depth)
    return cloud_message(points, RGBD_POINT_FIELDS if colored else XYZ_POINT_FIELDS, stamp, frame)


def camera_frames(cam: Camera) -> dict[str, str]:
    """Frame ids (before any TF-tree prefix) of a camera's streams, by kind ('rgb', 'depth', 'points'): MVSim's
    `<name>_rgb`, `<name>_depth`, `<name>_points` for an rgbd_camera, `<name>` for a plain camera's image."""
    name = cam.spec.name
    if cam.kind != "rgbd_camera":
        return {"rgb": name}
    return {"rgb": name + "_rgb", "depth": name + "_depth", "points": name + "_points"}


def camera_topics(cam: Camera) -> dict[str, str]:
    """Topic names (relative to the host's prefix) of a camera's streams by kind: 'rgb', 'rgb_info', 'depth',
    'depth_info', 'points' (MVSim's names)."""
    name = cam.spec.name
    if cam.kind != "rgbd_camera":
        return {"rgb": name + "/image_raw", "rgb_info": name + "/camera_info"}
    return {"rgb": name + "_rgb/image_raw", "rgb_info": name + "_rgb/camera_info",
            "depth": name + "_depth/image_raw", "depth_info": name + "_depth/camera_info", "points": name + "_points"}


def lidar_frame(lidar: Lidar3D) -> str:
    """Frame id (before any TF-tree prefix) of a 3D lidar's points: MVSim's `<name>_points`."""
    return lidar.spec.name + "_points"


def point_cloud(lidar: Lidar3D, ranges: np.ndarray, stamp) -> PointCloud2:
    """The returns of one 3D lidar scan as an unorganised PointCloud2 in the sensor frame (lidar_frame)."""
    xyz, rings = lidar.points(ranges)
    cloud = np.zeros(len(xyz), dtype=POINT_DTYPE)
    cloud["x"], cloud["y"], cloud["z"] = xyz[:, 0], xyz[:, 1], xyz[:, 2]
    cloud["intensity"], cloud["ring"] = lidar.intensities(ranges), rings
    return cloud_message(cloud, POINT_FIELDS, stamp, lidar_frame(lidar))


@dataclass
class _CameraOutputs:
    """The outlets of one camera and its prebuilt CameraInfo messages; entries absent when not sensed."""

    images: dict  # kind ('rgb', 'depth') -> (image outlet, info outlet, CameraInfo, frame id)
    points: Outlet | None  # PointCloud2 outlet of an rgbd_camera with depth
    points_frame: str = ""


class ImagePublisher:
    """Publishes the frames of the cameras and the scans of the 3D lidars of `runner` (a runtime SensorRunner) as
    they are rendered (reliable, keep-last).

    depth_encoding: '16UC1' (millimetres, MVSim's and REP 118's) or '32FC1' (metres) for depth images.
    context: the session's PublishingContext (a plain one on `node` when not given).
    """

    def __init__(self, node: Node, runner: SensorRunner, prefixes: list[str], base_frame: str = "base_link",
                 world_frame: str = "map", depth_encoding: str = "16UC1", context: PublishingContext | None = None):
        if depth_encoding not in DEPTH_ENCODINGS:
            raise ValueError(f"depth encoding must be one of {', '.join(DEPTH_ENCODINGS)}, got {depth_encoding!r}")
        self.runner = runner
        self.base_frame = base_frame
        self.world_frame = world_frame
        self.depth_encoding = depth_encoding
        self.cameras: list[Camera] = runner.cameras
        self.lidars3d: list[Lidar3D] = runner.lidars3d
        self.context = context if context is not None else PublishingContext.plain(node, prefixes)
        outlets = self.context.outlets
        self._clouds = [outlets.create(PointCloud2, topic_prefix(prefixes, lidar.vehicle) + lidar.spec.name + "_points",
                                       reliable(2)) for lidar in self.lidars3d]
        self._outputs = [self._camera_outputs(outlets, cam, topic_prefix(prefixes, cam.vehicle))
                         for cam in self.cameras]

    @property
    def scene(self):
        """The GL scene the sensors render (None when there are none or no OpenGL context)."""
        return self.runner.scene

    def _camera_outputs(self, outlets: Outlets, cam: Camera, prefix: str) -> _CameraOutputs:
        topics = camera_topics(cam)
        frames = {kind: self.context.frame(cam.vehicle, frame) for kind, frame in camera_frames(cam).items()}
        images = {}
        for kind, intrinsics in (("rgb", cam.rgb), ("depth", cam.depth if cam.publish_depth_image else None)):
            if intrinsics is not None:
                images[kind] = (outlets.create(Image, prefix + topics[kind], reliable(2)),
                                outlets.create(CameraInfo, prefix + topics[kind + "_info"], reliable()),
                                camera_info(intrinsics, frames[kind]), frames[kind])
        points = (outlets.create(PointCloud2, prefix + topics["points"], reliable(2))
                  if cam.depth is not None else None)
        return _CameraOutputs(images, points, frames.get("points", ""))

    def static_transforms(self) -> dict[int, list[TransformStamped]]:
        """base_link -> every optical frame of every camera (camera_frames) and the frame of every 3D lidar,
        by vehicle index; map -> those frames of the world ones, under suite.WORLD_HOST. Frame ids are plain: the
        publisher of tf_static names them as the TF layout says."""
        stamp = self.context.stamps.time_msg(0.0)
        out: dict[int, list[TransformStamped]] = {}
        for cam in self.cameras:
            parent = host_frame(cam.vehicle, self.base_frame, self.world_frame)
            for kind, frame in camera_frames(cam).items():
                pose = cam.rgb_optical_pose if kind == "rgb" else cam.optical_pose
                out.setdefault(cam.vehicle, []).append(pose3_transform(stamp, parent, frame, pose))
        for lidar in self.lidars3d:
            out.setdefault(lidar.vehicle, []).append(
                pose3_transform(stamp, host_frame(lidar.vehicle, self.base_frame, self.world_frame),
                                lidar_frame(lidar), lidar.spec.pose))
        return out

    def publish(self, measured: Measured) -> None:
        """Publish the 3D lidar scans and camera frames measured at one instant (`measured.clouds`, `.frames`).
        A message is built only for a topic someone listens to: a subscriber, or the node's recording."""
        if not measured.clouds and not measured.frames:
            return
        stamp = self.context.stamps.time_msg(measured.time)
        for index, ranges in measured.clouds:
            lidar = self.lidars3d[index]
            lidar.colors_wanted = self._clouds[index].listened()  # intensities drawn for the next scans or not
            if lidar.colors_wanted:
                cloud = point_cloud(lidar, ranges, stamp)
                cloud.header.frame_id = self.context.frame(lidar.vehicle, cloud.header.frame_id)
                self._clouds[index].publish(cloud)
        for index, frame in measured.frames:
            cam, out = self.cameras[index], self._outputs[index]
            if out.points is not None and out.points.listened():
                out.points.publish(depth_cloud(cam, frame.depth, frame.rgb, stamp, out.points_frame))
            for kind, (image_out, info_out, info, frame_id) in out.images.items():
                if image_out.listened():
                    image_out.publish(image_message(frame, kind, self.depth_encoding, stamp, frame_id))
                if info_out.listened():
                    info.header.stamp = stamp
                    info_out.publish(info)


def image_message(frame, kind: str, depth_encoding: str, stamp, frame_id: str) -> Image:
    """The sensor_msgs/Image of a camera frame's `kind` ('rgb': rgb8; 'depth': `depth_encoding`)."""
    msg = Image()
    msg.header.stamp, msg.header.frame_id = stamp, frame_id
    if kind == "rgb":
        data, msg.encoding, pixel_bytes = frame.rgb.tobytes(), "rgb8", 3
        rows, cols = frame.rgb.shape[:2]
    else:
        data, pixel_bytes = depth_image_data(frame.depth, depth_encoding)
        msg.encoding = depth_encoding
        rows, cols = frame.depth.shape
    msg.height, msg.width = rows, cols
    msg.is_bigendian = 0
    msg.step = cols * pixel_bytes
    msg.data = data
    return msg
