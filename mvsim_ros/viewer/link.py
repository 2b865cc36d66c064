"""Glue between a running simulation and the viewer server, run in the simulation owner's thread between steps.

    link = ViewerLink(server, host)     # host: a ViewerHost (the ROS node's, or viewer.standalone_host's)
    ...
    sim.step(); link.service()          # between steps: ~free when no frame is due

`service()` reads the wall clock and returns at once unless a frame is due (every 1 / server.rate_hz s). When due
it applies the pages' messages (drive, steer, set pose, goal, run-state controls) through the host, sends the
scene again when the host rebuilt its simulation (`scene_version` changed), and sends a frame and the wanted
cameras' images.

What pages ask is bounded before it reaches the host, so that no page can stall the simulation: of the messages
taken together only the newest drive or steer per vehicle is applied (they are set-points), as is the newest
set pose and the newest goal per vehicle, run-state controls are
merged (merge_controls: at most one of each action) and a reset runs at most once per RESET_INTERVAL_S of wall
time (one asked sooner waits its turn, merged with what comes meanwhile). Warnings are rate-limited per kind.
"""

from __future__ import annotations

import logging
import time
from typing import Callable, Protocol, runtime_checkable

from mvsim_ros.viewer.protocol import IMAGE_RATE_HZ, MAX_STEPS, POSE_MESSAGES, RESET_INTERVAL_S
from mvsim_ros.viewer.throttle import LogThrottle

LOG = logging.getLogger("mvsim_ros.viewer")
#: How often the vehicles' recent paths go to the server [s of wall time] (a page opened late draws them).
TRAILS_PERIOD_S = 0.5


@runtime_checkable
class ViewerHost(Protocol):
    """What the viewer needs of the simulation's owner.

    sim: the current physics Simulation (reading it changes nothing); sensors: its Sensors (mvsim_ros.sensors.suite)
    or None; scene_version: bumped by the host whenever it replaces or rebuilds `sim` (reset, spawn, delete);
    paused: the run state; rtf: measured real-time factor (simulated s / wall s); rtf_target: the one aimed at (0: as
    fast as possible).
    The methods apply a page's request; drive/steer take a vehicle index and SI values (v [m/s], w [rad/s];
    speed [m/s], angle [rad]); set_pose and goal a vehicle index and a planar pose of the world frame (x [m],
    y [m], yaw [rad]); set_pose raises ValueError when the simulation refuses the pose.
    """

    sim: object
    sensors: object | None
    scene_version: int
    paused: bool
    rtf: float
    rtf_target: float

    def drive(self, vehicle_index: int, v: float, w: float) -> None: ...

    def steer(self, vehicle_index: int, speed: float, angle: float) -> None: ...

    def set_pose(self, vehicle_index: int, x: float, y: float, yaw: float) -> None: ...

    def goal(self, vehicle_index: int, x: float, y: float, yaw: float) -> None: ...

    def pause(self) -> None: ...

    def play(self) -> None: ...

    def step(self, n: int) -> None: ...

    def reset(self) -> None: ...


def merge_controls(controls: list[dict]) -> list[dict]:
    """Control messages (oldest first) merged into at most one of each action, in the order of each action's
    newest request; the steps of all "step" requests add up, to at most MAX_STEPS. A burst of 1000 resets is one
    reset; pause, play, pause is play then pause."""
    newest: dict[str, int] = {}
    steps = 0
    for index, msg in enumerate(controls):
        newest[msg["action"]] = index
        if msg["action"] == "step":
            steps = min(MAX_STEPS, steps + int(msg.get("steps", 1)))
    out = []
    for action in sorted(newest, key=newest.__getitem__):
        out.append({"type": "control", "action": action, "steps": steps} if action == "step" else
                   {"type": "control", "action": action})
    return out


def newest_commands(commands: list[dict]) -> list[dict]:
    """Messages naming a vehicle (oldest first) reduced to the newest one per message type and vehicle name, in
    the order of those: drive and steer share one slot per vehicle (both are its speed set-point), set_pose and
    goal have one each."""
    newest: dict[tuple, dict] = {}
    for msg in commands:
        kind = msg.get("type")
        key = ("command" if kind in ("drive", "steer") else kind, msg.get("vehicle"))
        newest.pop(key, None)  # re-inserted last: the order of the newest ones
        newest[key] = msg
    return list(newest.values())


