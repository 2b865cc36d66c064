"""One simulation and everything the node builds on it: state publishers, sensors, markers, command subscriptions.

The node keeps one SimSession at a time. Whatever changes the set of simulated things (spawning or deleting an
entity) builds a new Simulation and a new session on it, after `destroy()` took the old one's publishers,
subscriptions and timers off the node, or parked its publishers and subscriptions for the new session to take
over (ros/node/entity_reuse.py), so that only the topics of the entity that came or went change. What does not
depend on the Simulation (parameters, the occupancy-grid map, services, the loop timer) lives in the node.
"""

from __future__ import annotations

from typing import Any

from rclpy.node import Node

from mvsim_ros.physics import Simulation
from mvsim_ros.ros.publishing.chassis_publisher import ChassisPublisher
from mvsim_ros.ros.inputs.command_subscriptions import CommandSubscriptions
from mvsim_ros.ros.publishing.compiled.streams import CompiledStreams
from mvsim_ros.ros.publishing.context import PublishingContext
from mvsim_ros.ros.publishing.conversions import Stamps
from mvsim_ros.ros.publishing.footprint_publisher import FootprintPublisher
from mvsim_ros.ros.publishing.image_publisher import ImagePublisher
from mvsim_ros.ros.inputs.initial_pose import InitialPoseSubscriptions
from mvsim_ros.ros.publishing.inertial_publisher import InertialPublisher
from mvsim_ros.ros.publishing.log_topics import LogTopics, log_topic_period
from mvsim_ros.ros.publishing.objects_publisher import ObjectMarkers
from mvsim_ros.ros.publishing.outlet import Outlets
from mvsim_ros.ros.publishing.state_publishers import PublishRates, SimPublishers, tf_publish_rate
from mvsim_ros.ros.publishing.scan_publisher import ScanPublisher
from mvsim_ros.ros.topics import FrameLayout
from mvsim_ros.core.schedule import DueTimes
from mvsim_ros.runtime.sensor_runner import SensorRunner
from mvsim_ros.sensors.suite import build_sensors
from mvsim_ros.world.warning_summary import said_once


