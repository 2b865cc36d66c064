"""Run a world without ROS and watch it in the browser: ``mvsim_view WORLD`` (or ``python -m mvsim_ros.cli.view``).

    python -m mvsim_ros.cli.view worlds/demo_2robots.world.xml            # opens http://127.0.0.1:8090/
    python -m mvsim_ros.cli.view WORLD --port 0 --no-open --seconds 60    # any free port; stop after 60 s
    python -m mvsim_ros.cli.view WORLD --host 0.0.0.0 --token             # on the network, with a per-run token
    python -m mvsim_ros.cli.view WORLD --record run.mcap                  # and record the run (MCAP)

The world runs on the main thread in the viewer's standalone host (mvsim_ros.viewer.standalone_host: the runtime's
Runner at the real-time factor, what the page may do). The world file is found where the simulator node finds it
(mvsim_ros.world.files.world_path: as given, else the package's worlds). Ctrl-C or SIGTERM stops it cleanly. Every
option is checked before anything starts: a bad one is one line on stderr and exit status 2.
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

from mvsim_ros.viewer.access import new_token, normalize_origin
from mvsim_ros.viewer.protocol import DEFAULT_HOST, DEFAULT_PORT, DEFAULT_RATE_HZ

#: Longest wait of the recorded run's executor between two checks of the stop request and the end time [s].
SPIN_TIMEOUT_S = 0.01
#: Range of --rate [Hz] (as the node's viewer_rate).
RATE_RANGE = (1.0, 120.0)
#: Longest --host [characters] (a DNS name is at most 253).
MAX_HOST = 253


def _warn(text: str) -> None:
    print(f"mvsim_view: warning: {text}", file=sys.stderr, flush=True)


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
    from mvsim_ros.world.files.world_path import resolve_world_path

    try:
        spec = load_world(resolve_world_path(args.world))
    except WorldFileError as exc:
        print(f"mvsim_view: error: {exc}", file=sys.stderr)
        return 2

    from mvsim_ros.viewer.link import ViewerLink
    from mvsim_ros.viewer.server import PortInUseError
    from mvsim_ros.viewer.server_process import ViewerServerProcess
    from mvsim_ros.viewer.standalone_host import StandaloneHost

    try:
        host = StandaloneHost(spec, args.realtime_factor, warn=_warn)
    except ValueError as exc:
        print(f"mvsim_view: error: {exc}", file=sys.stderr)
        return 2
    from mvsim_ros.physics import box2d_native

    for note in [*spec.warnings, *host.sensors.warnings, *box2d_native.setting_warnings()]:
        _warn(note)
    server = ViewerServerProcess(host=args.host, port=args.port, rate_hz=args.rate, allowed_origins=args.allow_origin,
                                 token=new_token() if args.token else None)
    try:
        server.start()
    except PortInUseError as exc:
        print(f"mvsim_view: error: {exc}".replace("viewer_port", "--port"), file=sys.stderr)
        return 2
    link = ViewerLink(server, host, warn=_warn)

    stop = threading.Event()

    def on_signal(signum, _frame):
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    print(f"mvsim_view: {args.world}: {len(spec.vehicles)} vehicle(s); viewer at {server.url}", flush=True)
    if not args.no_open:
        _open_browser(server.url)
    try:
        host.run(link, stop, args.seconds)
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
    from mvsim_ros.world import WorldFileError
    from mvsim_ros.world.files.world_path import resolve_world_path

    try:
        world_file = str(resolve_world_path(args.world))
    except WorldFileError as exc:
        print(f"mvsim_view: error: {startup_failure_text(exc)}", file=sys.stderr)
        return 2
    parameters = {"world_file": world_file, "record": os.path.abspath(args.record),
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
                executor.spin_once(timeout_sec=SPIN_TIMEOUT_S)
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
