"""Run a world without ROS and watch it in the browser: ``mvsim_view WORLD`` (or ``python -m mvsim_ros.cli.view``).

    python -m mvsim_ros.cli.view worlds/demo_2robots.world.xml            # opens http://127.0.0.1:8090/
    python -m mvsim_ros.cli.view WORLD --port 0 --no-open --seconds 60    # any free port; stop after 60 s
    python -m mvsim_ros.cli.view WORLD --host 0.0.0.0 --token             # on the network, with a per-run token
    python -m mvsim_ros.cli.view WORLD --record run.mcap                  # and record the run (MCAP)

The simulation runs on the main thread through the runtime's Runner at the real-time factor (simulated s per wall
s): batches of fixed steps straight up to the next sensor sample, with sleeps between them. The page drives the selected
vehicle (keyboard teleop), puts it where the mouse says (set pose), pauses, steps, resumes and resets the
simulation; a goal set in the page is only shown (there is no planner without ROS). Ctrl-C or SIGTERM stops it cleanly.
Every option is checked before anything starts: a bad one is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import threading
import time
import webbrowser

from mvsim_ros.runtime.pacing import RateMeter
from mvsim_ros.runtime.runner import Runner
from mvsim_ros.runtime.sensor_runner import SensorRunner
from mvsim_ros.viewer.access import new_token, normalize_origin
from mvsim_ros.viewer.protocol import DEFAULT_HOST, DEFAULT_PORT, DEFAULT_RATE_HZ, MAX_STEPS
from mvsim_ros.viewer.throttle import LogThrottle

#: Watchdog on drive/steer commands [s]: a vehicle stops when the page stops repeating them (tab closed, ...).
COMMAND_TIMEOUT = 1.0
#: Longest sleep between two checks of the viewer and the clock [s].
MAX_SLEEP = 0.01
#: Most steps run between two checks of the stop request, the end time and the viewer.
STEP_BATCH = 200
#: Range of --rate [Hz] (as the node's viewer_rate).
RATE_RANGE = (1.0, 120.0)
#: Longest --host [characters] (a DNS name is at most 253).
MAX_HOST = 253


def _warn(text: str) -> None:
    print(f"mvsim_view: warning: {text}", file=sys.stderr, flush=True)


class ViewRunner:
    """The viewer's host (mvsim_ros.viewer.link.ViewerHost) around the runtime Runner of one world spec.

    realtime_factor: simulated seconds per wall second to aim at (> 0).
    """

    def __init__(self, spec, realtime_factor: float = 1.0, warn=_warn):
        if not (math.isfinite(realtime_factor) and realtime_factor > 0):
            raise ValueError(f"realtime factor must be a positive number, got {realtime_factor!r}")
        self.spec = spec
        self.warn = warn
        self._log = LogThrottle(warn, period=1.0, burst=20)  # refused and clamped page commands
        self.scene_version = 0
        #: The newest goal set in the page per vehicle index: (x [m], y [m], yaw [rad]); shown, not pursued.
        self.goals: dict[int, tuple[float, float, float]] = {}
        self.rate = RateMeter()
        self.runtime: Runner | None = None
        self._build(realtime_factor)

    def _build(self, realtime_factor: float | None = None) -> None:
        from mvsim_ros.physics import Simulation
        from mvsim_ros.sensors.suite import build_sensors

        self.sim = Simulation(self.spec, command_timeout=COMMAND_TIMEOUT)
        self.sensors = build_sensors(self.spec)
        self.sensor_runner = SensorRunner(self.sim, self.sensors, warn=self.warn)
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
        """Steps the runtime runs now (re-anchoring the pace when too far behind), at most STEP_BATCH; while paused,
        taken off the steps asked for."""
        return self.runtime.due_steps(now)

    def measure(self, now: float) -> None:
        """Update `rtf` (simulated s / wall s over the last second)."""
        self.rate.update(now, self.sim.time, running=not self.paused)

    def sleep_time(self, now: float) -> float:
        """Seconds until the next step is due (at most MAX_SLEEP)."""
        return self.runtime.sleep_time(now, MAX_SLEEP)


def run(runner: ViewRunner, link, stop: threading.Event, seconds: float | None = None) -> None:
    """Run until `stop` is set (or `seconds` of wall time have passed): turns of the runtime loop (steps and
    sensors) with the viewer served between batches."""
    end = None if seconds is None else time.monotonic() + seconds
    while not stop.is_set():
        now = time.monotonic()
        if end is not None and now >= end:
            break
        link.service(now)
        runner.runtime.run(now, now + MAX_SLEEP, should_stop=stop.is_set, between=link.service)
        now = time.monotonic()
        runner.measure(now)
        pause = runner.sleep_time(now)
        if pause > 0:
            stop.wait(pause)


def _open_browser(url: str) -> None:
    """Open the page in a graphical browser when there is a display (never a console browser)."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        print("mvsim_view: no display; open the address above in a browser", flush=True)
        return
    try:
        webbrowser.open(url)
    except webbrowser.Error as exc:
        _warn(f"could not open a browser ({exc}); open {url} yourself")


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad command line is one line on stderr (no usage block) and exit status 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    """The command line of mvsim_view (values are range-checked by _check_args)."""
    parser = _Parser(prog="mvsim_view", description=__doc__.split("\n\n")[0])
    parser.add_argument("world", help="MVSim world file (.world.xml)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"TCP port of the viewer (default {DEFAULT_PORT}; 0: any free port)")
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"address to listen on (default {DEFAULT_HOST}: this machine only; 0.0.0.0: every "
                             "interface, anyone reaching the port can drive the robots: see --token)")
    parser.add_argument("--rate", type=float, default=DEFAULT_RATE_HZ,
                        help=f"frames per second of wall time sent to each page (default {DEFAULT_RATE_HZ:g}; "
                             f"{RATE_RANGE[0]:g}..{RATE_RANGE[1]:g})")
    parser.add_argument("--realtime-factor", type=float, default=1.0,
                        help="simulated seconds per wall second (default 1)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="stop after this many seconds of wall time (>= 0; default: run until stopped)")
    parser.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                        help="also accept pages from this origin (scheme://host[:port], e.g. http://robots.lan:8090), "
                             "besides the viewer's own address; may be repeated")
    parser.add_argument("--token", action="store_true",
                        help="make a random token for this run: the printed address carries it (?token=...) and "
                             "connections without it are refused")
    parser.add_argument("--no-open", action="store_true", help="do not open a browser")
    parser.add_argument("--record", metavar="FILE.mcap",
                        help="record the run into this MCAP file (every topic the simulator node publishes: the run "
                             "then goes through the node's code, inside this process, on a DDS domain of its own)")
    return parser


