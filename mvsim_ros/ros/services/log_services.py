"""CSV logging in the node: the VehicleLogs of parameter `log_dir`, and its std_srvs/Trigger services."""

from __future__ import annotations

import math
import os

from rclpy.node import Node
from std_srvs.srv import Trigger

from mvsim_ros.physics import Simulation
from mvsim_ros.output.csv_logs import VehicleLogs

LOGGING_OFF_MESSAGE = "logging is off: start the node with parameter log_dir set to a directory"


class LoggingSetupError(RuntimeError):
    """The logs asked for cannot be written (log_dir not creatable or writable, bad log_period)."""


def _os_error_text(exc: OSError) -> str:
    """`reason: 'path'` for an OSError (without Python's `[Errno N]`)."""
    reason = exc.strerror or str(exc)
    return f"{reason}: '{exc.filename}'" if exc.filename else reason


class LogServices:
    """Per-vehicle CSV logs (off when log_dir is empty) and the node-private services

    `~/clear_logs` (std_srvs/Trigger): truncate the current session's files to their headers;
    `~/new_log_session` (std_srvs/Trigger): close the files and start a new session directory (named in the
    response message). Both answer success=false, saying why, when logging is off or stopped after a write
    error (which stops logging, not the simulation, with one error message).
    Log files removed while the node logs (the session folder, or some files) are created again with their headers
    and logging goes on, with one warning per removal; if they cannot be, logging stops with one error.
    period_s [s of simulated time]: record at most this often (0 = every step).
    """

    def __init__(self, node: Node, sim: Simulation, log_dir: str, period_s: float = 0.0):
        self.node = node
        self.logs: VehicleLogs | None = None
        self._off_reason = LOGGING_OFF_MESSAGE
        if log_dir:
            path = os.path.expanduser(log_dir)
            if os.path.exists(path) and not os.path.isdir(path):
                raise LoggingSetupError(f"cannot log to log_dir '{log_dir}': it is not a directory")
            try:
                self.logs = VehicleLogs(sim, path, period_s=period_s, on_recreated=self._warn)
            except OSError as exc:
                raise LoggingSetupError(f"cannot log to log_dir '{log_dir}': {_os_error_text(exc)}") from exc
            except ValueError as exc:
                raise LoggingSetupError(f"cannot log to log_dir '{log_dir}' (log_period={period_s:g}): {exc}") \
                    from exc
            node.get_logger().info(f"logging {len(self.logs.file_names)} CSV files to {self.logs.session_dir}")
        node.create_service(Trigger, "~/clear_logs", self._on_clear)
        node.create_service(Trigger, "~/new_log_session", self._on_new_session)

    @property
    def next_due(self) -> float:
        """Simulated time [s] at which `record` next writes (inf when logging is off)."""
        return math.inf if self.logs is None else self.logs.next_due

    def record(self) -> None:
        """After each simulation step. A write error stops logging (reported once) instead of the simulation."""
        if self.logs is None:
            return
        try:
            self.logs.record()
        except OSError as exc:
            self._stop(f"logging stopped: {_os_error_text(exc)}")

    def follow(self, sim: Simulation) -> None:
        """Log `sim` from now on (the node swapped its simulation: spawn, delete, reset). The set of vehicles, hence
        of files, may have changed, so the current files are closed and a new session directory is started. Nothing
        happens when logging is off; an error stops logging (reported once), not the simulation."""
        logs = self.logs
        if logs is None:
            return
        try:
            logs.close()
            self.logs = VehicleLogs(sim, logs.log_dir, period_s=logs.period_s, on_recreated=self._warn)
        except (OSError, ValueError) as exc:
            self.logs = None
            self._stop(f"logging stopped: cannot follow the new simulation: {exc}")
            return
        self.node.get_logger().info(f"new log session {self.logs.session_dir}")

    def close(self) -> None:
        """Write what is buffered and close the files."""
        if self.logs is not None:
            try:
                self.logs.close()
            except OSError as exc:
                self.node.get_logger().error(f"closing the logs: {exc}")
            self.logs = None

    def _on_clear(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        def clear(logs: VehicleLogs) -> str:
            logs.clear()
            return f"cleared the log files in {logs.session_dir}"

        return self._answer(response, clear)

    def _on_new_session(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        return self._answer(response, lambda logs: f"new log session {logs.new_session()}")

    def _answer(self, response: Trigger.Response, action) -> Trigger.Response:
        if self.logs is None:
            response.success, response.message = False, self._off_reason
            return response
        try:
            response.message = action(self.logs)
            response.success = True
        except OSError as exc:
            self._stop(f"logging stopped: {_os_error_text(exc)}")
            response.success, response.message = False, self._off_reason
        return response

    def _warn(self, message: str) -> None:
        """A warning from the logs (files removed while logging, created again)."""
        self.node.get_logger().warning(message)

    def _stop(self, reason: str) -> None:
        self.node.get_logger().error(reason)
        self._off_reason = reason
        logs, self.logs = self.logs, None
        if logs is None:
            return
        try:
            logs.close()
        except OSError:
            pass
