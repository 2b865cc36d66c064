"""What the three tracking nodes share: run-time parameters, odometry reading and the car controllers' body.

- `RuntimeParameters`: a table of ParamSpec (ros/node/parameters.py) declared on a node with their descriptions and
  dynamic typing, read and checked at start (a bad value: ParameterError, one line, exit status 2), and changeable
  at run time: one `add_on_set_parameters_callback` checks every changed value and then the whole new set with the
  node's own `validate` (e.g. building the shape or the controller); a refusal names the parameter and the reason,
  and nothing changes. Accepted values are handed to the node's `apply`.
- `OdometrySample`: planar pose and body twist from a nav_msgs/Odometry message.
- `CarControllerNode`: the two car controller nodes' common body (odometry in, virtual velocities in, guarded
  AckermannDriveStamped out); each node adds only its controller.

Each node's main() runs it through the package's one node lifecycle (mvsim_ros.ros.node.lifecycle.run_node):
SIGINT/SIGTERM end it cleanly with exit status 0, a bad parameter is one line on stderr and exit status 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from mvsim_ros.ros.node.parameters import ParameterError, ParamSpec, coerce


def finite_number(value: float) -> str | None:
    """ParamSpec check: any finite number (coerce already refuses NaN/inf)."""
    return None


def positive_number(value: float) -> str | None:
    """ParamSpec check: > 0."""
    return None if value > 0 else "must be > 0"


def non_negative_number(value: float) -> str | None:
    """ParamSpec check: >= 0."""
    return None if value >= 0 else "must be >= 0"


def steering_limit(value: float) -> str | None:
    """ParamSpec check: a steering limit in (0, pi/2] rad."""
    return None if 0 < value <= 0.5 * math.pi else "must be in (0, pi/2] rad"


def one_of(*choices: str) -> Callable[[str], str | None]:
    """ParamSpec check: one of `choices`."""
    return lambda value: None if value in choices else f"must be one of {', '.join(choices)}"


class RuntimeParameters:
    """Declare `specs` on `node`, read them (`values`), and keep them checked at run time (see the module
    docstring). validate(candidate values) raises ValueError to refuse a set; apply(new values, changed names) is
    called once a change is accepted. `convert[name]` maps a value before it is checked (e.g. an integer to the
    text its parameter expects)."""

    def __init__(self, node, specs: dict[str, ParamSpec], validate: Callable[[dict[str, Any]], None],
                 apply: Callable[[dict[str, Any], set[str]], None],
                 convert: dict[str, Callable[[Any], Any]] | None = None) -> None:
        from rcl_interfaces.msg import ParameterDescriptor
        from rclpy.parameter import Parameter

        self.specs = specs
        self._convert = convert or {}
        self._validate = validate
        self._apply = apply
        values = {}
        for name, spec in specs.items():
            descriptor = ParameterDescriptor(description=spec.description, dynamic_typing=True)
            declared = node.declare_parameter(name, spec.default, descriptor)
            values[name] = self._coerce(name, None if declared.type_ == Parameter.Type.NOT_SET else declared.value)
        try:
            validate(values)
        except ValueError as error:
            raise ParameterError(f"{error}") from None
        self.values = values
        node.add_on_set_parameters_callback(self._on_set)

    def _coerce(self, name: str, value: Any) -> Any:
        convert = self._convert.get(name)
        return coerce(name, convert(value) if convert is not None and value is not None else value, self.specs[name])

    def _on_set(self, parameters) -> Any:
        from rcl_interfaces.msg import SetParametersResult

        candidate = dict(self.values)
        changed = set()
        for parameter in parameters:
            if parameter.name not in self.specs:
                continue  # use_sim_time and the like: rclpy's own
            try:
                candidate[parameter.name] = self._coerce(parameter.name, parameter.value)
            except ParameterError as error:
                return SetParametersResult(successful=False, reason=str(error))
            changed.add(parameter.name)
        if not changed:
            return SetParametersResult(successful=True)
        try:
            self._validate(candidate)
        except ValueError as error:
            return SetParametersResult(successful=False, reason=str(error))
        self.values = candidate
        self._apply(candidate, changed)
        return SetParametersResult(successful=True)


@dataclass(frozen=True)
class OdometrySample:
    """Planar state from nav_msgs/Odometry: x, y [m], yaw [rad] in the message's frame; vx, vy [m/s], r [rad/s]
    in the child (body) frame; t [s]: the header stamp; frame_id, child_frame_id."""

    x: float
    y: float
    yaw: float
    vx: float
    vy: float
    r: float
    t: float
    frame_id: str
    child_frame_id: str

    @classmethod
    def from_message(cls, msg) -> "OdometrySample":
        """Read an Odometry message (yaw from the quaternion, whatever its roll and pitch)."""
        q = msg.pose.pose.orientation
        yaw = math.atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z))
        twist = msg.twist.twist
        stamp = msg.header.stamp
        return cls(msg.pose.pose.position.x, msg.pose.pose.position.y, yaw, twist.linear.x, twist.linear.y,
                   twist.angular.z, stamp.sec + 1e-9 * stamp.nanosec, msg.header.frame_id, msg.child_frame_id)

    def finite(self) -> bool:
        """Whether every number is finite."""
        return all(math.isfinite(v) for v in (self.x, self.y, self.yaw, self.vx, self.vy, self.r))


def load_world_file(path: str):
    """The WorldSpec of a world file, found where the simulator node finds it (as given, then the package's share
    directory, source checkout or installed share directory: mvsim_ros.world.files.world_path); ValueError with one
    line naming the problem."""
    from mvsim_ros.world import WorldFileError, load_world
    from mvsim_ros.world.files.world_path import resolve_world_path

    try:
        return load_world(resolve_world_path(path))
    except WorldFileError as error:
        raise ValueError(f"world_file: {' '.join(str(error).split())}") from None


def float32_within(value: float) -> float:
    """`value` as the nearest float32 not larger in magnitude (message fields such as AckermannDrive's are
    float32: rounding up could push a command at the limit past it, and the simulator would clamp and warn)."""
    import numpy as np

    single = np.float32(value)
    if abs(float(single)) > abs(value):
        single = np.nextafter(single, np.float32(0.0))
    return float(single)


def odometry_qos():
    """Subscription QoS for odometry: best effort (it matches reliable and best-effort publishers alike), the
    latest few messages."""
    from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy

    return QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=5, reliability=ReliabilityPolicy.BEST_EFFORT)


def clock_seconds(node) -> float:
    """The node clock's time [s] (simulated time with use_sim_time)."""
    return node.get_clock().now().nanoseconds * 1e-9


