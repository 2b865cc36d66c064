"""Publishing simulation state: odometry, ground truth, collisions, TF and /clock, each at its own sim-time rate."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from geometry_msgs.msg import TransformStamped
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rclpy.serialization import serialize_message
from rosgraph_msgs.msg import Clock
from std_msgs.msg import Bool
from tf2_msgs.msg import TFMessage

from mvsim_ros.physics import Simulation
from mvsim_ros.physics.jit import kernel
from mvsim_ros.ros.batch_publisher import BatchPublisher
from mvsim_ros.ros.conversions import planar_odometry, planar_transform, sec_nsec, sim_time_msg
from mvsim_ros.ros.qos import TF_QOS, TF_STATIC_QOS, latched, reliable
from mvsim_ros.ros.serialized import SerializedBatch
from mvsim_ros.schedule import Periodic
from mvsim_ros.ros.topics import Frames, vehicle_prefix
from mvsim_ros.sensors.suite import WORLD_HOST

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


#: Patched fields, in serialized order. Neighbouring fields are written together, so the always-zero ones
#: between them (z, roll/pitch parts) are listed too: 3 writes per odometry message, 2 per transform.
ODOMETRY_FIELDS = [
    "header.stamp.sec", "header.stamp.nanosec",
    "pose.pose.position.x", "pose.pose.position.y", "pose.pose.position.z",
    "pose.pose.orientation.x", "pose.pose.orientation.y", "pose.pose.orientation.z", "pose.pose.orientation.w",
    "twist.twist.linear.x", "twist.twist.linear.y", "twist.twist.linear.z",
    "twist.twist.angular.x", "twist.twist.angular.y", "twist.twist.angular.z",
]
TRANSFORM_FIELDS = [
    "transforms.0.header.stamp.sec", "transforms.0.header.stamp.nanosec",
    "transforms.0.transform.translation.x", "transforms.0.transform.translation.y",
    "transforms.0.transform.translation.z", "transforms.0.transform.rotation.x",
    "transforms.0.transform.rotation.y", "transforms.0.transform.rotation.z", "transforms.0.transform.rotation.w",
]


class SimPublishers:
    """All state publishers of a simulation, on a given node.

    Messages of every stream are serialized once and only their numbers rewritten per publish
    (see serialized.py), and the per-vehicle streams go to the middleware in one compiled call
    (batch_publisher.py): publishing stays cheap next to the physics step.
    """

    def __init__(self, node: Node, sim: Simulation, rates: PublishRates | None = None,
                 force_namespace: bool = False, fake_localization: bool = True, frames: Frames = Frames(),
                 prefixes: list[str] | None = None):
        self.sim = sim
        self.frames = frames
        self.rates = rates or PublishRates()
        count = len(sim.vehicle_names)
        self.prefixes = (list(prefixes) if prefixes is not None
                         else [vehicle_prefix(name, count, force_namespace) for name in sim.vehicle_names])
        self._odom = [node.create_publisher(Odometry, p + "odom", reliable()) for p in self.prefixes]
        self._ground_truth = [
            node.create_publisher(Odometry, p + "base_pose_ground_truth", reliable()) for p in self.prefixes
        ]
        # Collision flags are published when they change, latched (late subscribers get the current state).
        self._collision = [node.create_publisher(Bool, p + "collision", latched()) for p in self.prefixes]
        self._tf = [node.create_publisher(TFMessage, p + "tf", TF_QOS) for p in self.prefixes]
        self._tf_static = [node.create_publisher(TFMessage, p + "tf_static", TF_STATIC_QOS) for p in self.prefixes]
        self._clock = node.create_publisher(Clock, "/clock", reliable())
        # Serialized messages go straight to the middleware handle (skipping the per-call type dispatch of
        # Publisher.publish); the node owns these publishers for its whole life, so the handles stay valid.
        self._collision_raw = [pub.handle.publish_raw for pub in self._collision]
        self._clock_raw = self._clock.handle.publish_raw
        self._odom_timer = Periodic.at_rate(self.rates.odometry_hz)
        self._clock_timer = Periodic.at_rate(self.rates.clock_hz)

        zero_time, origin = sim_time_msg(0.0), (0.0, 0.0, 0.0)
        odom = planar_odometry(zero_time, frames.odom, frames.base_link, origin, origin)
        odom.pose.covariance = odom.twist.covariance = _planar_covariance()
        self._odom_msgs = SerializedBatch(odom, ODOMETRY_FIELDS, count)
        truth = planar_odometry(zero_time, frames.map, frames.base_link, origin, origin)
        self._truth_msgs = SerializedBatch(truth, ODOMETRY_FIELDS, count)
        transform = TFMessage(transforms=[planar_transform(zero_time, frames.odom, frames.base_link, origin)])
        self._tf_msgs = SerializedBatch(transform, TRANSFORM_FIELDS, count)
        self._batch = BatchPublisher([(self._odom, self._odom_msgs.store), (self._tf, self._tf_msgs.store),
                                      (self._ground_truth, self._truth_msgs.store)])
        self._node = node
        self._clock_msg = SerializedBatch(Clock(clock=zero_time), ["clock.sec", "clock.nanosec"], 1)
        self._clock_values = np.zeros((1, 2))
        self._bool_bytes = {flag: serialize_message(Bool(data=flag)) for flag in (False, True)}
        self._collision_state = [False] * count
        for publish in self._collision_raw:
            publish(self._bool_bytes[False])
        self.fake_localization = fake_localization  # publish_static() sends map -> odom with the other statics
        #: The root tf_static publisher of the world sensors' frames, when no vehicle's tf_static is that topic.
        self._world_tf_static = None

    def publish_static(self, extra: dict[int, list[TransformStamped]] | None = None) -> None:
        """Each vehicle's static transforms, as one latched message on its tf_static (a later message replaces
        the earlier one for late subscribers, so everything static goes together): map -> odom identity when
        faking localization (odometry starts at the true initial pose), plus `extra[vehicle]` (sensor frames).

        `extra[WORLD_HOST]` (map -> the frames of world-level sensors) goes on the root `tf_static`: in the same
        message as the vehicle whose tf_static is that topic (one vehicle, no forced namespace), else as the one
        message of a latched publisher of its own."""
        stamp = sim_time_msg(self.sim.time)
        extra = extra or {}
        world = list(extra.get(WORLD_HOST, []))
        for i, pub in enumerate(self._tf_static):
            transforms = list(extra.get(i, []))
            if self.fake_localization:
                transforms.insert(0, planar_transform(stamp, self.frames.map, self.frames.odom, (0.0, 0.0, 0.0)))
            if world and self.prefixes[i] == "":  # this vehicle's tf_static is the root one
                transforms += world
                world = []
            if transforms:
                pub.publish(TFMessage(transforms=transforms))
        if world:
            if self._world_tf_static is None:
                self._world_tf_static = self._node.create_publisher(TFMessage, "tf_static", TF_STATIC_QOS)
            self._world_tf_static.publish(TFMessage(transforms=world))

    def publish_due(self) -> None:
        """Publish whatever is due at the simulation's current time."""
        now = self.sim.time
        if self._clock_timer.due(now):
            self._clock_values[0] = sec_nsec(now)
            self._clock_msg.fill(self._clock_values)
            self._clock_raw(self._clock_msg.row(0))
        if self._odom_timer.due(now):
            self.publish_vehicles()

    def publish_vehicles(self) -> None:
        """Odometry, ground truth and odom->base_link TF of every vehicle, now; collision flags that changed.

        A flag is true when the vehicle touched something since the previous check (brief contacts are not
        lost): a bump gives true, then false once the vehicle is clear."""
        sim = self.sim
        sec, nsec = sec_nsec(sim.time)
        odom, tf, truth = _vehicle_messages(sim.odom_pose, sim.odom_twist, sim.pose, sim.velocity, sec, nsec)
        self._odom_msgs.fill(odom)
        self._tf_msgs.fill(tf)
        self._truth_msgs.fill(truth)
        failures = self._batch.failures
        self._batch.publish()
        if self._batch.failures != failures and self._node.context.ok():
            self._node.get_logger().warning("the middleware refused odometry/TF messages",
                                            throttle_duration_sec=10.0)
        collided = sim.take_collisions().tolist()
        if collided != self._collision_state:
            for i, (hit, before) in enumerate(zip(collided, self._collision_state)):
                if hit != before:
                    self._collision_raw[i](self._bool_bytes[hit])
            self._collision_state = collided


