"""Rendered cameras as sensor_msgs/Image + CameraInfo, each at its own period of simulated time.

`camera`: `<veh>/<name>/image_raw` (rgb8) and `<veh>/<name>/camera_info`. `rgbd_camera`: the same for RGB, plus
`<veh>/<name>/depth/image_raw` (32FC1, metres along the optical axis, +inf: nothing in range) and
`<veh>/<name>/depth/camera_info` and sensor_msgs/PointCloud2 `<veh>/<name>/points` (x, y, z float32 in the
optical frame, rgb packed as float32 as depth_image_proc does, from the RGB image aligned to the depth; only pixels
with a finite depth). `lidar3d`: sensor_msgs/PointCloud2 on `<veh>/<name>_points` (fields x, y, z,
intensity float32, ring uint16; only beams with a return; frame = sensor name, x forward, z up). Every image's
frame is the optical frame named after the sensor (z forward,
x right, y down), fixed to base_link on the vehicle's tf_static. World-level cameras and 3D lidars publish the
same streams without the `<veh>/` prefix, their frames fixed to map; they see every vehicle. The GL scene is
built here; when no OpenGL context can be made the node warns and runs without cameras.
"""

from __future__ import annotations

import numpy as np
from geometry_msgs.msg import TransformStamped
from rclpy.node import Node
from sensor_msgs.msg import CameraInfo, Image, PointCloud2, PointField

from mvsim_ros.physics import Simulation
from mvsim_ros.ros.conversions import pose3_transform, sim_time_msg
from mvsim_ros.ros.qos import reliable
from mvsim_ros.sensors.camera import Camera, Intrinsics
from mvsim_ros.sensors.gl_context import GlUnavailable
from mvsim_ros.sensors.lidar3d import Lidar3D
from mvsim_ros.sensors.scene import Scene
from mvsim_ros.sensors.suite import host_frame, host_pose, topic_prefix
from mvsim_ros.world.specs import WorldSpec


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


def depth_points(depth: np.ndarray, intrinsics: Intrinsics, rgb: np.ndarray | None = None,
                 rgb_intrinsics: Intrinsics | None = None) -> np.ndarray:
    """Points (RGBD_POINT_DTYPE) of the pixels of a depth image with a finite depth, row by row: pixel (u, v) at
    depth d is ((u - cx) d / fx, (v - cy) d / fy, d). The colour is the RGB pixel the point projects to (the RGB
    image shares the optical frame; black where it falls outside)."""
    rows, cols = depth.shape
    v, u = np.nonzero(np.isfinite(depth))
    d = depth[v, u].astype(np.float64)
    out = np.zeros(len(d), dtype=RGBD_POINT_DTYPE)
    x = (u - intrinsics.cx) * d / intrinsics.fx
    y = (v - intrinsics.cy) * d / intrinsics.fy
    out["x"], out["y"], out["z"] = x, y, d
    if rgb is not None:
        ri = rgb_intrinsics or intrinsics
        if ri == intrinsics and rgb.shape[:2] == depth.shape:
            cu, cv = u, v
        else:
            cu = np.rint(ri.fx * x / d + ri.cx).astype(int)
            cv = np.rint(ri.fy * y / d + ri.cy).astype(int)
        inside = (cu >= 0) & (cu < rgb.shape[1]) & (cv >= 0) & (cv < rgb.shape[0])
        c = rgb[cv[inside], cu[inside]].astype(np.uint32)
        packed = np.zeros(len(d), dtype=np.uint32)
        packed[inside] = (c[:, 0] << 16) | (c[:, 1] << 8) | c[:, 2]
        out["rgb"] = packed
    return out


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


def depth_cloud(cam: Camera, depth: np.ndarray, rgb: np.ndarray | None, stamp) -> PointCloud2:
    """The finite-depth pixels of one RGB-D frame as an unorganised PointCloud2 in the optical frame."""
    return cloud_message(depth_points(depth, cam.depth, rgb, cam.rgb), RGBD_POINT_FIELDS, stamp, cam.spec.name)


def point_cloud(lidar: Lidar3D, ranges: np.ndarray, stamp) -> PointCloud2:
    """The returns of one 3D lidar scan as an unorganised PointCloud2 in the sensor frame."""
    xyz, rings = lidar.points(ranges)
    cloud = np.zeros(len(xyz), dtype=POINT_DTYPE)
    cloud["x"], cloud["y"], cloud["z"] = xyz[:, 0], xyz[:, 1], xyz[:, 2]
    cloud["intensity"], cloud["ring"] = 1.0, rings
    return cloud_message(cloud, POINT_FIELDS, stamp, lidar.spec.name)


