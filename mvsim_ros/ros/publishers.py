"""Publishing simulation state: odometry, ground truth, collisions, TF and /clock, each at its own sim-time rate."""

from __future__ import annotations

from dataclasses import dataclass

from nav_msgs.msg import Odometry
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from std_msgs.msg import Bool
from tf2_msgs.msg import TFMessage

from mvsim_ros.physics import Simulation
from mvsim_ros.ros.conversions import planar_odometry, planar_transform, sim_time_msg
from mvsim_ros.ros.qos import TF_QOS, TF_STATIC_QOS, reliable
from mvsim_ros.ros.topics import Frames, vehicle_prefix

#: Diagonal of the 6x6 pose/twist covariances (x, y, z, roll, pitch, yaw): planar motion is known well,
#: z/roll/pitch are unobserved (large variance), as planar odometry sources usually report.
_PLANAR_COVARIANCE_DIAGONAL = (1e-4, 1e-4, 1e6, 1e6, 1e6, 1e-4)


def _planar_covariance() -> list[float]:
    cov = [0.0] * 36
    for i, value in enumerate(_PLANAR_COVARIANCE_DIAGONAL):
        cov[7 * i] = value
    return cov


@dataclass
class PublishRates:
    """Publication rates [Hz] of simulated time (0 disables a stream)."""

    odometry_hz: float = 50.0
    clock_hz: float = 100.0


class _Periodic:
    """Tells when a stream is due, on the simulated clock."""

    def __init__(self, rate_hz: float):
        self.period = 1.0 / rate_hz if rate_hz > 0 else None
        self.next_time = 0.0

    def due(self, now: float) -> bool:
        if self.period is None or now + 1e-9 < self.next_time:
            return False
        # Skip ahead on a fixed grid so the rate holds whatever the step size.
        self.next_time += self.period * (1 + int((now - self.next_time) / self.period))
        return True


class SimPublishers:
    """All state publishers of a simulation, on a given node."""

    def __init__(self, node: Node, sim: Simulation, rates: PublishRates | None = None,
                 force_namespace: bool = False, fake_localization: bool = True, frames: Frames = Frames()):
        self.sim = sim
        self.frames = frames
        self.rates = rates or PublishRates()
        count = len(sim.vehicle_names)
        self.prefixes = [vehicle_prefix(name, count, force_namespace) for name in sim.vehicle_names]
        self._odom = [node.create_publisher(Odometry, p + "odom", reliable()) for p in self.prefixes]
        self._ground_truth = [
            node.create_publisher(Odometry, p + "base_pose_ground_truth", reliable()) for p in self.prefixes
        ]
        self._collision = [node.create_publisher(Bool, p + "collision", reliable()) for p in self.prefixes]
        self._tf = [node.create_publisher(TFMessage, p + "tf", TF_QOS) for p in self.prefixes]
        self._tf_static = [node.create_publisher(TFMessage, p + "tf_static", TF_STATIC_QOS) for p in self.prefixes]
        self._clock = node.create_publisher(Clock, "/clock", reliable())
        self._odom_timer = _Periodic(self.rates.odometry_hz)
        self._clock_timer = _Periodic(self.rates.clock_hz)
        self._covariance = _planar_covariance()
        if fake_localization:
            self.publish_fake_localization()

    def publish_fake_localization(self) -> None:
        """map -> odom identity on each vehicle's tf_static: odometry starts at the vehicle's true initial pose."""
        stamp = sim_time_msg(self.sim.time)
        for pub in self._tf_static:
            pub.publish(TFMessage(transforms=[planar_transform(stamp, self.frames.map, self.frames.odom,
                                                               (0.0, 0.0, 0.0))]))

    def publish_due(self) -> None:
        """Publish whatever is due at the simulation's current time."""
        now = self.sim.time
        if self._clock_timer.due(now):
            self._clock.publish(Clock(clock=sim_time_msg(now)))
        if self._odom_timer.due(now):
            self.publish_vehicles()

    def publish_vehicles(self) -> None:
        """Odometry, ground truth, collision flag and odom->base_link TF of every vehicle, now."""
        sim, frames = self.sim, self.frames
        stamp = sim_time_msg(sim.time)
        odom_pose = sim.odom_pose.tolist()
        odom_twist = sim.odom_twist.tolist()
        true_pose = sim.pose.tolist()
        true_twist = sim.body_twist().tolist()
        collided = sim.take_collisions().tolist()
        for i in range(len(self.prefixes)):
            v, omega = odom_twist[i]
            odom = planar_odometry(stamp, frames.odom, frames.base_link, odom_pose[i], (v, 0.0, omega))
            odom.pose.covariance = self._covariance
            odom.twist.covariance = self._covariance
            self._odom[i].publish(odom)
            self._ground_truth[i].publish(
                planar_odometry(stamp, frames.map, frames.base_link, true_pose[i], true_twist[i])
            )
            self._collision[i].publish(Bool(data=bool(collided[i])))
            self._tf[i].publish(
                TFMessage(transforms=[planar_transform(stamp, frames.odom, frames.base_link, odom_pose[i])])
            )
