"""The life of a node process, the same for every node of the package (the simulator, the trajectory tracker and the
two car controllers): stop signals handled from the first instant, rclpy started without its own handlers, the node
built, spun until a stop signal, then cleaned up.

Exit status: 0 after a normal stop (SIGINT or SIGTERM at any moment, also while the node starts), 2 when the node
cannot start (one line on stderr, `<program>: <why>`), or what the caller's `spin_failure` makes of an error
while spinning (the simulator: 3 when the simulation diverged).

Only a few standard modules and the signal handling are imported at the top: `run_node()` installs its SIGINT and
SIGTERM handlers first and imports rclpy (and the caller's `build` its own modules) afterwards, so that a signal
during those imports (most of a second) is a clean stop too. See ros/node/signals.py for what a signal does at each
stage.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
from typing import Any, Callable, Iterator

from mvsim_ros.ros.node.signals import STOP_SIGNALS, Interrupted, StopSignals

#: Environment variable: when set to 1, an unexpected start-up error also prints its Python traceback.
TRACEBACK_ENV = "MVSIM_TRACEBACK"
#: Longest wait [s] of the executor between two checks for a stop signal (the node's timers usually wake it sooner).
SPIN_TIMEOUT_S = 0.1


class RosInitError(RuntimeError):
    """rclpy.init failed (malformed --ros-args and the like); the message is rcl's, on one line."""


def default_start_errors() -> tuple[type[Exception], ...]:
    """Start-up errors that are the user's input at fault (a parameter, a file, the ROS arguments): said in one line
    without a traceback."""
    from mvsim_ros.ros.node.parameters import ParameterError

    return ParameterError, RosInitError, ValueError, OSError


def start_failure_text(exc: BaseException, expected: tuple[type[BaseException], ...]) -> str:
    """One line saying why a node could not start: the error's own text when it is one of `expected`, else an
    internal error naming its type (and how to see the traceback)."""
    if isinstance(exc, expected):
        text = str(exc)
    else:
        text = (f"internal error while starting: {type(exc).__name__}: {exc} "
                f"(set {TRACEBACK_ENV}=1 for the traceback)")
    return " ".join(text.split())


def run_node(program: str, build: Callable[[StopSignals], Any], args: list[str] | None = None, *,
             start_errors: Callable[[], tuple[type[Exception], ...]] = default_start_errors,
             failure_text: Callable[[BaseException], str] | None = None,
             spin_failure: Callable[[Exception], int | None] | None = None,
             before_destroy: Callable[[Any], None] | None = None) -> int:
    """Run a node until SIGINT or SIGTERM; returns the process exit status (see the module docstring).

    program: the name that starts every line written to stderr. build(stop): the rclpy node, built once rclpy is
    initialised; it may check `stop` between its phases (StopSignals.check) or let it interrupt a long one.
    start_errors(): the errors that are the user's input at fault (one line, no traceback even with
    MVSIM_TRACEBACK=1). failure_text(exc): the line for a start failure (default: start_failure_text).
    spin_failure(exc): for an error raised while spinning, the exit status after writing its line, or None to
    let it propagate. before_destroy(node): called before the node is destroyed (e.g. a last status line).

    Meant to end the process: leaves SIGINT and SIGTERM ignored when it returns (a late signal must not turn the
    exit into a traceback or a death by signal), and moves every object out of reach of the garbage collector
    (gc.freeze), which spares the interpreter's collections at exit.
    """
    stop = StopSignals().install()
    node = None
    try:
        try:
            try:
                node = _start(args, stop, build)
            finally:
                stop.hold()  # starting is over: from here on a signal is only a request
        except Interrupted:
            return 0
        except Exception as exc:  # noqa: BLE001 (every start failure: one line, exit 2)
            if stop.requested:
                return 0
            expected = start_errors()
            text = failure_text(exc) if failure_text is not None else start_failure_text(exc, expected)
            return _report_start_failure(program, exc, text, expected)
        return _spin(node, stop, spin_failure)
    finally:
        _clean_up(node, before_destroy)
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN)
        gc.freeze()


def _start(args: list[str] | None, stop: StopSignals, build: Callable[[StopSignals], Any]):
    """Import rclpy, refuse a parameter given no value, initialise rclpy (without its own signal handlers) and
    build the node."""
    import rclpy
    from rclpy.signals import SignalHandlerOptions

    from mvsim_ros.ros.node.parameters import ParameterError, empty_override

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
    return build(stop)  # a signal while building: the spin loop ends at once


def _spin(node, stop: StopSignals, spin_failure: Callable[[Exception], int | None] | None) -> int:
    """Spin `node` until a stop signal arrives (0), or an error that `spin_failure` turns into an exit status."""
    from rclpy.executors import SingleThreadedExecutor

    executor = SingleThreadedExecutor(context=node.context)
    executor.add_node(node)
    stop.wake = executor.wake
    try:
        while not stop.requested:
            executor.spin_once(timeout_sec=SPIN_TIMEOUT_S)
    except Exception as exc:  # noqa: BLE001 (the caller says which errors end the process how)
        status = spin_failure(exc) if spin_failure is not None else None
        if status is None:
            raise
        return status
    finally:
        stop.wake = None
        executor.shutdown()
    return 0


def _clean_up(node, before_destroy: Callable[[Any], None] | None) -> None:
    """Destroy the node and shut rclpy down (whatever of them exists)."""
    if node is not None:
        if before_destroy is not None:
            before_destroy(node)
        node.destroy_node()
    shutdown = getattr(sys.modules.get("rclpy"), "try_shutdown", None)  # rclpy may be imported partly, or not at all
    if shutdown is not None:
        shutdown()


def _report_start_failure(program: str, exc: Exception, text: str, expected: tuple[type[Exception], ...]) -> int:
    """Print why the node could not start (one line; the traceback too if asked for and unexpected); returns 2."""
    print(f"{program}: {text}", file=sys.stderr)
    if os.environ.get(TRACEBACK_ENV) == "1" and not isinstance(exc, expected):
        import traceback

        traceback.print_exception(exc)
    return 2


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


__all__ = ["RosInitError", "SPIN_TIMEOUT_S", "TRACEBACK_ENV", "default_start_errors", "run_node",
           "start_failure_text"]