@kernel
def _vehicle_messages(odom_pose, odom_twist, pose, velocity, sec, nsec):
    """Field values (in ODOMETRY_FIELDS / TRANSFORM_FIELDS order) of each vehicle's odometry, odom->base_link
    transform and ground truth: stamps, planar poses as yaw quaternions, body-frame twists."""
    count = pose.shape[0]
    odom = np.zeros((count, 15))
    tf = np.zeros((count, 9))
    truth = np.zeros((count, 15))
    for k in range(count):
        qz, qw = np.sin(0.5 * odom_pose[k, 2]), np.cos(0.5 * odom_pose[k, 2])
        odom[k, 0], odom[k, 1], tf[k, 0], tf[k, 1], truth[k, 0], truth[k, 1] = sec, nsec, sec, nsec, sec, nsec
        odom[k, 2], odom[k, 3], odom[k, 7], odom[k, 8] = odom_pose[k, 0], odom_pose[k, 1], qz, qw
        odom[k, 9], odom[k, 14] = odom_twist[k, 0], odom_twist[k, 1]
        tf[k, 2], tf[k, 3], tf[k, 7], tf[k, 8] = odom_pose[k, 0], odom_pose[k, 1], qz, qw
        c, s = np.cos(pose[k, 2]), np.sin(pose[k, 2])
        truth[k, 2], truth[k, 3] = pose[k, 0], pose[k, 1]
        truth[k, 7], truth[k, 8] = np.sin(0.5 * pose[k, 2]), np.cos(0.5 * pose[k, 2])
        truth[k, 9] = c * velocity[k, 0] + s * velocity[k, 1]
        truth[k, 10] = -s * velocity[k, 0] + c * velocity[k, 1]
        truth[k, 14] = velocity[k, 2]
    return odom, tf, truth
