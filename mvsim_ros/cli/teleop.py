"""Keyboard teleoperation (console script `mvsim_teleop`), for machines with rclpy but no teleop_twist_keyboard.

Same keys and behaviour as teleop_twist_keyboard: one geometry_msgs/Twist on `cmd_vel` per key press (the
terminal's own key repeat gives the stream while a key is held; nothing is re-sent in between), so the
simulator's watchdog stops the vehicle shortly after the key is released.

    mvsim_teleop --ros-args -r cmd_vel:=/r1/cmd_vel [-p stamped:=true] [-p speed:=0.5] [-p turn:=1.0]

Parameters: `speed` [m/s] (0.5) and `turn` [rad/s] (1.0), the starting scales (finite, > 0; an integer is taken
as a number); `stamped` (false): publish geometry_msgs/TwistStamped instead; `frame_id` (""): its header frame.
A value of the wrong type or out of range (`-p speed:=abc`, `-p turn:=[1,2]`, `-p stamped:=maybe`) ends the
program with one line on stderr and exit status 2, before the terminal is touched.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # rclpy and the parameter table are imported when main() runs
    from rclpy.node import Node

    from mvsim_ros.ros.node.parameters import ParamSpec

#: Motion keys -> (x, y, yaw) directions; upper case (and t/b) are the holonomic variants.
MOVE_KEYS: dict[str, tuple[int, int, int]] = {
    "i": (1, 0, 0), "o": (1, 0, -1), "j": (0, 0, 1), "l": (0, 0, -1),
    "u": (1, 0, 1), ",": (-1, 0, 0), ".": (-1, 0, 1), "m": (-1, 0, -1),
    "I": (1, 0, 0), "O": (1, -1, 0), "J": (0, 1, 0), "L": (0, -1, 0),
    "U": (1, 1, 0), "<": (-1, 0, 0), ">": (-1, -1, 0), "M": (-1, 1, 0),
}
#: Vertical motion keys (Twist.linear.z) -> direction.
VERTICAL_KEYS: dict[str, int] = {"t": 1, "b": -1}
#: Scale keys -> (speed factor, turn factor): +/- 10 %.
SCALE_KEYS: dict[str, tuple[float, float]] = {
    "q": (1.1, 1.1), "z": (0.9, 0.9), "w": (1.1, 1.0), "x": (0.9, 1.0), "e": (1.0, 1.1), "c": (1.0, 0.9),
}
CTRL_C = "\x03"
#: Exit status for a wrong command line: a parameter's type or value, or standard input not a terminal.
EXIT_USAGE = 2

HELP = """Moving around:        (holonomic: hold Shift)
   u    i    o           U    I    O
   j    k    l           J    K    L
   m    ,    .           M    <    >
t / b : up (+z) / down (-z)
q / z : all speeds +/- 10 %    w / x : linear speed only    e / c : turn speed only
any other key : stop           Ctrl-C : quit
"""


@dataclass
class TeleopState:
    """What the next message says: directions (-1, 0, 1) scaled by `speed` [m/s] and `turn` [rad/s]."""

    speed: float = 0.5
    turn: float = 1.0
    x: int = 0
    y: int = 0
    z: int = 0
    yaw: int = 0

    def press(self, key: str) -> bool:
        """Apply one key; False for Ctrl-C (quit). Scale keys keep the current direction; any key that is
        neither a motion nor a scale key stops."""
        if key == CTRL_C:
            return False
        if key in MOVE_KEYS:
            self.x, self.y, self.yaw = MOVE_KEYS[key]
            self.z = 0
        elif key in VERTICAL_KEYS:
            self.x, self.y, self.z, self.yaw = 0, 0, VERTICAL_KEYS[key], 0
        elif key in SCALE_KEYS:
            speed_factor, turn_factor = SCALE_KEYS[key]
            self.speed *= speed_factor
            self.turn *= turn_factor
        else:
            self.x = self.y = self.z = self.yaw = 0
        return True

    def velocity(self) -> tuple[float, float, float, float]:
        """(vx, vy, vz) [m/s] and yaw rate [rad/s] of the next message."""
        return self.x * self.speed, self.y * self.speed, self.z * self.speed, self.yaw * self.turn


def read_key(stream) -> str:
    """Block until one key arrives on a raw-mode terminal; '' at end of input."""
    return stream.read(1)


def _scale(value: float) -> str | None:
    return None if value > 0 else "must be > 0"


def teleop_parameters() -> dict[str, ParamSpec]:
    """The teleop's parameters: name -> ParamSpec (default, description with units, range check)."""
    from mvsim_ros.ros.node.parameters import ParamSpec

    return {
        "speed": ParamSpec(0.5, "[m/s] starting linear speed scale", _scale),
        "turn": ParamSpec(1.0, "[rad/s] starting turn rate scale", _scale),
        "stamped": ParamSpec(False, "publish geometry_msgs/TwistStamped instead of Twist"),
        "frame_id": ParamSpec("", "header frame of the TwistStamped messages"),
    }


