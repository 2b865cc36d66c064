"""2D lidar scans as sensor_msgs/LaserScan on `<veh>/<sensor name>`, each at its own period of simulated time,
with the sensor frame (named after the sensor) fixed to base_link on the vehicle's tf_static. World-level
lidars publish on `<sensor name>` (no vehicle prefix), their frame fixed to map, and see every vehicle. Lidars with
`raytrace_3d` are measured on the GPU from a GL scene of the world; when no OpenGL context can be made they fall
back to 2D ray casting, with a warning. The lidars are measured by the session's runtime SensorRunner; this module
only turns their ranges into messages."""

from __future__ import annotations

import array

import numpy as np
from geometry_msgs.msg import TransformStamped
from rclpy.node import Node
from sensor_msgs.msg import LaserScan

from mvsim_ros.ros.publishing.batch_publisher import RowsPublisher
from mvsim_ros.ros.publishing.context import PublishingContext
from mvsim_ros.ros.publishing.conversions import pose3_transform
from mvsim_ros.ros.publishing.outlet import Outlet
from mvsim_ros.ros.qos import reliable
from mvsim_ros.ros.publishing.serialized import SerializedBatch
from mvsim_ros.runtime.sensor_runner import Measured, SensorRunner
from mvsim_ros.sensors.lidar2d import Lidar2D
from mvsim_ros.sensors.suite import host_frame, topic_prefix


class ScanPublisher:
    """Publishes the scans of the 2D lidars of `runner` (a runtime SensorRunner) as they are measured (reliable,
    keep-last: matches RViz and Nav2). `context`: the session's PublishingContext (a plain one on `node` when not
    given)."""

    def __init__(self, node: Node, runner: SensorRunner, prefixes: list[str], base_frame: str = "base_link",
                 world_frame: str = "map", context: PublishingContext | None = None):
        self.runner = runner
        self.lidars = runner.lidars
        self.base_frame = base_frame
        self.world_frame = world_frame
        self.context = context if context is not None else PublishingContext.plain(node, prefixes)
        self._outlets = [self.context.outlets.create(LaserScan, topic_prefix(prefixes, lidar.vehicle)
                                                     + lidar.spec.name, reliable())
                         for lidar in self.lidars]
        #: Scans go out serialized (SerializedScan), all lidars' in one publish call when they fall due together
        #: (the usual case: one rate), else one call per lidar; publishers that are not rclpy's (no middleware
        #: handle, e.g. a stand-in) get LaserScan messages instead.
        self._serialized = all(outlet.takes_serialized for outlet in self._outlets)
        if self._serialized:
            self._messages = [SerializedScan(self._template(lidar), lidar.params.rays) for lidar in self.lidars]
            self._batch = RowsPublisher(self._outlets, [msg.batch.store for msg in self._messages])
        else:
            self._messages = [self._template(lidar) for lidar in self.lidars]

    @property
    def scene(self):
        """The GL scene the raytrace_3d lidars render (None when there are none or no OpenGL context)."""
        return self.runner.scene

    def serialized_scans(self) -> list[tuple["SerializedScan", Outlet]] | None:
        """Each lidar's SerializedScan and outlet, index for index with `lidars` (for the compiled fast path,
        ros/publishing/compiled/scans.py); None when the scans do not go out serialized."""
        return list(zip(self._messages, self._outlets)) if self._serialized else None

    def _template(self, lidar: Lidar2D) -> LaserScan:
        p = lidar.params
        msg = LaserScan()
        msg.header.frame_id = self.context.frame(lidar.vehicle, lidar.spec.name)
        msg.angle_min, msg.angle_max = -0.5 * p.fov, 0.5 * p.fov
        msg.angle_increment = p.fov / (p.rays - 1)
        msg.scan_time = p.period
        msg.range_min, msg.range_max = p.range_min, p.range_max
        return msg

    def static_transforms(self) -> dict[int, list[TransformStamped]]:
        """base_link -> sensor frame of every lidar, by vehicle index; map -> sensor frame of the world lidars,
        under suite.WORLD_HOST."""
        stamp = self.context.stamps.time_msg(0.0)
        out: dict[int, list[TransformStamped]] = {}
        for lidar in self.lidars:
            out.setdefault(lidar.vehicle, []).append(
                pose3_transform(stamp, host_frame(lidar.vehicle, self.base_frame, self.world_frame), lidar.spec.name,
                                lidar.spec.pose))
        return out

    def publish(self, measured: Measured) -> None:
        """Publish the scans measured at one instant (`measured.scans`)."""
        if not measured.scans:
            return
        now, stamps = measured.time, self.context.stamps
        stamp = stamps.sec_nsec(now)
        due = []
        for index, ranges in measured.scans:
            msg = self._messages[index]
            if self._serialized:
                msg.write(stamp, ranges)
            else:
                msg.header.stamp = stamps.time_msg(now)
                msg.ranges = array.array("f", ranges.astype(np.float32).tobytes())
                self._outlets[index].publish(msg)
            due.append(index)
        if self._serialized:
            self._batch.publish(due)


class SerializedScan:
    """A LaserScan of `rays` beams kept serialized: `write` puts a stamp and the ranges into its bytes (the frame,
    angles and limits stay those of the template) for a serialized publish (batch.store's row 0)."""

    def __init__(self, template: LaserScan, rays: int):
        marker = np.float32(7654.321)  # find the ranges' bytes: a run of a marker value nothing else holds
        template.ranges = array.array("f", np.full(rays, marker, dtype=np.float32).tobytes())
        self.batch = SerializedBatch(template, ["header.stamp.sec", "header.stamp.nanosec"], 1)
        run = np.full(rays, marker, dtype="<f4" if self.batch.little_endian else ">f4").tobytes()
        data = self.batch.store[0].tobytes()
        self._at = data.find(run)
        if self._at < 0 or data.find(run, self._at + 1) >= 0:
            raise RuntimeError("could not locate the ranges in the serialized LaserScan")
        self._dtype = np.dtype("<f4" if self.batch.little_endian else ">f4")
        self._stamp = np.zeros((1, 2))
        self._ranges = self.batch.store[0, self._at:self._at + 4 * rays].view(self._dtype)

    @property
    def ranges_offset(self) -> int:
        """Where the ranges (float32, rays of them) start in the message's bytes."""
        return self._at

    def write(self, stamp: tuple[int, int], ranges: np.ndarray) -> None:
        """Stamp (sec, nanosec) and ranges [m] (float32 in the message; +inf: no return)."""
        self._stamp[0] = stamp
        self.batch.fill(self._stamp)
        self._ranges[:] = ranges
