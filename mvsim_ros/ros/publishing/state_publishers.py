"""Publishing simulation state: odometry, ground truth, collisions, fake localization, TF and /clock, each at its
own sim-time rate. `SimPublishers` composes one sink per stream (ros/publishing/state/)."""

from __future__ import annotations

from dataclasses import dataclass

from geometry_msgs.msg import TransformStamped
from rclpy.node import Node

from mvsim_ros.core.schedule import Periodic
from mvsim_ros.physics import Simulation
from mvsim_ros.ros.publishing.batch_publisher import BatchPublisher
from mvsim_ros.ros.publishing.context import PublishingContext
from mvsim_ros.ros.publishing.state.clock import ClockStream
from mvsim_ros.ros.publishing.state.collision import CollisionFlags
from mvsim_ros.ros.publishing.state.compiled_sink import compiled_stream_sink
from mvsim_ros.ros.publishing.state.fake_localization import FakeLocalization, MapToOdom
from mvsim_ros.ros.publishing.state.odom_transforms import OdomTransforms
from mvsim_ros.ros.publishing.state.odometry import OdometryStream
from mvsim_ros.ros.publishing.state.static_transforms import StaticTransforms
from mvsim_ros.ros.topics import Frames, vehicle_prefix
from mvsim_ros.runtime.fast_path.sinks import StreamSink
from mvsim_ros.runtime.fast_path.vehicle_values import VehicleMotion, vehicle_values

#: MVSim's default TF period [ms], and the odometry rate [Hz] it matches.
DEFAULT_PERIOD_MS_PUBLISH_TF = 20.0
DEFAULT_ODOMETRY_HZ = 50.0


@dataclass
class PublishRates:
    """Publication rates [Hz] of simulated time (0 disables a stream)."""

    odometry_hz: float = 50.0
    clock_hz: float = 100.0


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


