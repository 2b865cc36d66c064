"""Dynamic footprints and trailer frames of vehicles that tow others (through world-file joints).

For each towing vehicle: `<veh>/footprint` (geometry_msgs/Polygon, what Nav2's costmap subscribes to) and
`<veh>/footprint_stamped` (PolygonStamped in `base_link`, for `subscribe_to_stamped_footprint`), at
`footprint_publish_rate`; and on `<veh>/tf` the transform base_link -> `<trailer>_base_link` of every vehicle
in its train, at the odometry rate.
"""

from __future__ import annotations

from geometry_msgs.msg import Point32, Polygon, PolygonStamped
from rclpy.node import Node
from tf2_msgs.msg import TFMessage

from mvsim_ros.physics import Simulation
from mvsim_ros.physics.footprint import relative_pose, towed_vehicles, train_footprint
from mvsim_ros.ros.conversions import planar_transform, sim_time_msg
from mvsim_ros.ros.qos import TF_QOS, reliable
from mvsim_ros.schedule import Periodic


class FootprintPublisher:
    """Footprint and trailer-frame publishers for the vehicles with trailers."""

    def __init__(self, node: Node, sim: Simulation, prefixes: list[str], footprint_hz: float, tf_hz: float,
                 base_frame: str = "base_link"):
        self.sim = sim
        self.base_frame = base_frame
        self.trains = towed_vehicles(sim.spec)
        self._footprint, self._stamped, self._tf = {}, {}, {}
        for head in self.trains:
            prefix = prefixes[head]
            self._footprint[head] = node.create_publisher(Polygon, prefix + "footprint", reliable())
            self._stamped[head] = node.create_publisher(PolygonStamped, prefix + "footprint_stamped", reliable())
            self._tf[head] = node.create_publisher(TFMessage, prefix + "tf", TF_QOS)
        self._footprint_timer = Periodic.at_rate(footprint_hz)
        self._tf_timer = Periodic.at_rate(tf_hz)

    def trailer_frame(self, index: int) -> str:
        """Frame id of a towed vehicle in its tractor's TF tree."""
        return f"{self.sim.vehicle_names[index]}_{self.base_frame}"

    def publish_due(self) -> None:
        """Publish what is due at the simulation's current time."""
        if not self.trains:
            return
        now = self.sim.time
        if self._tf_timer.due(now):
            self._publish_trailer_frames()
        if self._footprint_timer.due(now):
            self._publish_footprints()

    def _publish_trailer_frames(self) -> None:
        stamp = sim_time_msg(self.sim.time)
        for head, train in self.trains.items():
            transforms = [planar_transform(stamp, self.base_frame, self.trailer_frame(k),
                                           relative_pose(self.sim.pose, head, k)) for k in train]
            self._tf[head].publish(TFMessage(transforms=transforms))

    def _publish_footprints(self) -> None:
        stamp = sim_time_msg(self.sim.time)
        for head, train in self.trains.items():
            outline = train_footprint(self.sim.spec, self.sim.pose, head, train)
            polygon = Polygon(points=[Point32(x=float(x), y=float(y), z=0.0) for x, y in outline])
            self._footprint[head].publish(polygon)
            stamped = PolygonStamped(polygon=polygon)
            stamped.header.stamp = stamp
            stamped.header.frame_id = self.base_frame
            self._stamped[head].publish(stamped)