class Throttled:
    """Log a warning at most once per `period` [s] of wall time per key."""

    def __init__(self, node, period: float = 2.0) -> None:
        import time

        self._now = time.monotonic
        self._node = node
        self._period = period
        self._last: dict[str, float] = {}

    def warn(self, key: str, text: str) -> None:
        now = self._now()
        if now - self._last.get(key, -math.inf) >= self._period:
            self._last[key] = now
            self._node.get_logger().warning(text)


class CarControllerNode:
    """What the car controller nodes share: the rclpy node, run-time parameters (the subclass's PARAMETERS), the
    latest finite odometry, and one AckermannDriveStamped per `virtual_velocities` message once odometry has
    arrived, through a CommandGuard (a non-finite command is replaced by the last valid one, with a throttled
    warning). Subclasses give `build(values)` (the controller the parameters describe), `adopt(built)`,
    `compute(vx, vy, odometry)` -> command, `drive_of(command)` -> (speed [m/s], steering angle [rad]) and
    `describe()` (one log line)."""

    PARAMETERS: dict[str, ParamSpec] = {}

    def __init__(self, name: str, idle_command: Any, **node_options) -> None:
        from ackermann_msgs.msg import AckermannDriveStamped
        from geometry_msgs.msg import Vector3Stamped
        from nav_msgs.msg import Odometry
        from rclpy.node import Node

        from mvsim_ros.ros.qos import COMMAND_QOS, reliable
        from mvsim_ros.tracking.guard import CommandGuard

        self.node = node = Node(name, **node_options)
        self._warn = Throttled(node)
        self.odometry: OdometrySample | None = None
        self._candidate: Any = None
        self.params = RuntimeParameters(node, self.PARAMETERS, self._validate, self._apply)
        self.adopt(self._candidate)
        self.guard = CommandGuard(idle_command)
        self.ackermann_cmd = node.create_publisher(AckermannDriveStamped, "ackermann_cmd", COMMAND_QOS)
        node.create_subscription(Odometry, "odom", self._on_odom, odometry_qos())
        node.create_subscription(Vector3Stamped, "virtual_velocities", self._on_velocity, reliable(10))
        self._log_controller()

    def build(self, values: dict[str, Any]) -> Any:
        raise NotImplementedError

    def adopt(self, built: Any) -> None:
        raise NotImplementedError

    def compute(self, vx: float, vy: float, odometry: OdometrySample) -> Any:
        raise NotImplementedError

    def drive_of(self, command: Any) -> tuple[float, float]:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def _validate(self, values: dict[str, Any]) -> None:
        self._candidate = self.build(values)

    def _apply(self, values: dict[str, Any], changed: set[str]) -> None:
        self.adopt(self._candidate)
        self._log_controller()

    def _log_controller(self) -> None:
        self.node.get_logger().info(self.describe())

    def _on_odom(self, msg) -> None:
        sample = OdometrySample.from_message(msg)
        if sample.finite():
            self.odometry = sample
        else:
            self._warn.warn("odom", "ignoring an odometry message with non-finite values")

    def _on_velocity(self, msg) -> None:
        if self.odometry is None:
            self._warn.warn("no odom", "desired velocity received before any odometry: no command sent")
            return
        command, warning = self.guard.accept(self.compute(msg.vector.x, msg.vector.y, self.odometry))
        if warning:
            self._warn.warn("nan", warning)
        self.publish(command)

    def publish(self, command: Any) -> None:
        """Send one AckermannDriveStamped (speed, steering angle) stamped with the node clock."""
        from ackermann_msgs.msg import AckermannDriveStamped

        speed, angle = self.drive_of(command)
        msg = AckermannDriveStamped()
        msg.header.stamp = self.node.get_clock().now().to_msg()
        msg.header.frame_id = self.odometry.child_frame_id if self.odometry is not None else ""
        msg.drive.speed = float(speed)
        msg.drive.steering_angle = float32_within(angle)
        self.ackermann_cmd.publish(msg)


__all__ = ["OdometrySample", "RuntimeParameters", "Throttled", "clock_seconds", "finite_number", "float32_within",
           "load_world_file", "non_negative_number", "odometry_qos", "one_of", "positive_number", "steering_limit"]
