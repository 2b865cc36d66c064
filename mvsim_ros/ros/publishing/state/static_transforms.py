"""Every vehicle's static transforms on its tf_static topic (latched), and the world sensors' frames on the root
`tf_static`."""

from __future__ import annotations

from typing import Callable

from geometry_msgs.msg import TransformStamped
from tf2_msgs.msg import TFMessage

from mvsim_ros.physics import Simulation
from mvsim_ros.ros.publishing.context import PublishingContext
from mvsim_ros.ros.publishing.conversions import planar_transform
from mvsim_ros.ros.publishing.outlet import Outlet
from mvsim_ros.ros.qos import TF_STATIC_QOS
from mvsim_ros.sensors.suite import WORLD_HOST

#: The frame MVSim fixes to base_link (identity) on every vehicle's tf_static.
BASE_FOOTPRINT = "base_footprint"


class StaticTransforms:
    """One latched TFMessage per tf_static topic of `context.layout` (a later message replaces the earlier one for
    late subscribers, so everything static goes together): per vehicle, base_link -> base_footprint (identity),
    map -> odom when `map_odom` is given (fake localization: `map_odom(i)` is vehicle i's planar map -> odom
    transform), and the sensor frames handed to `publish`.

    frames: the unprefixed frame ids (map, odom, base_link; ros/topics.Frames)."""

    def __init__(self, context: PublishingContext, sim: Simulation, frames,
                 map_odom: Callable[[int], tuple[float, float, float]] | None = None):
        self.sim = sim
        self.frames = frames
        self.context = context
        self._map_odom = map_odom
        self._on_topic = context.layout.tf_topics()
        self._outlets: dict[str, Outlet] = {topic: context.outlets.create(TFMessage, topic + "tf_static",
                                                                          TF_STATIC_QOS)
                                            for topic in self._on_topic}
        #: The static transforms given to `publish` (sensor frames), by host, kept for `republish`.
        self._extra: dict[int, list[TransformStamped]] = {}
        #: The root tf_static outlet of the world sensors' frames, when no vehicle's tf_static is that topic.
        self._world_outlet: Outlet | None = None

    def publish(self, extra: dict[int, list[TransformStamped]] | None = None) -> None:
        """Every tf_static message, with `extra[vehicle]` (sensor frames, renamed here as the layout names them).

        `extra[WORLD_HOST]` (map -> the frames of world-level sensors) goes on the root `tf_static`: in the same
        message as the vehicles whose tf_static is that topic, else as the one message of a latched outlet of its
        own."""
        layout = self.context.layout
        self._extra = {}
        for host, transforms in (extra or {}).items():
            for t in transforms:
                t.header.frame_id = layout.frame(host, t.header.frame_id)
                t.child_frame_id = layout.frame(host, t.child_frame_id)
            self._extra[host] = list(transforms)
        for topic in self._on_topic:
            self._publish_topic(topic)
        world = self._extra.get(WORLD_HOST, [])
        if world and "" not in self._on_topic:
            if self._world_outlet is None:
                self._world_outlet = self.context.outlets.create(TFMessage, "tf_static", TF_STATIC_QOS)
            self._world_outlet.publish(TFMessage(transforms=world))

    def republish(self, vehicle: int) -> None:
        """Send again the message of the tf_static topic carrying vehicle `vehicle`'s transforms (after its
        map -> odom changed; the other vehicles' transforms unchanged)."""
        self._publish_topic(self.context.layout.tf_prefix(vehicle))

    def _publish_topic(self, topic: str) -> None:
        stamp = self.context.stamps.time_msg(self.sim.time)
        frames, layout = self.frames, self.context.layout
        transforms = []
        for i in self._on_topic[topic]:
            base_link = layout.frame(i, frames.base_link)
            if self._map_odom is not None:
                transforms.append(planar_transform(stamp, frames.map, layout.frame(i, frames.odom),
                                                   self._map_odom(i)))
            transforms.append(planar_transform(stamp, base_link, layout.frame(i, BASE_FOOTPRINT), (0.0, 0.0, 0.0)))
            transforms += self._extra.get(i, [])
        if topic == "":
            transforms += self._extra.get(WORLD_HOST, [])
        self._outlets[topic].publish(TFMessage(transforms=transforms))


__all__ = ["BASE_FOOTPRINT", "StaticTransforms"]