class ImagePublisher:
    """Renders the cameras and 3D lidars when due and publishes them (reliable, keep-last)."""

    def __init__(self, node: Node, sim: Simulation, world: WorldSpec, cameras: list[Camera], prefixes: list[str],
                 base_frame: str = "base_link", lidars3d: list[Lidar3D] | None = None, scene: Scene | None = None,
                 world_frame: str = "map"):
        self.sim = sim
        self.base_frame = base_frame
        self.world_frame = world_frame
        self.scene = scene
        self.cameras: list[Camera] = []
        self.lidars3d: list[Lidar3D] = []
        lidars3d = list(lidars3d or [])
        if cameras or lidars3d:
            try:
                if self.scene is None:
                    self.scene = Scene(world, warn=node.get_logger().warning)
                self.cameras, self.lidars3d = list(cameras), lidars3d
            except GlUnavailable as exc:
                node.get_logger().warning(
                    f"{len(cameras)} camera(s) and {len(lidars3d)} 3D lidar(s) not simulated: {exc}")
        self._clouds = [node.create_publisher(PointCloud2,
                                              topic_prefix(prefixes, lidar.vehicle) + lidar.spec.name + "_points",
                                              reliable(2)) for lidar in self.lidars3d]
        self._outputs = []
        self._points = [node.create_publisher(PointCloud2, topic_prefix(prefixes, cam.vehicle) + cam.spec.name
                                              + "/points", reliable(2)) if cam.depth is not None else None
                        for cam in self.cameras]
        for cam in self.cameras:
            base = topic_prefix(prefixes, cam.vehicle) + cam.spec.name
            streams = []
            if cam.rgb is not None:
                streams.append(("rgb", node.create_publisher(Image, base + "/image_raw", reliable(2)),
                                node.create_publisher(CameraInfo, base + "/camera_info", reliable()),
                                camera_info(cam.rgb, cam.spec.name)))
            if cam.depth is not None:
                streams.append(("depth", node.create_publisher(Image, base + "/depth/image_raw", reliable(2)),
                                node.create_publisher(CameraInfo, base + "/depth/camera_info", reliable()),
                                camera_info(cam.depth, cam.spec.name)))
            self._outputs.append(streams)

    def static_transforms(self) -> dict[int, list[TransformStamped]]:
        """base_link -> optical frame of every camera and sensor frame of every 3D lidar, by vehicle index;
        map -> those frames of the world ones, under suite.WORLD_HOST."""
        stamp = sim_time_msg(0.0)
        out: dict[int, list[TransformStamped]] = {}
        for cam in self.cameras:
            out.setdefault(cam.vehicle, []).append(
                pose3_transform(stamp, host_frame(cam.vehicle, self.base_frame, self.world_frame), cam.spec.name,
                                cam.optical_pose))
        for lidar in self.lidars3d:
            out.setdefault(lidar.vehicle, []).append(
                pose3_transform(stamp, host_frame(lidar.vehicle, self.base_frame, self.world_frame),
                                lidar.spec.name, lidar.spec.pose))
        return out

    def publish_due(self) -> None:
        """Render and publish with every camera whose period has come."""
        now = self.sim.time
        due = [(cam, streams, points) for cam, streams, points in zip(self.cameras, self._outputs, self._points)
               if cam.due(now)]
        lidars = [(lidar, pub) for lidar, pub in zip(self.lidars3d, self._clouds) if lidar.due(now)]
        if not due and not lidars:
            return
        self.scene.update(self.sim)
        stamp = sim_time_msg(now)
        for lidar, pub in lidars:
            pub.publish(point_cloud(lidar, lidar.scan(self.scene, host_pose(self.sim, lidar.vehicle)), stamp))
        for cam, streams, points in due:
            frame = cam.capture(self.scene, host_pose(self.sim, cam.vehicle))
            if points is not None:
                points.publish(depth_cloud(cam, frame.depth, frame.rgb, stamp))
            for kind, image_pub, info_pub, info in streams:
                data = frame.rgb if kind == "rgb" else frame.depth
                msg = Image()
                msg.header.stamp, msg.header.frame_id = stamp, cam.spec.name
                msg.height, msg.width = data.shape[0], data.shape[1]
                msg.encoding = "rgb8" if kind == "rgb" else "32FC1"
                msg.is_bigendian = 0
                msg.step = data.shape[1] * (3 if kind == "rgb" else 4)
                msg.data = data.tobytes()
                image_pub.publish(msg)
                info.header.stamp = stamp
                info_pub.publish(info)