def read_parameters(node: Node) -> dict[str, Any]:
    """Declare the teleop's parameters on `node` (dynamically typed, so a wrong type reaches the check instead of
    raising in rclpy) and return their checked values; ParameterError (one line) for a wrong type or value."""
    from rcl_interfaces.msg import ParameterDescriptor
    from rclpy.parameter import Parameter

    from mvsim_ros.ros.node.parameters import coerce

    values = {}
    for name, spec in teleop_parameters().items():
        descriptor = ParameterDescriptor(description=spec.description, dynamic_typing=True)
        declared = node.declare_parameter(name, spec.default, descriptor)
        values[name] = coerce(name, None if declared.type_ == Parameter.Type.NOT_SET else declared.value, spec)
    return values


def main(argv: list[str] | None = None) -> int:
    """Run the teleop until Ctrl-C (or end of input); exit status 2 (one line on stderr) for a parameter of the
    wrong type or value, or when stdin is not a terminal."""
    import rclpy

    from mvsim_ros.ros.node.parameters import ParameterError, empty_override

    argv = sys.argv if argv is None else argv
    empty = empty_override(argv)
    if empty is not None:  # rcl would refuse it with a traceback of its own
        print(f"mvsim_teleop: parameter '{empty}' has no value (-p {empty}:=)", file=sys.stderr)
        return EXIT_USAGE
    try:
        rclpy.init(args=argv)
    except Exception as exc:  # noqa: BLE001 - malformed --ros-args: one line, no traceback
        reason = " ".join(str(exc).split()) or exc.__class__.__name__
        print(f"mvsim_teleop: cannot initialise ROS: {reason}", file=sys.stderr)
        return EXIT_USAGE
    node = rclpy.create_node("mvsim_teleop")
    try:
        params = read_parameters(node)
    except ParameterError as exc:
        print(f"mvsim_teleop: {exc}", file=sys.stderr)
        _close(node)
        return EXIT_USAGE
    if not sys.stdin.isatty():
        print("mvsim_teleop: standard input is not a terminal; run it in one", file=sys.stderr)
        _close(node)
        return EXIT_USAGE
    return _drive(node, params)


def _close(node) -> None:
    """Destroy the node and shut rclpy down."""
    import rclpy

    node.destroy_node()
    rclpy.try_shutdown()


def _drive(node, params: dict[str, Any]) -> int:
    """Publish a command per key until Ctrl-C or end of input, then a stop; 0."""
    import termios
    import tty

    from geometry_msgs.msg import Twist, TwistStamped

    state = TeleopState(speed=params["speed"], turn=params["turn"])
    stamped, frame_id = params["stamped"], params["frame_id"]
    publisher = node.create_publisher(TwistStamped if stamped else Twist, "cmd_vel", 10)

    def publish() -> None:
        twist = Twist()
        twist.linear.x, twist.linear.y, twist.linear.z, twist.angular.z = state.velocity()
        if stamped:
            msg = TwistStamped(twist=twist)
            msg.header.stamp = node.get_clock().now().to_msg()
            msg.header.frame_id = frame_id
            publisher.publish(msg)
        else:
            publisher.publish(twist)

    saved = termios.tcgetattr(sys.stdin)
    print(HELP + f"publishing on {publisher.topic_name}; speed {state.speed:.2f} m/s, turn {state.turn:.2f} rad/s",
          flush=True)
    try:
        tty.setraw(sys.stdin.fileno())
        while True:
            key = read_key(sys.stdin)
            if not key or not state.press(key):
                break
            publish()
            if key in SCALE_KEYS:
                sys.stdout.write(f"\rspeed {state.speed:.2f} m/s, turn {state.turn:.2f} rad/s\r\n")
                sys.stdout.flush()
    except KeyboardInterrupt:
        pass
    finally:
        termios.tcsetattr(sys.stdin, termios.TCSADRAIN, saved)
        state.press(" ")
        publish()
        _close(node)
    return 0


if __name__ == "__main__":
    sys.exit(main())
