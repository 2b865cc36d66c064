"""The mvsim_ros node: loads a world, drives the runtime Runner from a wall-clock timer, takes commands, publishes.

The process around it (signals, exit status, one-line start errors) is `mvsim_ros.ros.node.process.main`. The
standard simulation services (simulation_interfaces: pause, step, reset, spawn, ...) are in
ros/services/simulation_services.py; what they change in the node (run state, stepping while paused, swapping the
simulation) is here, and goes through the runner.
"""

from __future__ import annotations

import math
import os
import time

from rclpy.clock import Clock, ClockType

from mvsim_ros.physics import Simulation
from mvsim_ros.output.ground_truth_files import GroundTruthFiles
from mvsim_ros.ros.node.entity_reuse import EntityReuse
from mvsim_ros.ros.node.lean_events import LeanEventsNode
from mvsim_ros.ros.services.log_services import LogServices
from mvsim_ros.ros.node.recording import NodeRecording, open_recorder
from mvsim_ros.ros.node.parameters import declare_and_read, warn_unknown_parameters
from mvsim_ros.ros.node.startup import load_simulation, start_up_messages
from mvsim_ros.ros.publishing.map_publisher import MapPublisher
from mvsim_ros.ros.foxglove.taps import combine_taps
from mvsim_ros.ros.publishing.outlet import Outlets
from mvsim_ros.ros.node.signals import StopSignals
from mvsim_ros.ros.node.status import StatusLine
from mvsim_ros.ros.node.session import SimSession
from mvsim_ros.ros.services.simulation_services import SimulationServices
from mvsim_ros.runtime.run_end import IdleWatch, end_step, quiet_time
from mvsim_ros.runtime.runner import CallbackSink, Runner
from mvsim_ros.world.files.world_path import resolve_world_path

#: At realtime_factor 0, a timer tick steps for this long [s of wall time] (or the timer's period if longer):
#: each return to the executor costs ~0.4 ms, and commands and service calls still get served 20 times a second.
FULL_SPEED_TICK_S = 0.05
#: While paused, the steps asked for run for at most this fraction of a timer period per tick.
PAUSED_TICK_FRACTION = 0.9


