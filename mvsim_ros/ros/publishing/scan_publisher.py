"""2D lidar scans as sensor_msgs/LaserScan on `<veh>/<sensor name>`, each at its own period of simulated time,
with the sensor frame (named after the sensor) fixed to base_link on the vehicle's tf_static. World-level
lidars publish on `<sensor name>` (no vehicle prefix), their frame fixed to map, and see every vehicle. Lidars with
`raytrace_3d` are measured on the GPU from a GL scene of the world (built here, shared with the cameras); when no
OpenGL context can be made they fall back to 2D ray casting, with a warning."""

from __future__ import annotations

import array

import numpy as np
from geometry_msgs.msg import TransformStamped
from rclpy.node import Node
from sensor_msgs.msg import LaserScan

from mvsim_ros.physics import Simulation
from mvsim_ros.ros.publishing.batch_publisher import RowsPublisher
from mvsim_ros.ros.publishing.conversions import pose3_transform, sec_nsec, sim_time_msg
from mvsim_ros.ros.qos import reliable
from mvsim_ros.ros.publishing.serialized import SerializedBatch
from mvsim_ros.ros.topics import vehicle_frame
from mvsim_ros.sensors.gl_context import GlUnavailable
from mvsim_ros.sensors.lidar2d import Lidar2D
from mvsim_ros.sensors.suite import host_frame, host_pose3, topic_prefix
from mvsim_ros.world.specs import WorldSpec
from mvsim_ros.core.schedule import Periodic


class ScanPublisher:
    """Runs the lidars when due and publishes their scans (reliable, keep-last: matches RViz and Nav2)."""

    def __init__(self, node: Node, sim: Simulation, lidars: list[Lidar2D], prefixes: list[str],
                 base_frame: str = "base_link", world: WorldSpec | None = None, world_frame: str = "map"):
        self.sim = sim
        self.lidars = lidars
        self.base_frame = base_frame
        self.world_frame = world_frame
        #: The GL scene of the raytrace_3d lidars (None when there are none or no OpenGL context).
        self.scene = None
        gpu = [lidar for lidar in lidars if lidar.raytrace_3d]
        if gpu:
            try:
                if world is None:
                    raise GlUnavailable("no world given to build the GL scene")
                from mvsim_ros.sensors.scene import Scene

                self.scene = Scene(world, warn=node.get_logger().warning)
            except GlUnavailable as exc:
                node.get_logger().warning(f"{len(gpu)} lidar(s) with raytrace_3d ray cast in 2D instead: {exc}")
                for lidar in gpu:
                    lidar.raytrace_3d = False
        self._publishers = [node.create_publisher(LaserScan, topic_prefix(prefixes, lidar.vehicle) + lidar.spec.name,
                                                  reliable())
                            for lidar in lidars]
        #: Scans go out serialized (SerializedScan), all lidars' in one publish call when they fall due together
        #: (the usual case: one rate), else one call per lidar; publishers that are not rclpy's (no middleware
        #: handle, e.g. a stand-in) get LaserScan messages instead.
        self._serialized = all(hasattr(pub, "handle") for pub in self._publishers)
        if self._serialized:
            self._messages = [SerializedScan(self._template(lidar), lidar.params.rays) for lidar in lidars]
            self._batch = RowsPublisher(self._publishers, [msg.batch.store for msg in self._messages])
        else:
            self._messages = [self._template(lidar) for lidar in lidars]

    def _template(self, lidar: Lidar2D) -> LaserScan:
        p = lidar.params
        msg = LaserScan()
        msg.header.frame_id = vehicle_frame(lidar.vehicle, lidar.spec.name)
        msg.angle_min, msg.angle_max = -0.5 * p.fov, 0.5 * p.fov
        msg.angle_increment = p.fov / (p.rays - 1)
        msg.scan_time = p.period
        msg.range_min, msg.range_max = p.range_min, p.range_max
        return msg

    def static_transforms(self) -> dict[int, list[TransformStamped]]:
        """base_link -> sensor frame of every lidar, by vehicle index; map -> sensor frame of the world lidars,
        under suite.WORLD_HOST."""
        stamp = sim_time_msg(0.0)
        out: dict[int, list[TransformStamped]] = {}
        for lidar in self.lidars:
            out.setdefault(lidar.vehicle, []).append(
                pose3_transform(stamp, host_frame(lidar.vehicle, self.base_frame, self.world_frame), lidar.spec.name,
                                lidar.spec.pose))
        return out

    def schedules(self) -> list[Periodic]:
        """The lidars' sample schedules, which `publish_due` serves."""
        return [lidar.schedule for lidar in self.lidars]

    def publish_due(self) -> None:
        """Scan and publish with every lidar whose period has come."""
        now = self.sim.time
        updated = False
        due = []
        stamp = sec_nsec(now)
        for index, (lidar, msg) in enumerate(zip(self.lidars, self._messages)):
            if lidar.due(now):
                if lidar.raytrace_3d:
                    if not updated:
                        self.scene.update(self.sim)
                        updated = True
                    ranges = lidar.render_scan(self.scene, host_pose3(self.sim, lidar.vehicle))
                else:
                    ranges = lidar.scan(self.sim.box2d.world, host_pose3(self.sim, lidar.vehicle))
                if self._serialized:
                    msg.write(stamp, ranges)
                else:
                    msg.header.stamp = sim_time_msg(now)
                    msg.ranges = array.array("f", ranges.astype(np.float32).tobytes())
                    self._publishers[index].publish(msg)
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
