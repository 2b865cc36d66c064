"""The `mvsim_node` process: start the node (mvsim_ros.ros.node.simulator_node), spin it, stop it cleanly.

Exit status: 0 after a normal stop (SIGINT or SIGTERM at any moment, also while the world loads), 2 when the
node cannot start (one line on stderr naming the cause), 3 when the simulation diverged.

Only a few standard modules and the signal handling are imported at the top: `main()` installs its SIGINT/SIGTERM
handlers first and imports rclpy, numba and the world loader afterwards, so that a signal during those imports
(most of a second) is a clean stop too. See ros/node/signals.py for what a signal does at each stage.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
from typing import Iterator

from mvsim_ros.ros.node.signals import STOP_SIGNALS, Interrupted, StopSignals

#: Environment variable: when set to 1, an unexpected start-up error also prints its Python traceback.
TRACEBACK_ENV = "MVSIM_TRACEBACK"
#: Longest wait [s] of the executor between two checks for a stop signal (the timer usually wakes it sooner).
SPIN_TIMEOUT_S = 0.1


class RosInitError(RuntimeError):
    """rclpy.init failed (malformed --ros-args and the like); the message is rcl's, on one line."""


def main(args: list[str] | None = None) -> int:
    """Console entry point (`mvsim_node`). Returns the process exit status: 0 after a normal stop (also SIGINT or
    SIGTERM, at any moment), 2 when the node cannot start (one line on stderr naming the cause), 3 when the
    simulation diverged.

    Meant to end the process: leaves SIGINT and SIGTERM ignored when it returns (a late signal must not turn the
    exit into a traceback or a death by signal), and moves every object out of reach of the garbage collector
    (gc.freeze), which spares the interpreter's collections at exit (about half of its exit time with numba
    loaded).
    """
    stop = StopSignals().install()
    node = None
    try:
        try:
            try:
                node = _start_node(args, stop)
            finally:
                stop.hold()  # starting is over: from here on a signal is only a request
        except Interrupted:
            return 0
        except Exception as exc:  # noqa: BLE001 (every start failure: one line, exit 2)
            return 0 if stop.requested else _report_start_failure(exc)
        return _spin(node, stop)
    finally:
        _clean_up(node)
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN)
        gc.freeze()


def _start_node(args: list[str] | None, stop: StopSignals):
    """Import the ROS side, initialise rclpy (without its own signal handlers) and build the node."""
    import rclpy
    from rclpy.signals import SignalHandlerOptions

    from mvsim_ros.ros.node.parameters import ParameterError, empty_override
    from mvsim_ros.ros.node.simulator_node import MvsimNode

    stop.check()  # a signal during the imports
    empty = empty_override(sys.argv if args is None else args)
    if empty is not None:
        raise ParameterError(f"parameter '{empty}' has no value (-p {empty}:=)")
    with _stderr_kept_back() as kept:
        try:
            rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
        except Exception as exc:  # noqa: BLE001 (rcl's own error line is dropped: ours says it)
            kept.clear()
            raise RosInitError(f"cannot initialise ROS: {exc}".splitlines()[0]) from exc
    stop.check()
    return MvsimNode(stop=stop)


def _spin(node, stop: StopSignals) -> int:
    """Spin `node` until a stop signal arrives (0) or the simulation diverges (3, with one line on stderr)."""
    from rclpy.executors import SingleThreadedExecutor

    from mvsim_ros.physics import SimulationDiverged

    executor = SingleThreadedExecutor(context=node.context)
    executor.add_node(node)
    stop.wake = executor.wake
    try:
        while not stop.requested:
            executor.spin_once(timeout_sec=SPIN_TIMEOUT_S)
    except SimulationDiverged as exc:
        print(f"mvsim_node: simulation stopped: {exc}", file=sys.stderr)
        return 3
    finally:
        stop.wake = None
        executor.shutdown()
    return 0


def _clean_up(node) -> None:
    """Close the logs, destroy the node and shut rclpy down (whatever of it exists)."""
    if node is not None:
        if node.status is not None:
            node.status.finish()
        node.destroy_node()
    shutdown = getattr(sys.modules.get("rclpy"), "try_shutdown", None)  # rclpy may be imported partly, or not at all
    if shutdown is not None:
        shutdown()


def _report_start_failure(exc: Exception) -> int:
    """Print why the node could not start (one line; the traceback too if asked for); returns 2."""
    print(f"mvsim_node: {startup_failure_text(exc)}", file=sys.stderr)
    if os.environ.get(TRACEBACK_ENV) == "1" and not isinstance(exc, startup_errors()):
        import traceback

        traceback.print_exception(exc)
    return 2


def startup_errors() -> tuple[type[Exception], ...]:
    """Errors that end the start-up with one line and exit status 2: the user's input is at fault (a world file,
    a parameter, a log directory, a recording file, a name, the ROS arguments, or a viewer address that is taken or
    not on this machine)."""
    from mvsim_ros.output.recording.recorder import RecordingError
    from mvsim_ros.ros.services.log_services import LoggingSetupError
    from mvsim_ros.ros.node.parameters import ParameterError
    from mvsim_ros.ros.topics import RosNameError
    from mvsim_ros.world import WorldFileError

    errors: tuple[type[Exception], ...] = (WorldFileError, ParameterError, LoggingSetupError, RosNameError,
                                           RosInitError, RecordingError)
    viewer = sys.modules.get("mvsim_ros.viewer.server")  # loaded only when the viewer was started
    if viewer is not None:
        errors += (viewer.PortInUseError,)
    return errors


def startup_failure_text(exc: BaseException) -> str:
    """One line saying why the node could not start."""
    from mvsim_ros.world import WorldFileError

    if isinstance(exc, WorldFileError):
        text = f"cannot load the world: {exc}"
    elif isinstance(exc, startup_errors()):
        text = str(exc)
    else:
        text = (f"internal error while starting: {type(exc).__name__}: {exc} "
                f"(set {TRACEBACK_ENV}=1 for the traceback)")
    return " ".join(text.split())


class _KeptText:
    """What was written to stderr inside `_stderr_kept_back()`; `clear()` drops it."""

    def __init__(self) -> None:
        self.dropped = False

    def clear(self) -> None:
        self.dropped = True


@contextlib.contextmanager
def _stderr_kept_back() -> Iterator[_KeptText]:
    """Hold back what C code writes to file descriptor 2 inside the block (rcl logs its own error line before
    raising): written out at the end unless `clear()`ed, so that a failure can be one line."""
    import tempfile

    kept = _KeptText()
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as buffer:
        os.dup2(buffer.fileno(), 2)
        try:
            yield kept
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            if not kept.dropped:
                buffer.seek(0)
                text = buffer.read()
                if text:
                    sys.stderr.flush()
                    os.write(2, text)


__all__ = ["SPIN_TIMEOUT_S", "TRACEBACK_ENV", "main", "startup_errors", "startup_failure_text"]


if __name__ == "__main__":
    sys.exit(main())