class MvsimNode(LeanEventsNode):
    """ROS 2 node around a Simulation.

    Parameters: the table in ros/node/parameters.py (world_file, realtime_factor, publication rates, ...), checked
    at start. Topics: see SimPublishers, CommandSubscriptions, the sensor publishers, MapPublisher, ObjectMarkers;
    services `~/clear_logs`, `~/new_log_session` (LogServices) and the standard simulation services and action
    under `~/` (SimulationServices: pause, step, reset, entity states, spawn, delete). Any failure while starting
    destroys the half-built node and raises (main() turns it into one line and exit status 2).

    stop: the process's stop signals (see ros/node/signals.py). While starting, the node lets a signal interrupt
    the world load, and checks for one between the other phases (raising Interrupted); it puts `stop` on hold
    (signals only recorded, never raised) as the last step of its start-up, and the simulation loop ends a timer
    tick early, between two steps, once `stop.requested` is set. Without one (e.g. in a test), nothing stops it
    but its owner.
    """

    def __init__(self, stop: StopSignals | None = None, **kwargs):
        self.ground_truth: GroundTruthFiles | None = None
        #: The run's MCAP recording (None unless `record` names a file): taps every publisher and subscription.
        self.recording: NodeRecording | None = None
        #: Makes the node's publishers, tapped by the recording (made once the recording is open).
        self.outlets: Outlets | None = None
        #: The live Foxglove server (None unless `foxglove` is true): taps every publisher like the recording.
        self.foxglove = None  # a FoxgloveBridge
        #: Parameter values given to the constructor (rclpy keeps its own copy to itself): checked for unknown
        #: names along with those of the command line and parameters files.
        self._constructor_overrides = [parameter.name for parameter in kwargs.get("parameter_overrides") or []]
        self.sim: Simulation | None = None
        #: Publishers and subscriptions of a replaced session, for the next one to take over.
        self.entity_reuse: EntityReuse | None = None
        super().__init__("mvsim", **kwargs)
        self.entity_reuse = EntityReuse(self)
        self.logs: LogServices | None = None
        #: The browser viewer (None when headless).
        self.viewer = None  # a NodeViewer
        #: The runtime loop around the simulation (built with it in `_start`): pacing, run state, what is due.
        self.runner: Runner | None = None
        #: Paused at the start, after a reset (the standard's STOPPED; `paused` too).
        self.stopped = False
        self.status: StatusLine | None = None
        self._stop = stop if stop is not None else StopSignals()
        try:
            self._start()
        except BaseException:
            # A half-built node must not linger: rclpy's context would destroy it again at shutdown. The clean-up
            # is not to be cut short by a signal in turn.
            self._stop.hold()
            self.destroy_node()
            raise
        self._stop.hold()  # started: from here on a signal is a request that the timer loop answers

    def _start(self) -> None:
        p = declare_and_read(self)
        warn_unknown_parameters(self, self._constructor_overrides)
        world_file = resolve_world_file(p["world_file"])
        if p["record"]:  # before the first publisher, so that the file holds every message
            self.recording = NodeRecording(
                open_recorder(p["record"], p["record_topics"], p["record_compression"], os.path.abspath(world_file),
                              on_error=self.get_logger().error, follow_symlinks=p["record_follow_symlinks"],
                              watchdog_timeout_s=p["base_watchdog_timeout"]),
                lambda: self.sim.time if self.sim is not None else 0.0)
        if p["foxglove"]:  # before the first publisher, so that every topic gets its channel
            from mvsim_ros.ros.foxglove.bridge import FoxgloveBridge  # foxglove-sdk is needed only here

            self.foxglove = FoxgloveBridge(self, p["foxglove_host"], p["foxglove_port"],
                                           p["foxglove_allowed_origins"],
                                           lambda: self.sim.time if self.sim is not None else 0.0,
                                           p["foxglove_max_rate"])
            self.get_logger().info(f"Foxglove: ws://{p['foxglove_host']}:{self.foxglove.port}")
        self.outlets = Outlets(self, combine_taps(self.recording.tap_publisher if self.recording is not None else None,
                                                  self.foxglove.tap_publisher if self.foxglove is not None else None))
        parts = load_simulation(p, world_file, self._stop)
        self.sim, self.runner = parts.sim, parts.runner
        #: Why the run ends by itself when the runner reaches its end step (None: it ends only when stopped).
        self.run_end_reason: str | None = None
        self.runner.end_step = end_step(p["stop_after"], self.sim.dt)
        if self.runner.end_step is not None:
            self.run_end_reason = f"stop_after = {p['stop_after']:g} s"
        for warning in parts.warnings:
            self.get_logger().warning(warning)
        with self._stop.interruptible():  # the scene's remote models may still be downloading
            self.session = SimSession(self, self.sim, p, parts.prefixes, check=self._stop.check, outlets=self.outlets)
        self.map_publisher = MapPublisher(self, parts.spec.occupancy_grids, context=self.session.context)
        if self.foxglove is not None:
            self.foxglove.serve_fast_path()
        for warning in self.session.warnings:
            self.get_logger().warning(warning)
        self._stop.check()
        self.logs = LogServices(self, self.sim, p["log_dir"], p["log_period"])
        #: The world's <save_ground_truth_trajectory> files (None when it asks for none).
        self.ground_truth = GroundTruthFiles.for_world(self.sim)
        self._params, self._start_spec, self._start_prefixes = p, parts.spec, list(parts.prefixes)
        self.simulation_services = SimulationServices(self)
        if not p["headless"]:
            from mvsim_ros.ros.node.node_viewer import NodeViewer  # aiohttp is needed only with the viewer

            self.viewer = NodeViewer(self, p["viewer_host"], p["viewer_port"], p["viewer_rate"])

        self._period = 1.0 / max(1.0, p["simul_rate"])
        self._attach()
        self.status = StatusLine(self.sim, p["status_period"])
        wall_clock = Clock(clock_type=ClockType.STEADY_TIME)
        self._timer = self.create_timer(self._period, self._tick, clock=wall_clock)
        for level, text in start_up_messages(self, parts.spec):
            if level == "warning":  # rclpy's logger takes one severity per calling line
                self.get_logger().warning(text)
            else:
                self.get_logger().info(text)

    def create_publisher(self, msg_type, topic, qos_profile, **kwargs):
        """rclpy's create_publisher, handing over a parked publisher of a replaced session when one matches. (What
        the node publishes goes through `outlets`, which the recording taps.)"""
        reuse = self.entity_reuse
        publisher = reuse.take_publisher(msg_type, topic, qos_profile) if reuse is not None and not kwargs else None
        if publisher is None:
            publisher = super().create_publisher(msg_type, topic, qos_profile, **kwargs)
        return publisher

    def create_subscription(self, msg_type, topic, callback, qos_profile, **kwargs):
        """rclpy's create_subscription, handing over a parked subscription (now calling `callback`) when one
        matches."""
        if self.recording is not None:
            callback = self.recording.tap_callback(msg_type, self.resolve_topic_name(topic), callback)
        reuse = self.entity_reuse
        if reuse is not None and not kwargs:
            parked = reuse.take_subscription(msg_type, topic, qos_profile, callback)
            if parked is not None:
                return parked
        return super().create_subscription(msg_type, topic, callback, qos_profile, **kwargs)

    # -- the loop ------------------------------------------------------------------------------------------------
    @property
    def realtime_factor(self) -> float:
        """Simulated seconds per wall second aimed at (0: as fast as possible)."""
        return self.runner.realtime_factor

    @property
    def paused(self) -> bool:
        """Whether the simulation steps only when asked (StepSimulation, SimulateSteps, the viewer's step)."""
        return self.runner is not None and self.runner.paused

    @paused.setter
    def paused(self, value: bool) -> None:
        self.runner.paused = bool(value)

    @property
    def step_queue(self):
        """Step jobs waiting while paused (runtime StepQueue), run by the timer."""
        return self.runner.step_queue

    def _attach(self) -> None:
        """Let the runner serve the current session: CSV log rows, ground-truth files, then the session's
        publishers and sensors, stepping through the session (which may publish from inside compiled steps)."""
        sinks = []
        if self.logs is not None:
            logs = self.logs
            sinks.append(CallbackSink(lambda: logs.next_due, logs.record))
        if self.ground_truth is not None:
            sinks.append(CallbackSink(self._ground_truth_due, self._record_ground_truth))
        if self.session is not None:
            sinks.append(self.session)
        if self._params["stop_when_idle"]:  # last: what is due at the final instant is served before the end
            sinks.append(IdleWatch(self.sim, quiet_time(self._params["base_watchdog_timeout"]), self._end_when_idle))
        self.runner.attach(self.sim, sinks, self.session.advance if self.session is not None else None)

    def _tick(self) -> None:
        """One turn of the runtime loop: the steps due by the wall clock (or for most of a period if
        realtime_factor = 0, or those asked for while paused), each batch running straight up to the next instant
        something is due; then the status line and the viewer. When the runner has reached the end of the run
        (`stop_after`, `stop_when_idle`: never stepped past), the node quits."""
        start = time.monotonic()
        runner = self.runner
        if self.recording is not None and not self.recording.recorder.claimed:
            self.recording.recorder.claim()  # the run has started: its file takes the place of the target
        if runner.paused:
            deadline = start + PAUSED_TICK_FRACTION * self._period
        else:  # at realtime_factor 0 the timer is due again at once; the executor serves what came in between
            deadline = start + max(self._period, FULL_SPEED_TICK_S)
        ran = runner.run(start, deadline, should_stop=lambda: self._stop.requested or runner.finished)
        if runner.paused and ran and self.session is not None:  # the clock reads where the steps stopped
            self.session.publish_clock()
        self.status.update()
        if self.viewer is not None:
            self.viewer.service()
        if self.foxglove is not None:
            self.foxglove.service()
        if runner.finished and self.run_end_reason is not None and not self._stop.requested:
            self.get_logger().info(f"the run ends at {self.sim.time:.3f} s of simulated time ({self.run_end_reason})")
            self.quit()

    def _end_when_idle(self) -> None:
        """The vehicles were left alone (stop_when_idle): playing ends at the current step."""
        runner = self.runner
        if runner.end_step is None or runner.end_step > self.sim.steps:
            runner.end_step = self.sim.steps
            self.run_end_reason = "stop_when_idle: every vehicle at rest, no command for " \
                f"{quiet_time(self._params['base_watchdog_timeout']):g} s"

    def _ground_truth_due(self) -> float:
        return self.ground_truth.next_due if self.ground_truth is not None else math.inf

    def _record_ground_truth(self) -> None:
        """A row per vehicle when due; a write error stops these files (one error line), not the simulation."""
        if self.ground_truth is None:
            return
        try:
            self.ground_truth.record()
        except OSError as exc:
            self.get_logger().error(f"ground-truth trajectory files stopped: {exc.strerror or exc}: "
                                    f"'{exc.filename or self.ground_truth.base}'")
            self.ground_truth.close()
            self.ground_truth = None

    # -- run state and simulation swaps (called by the simulation services) ------------------------------------
    def play(self) -> None:
        """Run with the wall clock again, from the current simulated time (no catch-up of the paused time)."""
        self.step_queue.abort_all("the simulation was played")
        self.stopped = False
        self.runner.play()
        self._restart_status()

    def pause(self) -> None:
        """Stop stepping with the wall clock (queued steps still run); /clock stops with the simulation, at the
        time it paused."""
        self.runner.pause()
        self._restart_status()
        if self.session is not None:
            self.session.publish_clock()

    def stop_simulation(self) -> None:
        """Reset to the start and stay paused there (the standard's STOPPED)."""
        self.step_queue.abort_all("the simulation was stopped")
        self.reset_to_start()
        self.runner.pause()
        self.stopped = True
        self._restart_status()

    def quit(self) -> None:
        """End the node's spin loop after this callback: the process exits normally (status 0)."""
        self.step_queue.abort_all("the simulator is quitting")
        self.runner.pause()
        self._stop.requested = True
        if self._stop.wake is not None:
            self._stop.wake()

    def reset_to_start(self) -> None:
        """A new Simulation of the world as loaded (spawned entities gone, deleted ones back, time 0), with the
        vehicles' topic prefixes of the start."""
        self.step_queue.abort_all("the simulation was reset")
        sim = Simulation(self._start_spec, command_timeout=self._params["base_watchdog_timeout"])
        self.replace_simulation(sim, self._start_prefixes)

    def replace_simulation(self, sim: Simulation, prefixes: list[str]) -> None:
        """Make `sim` the node's simulation: the old session's publishers, subscriptions and timers go, a new
        session is built on `sim` with these vehicle topic prefixes, the status line and the CSV logs follow it
        (logging on: a new log session directory), and the real-time anchors restart from its time."""
        if self.session is not None:
            self.session.destroy(park=self.entity_reuse)  # its publishers and subscriptions wait to be taken over
            self.session = None  # until the new one is built
        self.sim = sim
        try:
            # A failed build takes its entities along.
            self.session = SimSession(self, sim, self._params, prefixes, outlets=self.outlets)
        finally:
            self.entity_reuse.release()  # the topics of the entity that went
        for warning in self.session.warnings:
            self.get_logger().warning(warning)
        self.status.sim = sim
        self._restart_status()
        if self.logs is not None:
            self.logs.follow(sim)
        if self.ground_truth is not None:
            self.ground_truth.follow(sim)
        self._attach()
        if self.viewer is not None:  # the pages get the new scene
            self.viewer.simulation_replaced()

    @property
    def start_spec(self):
        """The world as loaded (after ROS-safe renaming): what a full reset goes back to."""
        return self._start_spec

    def _restart_status(self) -> None:
        """The status line's real-time factor starts a new window now (after a reset, swap, pause or resume)."""
        if self.status is not None:
            self.status.restart("paused" if self.paused else "")

    def destroy_node(self) -> None:
        """Write and close the CSV logs (if logging started) and the recording (if recording), then destroy the
        node (once)."""
        if self.logs is not None:
            self.logs.close()
            self.logs = None
        if self.ground_truth is not None:
            self.ground_truth.close()
            self.ground_truth = None
        if self.viewer is not None:
            self.viewer.stop()
            self.viewer = None
        if self.foxglove is not None:
            self.foxglove.close()
            self.foxglove = None
        services = getattr(self, "simulation_services", None)
        if services is not None and self.runner is not None:
            self.step_queue.abort_all("the node is shutting down")
            services.action.destroy()
            self.simulation_services = None
        if self.entity_reuse is not None:
            self.entity_reuse.close()
            self.entity_reuse = None
        if self.recording is not None:  # last: everything published up to here is in the file
            self.recording.close(self._block_poses_now())
            self.recording = None
        super().destroy_node()

    def _block_poses_now(self) -> dict[str, tuple[float, float, float]]:
        """Block name -> (x [m], y [m], yaw [rad]) of every block of the current simulation (none without one)."""
        if self.sim is None:
            return {}
        rows = self.sim.block_poses().tolist()
        return {block.name: (x, y, yaw) for block, (x, y, yaw) in zip(self.sim.spec.blocks, rows)}


def resolve_world_file(path: str) -> str:
    """The world file a `world_file` parameter names, as an absolute path: as given, else in the package's share
    directory, source checkout or installed share directory, with or without a leading `worlds/`
    (mvsim_ros.world.files.world_path). WorldFileError (one line, listing every place looked in) when it is found
    nowhere or is a directory."""
    return str(resolve_world_path(path))
