"""The browser viewer on the node: its HTTP/WebSocket server, and what a page may do to the node's simulation.

Commands typed in the page enter through the same checks as `cmd_vel` and `ackermann_cmd` (CommandSubscriptions:
non-finite values dropped with a warning, limits clamped, the watchdog), and the run-state buttons do what the
simulation_interfaces services do (pause, play, step while paused, reset to the start). "Set pose" in the page
moves a vehicle as `initialpose` does (Simulation.set_vehicle_state, then the map -> odom refresh), and a goal set
in the page for a vehicle is published as geometry_msgs/PoseStamped on that vehicle's `<veh>/goal_pose` (frame
`map`; the prefix of its `cmd_vel`: `r2/goal_pose` with several vehicles, `goal_pose` with one and no forced
namespace), as rviz's "2D Goal Pose" tool does. Which pages may connect:
the viewer's own address, the origins of `viewer_allowed_origins`, and with `viewer_token` only those given the
run's token (mvsim_ros/viewer/access.py).
"""

from __future__ import annotations

import time

from geometry_msgs.msg import PoseStamped

from mvsim_ros.ros.publishing.conversions import sim_time_msg, yaw_quaternion
from mvsim_ros.ros.publishing.outlet import Outlets
from mvsim_ros.ros.node.parameters import PARAMETERS, coerce
from mvsim_ros.ros.qos import COMMAND_QOS
from mvsim_ros.runtime.pacing import RateMeter
from mvsim_ros.runtime.step_queue import StepJob
from mvsim_ros.viewer.access import new_token
from mvsim_ros.viewer.link import ViewerLink
from mvsim_ros.viewer.protocol import MAX_STEPS
from mvsim_ros.viewer.server_process import ViewerServerProcess
from mvsim_ros.viewer.throttle import LogThrottle

#: Wall time [s] over which the real-time factor shown in the page is measured.
RTF_WINDOW_S = 1.0
#: Topic (after each vehicle's topic prefix) and frame of the goals set in the page (rviz's "2D Goal Pose" tool's).
GOAL_TOPIC = "goal_pose"
GOAL_FRAME = "map"


def goal_topic(prefix: str) -> str:
    """The goal topic of the vehicle whose topics carry `prefix` ('r2/' -> 'r2/goal_pose', '' -> 'goal_pose'),
    relative as its cmd_vel is."""
    return prefix + GOAL_TOPIC


def goal_message(x: float, y: float, yaw: float, stamp_s: float, offset_ns: int = 0) -> PoseStamped:
    """geometry_msgs/PoseStamped of a planar goal (x [m], y [m], yaw [rad]) in GOAL_FRAME, stamped at the
    simulated time stamp_s [s] plus the session's stamp offset offset_ns [ns] (non-zero when stamps follow the wall
    clock)."""
    msg = PoseStamped()
    msg.header.frame_id = GOAL_FRAME
    msg.header.stamp = sim_time_msg(stamp_s, offset_ns)
    msg.pose.position.x = float(x)
    msg.pose.position.y = float(y)
    msg.pose.orientation = yaw_quaternion(float(yaw))
    return msg


