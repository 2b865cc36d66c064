"""The viewer's host for a world run without ROS (what `mvsim_view` shows): one world spec's Simulation and sensors
driven by the runtime Runner, and what a page asks of them.

    host = StandaloneHost(spec, realtime_factor=1.0)
    link = ViewerLink(server, host)
    host.run(link, stop_event, seconds=None)      # steps, sensors and the viewer until stopped

The simulation runs on the calling thread through the Runner at the real-time factor (simulated s per wall s):
batches of fixed steps straight up to the next sensor sample, with sleeps between them, and the viewer served
between batches. A page drives a vehicle (the cmd_vel and ackermann_cmd paths: clamping, watchdog), puts it at a
pose, pauses, steps, resumes and resets the simulation; a goal set in the page is only kept and shown (nothing
pursues it without ROS).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import Callable

from mvsim_ros.runtime.pacing import RateMeter
from mvsim_ros.runtime.runner import Runner
from mvsim_ros.runtime.sensor_runner import SensorRunner
from mvsim_ros.viewer.protocol import MAX_STEPS
from mvsim_ros.viewer.throttle import LogThrottle
from mvsim_ros.world.warning_summary import said_once

LOG = logging.getLogger("mvsim_ros.viewer")

#: Watchdog on drive/steer commands [s]: a vehicle stops when the page stops repeating them (tab closed, ...).
COMMAND_TIMEOUT = 1.0
#: Longest sleep between two checks of the viewer and the clock [s].
MAX_SLEEP = 0.01
#: Most steps run between two checks of the stop request, the end time and the viewer.
STEP_BATCH = 200


class StandaloneHost:
    """The viewer's host (mvsim_ros.viewer.link.ViewerHost) around the runtime Runner of one world spec.

    realtime_factor: simulated seconds per wall second to aim at (> 0; ValueError otherwise). warn: where warnings
    go (refused or clamped page commands, sensors that cannot be simulated); default: the "mvsim_ros.viewer"
    logger.
    """

    def __init__(self, spec, realtime_factor: float = 1.0, warn: Callable[[str], None] | None = None):
        if not (math.isfinite(realtime_factor) and realtime_factor > 0):
            raise ValueError(f"realtime factor must be a positive number, got {realtime_factor!r}")
        self.spec = spec
        self.warn = warn or LOG.warning
        self._log = LogThrottle(self.warn, period=1.0, burst=20)  # refused and clamped page commands
        #: Bumped whenever the simulation is rebuilt (reset): the pages reload the scene.
        self.scene_version = 0
        #: The newest goal set in the page per vehicle index: (x [m], y [m], yaw [rad]); shown, not pursued.
        self.goals: dict[int, tuple[float, float, float]] = {}
        self.rate = RateMeter()
        self.runtime: Runner | None = None
        self._build(realtime_factor)

    def _build(self, realtime_factor: float | None = None) -> None:
        """A new Simulation and sensors of the spec, run by the (new or existing) Runner."""
        from mvsim_ros.physics import Simulation
        from mvsim_ros.sensors.suite import build_sensors

        self.sim = Simulation(self.spec, command_timeout=COMMAND_TIMEOUT)
        self.sensors = build_sensors(self.spec)
        # Said once per world: the viewer's scene tells the same model problems through its own said_once.
        self.sensor_runner = SensorRunner(self.sim, self.sensors, warn=said_once(self.spec, self.warn))
        if self.runtime is None:
            self.runtime = Runner(self.sim, realtime_factor, [self.sensor_runner], max_steps_per_turn=STEP_BATCH)
        else:
            self.runtime.attach(self.sim, [self.sensor_runner])
        self.rate.restart(time.monotonic(), self.sim.time)

    # -- ViewerHost ----------------------------------------------------------------------------------------
    def drive(self, vehicle_index: int, v: float, w: float) -> None:
        """Twist setpoint v [m/s], w [rad/s] for a vehicle (the cmd_vel path: clamping, watchdog)."""
        self._command("drive", self.sim.set_twist, vehicle_index, v, w)

    def steer(self, vehicle_index: int, speed: float, angle: float) -> None:
        """Speed [m/s] and steering angle [rad] for a steerable vehicle (the ackermann_cmd path)."""
        self._command("steer", self.sim.set_ackermann, vehicle_index, speed, angle)

    def _command(self, kind: str, setter, *args) -> None:
        """Give a command through `setter`; a refused one (non-finite, cannot steer) or a clamped one is said."""
        try:
            note = setter(*args)
        except ValueError as exc:
            self._log.warn(f"ignored {kind} commands", f"{kind} command ignored: {exc}")
            return
        if note:
            self._log.warn(f"clamped {kind} commands", note)

    @property
    def rtf_target(self) -> float:
        """The real-time factor aimed at (simulated s per wall s)."""
        return self.runtime.realtime_factor

    @property
    def rtf(self) -> float:
        """The real-time factor reached over the last second (0 while paused)."""
        return self.rate.rate

    @property
    def paused(self) -> bool:
        """Whether only the steps asked for run."""
        return self.runtime.paused

    @property
    def pending_steps(self) -> int:
        """Steps asked for and not run yet."""
        return self.runtime.pending_steps

    def set_pose(self, vehicle_index: int, x: float, y: float, yaw: float) -> None:
        """Put a vehicle at (x, y) [m] heading yaw [rad] with zero velocity, as `initialpose` does under ROS
        (Simulation.set_vehicle_state; ValueError when the simulation refuses the pose)."""
        self.sim.set_vehicle_state(vehicle_index, x, y, yaw)

    def goal(self, vehicle_index: int, x: float, y: float, yaw: float) -> None:
        """Remember a goal for a vehicle (without ROS nothing pursues it; the page shows it)."""
        self.goals[vehicle_index] = (float(x), float(y), float(yaw))

    def pause(self) -> None:
        """Stop the simulated time."""
        self.runtime.pause()

    def play(self) -> None:
        """Resume at the real-time factor."""
        if self.runtime.paused:
            self.runtime.play()
            self.rate.restart(time.monotonic(), self.sim.time)

    def step(self, n: int) -> None:
        """Pause, then advance exactly n steps (at most MAX_STEPS waiting in all)."""
        self.runtime.step(n, at_most=MAX_STEPS)

    def reset(self) -> None:
        """Rebuild the simulation from the world spec (time 0, initial poses); the page gets a new scene."""
        self._build()
        self.runtime.pending_steps = 0
        self.scene_version += 1

    # -- running -------------------------------------------------------------------------------------------
    def advance(self) -> None:
        """One simulation step, then the sensors that it made due."""
        self.runtime.step_once()

    def due_steps(self, now: float) -> int:
        """Steps the runtime runs now at wall time `now` [s] (re-anchoring the pace when too far behind), at most
        STEP_BATCH; while paused, taken off the steps asked for."""
        return self.runtime.due_steps(now)

    def measure(self, now: float) -> None:
        """Update `rtf` (simulated s / wall s over the last second) at wall time `now` [s]."""
        self.rate.update(now, self.sim.time, running=not self.paused)

    def sleep_time(self, now: float) -> float:
        """Seconds until the next step is due at wall time `now` [s] (at most MAX_SLEEP)."""
        return self.runtime.sleep_time(now, MAX_SLEEP)

    def run(self, link, stop: threading.Event, seconds: float | None = None) -> None:
        """Run until `stop` is set (or `seconds` of wall time have passed): turns of the runtime loop (steps and
        sensors) with `link` (a ViewerLink) served between batches."""
        end = None if seconds is None else time.monotonic() + seconds
        while not stop.is_set():
            now = time.monotonic()
            if end is not None and now >= end:
                break
            link.service(now)
            self.runtime.run(now, now + MAX_SLEEP, should_stop=stop.is_set, between=link.service)
            now = time.monotonic()
            self.measure(now)
            pause = self.sleep_time(now)
            if pause > 0:
                stop.wait(pause)


__all__ = ["COMMAND_TIMEOUT", "MAX_SLEEP", "STEP_BATCH", "StandaloneHost"]
