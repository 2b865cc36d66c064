"""The `mvsim_node` process: the simulator node (mvsim_ros.ros.node.simulator_node) run through the node lifecycle
(ros/node/lifecycle.py: signals, start, spin, clean-up) with what is the simulator's own: which start errors are the
user's input at fault, how a world that cannot load is said, and exit status 3 when the simulation diverged.

Exit status: 0 after a normal stop (SIGINT or SIGTERM at any moment, also while the world loads), 2 when the
node cannot start (one line on stderr naming the cause), 3 when the simulation diverged.
"""

from __future__ import annotations

import sys

from mvsim_ros.ros.node.lifecycle import RosInitError, run_node, start_failure_text

PROGRAM = "mvsim_node"


def main(args: list[str] | None = None) -> int:
    """Console entry point (`mvsim_node`). Returns the process exit status: 0 after a normal stop (also SIGINT or
    SIGTERM, at any moment), 2 when the node cannot start (one line on stderr naming the cause), 3 when the
    simulation diverged. Meant to end the process (see lifecycle.run_node)."""
    return run_node(PROGRAM, _build_node, args, start_errors=startup_errors, failure_text=startup_failure_text,
                    spin_failure=_spin_failure, before_destroy=_finish_status)


def _build_node(stop):
    """The simulator node, interruptible by `stop` while it loads its world."""
    from mvsim_ros.ros.node.simulator_node import MvsimNode

    stop.check()  # a signal during the import
    return MvsimNode(stop=stop)


def _spin_failure(exc: Exception) -> int | None:
    """A diverged simulation ends the process with one line and exit status 3; other errors propagate."""
    from mvsim_ros.physics import SimulationDiverged

    if not isinstance(exc, SimulationDiverged):
        return None
    print(f"{PROGRAM}: simulation stopped: {exc}", file=sys.stderr)
    return 3


def _finish_status(node) -> None:
    """The status line's last words before the node goes."""
    if node.status is not None:
        node.status.finish()


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
        return " ".join(f"cannot load the world: {exc}".split())
    return start_failure_text(exc, startup_errors())


__all__ = ["PROGRAM", "main", "startup_errors", "startup_failure_text"]


if __name__ == "__main__":
    sys.exit(main())