class NodeViewerHost:
    """The node as a viewer host (mvsim_ros.viewer.link.ViewerHost): its current simulation and sensors, run
    state, measured real-time factor, and the page's commands."""

    def __init__(self, node) -> None:
        self.node = node
        #: Goal outlet of each vehicle topic prefix in use (the node's, so that a recording keeps the goals), made
        #: as the vehicles appear (not on the first goal: a publisher made just before its message would reach no
        #: subscriber yet).
        self._goals: dict[str, object] = {}
        self._sync_goal_publishers()
        #: Bumped whenever the node's simulation is replaced (reset, spawn, delete): the pages reload the scene.
        self.scene_version = 0
        self._rate = RateMeter(RTF_WINDOW_S)
        self._rate.restart(time.monotonic(), node.sim.time)
        self._jobs: list[StepJob] = []  # step jobs queued for pages and not finished
        self._log = LogThrottle(node.get_logger().warning, period=2.0, burst=1)

    @property
    def sim(self):
        """The node's current Simulation."""
        return self.node.sim

    def simulation_replaced(self) -> None:
        """The node has replaced its simulation (reset, spawn, delete) and built the new session: the pages get the
        new scene (`scene_version` bumped), the real-time factor is measured afresh from the new simulation's time,
        and the goal publishers follow the new session's vehicles."""
        self.scene_version += 1
        self._rate.restart(time.monotonic(), self.node.sim.time)
        self._sync_goal_publishers()

    def _prefixes(self) -> list[str]:
        """Topic prefix of each vehicle of the current session ([] while a session is being rebuilt)."""
        session = self.node.session
        return [] if session is None else list(session.prefixes)

    def _sync_goal_publishers(self) -> None:
        """A goal publisher for every vehicle of the current session; those of vehicles gone are destroyed."""
        prefixes = self._prefixes()
        if not prefixes and self.node.session is None:
            return
        for prefix in set(self._goals) - set(prefixes):
            self.node.destroy_publisher(self._goals.pop(prefix).publisher)
        outlets = self.node.outlets if self.node.outlets is not None else Outlets(self.node)
        for prefix in prefixes:
            if prefix not in self._goals:
                self._goals[prefix] = outlets.create(PoseStamped, goal_topic(prefix), COMMAND_QOS)

    @property
    def sensors(self):
        """The current session's sensors (None while a session is being rebuilt)."""
        session = self.node.session
        return None if session is None else session.sensors

    @property
    def paused(self) -> bool:
        return bool(self.node.paused)

    @property
    def rtf(self) -> float:
        """Simulated s per wall s over the last RTF_WINDOW_S or so (0 while paused)."""
        now, sim_time = time.monotonic(), self.sim.time
        return self._rate.update(now, sim_time)

    @property
    def rtf_target(self) -> float:
        """The node's realtime_factor parameter (0: as fast as possible)."""
        return float(self.node.realtime_factor)

    def set_pose(self, index: int, x: float, y: float, yaw: float) -> None:
        """Put vehicle `index` at (x, y) [m] heading yaw [rad], as `initialpose` does: the simulation's
        set_vehicle_state (ValueError when it refuses the pose), then the fake-localization refresh."""
        session = self.node.session
        if session is None:
            return
        session.sim.set_vehicle_state(index, x, y, yaw)
        relocalize = getattr(session.publishers, "relocalize", None)
        if relocalize is not None:
            relocalize(index)
        self.node.get_logger().info(f"{self.sim.vehicle_names[index]}: moved by the viewer to x={x:.3f} m, "
                                    f"y={y:.3f} m, yaw={yaw:.3f} rad")

    def goal(self, index: int, x: float, y: float, yaw: float) -> None:
        """Publish a goal set in the page for vehicle `index` (x [m], y [m], yaw [rad] in the map frame) on that
        vehicle's goal topic (goal_topic of its prefix), as rviz's goal tool does."""
        sim, prefixes = self.sim, self._prefixes()
        if index >= len(prefixes):
            return  # the session is being rebuilt
        self._sync_goal_publishers()
        topic = self.node.resolve_topic_name(goal_topic(prefixes[index]))
        context = self.node.session.context
        offset_ns = context.stamps.offset_ns if context is not None else 0
        self._goals[prefixes[index]].publish(goal_message(x, y, yaw, sim.time, offset_ns))
        self.node.get_logger().info(f"{sim.vehicle_names[index]}: goal from the viewer x={x:.3f} m, "
                                    f"y={y:.3f} m, yaw={yaw:.3f} rad published on {topic}")

    def drive(self, index: int, v: float, w: float) -> None:
        """Forward speed v [m/s] and yaw rate w [rad/s] for vehicle `index`, checked as cmd_vel is."""
        if self.node.session is not None:
            self.node.session.commands.drive(index, v, w, source="viewer drive")

    def steer(self, index: int, speed: float, angle: float) -> None:
        """Speed [m/s] and steering angle [rad] for steerable vehicle `index`, checked as ackermann_cmd is."""
        if self.node.session is not None:
            self.node.session.commands.steer(index, speed, angle, source="viewer steer")

    def pause(self) -> None:
        if not self.node.paused:
            self.node.pause()

    def play(self) -> None:
        if self.node.paused:
            self.node.play()

    def step(self, n: int) -> None:
        """Queue n steps (run by the node's timer) when paused, so that at most MAX_STEPS asked by pages wait at
        once; while playing the request is ignored."""
        if not self.node.paused:
            self._log.warn("step while playing", "viewer: single-step asked while playing; pause first")
            return
        self._jobs = [job for job in self._jobs if not job.future.done()]
        waiting = sum(job.steps - job.completed for job in self._jobs)
        n = min(int(n), MAX_STEPS - waiting)
        if n > 0:
            job = StepJob(n)
            self._jobs.append(job)
            self.node.step_queue.add(job)

    def reset(self) -> None:
        """Back to the world as loaded (time 0), keeping the run state (a paused simulation stays paused)."""
        self.node.reset_to_start()


def _parameter(node, name: str):
    """The node's checked value of parameter `name` (its default when the node has not declared it)."""
    spec = PARAMETERS[name]
    if not node.has_parameter(name):
        return coerce(name, spec.default, spec)
    return coerce(name, node.get_parameter(name).value, spec)


class NodeViewer:
    """The viewer server (a process of its own: serving pages never takes the node's interpreter lock) and its
    link to the node, built when the node's `headless` parameter is false. The allowed origins and whether a
    token is made come from the node's `viewer_allowed_origins` and `viewer_token` parameters."""

    def __init__(self, node, host: str, port: int, rate_hz: float) -> None:
        token = new_token() if _parameter(node, "viewer_token") else None
        self.server = ViewerServerProcess(host=host, port=port, rate_hz=rate_hz,
                                          allowed_origins=_parameter(node, "viewer_allowed_origins"), token=token)
        self.server.start()  # binds now: a port in use fails the node's start with a one-line error
        self.host = NodeViewerHost(node)
        self.link = ViewerLink(self.server, self.host)

    @property
    def url(self) -> str:
        """The page's address (with ``?token=...`` when the run has a token)."""
        return self.server.url

    def service(self) -> None:
        """Between timer ticks: apply the pages' commands, send a frame when one is due (cheap otherwise)."""
        self.link.service()

    def simulation_replaced(self) -> None:
        """To be called by the node once it has replaced its simulation and session (NodeViewerHost's notice)."""
        self.host.simulation_replaced()

    def stop(self) -> None:
        self.server.stop()
