"""Publishing simulation state: odometry, ground truth, collisions, fake localization, TF and /clock, each at its
own sim-time rate."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from geometry_msgs.msg import Pose, PoseArray, PoseWithCovarianceStamped, TransformStamped
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rclpy.serialization import serialize_message
from rosgraph_msgs.msg import Clock
from std_msgs.msg import Bool
from tf2_msgs.msg import TFMessage

from mvsim_ros.physics import Simulation
from mvsim_ros.ros.publishing.batch_publisher import BatchPublisher
from mvsim_ros.ros.publishing.conversions import planar_odometry, planar_transform, sec_nsec, sim_time_msg
from mvsim_ros.ros.qos import TF_QOS, TF_STATIC_QOS, latched, reliable
from mvsim_ros.ros.publishing.serialized import SerializedBatch
from mvsim_ros.core.schedule import Periodic
from mvsim_ros.ros.topics import FrameLayout, Frames, vehicle_prefix
from mvsim_ros.runtime.fast_path.fields import empty_buffers
from mvsim_ros.runtime.fast_path.sinks import ClockSink, StreamSink, VehicleSink, no_clock
from mvsim_ros.runtime.fast_path.vehicle_values import VehicleMotion, vehicle_values
from mvsim_ros.sensors.suite import WORLD_HOST
from mvsim_ros.ros.node.recording import raw_publisher

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


#: Patched fields, in serialized order: the columns of runtime/fast_path/vehicle_values.py's rows. Neighbouring
#: fields are written together, so the always-zero ones between them (z, roll/pitch parts) are listed too: 3 writes
#: per odometry message, 2 per transform.
ODOMETRY_FIELDS = [
    "header.stamp.sec", "header.stamp.nanosec",
    "pose.pose.position.x", "pose.pose.position.y", "pose.pose.position.z",
    "pose.pose.orientation.x", "pose.pose.orientation.y", "pose.pose.orientation.z", "pose.pose.orientation.w",
    "twist.twist.linear.x", "twist.twist.linear.y", "twist.twist.linear.z",
    "twist.twist.angular.x", "twist.twist.angular.y", "twist.twist.angular.z",
]
#: The stamp and pose fields of amcl_pose and particlecloud (the same values as the first 9 odometry fields).
AMCL_POSE_FIELDS = [
    "header.stamp.sec", "header.stamp.nanosec",
    "pose.pose.position.x", "pose.pose.position.y", "pose.pose.position.z",
    "pose.pose.orientation.x", "pose.pose.orientation.y", "pose.pose.orientation.z", "pose.pose.orientation.w",
]
PARTICLE_CLOUD_FIELDS = [
    "header.stamp.sec", "header.stamp.nanosec",
    "poses.0.position.x", "poses.0.position.y", "poses.0.position.z",
    "poses.0.orientation.x", "poses.0.orientation.y", "poses.0.orientation.z", "poses.0.orientation.w",
]
#: The frame MVSim fixes to base_link (identity) on every vehicle's tf_static.
BASE_FOOTPRINT = "base_footprint"
TRANSFORM_FIELDS = [
    "transforms.0.header.stamp.sec", "transforms.0.header.stamp.nanosec",
    "transforms.0.transform.translation.x", "transforms.0.transform.translation.y",
    "transforms.0.transform.translation.z", "transforms.0.transform.rotation.x",
    "transforms.0.transform.rotation.y", "transforms.0.transform.rotation.z", "transforms.0.transform.rotation.w",
]


class _VehicleRows:
    """Serialized messages of one stream, one per publisher, with their numbers patched per publish.

    Equal templates (same frame ids) share one SerializedBatch; others (single TF tree: frame ids
    prefixed by vehicle) get one each. `fill(values)` takes one row of field values per template.
    """

    def __init__(self, templates: list, fields: list[str], publishers: list):
        self.groups: list[tuple[np.ndarray, list, SerializedBatch]] = []
        # Equal templates (same frame ids) are grouped by their text form: their serialized bytes cannot be the
        # key, because the serializer leaves alignment padding uninitialised.
        keys = [repr(t) for t in templates]
        for key in dict.fromkeys(keys):
            rows = np.array([i for i, k in enumerate(keys) if k == key], dtype=np.intp)
            self.groups.append((rows, [publishers[i] for i in rows.tolist()],
                                SerializedBatch(templates[int(rows[0])], fields, len(rows))))
        self._whole = len(self.groups) == 1

    def fill(self, values: np.ndarray) -> None:
        """Write the fields of every message: values[i] for template i."""
        if self._whole:
            self.groups[0][2].fill(values)
            return
        for rows, _, batch in self.groups:
            batch.fill(values[rows])

    def streams(self) -> list[tuple[list, np.ndarray]]:
        """(publishers, serialized rows) pairs for a BatchPublisher."""
        return [(publishers, batch.store) for _, publishers, batch in self.groups]


def map_to_odom(true_pose, odom_pose) -> tuple[float, float, float]:
    """Planar map -> odom transform (x, y, yaw) [m, m, rad] that puts base_link at `true_pose` in map when the
    odometry says `odom_pose` in odom: T(map, odom) = T(map, base_link) T(odom, base_link)^-1 (what AMCL publishes
    once it has localized the robot)."""
    yaw = float(true_pose[2]) - float(odom_pose[2])
    c, s = math.cos(yaw), math.sin(yaw)
    x = float(true_pose[0]) - (c * float(odom_pose[0]) - s * float(odom_pose[1]))
    y = float(true_pose[1]) - (s * float(odom_pose[0]) + c * float(odom_pose[1]))
    return x, y, math.atan2(math.sin(yaw), math.cos(yaw))


def tf_publish_rate(odometry_hz: float, period_ms_publish_tf: float, dt: float) -> tuple[float, str | None]:
    """The rate [Hz of simulated time] of odometry and TF from the two parameters that set it, and a note saying
    how it was chosen (None when the defaults agree). MVSim's `period_ms_publish_tf` [ms] wins when it is not
    its default (20 ms): 1000 / period Hz, or every simulation step (1 / dt) for 0. Otherwise
    `odometry_publish_rate` holds."""
    if period_ms_publish_tf == DEFAULT_PERIOD_MS_PUBLISH_TF:
        return odometry_hz, None
    rate = 1000.0 / period_ms_publish_tf if period_ms_publish_tf > 0 else 1.0 / dt
    ignored = (f"; odometry_publish_rate={odometry_hz:g} is ignored" if odometry_hz != DEFAULT_ODOMETRY_HZ
               and odometry_hz != rate else "")
    return rate, f"period_ms_publish_tf={period_ms_publish_tf:g} sets odometry/TF to {rate:g} Hz{ignored}"


#: How often [s of wall time] the fake-localization publishers are asked whether anyone subscribes (subscribers come
#: and go in wall time, whatever the simulation's speed).
LISTENER_CHECK_S = 0.5

#: MVSim's default TF period [ms], and the odometry rate [Hz] it matches.
DEFAULT_PERIOD_MS_PUBLISH_TF = 20.0
DEFAULT_ODOMETRY_HZ = 50.0


class SimPublishers:
    """All state publishers of a simulation, on a given node.

    Per vehicle (topic prefix `<veh>/` or ''): odom (odom -> base_link), base_pose_ground_truth (map ->
    base_link), collision (latched), tf (odom -> base_link, unless `tf_odom_to_base_link` is false), tf_static
    (latched: base_link -> base_footprint identity, map -> odom when faking localization, sensor frames) and, when
    faking localization, amcl_pose (latched) and particlecloud (frame map, the true pose). /clock unless `clock`
    is false. `history_depth`: keep-last depth of the odometry, ground truth and particlecloud publishers.
    `layout` (topics.FrameLayout): where transforms go and how frames are named (per-vehicle trees, or one tree).

    Messages of every stream are serialized once and only their numbers rewritten per publish
    (see serialized.py), and the per-vehicle streams go to the middleware in one compiled call
    (batch_publisher.py): publishing stays cheap next to the physics step.
    """

    def __init__(self, node: Node, sim: Simulation, rates: PublishRates | None = None,
                 force_namespace: bool = False, fake_localization: bool = True, frames: Frames = Frames(),
                 prefixes: list[str] | None = None, tf_odom_to_base_link: bool = True, history_depth: int = 50,
                 clock: bool = True, layout: FrameLayout | None = None):
        self.sim = sim
        self.frames = frames
        self.rates = rates or PublishRates()
        count = len(sim.vehicle_names)
        self.prefixes = (list(prefixes) if prefixes is not None
                         else [vehicle_prefix(name, count, force_namespace) for name in sim.vehicle_names])
        self.layout = layout if layout is not None else FrameLayout(self.prefixes)
        self.fake_localization = fake_localization
        layout = self.layout
        odom_frame = [layout.frame(i, frames.odom) for i in range(count)]
        base_frame = [layout.frame(i, frames.base_link) for i in range(count)]
        history = reliable(history_depth)
        self._odom = [node.create_publisher(Odometry, p + "odom", history) for p in self.prefixes]
        self._ground_truth = [node.create_publisher(Odometry, p + "base_pose_ground_truth", history)
                              for p in self.prefixes]
        # Collision flags are published when they change, latched (late subscribers get the current state).
        self._collision = [node.create_publisher(Bool, p + "collision", latched()) for p in self.prefixes]
        #: tf / tf_static topic prefix of each vehicle, and the vehicles on each (several in a single tree).
        self._tf_topic = [layout.tf_prefix(i) for i in range(count)]
        self._on_topic: dict[str, list[int]] = {}
        for i, topic in enumerate(self._tf_topic):
            self._on_topic.setdefault(topic, []).append(i)
        self._tf_static = {t: node.create_publisher(TFMessage, t + "tf_static", TF_STATIC_QOS) for t in self._on_topic}
        self._clock = node.create_publisher(Clock, "/clock", reliable()) if clock else None
        # Serialized messages go straight to the middleware handle (skipping the per-call type dispatch of
        # Publisher.publish); the node owns these publishers for its whole life, so the handles stay valid.
        self._collision_raw = [raw_publisher(pub) for pub in self._collision]
        self._odom_timer = Periodic.at_rate(self.rates.odometry_hz)
        self._clock_timer = Periodic.at_rate(self.rates.clock_hz if clock else 0.0)
        self._clock_published: float | None = None  # the simulated time [s] last sent on /clock

        zero_time, origin = sim_time_msg(0.0), (0.0, 0.0, 0.0)
        odom_templates, truth_templates = [], []
        for i in range(count):
            odom = planar_odometry(zero_time, odom_frame[i], base_frame[i], origin, origin)
            odom.pose.covariance = odom.twist.covariance = _planar_covariance()
            odom_templates.append(odom)
            truth_templates.append(planar_odometry(zero_time, frames.map, base_frame[i], origin, origin))
        self._odom_msgs = _VehicleRows(odom_templates, ODOMETRY_FIELDS, self._odom)
        self._truth_msgs = _VehicleRows(truth_templates, ODOMETRY_FIELDS, self._ground_truth)
        streams = self._odom_msgs.streams() + self._truth_msgs.streams()
        #: odom -> base_link: (vehicles, messages, merged): one message per vehicle (per-vehicle trees), or one
        #: message with the transforms of all `vehicles` on that tf topic (merged: single tree).
        self._tf_msgs: list[tuple[np.ndarray, _VehicleRows, bool]] = []
        if tf_odom_to_base_link and count:
            tf_pubs = {topic: node.create_publisher(TFMessage, topic + "tf", TF_QOS) for topic in self._on_topic}
            if all(len(vehicles) == 1 for vehicles in self._on_topic.values()):
                templates = [TFMessage(transforms=[planar_transform(zero_time, odom_frame[i], base_frame[i], origin)])
                             for i in range(count)]
                rows = _VehicleRows(templates, TRANSFORM_FIELDS, [tf_pubs[t] for t in self._tf_topic])
                self._tf_msgs.append((np.arange(count), rows, False))
            else:
                for topic, vehicles in self._on_topic.items():
                    message = TFMessage(transforms=[planar_transform(sim_time_msg(0.0), odom_frame[i], base_frame[i],
                                                                     origin) for i in vehicles])  # a stamp each
                    fields = [f.replace("transforms.0.", f"transforms.{k}.", 1)
                              for k in range(len(vehicles)) for f in TRANSFORM_FIELDS]
                    self._tf_msgs.append((np.array(vehicles), _VehicleRows([message], fields, [tf_pubs[topic]]), True))
            streams += [s for _, rows, _ in self._tf_msgs for s in rows.streams()]
        #: Fake localization: amcl_pose and particlecloud (frame map) of each vehicle, and its map -> odom.
        self._localization: list[_VehicleRows] = []
        self._map_odom = [map_to_odom(sim.pose[i], sim.odom_pose[i]) for i in range(count)]
        if fake_localization and count:
            amcl = PoseWithCovarianceStamped()
            amcl.header.frame_id = frames.map
            amcl.pose.pose.orientation.w = 1.0
            cloud = PoseArray(poses=[Pose()])
            cloud.header.frame_id = frames.map
            amcl_pubs = [node.create_publisher(PoseWithCovarianceStamped, p + "amcl_pose", latched(1))
                         for p in self.prefixes]
            cloud_pubs = [node.create_publisher(PoseArray, p + "particlecloud", reliable(1)) for p in self.prefixes]
            self._localization = [_VehicleRows([amcl] * count, AMCL_POSE_FIELDS, amcl_pubs),
                                  _VehicleRows([cloud] * count, PARTICLE_CLOUD_FIELDS, cloud_pubs)]
        #: Fake localization goes out only while someone subscribes to it (checked every LISTENER_CHECK_S of wall
        #: simulated time): nothing else in the stack reads it, and its two messages per vehicle would otherwise
        #: double the cost of every odometry publication.
        self._localization_pubs = [pub for rows in self._localization for _, pubs, _ in rows.groups for pub in pubs]
        self._localization_batch = BatchPublisher([s for rows in self._localization for s in rows.streams()])
        self._listeners_checked = -math.inf  # time.monotonic() of the last check
        self._localization_listened = False
        self._batch = BatchPublisher(streams)
        self._node = node
        self._clock_batch: BatchPublisher | None = None  # /clock for the fast path (stream_sink), built there
        if self._clock is not None:
            self._clock_raw = raw_publisher(self._clock)
            self._clock_msg = SerializedBatch(Clock(clock=zero_time), ["clock.sec", "clock.nanosec"], 1)
            self._clock_values = np.zeros((1, 2))
        self._bool_bytes = {flag: serialize_message(Bool(data=flag)) for flag in (False, True)}
        self._collision_state = [False] * count
        for publish in self._collision_raw:
            publish(self._bool_bytes[False])
        #: The static transforms given to publish_static (sensor frames), by host, kept for relocalize().
        self._static_extra: dict[int, list[TransformStamped]] = {}
        #: The root tf_static publisher of the world sensors' frames, when no vehicle's tf_static is that topic.
        self._world_tf_static = None

    def publish_static(self, extra: dict[int, list[TransformStamped]] | None = None) -> None:
        """Every vehicle's static transforms, as one latched message per tf_static topic (a later message replaces
        the earlier one for late subscribers, so everything static goes together): base_link -> base_footprint
        (identity), map -> odom when faking localization (identity while odometry agrees with the true pose; see
        `relocalize`), plus `extra[vehicle]` (sensor frames, named as the layout says).

        `extra[WORLD_HOST]` (map -> the frames of world-level sensors) goes on the root `tf_static`: in the same
        message as the vehicles whose tf_static is that topic, else as the one message of a latched publisher of
        its own."""
        self._static_extra = {}
        for host, transforms in (extra or {}).items():
            for t in transforms:
                t.header.frame_id = self.layout.frame(host, t.header.frame_id)
                t.child_frame_id = self.layout.frame(host, t.child_frame_id)
            self._static_extra[host] = list(transforms)
        for topic in self._on_topic:
            self._publish_static_topic(topic)
        world = self._static_extra.get(WORLD_HOST, [])
        if world and "" not in self._on_topic:
            if self._world_tf_static is None:
                self._world_tf_static = self._node.create_publisher(TFMessage, "tf_static", TF_STATIC_QOS)
            self._world_tf_static.publish(TFMessage(transforms=world))

    def relocalize(self, index: int) -> None:
        """Fake localization after vehicle `index` was moved without its odometry following (a teleport): set its
        map -> odom to T(map, base_link true) T(odom, base_link)^-1, so that map -> base_link is the true pose while
        odom -> base_link goes on continuously, as AMCL does after a relocalization; re-send its tf_static message
        (the other vehicles' transforms unchanged). Nothing to do without fake localization."""
        if not self.fake_localization:
            return
        self._map_odom[index] = map_to_odom(self.sim.pose[index], self.sim.odom_pose[index])
        self._publish_static_topic(self._tf_topic[index])

    def map_odom(self, index: int) -> tuple[float, float, float]:
        """The planar map -> odom transform (x, y, yaw) [m, m, rad] of vehicle `index` that fake localization
        publishes."""
        return self._map_odom[index]

    def _publish_static_topic(self, topic: str) -> None:
        stamp = sim_time_msg(self.sim.time)
        frames, layout = self.frames, self.layout
        transforms = []
        for i in self._on_topic[topic]:
            base_link = layout.frame(i, frames.base_link)
            if self.fake_localization:
                transforms.append(planar_transform(stamp, frames.map, layout.frame(i, frames.odom),
                                                   self._map_odom[i]))
            transforms.append(planar_transform(stamp, base_link, layout.frame(i, BASE_FOOTPRINT), (0.0, 0.0, 0.0)))
            transforms += self._static_extra.get(i, [])
        if topic == "":
            transforms += self._static_extra.get(WORLD_HOST, [])
        self._tf_static[topic].publish(TFMessage(transforms=transforms))

    def schedules(self) -> list[Periodic]:
        """The schedules `publish_due` serves: /clock, and odometry/TF/ground truth."""
        return [self._clock_timer, self._odom_timer]

    @property
    def clock_schedule(self) -> Periodic:
        """When /clock is next due (never when it is off)."""
        return self._clock_timer

    @property
    def odometry_schedule(self) -> Periodic:
        """When odometry, ground truth and odom -> base_link TF are next due."""
        return self._odom_timer

    @property
    def clock_published(self) -> float | None:
        """The simulated time [s] last sent on /clock (None before the first)."""
        return self._clock_published

    @clock_published.setter
    def clock_published(self, seconds: float) -> None:
        self._clock_published = seconds

    @property
    def collision_state(self) -> list[bool]:
        """Each vehicle's collision flag as last published."""
        return list(self._collision_state)

    def stream_sink(self) -> StreamSink | None:
        """/clock and the vehicle streams as the compiled fast path writes and delivers them (runtime/fast_path:
        the serialized messages, their fields and the rcl publishers), or None when one of them cannot go that way:
        rcl is not reachable directly, a stream is not one little-endian serialized batch, or the transforms of
        several vehicles share one message (single TF tree). Fake localization and collision flags are not in it:
        the fast path hands an instant back to `publish_due` when they have something to publish."""
        if not self._batch.direct:
            return None
        clock = no_clock()
        if self._clock is not None:
            if self._clock_batch is None:
                self._clock_batch = BatchPublisher([([self._clock], self._clock_msg.store)])
            if not (self._clock_batch.direct and self._clock_msg.little_endian):
                return None
            clock = ClockSink(self._clock_msg.buffers, self._clock_batch.delivery)
        if len(self._tf_msgs) > 1 or any(merged for _, _, merged in self._tf_msgs):
            return None
        rows = [self._odom_msgs, self._truth_msgs] + [rows for _, rows, _ in self._tf_msgs]
        if not all(len(r.groups) == 1 and r.groups[0][2].little_endian for r in rows):
            return None
        odometry, truth = self._odom_msgs.groups[0][2], self._truth_msgs.groups[0][2]
        transform = self._tf_msgs[0][1].groups[0][2].buffers if self._tf_msgs else empty_buffers()
        return StreamSink(clock, VehicleSink(odometry.buffers, truth.buffers, transform, self._batch.delivery))

    def report_refused(self, count: int) -> None:
        """Count `count` messages of these streams (or lidar scans) that the middleware refused outside
        `publish_due`, with a (throttled) warning."""
        self._batch.failures += count
        self._node.get_logger().warning("the middleware refused /clock, odometry, TF or scan messages",
                                        throttle_duration_sec=10.0)

    def publish_due(self) -> None:
        """Publish whatever is due at the simulation's current time."""
        now = self.sim.time
        if self._clock_timer.due(now):
            self.publish_clock()
        if self._odom_timer.due(now):
            self.publish_vehicles()

    def check_listeners(self) -> bool:
        """Whether anyone subscribes to fake localization (amcl_pose, particlecloud), asked of the middleware at
        most every LISTENER_CHECK_S of wall time."""
        if self._localization and time.monotonic() - self._listeners_checked >= LISTENER_CHECK_S:
            self._listeners_checked = time.monotonic()
            self._localization_listened = any(pub.get_subscription_count() for pub in self._localization_pubs)
        return self._localization_listened

    def publish_clock(self) -> None:
        """/clock at the simulation's current time now, whether due or not (e.g. after steps run while paused,
        so that a stepped simulation's clock reads where it stopped); nothing when /clock is off or this time was
        already published."""
        now = self.sim.time
        if self._clock is None or now == self._clock_published:
            return
        self._clock_published = now
        self._clock_values[0] = sec_nsec(now)
        self._clock_msg.fill(self._clock_values)
        self._clock_raw(self._clock_msg.row(0))

    def publish_vehicles(self) -> None:
        """Odometry, ground truth, odom->base_link TF and fake localization of every vehicle, now; collision flags
        that changed.

        A flag is true when the vehicle touched something since the previous check (brief contacts are not
        lost): a bump gives true, then false once the vehicle is clear."""
        sim = self.sim
        sec, nsec = sec_nsec(sim.time)
        odom, tf, truth = vehicle_values(VehicleMotion(sim.odom_pose, sim.odom_twist, sim.pose, sim.velocity,
                                                       sim.vehicle_z, sim.vehicle_pitch, sim.vehicle_roll,
                                                       sim.vehicle_vz), sec, nsec)
        self._odom_msgs.fill(odom)
        self._truth_msgs.fill(truth)
        for vehicles, rows, merged in self._tf_msgs:
            rows.fill(tf[vehicles].reshape(1, -1) if merged else tf)
        self.check_listeners()
        if self._localization_listened:
            for rows in self._localization:
                rows.fill(truth[:, :9])  # stamp and pose fields, laid out as in the odometry
            self._localization_batch.publish()
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
