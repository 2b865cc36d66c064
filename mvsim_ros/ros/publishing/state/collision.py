"""Each vehicle's collision flag on `<veh>/collision` (std_msgs/Bool, latched), published when it changes."""

from __future__ import annotations

from rclpy.serialization import serialize_message
from std_msgs.msg import Bool

from mvsim_ros.physics import Simulation
from mvsim_ros.ros.publishing.outlet import Outlets
from mvsim_ros.ros.qos import latched


class CollisionFlags:
    """The collision flag of every vehicle of `sim`: true when the vehicle touched something since the previous
    check (brief contacts are not lost), so a bump gives true, then false once the vehicle is clear. Latched: a
    late subscriber gets the current state."""

    def __init__(self, outlets: Outlets, sim: Simulation, prefixes: list[str]):
        self.sim = sim
        self.outlets = [outlets.create(Bool, prefix + "collision", latched()) for prefix in prefixes]
        self._bytes = {flag: serialize_message(Bool(data=flag)) for flag in (False, True)}
        self._state = [False] * len(prefixes)

    @property
    def state(self) -> list[bool]:
        """Each vehicle's flag as last published."""
        return list(self._state)

    def publish_initial(self) -> None:
        """Every flag false (the state before any contact)."""
        for outlet in self.outlets:
            outlet.publish_serialized(self._bytes[False])

    def publish_changes(self) -> None:
        """Take the simulation's contacts since the previous call and publish the flags that changed."""
        collided = self.sim.take_collisions().tolist()
        if collided == self._state:
            return
        for outlet, hit, before in zip(self.outlets, collided, self._state):
            if hit != before:
                outlet.publish_serialized(self._bytes[hit])
        self._state = collided


__all__ = ["CollisionFlags"]