def _host_problem(host: str) -> str | None:
    """What is wrong with --host, or None."""
    if not host.strip():
        return "is empty: give an address, e.g. 127.0.0.1"
    if len(host) > MAX_HOST or any(c.isspace() or not c.isprintable() for c in host):
        return f"{host[:60]!r} is not an address or host name"
    return None


def _check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Every option in range, or parser.error (one line, exit status 2)."""
    if not 0 <= args.port <= 65535:
        parser.error(f"--port {args.port}: must be in 0..65535")
    problem = _host_problem(args.host)
    if problem:
        parser.error(f"--host {problem}")
    if not (math.isfinite(args.realtime_factor) and args.realtime_factor > 0):
        parser.error(f"--realtime-factor {args.realtime_factor!r}: must be a positive number")
    if args.seconds is not None and not (math.isfinite(args.seconds) and args.seconds >= 0):
        parser.error(f"--seconds {args.seconds!r}: must be a number of seconds >= 0")
    if not (math.isfinite(args.rate) and RATE_RANGE[0] <= args.rate <= RATE_RANGE[1]):
        parser.error(f"--rate {args.rate!r}: must be between {RATE_RANGE[0]:g} and {RATE_RANGE[1]:g} Hz")
    for origin in args.allow_origin:
        try:
            normalize_origin(origin)
        except ValueError as exc:
            parser.error(f"--allow-origin: {exc}")
    if not args.world.strip():
        parser.error("the world file name is empty")


def main(argv: list[str] | None = None) -> int:
    """Console entry point (``mvsim_view``); returns the exit status (2: a bad command line, or a world, viewer
    port or recording path that stops the start, said in one line)."""
    parser = _parser()
    args = parser.parse_args(argv)
    _check_args(parser, args)

    if args.record:
        return _run_recorded(args)

    from mvsim_ros.world import WorldFileError, load_world

    try:
        spec = load_world(args.world)
    except WorldFileError as exc:
        print(f"mvsim_view: error: {exc}", file=sys.stderr)
        return 2

    from mvsim_ros.viewer.link import ViewerLink
    from mvsim_ros.viewer.server import PortInUseError
    from mvsim_ros.viewer.server_process import ViewerServerProcess

    try:
        runner = ViewRunner(spec, args.realtime_factor)
    except ValueError as exc:
        print(f"mvsim_view: error: {exc}", file=sys.stderr)
        return 2
    from mvsim_ros.physics import box2d_native

    for note in [*spec.warnings, *runner.sim.warnings, *runner.sensors.warnings, *box2d_native.setting_warnings()]:
        _warn(note)
    server = ViewerServerProcess(host=args.host, port=args.port, rate_hz=args.rate, allowed_origins=args.allow_origin,
                                 token=new_token() if args.token else None)
    try:
        server.start()
    except PortInUseError as exc:
        print(f"mvsim_view: error: {exc}".replace("viewer_port", "--port"), file=sys.stderr)
        return 2
    link = ViewerLink(server, runner, warn=_warn)

    stop = threading.Event()

    def on_signal(signum, _frame):
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    print(f"mvsim_view: {args.world}: {len(spec.vehicles)} vehicle(s); viewer at {server.url}", flush=True)
    if not args.no_open:
        _open_browser(server.url)
    try:
        run(runner, link, stop, args.seconds)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("mvsim_view: stopped", flush=True)
    return 0


def _run_recorded(args: argparse.Namespace) -> int:
    """--record: the world runs in the simulator node (mvsim_ros.ros.record_run.private_node), which publishes and
    records every message and serves the same viewer page, until Ctrl-C, SIGTERM or --seconds; the file is then
    closed with its summary. Start errors (world, recording path) are one line and exit status 2."""
    from mvsim_ros.ros.node.process import startup_errors, startup_failure_text
    from mvsim_ros.ros.record_run import private_node

    parameters = {"world_file": os.path.abspath(args.world), "record": os.path.abspath(args.record),
                  "headless": False, "viewer_host": args.host, "viewer_port": args.port, "viewer_rate": args.rate,
                  "realtime_factor": args.realtime_factor, "viewer_token": args.token, "status_period": 0.0}
    if args.allow_origin:
        parameters["viewer_allowed_origins"] = list(args.allow_origin)
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        with private_node(parameters) as (node, executor):
            print(f"mvsim_view: {args.world}: {len(node.sim.vehicle_names)} vehicle(s); viewer at {node.viewer.url}; "
                  f"recording into {args.record}", flush=True)
            if not args.no_open:
                _open_browser(node.viewer.url)
            end = math.inf if args.seconds is None else time.monotonic() + args.seconds
            while not stop.is_set() and time.monotonic() < end:
                executor.spin_once(timeout_sec=MAX_SLEEP)
    except startup_errors() as exc:
        print(f"mvsim_view: error: {startup_failure_text(exc)}", file=sys.stderr)
        return 2
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print(f"mvsim_view: stopped; the run is in {args.record}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