class SimSession:
    """The ROS side of one Simulation on `node`.

    p: the node's checked parameters (ros/node/parameters.py). prefixes: topic prefix of each vehicle ('<veh>/' or ''),
    in the simulation's vehicle order. `check` is called between the build phases (the node's stop-signal check).
    outlets: how the session's publishers are made (the node's, tapped by its recording; plain ones on `node` when
    not given). Every publisher, subscription and timer created on the node while building belongs to the session
    and goes with `destroy()`.
    """

    def __init__(self, node: Node, sim: Simulation, p: dict[str, Any], prefixes: list[str],
                 check=lambda: None, outlets: Outlets | None = None):
        self.node = node
        self.sim = sim
        self.prefixes = list(prefixes)
        #: What the session's publishers share: outlets, TF layout, stamps (made in the build).
        self.context: PublishingContext | None = None
        self._outlets = outlets if outlets is not None else Outlets(node)
        before = {id(e) for e in _entities(node)}
        reuse = getattr(node, "entity_reuse", None)
        if reuse is not None:
            reuse.taken()  # what was handed out before this build is not this session's
        try:
            self._build(p, check)
        except BaseException:
            self._owned = self._new_entities(before)
            self.destroy()  # nothing of a failed build stays on the node
            raise
        self._owned = self._new_entities(before)

    def _new_entities(self, before: set[int]) -> list:
        """The node's entities created while building, and the parked ones the build took over."""
        reuse = getattr(self.node, "entity_reuse", None)
        taken = reuse.taken() if reuse is not None else []
        return [e for e in _entities(self.node) if id(e) not in before] + taken

    def _build(self, p: dict[str, Any], check) -> None:
        node, sim, spec = self.node, self.sim, self.sim.spec
        tf_hz, note = tf_publish_rate(p["odometry_publish_rate"], p["period_ms_publish_tf"], sim.dt)
        if note:
            node.get_logger().info(note)
        stamps = Stamps.anchored_to_wall_clock(sim.time) if p["disable_sim_time_clock"] else Stamps()
        context = self.context = PublishingContext(
            self._outlets, FrameLayout(self.prefixes, single_tree=p["tf_single_tree"]), stamps)
        self.publishers = SimPublishers(
            node, sim, PublishRates(odometry_hz=tf_hz, clock_hz=p["clock_publish_rate"]),
            fake_localization=p["do_fake_localization"], prefixes=self.prefixes,
            tf_odom_to_base_link=p["publish_tf_odom2baselink"], history_depth=p["publisher_history_len"],
            clock=not p["disable_sim_time_clock"], context=context)
        self.chassis = ChassisPublisher(node, sim, self.prefixes, tf_hz, context=context)
        sensors = build_sensors(spec, p["random_seed"])
        self.sensors = sensors  # their latest outputs are what the viewer shows
        check()
        self.warnings = list(sensors.warnings)
        #: Every sensor is measured here, when due; the publishers below only publish what it measured.
        # Once per world: the viewer's scene tells the same model problems through its own said_once.
        self.sensor_runner = SensorRunner(sim, sensors, warn=said_once(spec, node.get_logger().warning),
                                          on_measured=self._publish_measured)
        self.scans = ScanPublisher(node, self.sensor_runner, self.prefixes, context=context)
        self.inertial = InertialPublisher(node, self.sensor_runner, self.prefixes, context=context)
        self.images = ImagePublisher(node, self.sensor_runner, self.prefixes, depth_encoding=p["depth_encoding"],
                                     context=context)
        static = self.scans.static_transforms()
        for more in (self.inertial.static_transforms(), self.images.static_transforms()):
            for vehicle, transforms in more.items():
                static.setdefault(vehicle, []).extend(transforms)
        self.publishers.publish_static(static)
        self.objects = ObjectMarkers(node, sim, spec, p["simul_objects_publish_rate"], context=context)
        self.footprints = FootprintPublisher(node, sim, self.prefixes, p["footprint_publish_rate"], tf_hz,
                                             context=context)
        self.commands = CommandSubscriptions(node, sim, self.prefixes)
        if p["use_stamped_cmd_vel"]:
            self.warnings.append("parameter use_stamped_cmd_vel is deprecated and has no effect: cmd_vel takes "
                                 "geometry_msgs/Twist and TwistStamped at once")
        self.initial_poses = InitialPoseSubscriptions(node, sim, self.prefixes,
                                                      relocalize=self.publishers.relocalize)
        self.log_topics = (LogTopics(node, sim, self.prefixes, log_topic_period(p["log_period"], tf_hz),
                                     context=context) if p["publish_log_topics"] else None)
        #: /clock, the vehicle streams and (when it can) the lidars published from inside the compiled steps
        #: (None: from Python).
        self.streams = CompiledStreams.for_publishers(sim, self.publishers, self.scans)
        if self.streams is not None and self.streams.scans is not None:
            self.sensor_runner.hand_over(self.streams.scans.lidars)
        #: When each publisher (and the sensors) is next due: the runtime runs the simulation straight up to the
        #: earliest, then serves only those due, in this order.
        self.due_times = DueTimes()
        #: The same without what the compiled steps serve (/clock and the vehicle streams, the handed-over
        #: lidars): what the runtime waits for (`next_due`).
        self._python_due = DueTimes()
        for serve, every, python in self._served():
            self.due_times.add(serve, every)
            self._python_due.add(serve, python)
        check()

    def _served(self) -> list:
        """(serve function, every schedule it serves, the schedules Python has to wait for) of each publisher and
        of the sensor runner, in serving order."""
        runner, publishers = self.sensor_runner, self.publishers
        # /clock and the vehicle streams are served inside the compiled steps when `streams` takes them.
        served = [(publishers.publish_due, publishers.schedules(),
                   publishers.schedules() if self.streams is None else [])]
        served += [(p.publish_due, p.schedules(), p.schedules()) for p in (self.chassis, self.footprints)]
        served.append((runner.serve_due, runner.schedules(handed_over=True), runner.schedules()))
        served += [(p.publish_due, p.schedules(), p.schedules()) for p in (self.objects, self.log_topics)
                   if p is not None]
        return served

    def _publish_measured(self, measured) -> None:
        """Publish what the sensor runner measured at one instant: scans, IMU and GNSS readings, 3D lidar scans and
        camera frames, in that order."""
        self.scans.publish(measured)
        self.inertial.publish(measured)
        self.images.publish(measured)

    def next_due(self) -> float:
        """Simulated time [s] at which the next publisher or sensor that Python serves is due (all of them, but
        /clock, the vehicle streams and the lidars when `streams` serves those)."""
        return self._python_due.next_due()

    def advance(self, count: int) -> None:
        """Run `count` steps (fewer when `streams` hands an instant back), publishing /clock and the vehicle
        streams on the way when `streams` can; then call `publish_due`."""
        if self.streams is not None:
            self.streams.run(count)
        else:
            self.sim.step_many(count)

    def serve_due(self) -> None:
        """Publish whatever is due at the simulation's current time (called after every step, or after the steps
        up to `next_due()`: nothing is due in between); a runtime Sink."""
        self.due_times.serve_due(self.sim.time)

    def publish_clock(self) -> None:
        """/clock at the current simulated time now (after steps run while paused, or on pausing)."""
        self.publishers.publish_clock()

    def destroy(self, park=None) -> None:
        """Take this session's publishers, subscriptions and timers off the node (its topics disappear); with
        `park` (an EntityReuse), its publishers and subscriptions are parked there instead, for the session that
        replaces this one to take over."""
        node = self.node
        commands = getattr(self, "commands", None)  # absent when the build stopped early
        if commands is not None:
            commands.destroy(keep_twin=park is not None)
        owned = self._owned
        if park is not None:
            park.park(owned)
            owned = [e for e in owned if type(e).__name__ not in ("Publisher", "Subscription")]
        for entity in owned:
            kind = type(entity).__name__
            if kind == "Publisher":
                node.destroy_publisher(entity)
            elif kind == "Subscription":
                node.destroy_subscription(entity)
            elif kind == "Timer":
                node.destroy_timer(entity)
            elif kind == "Service":
                node.destroy_service(entity)
        self._owned = []


def _entities(node: Node) -> list:
    """Every publisher, subscription, timer and service the node has now."""
    return [*node.publishers, *node.subscriptions, *node.timers, *node.services]
