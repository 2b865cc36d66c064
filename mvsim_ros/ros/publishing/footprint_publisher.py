"""Dynamic footprints and extra frames of vehicles that tow others (through world-file joints) and of
articulated vehicles.

For each such vehicle: `<veh>/footprint` (geometry_msgs/Polygon, what Nav2's costmap subscribes to) and
`<veh>/footprint_stamped` (PolygonStamped in `base_link`, for `subscribe_to_stamped_footprint`), at
`footprint_publish_rate`; and on `<veh>/tf`, at the odometry rate, the transform base_link ->
`<trailer>_base_link` of every vehicle in its train, and for an articulated vehicle base_link ->
`front_unit_link` (the front unit's axle centre, x forward), with its pivot on `<veh>/joint_states`
(sensor_msgs/JointState: `articulation_joint`, position gamma [rad], velocity [rad/s], effort empty). An
articulated vehicle's footprint is its own two units (trailers it tows get their frames, not a place in its
outline).
"""

from __future__ import annotations

import numpy as np
from geometry_msgs.msg import Point32, Polygon, PolygonStamped
from rclpy.node import Node
from sensor_msgs.msg import JointState
from tf2_msgs.msg import TFMessage

from mvsim_ros.physics import Simulation
from mvsim_ros.physics.footprint import articulated_outline, relative_pose, towed_vehicles, train_footprint
from mvsim_ros.ros.publishing.context import PublishingContext
from mvsim_ros.ros.publishing.conversions import planar_transform
from mvsim_ros.ros.qos import TF_QOS, reliable
from mvsim_ros.core.schedule import Periodic


#: Frame id of an articulated vehicle's front unit (unprefixed, like base_link).
FRONT_UNIT_FRAME = "front_unit_link"
#: Joint name of an articulated vehicle's pivot on `<veh>/joint_states`.
ARTICULATION_JOINT = "articulation_joint"


class FootprintPublisher:
    """Footprint and trailer/front-unit frame publishers for the vehicles with trailers or articulation. context:
    the session's PublishingContext (a plain one on `node` when not given)."""

    def __init__(self, node: Node, sim: Simulation, prefixes: list[str], footprint_hz: float, tf_hz: float,
                 base_frame: str = "base_link", context: PublishingContext | None = None):
        self.sim = sim
        self.base_frame = base_frame
        self.context = context if context is not None else PublishingContext.plain(node, prefixes)
        outlets, layout = self.context.outlets, self.context.layout
        self.trains = towed_vehicles(sim.spec)
        #: articulated vehicle index -> its rank among them (index into sim.articulations / sim.unit_pose)
        self.articulated = {int(k): j for j, k in enumerate(sim.articulations.vehicle.tolist())}
        self.heads = sorted(set(self.trains) | set(self.articulated))
        self._footprint, self._stamped, self._tf = {}, {}, {}
        for head in self.heads:
            prefix = prefixes[head]
            self._footprint[head] = outlets.create(Polygon, prefix + "footprint", reliable())
            self._stamped[head] = outlets.create(PolygonStamped, prefix + "footprint_stamped", reliable())
            self._tf[head] = outlets.create(TFMessage, layout.tf_prefix(head) + "tf", TF_QOS)
        self._joint_states = {k: outlets.create(JointState, prefixes[k] + "joint_states", reliable())
                              for k in self.articulated}
        #: Per head vehicle, in the TF layout in use: its base frame, its trailers' frames, its front unit's frame.
        self._frame_names = {head: (layout.frame(head, self.base_frame),
                                    [layout.frame(head, self.trailer_frame(k)) for k in self.trains.get(head, [])],
                                    layout.frame(head, FRONT_UNIT_FRAME)) for head in self.heads}
        self._footprint_timer = Periodic.at_rate(footprint_hz)
        self._tf_timer = Periodic.at_rate(tf_hz)

    def trailer_frame(self, index: int) -> str:
        """Frame id of a towed vehicle in its tractor's TF tree."""
        return f"{self.sim.vehicle_names[index]}_{self.base_frame}"

    def schedules(self) -> list[Periodic]:
        """The schedules `publish_due` serves (none without trains or articulated vehicles)."""
        return [self._tf_timer, self._footprint_timer] if self.heads else []

    def publish_due(self) -> None:
        """Publish what is due at the simulation's current time."""
        if not self.heads:
            return
        now = self.sim.time
        if self._tf_timer.due(now):
            self._publish_trailer_frames()
        if self._footprint_timer.due(now):
            self._publish_footprints()

    def _publish_trailer_frames(self) -> None:
        stamp = self.context.stamps.time_msg(self.sim.time)
        sim = self.sim
        for head in self.heads:
            base, children, front = self._frame_names[head]
            transforms = [planar_transform(stamp, base, child, relative_pose(sim.pose, head, k))
                          for k, child in zip(self.trains.get(head, []), children)]
            if head in self.articulated:
                j = self.articulated[head]
                poses = np.vstack([sim.pose[head], sim.unit_pose[j]])
                transforms.append(planar_transform(stamp, base, front, relative_pose(poses, 0, 1)))
                state = JointState(name=[ARTICULATION_JOINT], position=[float(sim.articulations.gamma[j])],
                                   velocity=[float(sim.articulations.gamma_rate[j])])
                state.header.stamp = stamp
                self._joint_states[head].publish(state)
            self._tf[head].publish(TFMessage(transforms=transforms))

    def outline(self, head: int) -> list[tuple[float, float]]:
        """Current footprint [m] of vehicle `head` in its base_link, counter-clockwise."""
        sim = self.sim
        if head in self.articulated:
            return articulated_outline(sim.spec.vehicles[head], float(sim.articulations.gamma[self.articulated[head]]))
        return train_footprint(sim.spec, sim.pose, head, self.trains[head])

    def _publish_footprints(self) -> None:
        stamp = self.context.stamps.time_msg(self.sim.time)
        for head in self.heads:
            outline = self.outline(head)
            polygon = Polygon(points=[Point32(x=float(x), y=float(y), z=0.0) for x, y in outline])
            self._footprint[head].publish(polygon)
            stamped = PolygonStamped(polygon=polygon)
            stamped.header.stamp = stamp
            stamped.header.frame_id = self._frame_names[head][0]
            self._stamped[head].publish(stamped)
