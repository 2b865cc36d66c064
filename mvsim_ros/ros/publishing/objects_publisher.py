"""Moving things of the world on `simul_objects` (visualization_msgs/MarkerArray), for rviz.

Keyframe-animated blocks (namespace `animated_blocks`, marker id = the block's index in the world; a
TRIANGLE_LIST of the block's outline prism from zmin to zmax in its own frame, placed at its 3D pose) and actors
(namespace `actors`, id = the actor's index: a CYLINDER of its collision radius and height standing on its
position, and namespace `actor_names`: its name above its head). Frame `map`, stamped with simulated time,
published at `rate_hz` of simulated time when the world has any of them. Every marker is re-sent each time
(action ADD, no lifetime), so a late rviz shows them at the next publication.
"""

from __future__ import annotations

import numpy as np
from geometry_msgs.msg import Point
from rclpy.node import Node
from visualization_msgs.msg import Marker, MarkerArray

from mvsim_ros.physics import Simulation
from mvsim_ros.ros.publishing.context import PublishingContext
from mvsim_ros.ros.publishing.conversions import quaternion_msg
from mvsim_ros.ros.qos import reliable
from mvsim_ros.core.schedule import Periodic
from mvsim_ros.sensors.meshes import ACTOR_BODY_COLOR, parse_rgb, prism
from mvsim_ros.core.rotations import ypr_quaternion
from mvsim_ros.world.specs import WorldSpec

#: Topic of the markers (relative: under the node's namespace, like simul_map).
TOPIC = "simul_objects"
#: Height of an actor's name label above its head [m].
LABEL_CLEARANCE_M = 0.3


class ObjectMarkers:
    """Publishes the MarkerArray of animated blocks and actors when due (nothing when the world has none).
    context: the session's PublishingContext (a plain one on `node` when not given)."""

    def __init__(self, node: Node, sim: Simulation, world: WorldSpec, rate_hz: float, frame: str = "map",
                 context: PublishingContext | None = None):
        self.sim = sim
        self.context = context if context is not None else PublishingContext.plain(node, [])
        self.blocks = sim.animated_blocks.tolist()
        self.actors = list(world.actors)
        self.enabled = bool(self.blocks or self.actors)
        self.schedule = Periodic.at_rate(rate_hz if self.enabled else 0.0)
        self.outlet = self.context.outlets.create(MarkerArray, TOPIC, reliable(1)) if self.enabled else None
        self.message = MarkerArray()
        for index in self.blocks:
            self.message.markers.append(_block_marker(world.blocks[index], index, frame))
        for index, actor in enumerate(self.actors):
            self.message.markers.append(_actor_marker(actor, index, frame))
        for index, actor in enumerate(self.actors):
            self.message.markers.append(_label_marker(actor, index, frame))

    def schedules(self) -> list[Periodic]:
        """The markers' schedule, which `publish_due` serves."""
        return [self.schedule]

    def publish_due(self) -> None:
        """Publish the markers at the current poses if their period has come."""
        if not self.schedule.due(self.sim.time):
            return
        stamp = self.context.stamps.time_msg(self.sim.time)
        markers = self.message.markers
        blocks = self.sim.block_poses3()[self.blocks] if self.blocks else np.zeros((0, 6))
        for marker, (x, y, z, yaw, pitch, roll) in zip(markers, blocks.tolist()):
            _place(marker, x, y, z, ypr_quaternion(yaw, pitch, roll))
        n = len(self.blocks)
        for k, (actor, (x, y, z, yaw)) in enumerate(zip(self.actors, self.sim.actor_poses.tolist())):
            _place(markers[n + k], x, y, z + 0.5 * actor.collision_height, ypr_quaternion(yaw))
            label = markers[n + len(self.actors) + k]
            label.pose.position.x, label.pose.position.y = x, y
            label.pose.position.z = z + actor.height + LABEL_CLEARANCE_M
        for marker in markers:
            marker.header.stamp = stamp
        self.outlet.publish(self.message)


def _place(marker: Marker, x: float, y: float, z: float, orientation) -> None:
    marker.pose.position.x, marker.pose.position.y, marker.pose.position.z = x, y, z
    marker.pose.orientation = quaternion_msg(orientation)


def _new_marker(frame: str, namespace: str, index: int, kind: int, rgb, alpha: float = 1.0) -> Marker:
    marker = Marker()
    marker.header.frame_id = frame
    marker.ns, marker.id, marker.type, marker.action = namespace, index, kind, Marker.ADD
    marker.color.r, marker.color.g, marker.color.b, marker.color.a = (*map(float, rgb), alpha)
    marker.pose.orientation.w = 1.0
    return marker


def _block_marker(block, index: int, frame: str) -> Marker:
    """The block's outline prism as a triangle list in its own frame."""
    marker = _new_marker(frame, "animated_blocks", index, Marker.TRIANGLE_LIST, parse_rgb(block.color))
    marker.scale.x = marker.scale.y = marker.scale.z = 1.0
    triangles = prism(block.shape, block.zmin, block.zmax, (0.0, 0.0, 0.0))[:, :3]
    marker.points = [Point(x=float(x), y=float(y), z=float(z)) for x, y, z in triangles]
    return marker


def _actor_marker(actor, index: int, frame: str) -> Marker:
    """A cylinder of the actor's collision radius and height."""
    marker = _new_marker(frame, "actors", index, Marker.CYLINDER, ACTOR_BODY_COLOR)
    marker.scale.x = marker.scale.y = 2.0 * actor.collision_radius
    marker.scale.z = actor.collision_height
    return marker


def _label_marker(actor, index: int, frame: str) -> Marker:
    """The actor's name, facing the viewer, above its head."""
    marker = _new_marker(frame, "actor_names", index, Marker.TEXT_VIEW_FACING, (1.0, 1.0, 1.0))
    marker.scale.z = 0.3
    marker.text = actor.name
    return marker


__all__ = ["ObjectMarkers", "TOPIC"]