class ViewerLink:
    """Feeds a ViewerServer from a ViewerHost; call `service()` between simulation steps.

    warn: where warnings go (a bad vehicle name, a steer for a vehicle that cannot steer); default: the
    "mvsim_ros.viewer" logger. Those about page messages are rate-limited: at most LOG_BURST lines at once per
    kind, then one per LOG_PERIOD_S of wall time.
    """

    #: Warning lines about page messages: at most LOG_BURST at once per kind, then one per LOG_PERIOD_S [s].
    LOG_BURST = 20
    LOG_PERIOD_S = 1.0

    def __init__(self, server, host: ViewerHost, warn: Callable[[str], None] | None = None):
        self.server = server
        self.host = host
        self.warn = warn or LOG.warning
        self._log = LogThrottle(self.warn, self.LOG_PERIOD_S, self.LOG_BURST)
        self._waiting: list[dict] = []  # merged controls waiting for the next allowed reset
        self._next_reset = -float("inf")  # wall time [s] from which a reset may run
        self._period = 1.0 / float(server.rate_hz)
        self._image_period = 1.0 / IMAGE_RATE_HZ
        self._next = 0.0
        self._next_image = 0.0
        self._version: int | None = None
        self._sim = None
        self._encoder = None
        self._steerable: list[bool] = []
        self._trails = None  # TrailHistory of the current simulation
        self._next_trails = 0.0  # wall time [s] from which the trails go to the server again

    def service(self, now_wall: float | None = None) -> None:
        """Do the viewer's work if due (now_wall: time.monotonic() [s], read here when None)."""
        now = time.monotonic() if now_wall is None else now_wall
        if now < self._next:
            return
        following = self._next + self._period  # keep the cadence; restart it after a stall
        self._next = following if following > now else now + self._period
        self._due(now)

    def _due(self, now: float) -> None:
        host, server = self.host, self.server
        self._sync()
        messages = server.take_messages()
        for msg in newest_commands([m for m in messages if m.get("type") in ("drive", "steer", *POSE_MESSAGES)]):
            self._apply(msg)
        self._run_controls([m for m in messages if m.get("type") == "control"], now)
        version = self._sync()  # a reset may have rebuilt the simulation
        self._trails.record(self._sim.pose)
        if now >= self._next_trails:
            self._next_trails = now + TRAILS_PERIOD_S
            server.set_trails(self._trails.message(version))
        if server.page_count == 0:
            return
        target = float(getattr(host, "rtf_target", 0.0))
        server.set_frame(self._encoder.frame(version, bool(host.paused), float(host.rtf), target))
        if now >= self._next_image:
            wanted = server.wanted_cameras()
            if wanted:
                following = self._next_image + self._image_period
                self._next_image = following if following > now else now + self._image_period
                for index in sorted(wanted):
                    data = self._encoder.image(index)
                    if data is not None:
                        server.set_image(index, data)

    def _sync(self) -> int:
        """Send the scene again if the host rebuilt its simulation; returns the current scene version."""
        sim, version = self.host.sim, self.host.scene_version
        if version != self._version or sim is not self._sim or self._encoder is None:
            self._rebuild(sim, self.host.sensors, version)
        return version

    def _rebuild(self, sim, sensors, version: int) -> None:
        """A new scene: send it, and encode frames of the new simulation from now on."""
        from mvsim_ros.viewer.frame_message import FrameEncoder
        from mvsim_ros.viewer.scene_message import scene_message
        from mvsim_ros.viewer.trail_history import TrailHistory

        scene = scene_message(sim, sensors, version, warn=self.warn)
        self._steerable = [bool(v.get("steerable")) for v in scene.get("vehicles", [])]
        self._encoder = FrameEncoder(sim, sensors)
        self._sim, self._version = sim, version
        self._trails = TrailHistory(list(sim.vehicle_names))
        self._next_trails = 0.0
        self.server.set_scene(scene)

    def _run_controls(self, controls: list[dict], now: float) -> None:
        """Merge `controls` with those waiting and run them (at `now` [s] of wall time), up to a reset that is not
        allowed yet: that one and the rest wait for the next call."""
        queue = merge_controls(self._waiting + controls)
        self._waiting = []
        for index, msg in enumerate(queue):
            if msg["action"] == "reset":
                if now < self._next_reset:
                    self._waiting = queue[index:]
                    return
                self._next_reset = now + RESET_INTERVAL_S
            self._apply(msg)

    def _vehicle(self, name: str) -> int | None:
        try:
            return int(self.host.sim.vehicle_index(name))
        except KeyError as exc:
            self._log.warn("unknown vehicles", f"viewer: {str(exc.args[0] if exc.args else exc)[:300]}; ignored")
            return None

    def _apply(self, msg: dict) -> None:
        """Carry out one validated page message (see ViewerServer.take_messages)."""
        host, kind = self.host, msg.get("type")
        try:
            if kind == "drive":
                index = self._vehicle(msg["vehicle"])
                if index is not None:
                    host.drive(index, msg["v"], msg["w"])
            elif kind == "steer":
                index = self._vehicle(msg["vehicle"])
                if index is None:
                    return
                steerable = self._steerable
                if not (0 <= index < len(steerable) and steerable[index]):
                    self._log.warn("steer for vehicles that cannot steer", f"viewer: vehicle {msg['vehicle']!r} "
                                   "cannot steer (send 'drive' for it); ignored")
                    return
                host.steer(index, msg["speed"], msg["angle"])
            elif kind in POSE_MESSAGES:
                index = self._vehicle(msg["vehicle"])
                if index is not None:
                    apply = host.set_pose if kind == "set_pose" else host.goal
                    apply(index, msg["x"], msg["y"], msg["yaw"])
                    if kind == "set_pose" and self._trails is not None:
                        self._trails.forget(index)  # pages opened later draw no line across the move
            elif kind == "control":
                action = msg.get("action")
                if action == "pause":
                    host.pause()
                elif action == "play":
                    host.play()
                elif action == "step":
                    host.step(int(msg.get("steps", 1)))
                elif action == "reset":
                    host.reset()
        except ValueError as exc:
            self._log.warn(f"refused {kind} messages", f"viewer: {kind} ignored: {exc}")