class SimPublishers:
    """All state publishers of a simulation, on a given node.

    Per vehicle (topic prefix `<veh>/` or ''): odom (odom -> base_link), base_pose_ground_truth (map ->
    base_link), collision (latched), tf (odom -> base_link, unless `tf_odom_to_base_link` is false), tf_static
    (latched: base_link -> base_footprint identity, map -> odom when faking localization, sensor frames) and, when
    faking localization, amcl_pose (latched) and particlecloud (frame map, the true pose). /clock unless `clock`
    is false. `history_depth`: keep-last depth of the odometry and ground truth publishers. `context` (the
    session's PublishingContext; a plain one on `node` when not given): the outlets, where transforms go and how
    frames are named (per-vehicle trees, or one tree), and the stamps.

    Messages of every stream are serialized once and only their numbers rewritten per publish
    (see serialized.py), and the per-vehicle streams go to the middleware in one compiled call
    (batch_publisher.py): publishing stays cheap next to the physics step.
    """

    def __init__(self, node: Node, sim: Simulation, rates: PublishRates | None = None,
                 force_namespace: bool = False, fake_localization: bool = True, frames: Frames = Frames(),
                 prefixes: list[str] | None = None, tf_odom_to_base_link: bool = True, history_depth: int = 50,
                 clock: bool = True, context: PublishingContext | None = None):
        self.sim = sim
        self.frames = frames
        self.rates = rates or PublishRates()
        count = len(sim.vehicle_names)
        self.prefixes = (list(prefixes) if prefixes is not None
                         else [vehicle_prefix(name, count, force_namespace) for name in sim.vehicle_names])
        self.context = context if context is not None else PublishingContext.plain(node, self.prefixes)
        self.fake_localization = fake_localization
        self._node = node
        outlets, layout = self.context.outlets, self.context.layout
        odom_frames = [layout.frame(i, frames.odom) for i in range(count)]
        base_frames = [layout.frame(i, frames.base_link) for i in range(count)]
        # Made in this order, so that a recording numbers their channels as it always has.
        self.odometry = OdometryStream(outlets, "odom", self.prefixes, odom_frames, base_frames, history_depth,
                                       covariance=True)
        self.ground_truth = OdometryStream(outlets, "base_pose_ground_truth", self.prefixes, [frames.map] * count,
                                           base_frames, history_depth)
        self.collisions = CollisionFlags(outlets, sim, self.prefixes)
        #: Fake localization's map -> odom of each vehicle (kept whether published or not).
        self.map_odom = MapToOdom(sim)
        self.static_transforms = StaticTransforms(self.context, sim, frames,
                                                  self.map_odom if fake_localization else None)
        self.clock = ClockStream(outlets, sim, self.rates.clock_hz, self.context.stamps) if clock else None
        self.transforms = (OdomTransforms(outlets, layout, frames.odom, frames.base_link)
                           if tf_odom_to_base_link and count else None)
        self.localization = (FakeLocalization(outlets, self.prefixes, frames.map)
                             if fake_localization and count else None)
        streams = self.odometry.rows.streams() + self.ground_truth.rows.streams()
        if self.transforms is not None:
            streams += self.transforms.streams()
        self._batch = BatchPublisher(streams)
        self._odom_timer = Periodic.at_rate(self.rates.odometry_hz)
        self._clock_timer = self.clock.schedule if self.clock is not None else Periodic.at_rate(0.0)
        self.collisions.publish_initial()

    def publish_static(self, extra: dict[int, list[TransformStamped]] | None = None) -> None:
        """Every vehicle's static transforms, plus `extra[vehicle]` (sensor frames, named as the layout says) and
        `extra[WORLD_HOST]` on the root tf_static (StaticTransforms.publish)."""
        self.static_transforms.publish(extra)

    def relocalize(self, index: int) -> None:
        """Fake localization after vehicle `index` was moved without its odometry following (a teleport): its
        map -> odom follows (MapToOdom.relocalize) and its tf_static message is sent again. Nothing to do without
        fake localization."""
        if not self.fake_localization:
            return
        self.map_odom.relocalize(index)
        self.static_transforms.republish(index)

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
        """The simulated time [s] last sent on /clock (None before the first, or with /clock off)."""
        return self.clock.published if self.clock is not None else None

    @clock_published.setter
    def clock_published(self, seconds: float) -> None:
        if self.clock is not None:
            self.clock.published = seconds

    @property
    def collision_state(self) -> list[bool]:
        """Each vehicle's collision flag as last published."""
        return self.collisions.state

    def stream_sink(self) -> StreamSink | None:
        """/clock and the vehicle streams as the compiled fast path writes and delivers them, or None when one of
        them cannot go that way (state/compiled_sink.py). Fake localization and collision flags are not in it: the
        fast path hands an instant back to `publish_due` when they have something to publish."""
        return compiled_stream_sink(self._batch, self.clock, self.odometry, self.ground_truth, self.transforms)

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
        """Whether anyone subscribes to fake localization (FakeLocalization.check_listeners; False without it)."""
        return self.localization is not None and self.localization.check_listeners()

    def publish_clock(self) -> None:
        """/clock at the simulation's current time now, whether due or not (ClockStream.publish_now); nothing when
        /clock is off."""
        if self.clock is not None:
            self.clock.publish_now()

    def publish_vehicles(self) -> None:
        """Odometry, ground truth, odom->base_link TF and fake localization of every vehicle, now; collision flags
        that changed (CollisionFlags.publish_changes)."""
        sim = self.sim
        sec, nsec = self.context.stamps.sec_nsec(sim.time)
        odom, tf, truth = vehicle_values(VehicleMotion(sim.odom_pose, sim.odom_twist, sim.pose, sim.velocity,
                                                       sim.vehicle_z, sim.vehicle_pitch, sim.vehicle_roll,
                                                       sim.vehicle_vz), sec, nsec)
        self.odometry.fill(odom)
        self.ground_truth.fill(truth)
        if self.transforms is not None:
            self.transforms.fill(tf)
        if self.check_listeners():
            self.localization.publish(truth)
        failures = self._batch.failures
        self._batch.publish()
        if self._batch.failures != failures and self._node.context.ok():
            self._node.get_logger().warning("the middleware refused odometry/TF messages",
                                            throttle_duration_sec=10.0)
        self.collisions.publish_changes()


__all__ = ["DEFAULT_ODOMETRY_HZ", "DEFAULT_PERIOD_MS_PUBLISH_TF", "PublishRates", "SimPublishers",
           "tf_publish_rate"]
