"""The node's parameters: one table of names, types, defaults and bounds, read and checked in one place.

Every parameter is declared with dynamic typing, so a launch file or a command line that passes an integer where a
double is expected (`-p realtime_factor:=0`, `LaunchConfiguration` values that look like ints) is accepted: ints
are taken as floats. Anything else that does not fit (a string for a number, a negative rate, NaN, a seed outside
numpy's range) is a `ParameterError` with one line naming the parameter, the value and what is expected.

The budgets of the world load (mvsim_ros/world/xml/limits.py: LoadLimits, and ResourceLimits for remote resources
and 3D models) are parameters too: `load_<field>` for every field, an integer > 0, its default that of
DEFAULT_WORLD_LIMITS.
"""

from __future__ import annotations

import difflib
import math
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from rclpy.parameter import Parameter

from mvsim_ros.ros.foxglove.rate_gate import DEFAULT_MAX_RATE_HZ, max_rate_problem
from mvsim_ros.viewer.access import normalize_origins
from mvsim_ros.world.warning_summary import SHOWN_PER_KIND, summary_line
from mvsim_ros.world.xml.limits import DEFAULT_WORLD_LIMITS, WorldLimits, limit_meaning, limit_names


class ParameterError(ValueError):
    """A node parameter has a value of the wrong type or out of its range (one-line message)."""


@dataclass(frozen=True)
class ParamSpec:
    """One parameter: its default (whose Python type is the expected type), a description with units, and an
    optional range check returning an error text (None when the value is fine)."""

    default: Any
    description: str
    check: Callable[[Any], str | None] | None = None


def _at_least(low: float) -> Callable[[float], str | None]:
    return lambda value: None if value >= low else f"must be >= {low:g}"


def _positive(value: float) -> str | None:
    return None if value > 0 else "must be > 0"


def _seed(value: int) -> str | None:
    return None if 0 <= value < 2**63 else "must be between 0 and 2^63 - 1"


def _origins(value: list[str]) -> str | None:
    """What is wrong with a list of allowed viewer origins, or None."""
    try:
        normalize_origins(value)
    except ValueError as exc:
        return str(exc)
    return None


#: Every parameter of the node.
PARAMETERS: dict[str, ParamSpec] = {
    "world_file": ParamSpec("", "MVSim world XML file (relative: current directory, then the package share, "
                            "source or installed worlds/)",
                            lambda v: None if v.strip() else "is empty: give the path of an MVSim world XML file"),
    "headless": ParamSpec(True, "no viewer; false: serve the live 3D viewer (a web page with keyboard teleop) at "
                                "http://<viewer_host>:<viewer_port>/"),
    "viewer_host": ParamSpec("127.0.0.1", "address the viewer binds: 127.0.0.1 = this machine only; 0.0.0.0 = "
                                          "every interface (anyone who reaches the port can drive the robots)",
                             lambda v: None if v.strip() else "is empty: give an address, e.g. 127.0.0.1"),
    "viewer_port": ParamSpec(8090, "TCP port of the viewer (0 = any free port, printed at start)",
                             lambda v: None if 0 <= v <= 65535 else "must be between 0 and 65535"),
    "viewer_rate": ParamSpec(25.0, "[Hz] of wall time: frames sent to each viewer page (>= 20 for smooth motion)",
                             lambda v: None if 1.0 <= v <= 120.0 else "must be between 1 and 120"),
    "viewer_allowed_origins": ParamSpec([], "origins (scheme://host[:port], e.g. http://robots.lan:8090) whose pages "
                                            "may drive the robots besides the viewer's own address; a string array "
                                            "(one string: one origin); empty = only the viewer's own page",
                                        _origins),
    "viewer_token": ParamSpec(False, "true: a random token each run; the printed viewer address carries it "
                                     "(?token=...) and connections without it are refused"),
    "foxglove": ParamSpec(False, "true: serve every published topic live over the Foxglove WebSocket protocol at "
                                 "ws://<foxglove_host>:<foxglove_port> (docs/foxglove.md)"),
    "foxglove_host": ParamSpec("127.0.0.1", "address the Foxglove server binds: 127.0.0.1 = this machine only; "
                                            "0.0.0.0 = every interface (anyone who reaches it can drive the robots)",
                               lambda v: None if v.strip() else "is empty: give an address, e.g. 127.0.0.1"),
    "foxglove_port": ParamSpec(8765, "TCP port of the Foxglove server (0 = any free port, printed at start)",
                               lambda v: None if 0 <= v <= 65535 else "must be between 0 and 65535"),
    "foxglove_allowed_origins": ParamSpec(["https://app.foxglove.dev"], "origins of web pages that may connect to "
                                          "the Foxglove server besides its own address (a string array); clients "
                                          "sending no Origin (Foxglove desktop, scripts) are accepted", _origins),
    "foxglove_max_rate": ParamSpec(DEFAULT_MAX_RATE_HZ, "[Hz] of wall time: the most messages of each publisher "
                                   "forwarded to Foxglove per second (the newest due one; transient-local topics: "
                                   "every message); 0 = every message. At realtime_factor 1 in the demo world, 60 "
                                   "thins /clock only (100 Hz) (docs/foxglove.md)", max_rate_problem),
    "realtime_factor": ParamSpec(1.0, "simulated s per wall s; 0 = as fast as possible", _at_least(0.0)),
    "stop_after": ParamSpec(0.0, "[s] of simulated time: the run ends exactly when the simulated clock reaches it "
                                 "(the recording closed, exit status 0); 0 = never", _at_least(0.0)),
    "stop_when_idle": ParamSpec(False, "end the run (the recording closed, exit status 0) once the vehicles were "
                                       "driven and then left alone: a command has come, none for "
                                       "base_watchdog_timeout s of simulated time (1 s when it is 0) and every "
                                       "vehicle at rest (< 1 mm/s, < 1 mrad/s); checked every 0.1 s"),
    "simul_rate": ParamSpec(100.0, "[Hz] wall-clock rate of the simulation loop timer", _positive),
    "base_watchdog_timeout": ParamSpec(1.0, "[s] of simulated time without commands before a vehicle stops; 0 = "
                                            "off (1 s: a teleop key tap moves a robot about 0.5 m at 0.5 m/s)",
                                       _at_least(0.0)),
    "force_publish_vehicle_namespace": ParamSpec(False, "prefix topics with <veh>/ even for a single vehicle"),
    "odometry_publish_rate": ParamSpec(50.0, "[Hz] of simulated time: odom, ground truth, tf; 0 = off",
                                       _at_least(0.0)),
    "clock_publish_rate": ParamSpec(100.0, "[Hz] of simulated time: /clock; 0 = off", _at_least(0.0)),
    "do_fake_localization": ParamSpec(True, "publish map -> odom (identity until a teleport), <veh>/amcl_pose and "
                                            "<veh>/particlecloud from the true pose"),
    "publish_tf_odom2baselink": ParamSpec(True, "publish odom -> base_link on tf (odometry topics go on regardless)"),
    "period_ms_publish_tf": ParamSpec(20.0, "[ms] of simulated time between odometry/TF publications (MVSim's "
                                            "name); a value other than 20 overrides odometry_publish_rate; "
                                            "0 = every step", _at_least(0.0)),
    "publisher_history_len": ParamSpec(50, "keep-last depth of the odometry, ground-truth and particlecloud "
                                           "publishers", _positive),
    "disable_sim_time_clock": ParamSpec(False, "no /clock; stamp messages with wall time (wall time at start + "
                                               "simulated time)"),
    "tf_single_tree": ParamSpec(False, "every vehicle's transforms on the root tf/tf_static, frames prefixed "
                                       "<veh>/ (map shared), instead of one <veh>/tf tree per vehicle"),
    "status_period": ParamSpec(0.0, "[s] of wall time between status lines; 0 = none", _at_least(0.0)),
    "allow_shell_in_world": ParamSpec(False, "let $(command) in world files run programs"),
    "random_seed": ParamSpec(0, "seed of rand()/randn() in world files and of sensor noise", _seed),
    "use_stamped_cmd_vel": ParamSpec(False, "deprecated, no effect: <veh>/cmd_vel takes geometry_msgs/Twist and "
                                            "TwistStamped at once"),
    "depth_encoding": ParamSpec("16UC1", "depth images of rgbd cameras: 16UC1 (millimetres, 0 = no reading, as "
                                         "MVSim) or 32FC1 (metres, +inf = nothing in range)",
                                lambda v: None if v in ("16UC1", "32FC1") else "must be '16UC1' or '32FC1'"),
    "publish_log_topics": ParamSpec(False, "publish every log column as std_msgs/Float64 on <veh>/log/pose/<column> "
                                           "and <veh>/log/wheel_<k>/<column>, every log_period (at most at the "
                                           "odometry rate)"),
    "log_dir": ParamSpec("", "CSV logs under this directory; empty = off"),
    "record": ParamSpec("", "record the run into this MCAP file (every topic published and every command received, "
                            "as ros2 bag record -s mcap lays it out); empty = off"),
    "record_topics": ParamSpec([], "topics to record (absolute names or shell patterns, e.g. /clock, /*/odom); a "
                                   "string array; empty = every topic"),
    "record_compression": ParamSpec("lz4", "chunk compression of the recording: lz4, zstd or none",
                                    lambda v: None if v in ("lz4", "zstd", "none") else "must be lz4, zstd or none"),
    "record_follow_symlinks": ParamSpec(False, "when `record` names a symbolic link: true writes the file the link "
                                        "points to; false (default) replaces the link itself with the recording"),
    "log_period": ParamSpec(0.0, "[s] of simulated time between log rows; 0 = every step", _at_least(0.0)),
    "footprint_publish_rate": ParamSpec(10.0, "[Hz] of simulated time: footprints of trains and articulated "
                                              "vehicles; 0 = off", _at_least(0.0)),
    "simul_objects_publish_rate": ParamSpec(10.0, "[Hz] of simulated time: simul_objects markers of animated "
                                                  "blocks and actors; 0 = off", _at_least(0.0)),
}

#: Prefix of the parameters that set the fields of LoadLimits.
LOAD_PREFIX = "load_"


def _limit_parameters() -> dict[str, ParamSpec]:
    """`load_<field>` for every limit (limits.py): an integer > 0, by default that of DEFAULT_WORLD_LIMITS."""
    return {
        LOAD_PREFIX + name: ParamSpec(getattr(DEFAULT_WORLD_LIMITS, name),
                                      f"world-load budget (an integer > 0): {limit_meaning(name)}", _positive)
        for name in limit_names()
    }


PARAMETERS.update(_limit_parameters())

_TYPE_NAMES = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
               list: "an array of strings"}


def _string_list(value: Any) -> Any:
    """A string array parameter's value as a list: a single string is a list of one (none if blank), an empty
    array given on the command line (`-p name:=[]`, which arrives with no value) an empty list. Anything else is
    returned as it is (and refused by the type check unless it is a list of strings)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return list(value)
    return value


def coerce(name: str, value: Any, spec: ParamSpec) -> Any:
    """`value` as the type of `spec.default` (an int is accepted for a float), range-checked; ParameterError if not.

    Booleans are not numbers here (`true` for a rate is an error), and floats must be finite.
    """
    expected = type(spec.default)
    if expected is list:
        value = _string_list(value)
    if value is None:  # declared but given no value (e.g. `-p name:=` on some distributions)
        raise ParameterError(f"parameter '{name}' has no value; expected {_TYPE_NAMES[expected]}")
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    elif expected is int and isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        value = int(value)
    if type(value) is not expected:
        raise ParameterError(f"parameter '{name}' = {value!r}: expected {_TYPE_NAMES[expected]}")
    if expected is float and not math.isfinite(value):
        raise ParameterError(f"parameter '{name}' = {value!r}: must be finite")
    problem = spec.check(value) if spec.check is not None else None
    if problem:
        raise ParameterError(f"parameter '{name}' = {value!r}: {problem}")
    return value


def load_limits(values: dict[str, Any]) -> WorldLimits:
    """The limits (LoadLimits and ResourceLimits) that the `load_<field>` entries of `values` (as declare_and_read
    returns them) set."""
    return WorldLimits(**{name: values[LOAD_PREFIX + name] for name in limit_names()})


def empty_override(argv: Sequence[str]) -> str | None:
    """The name of the first parameter given without a value on a command line (`-p name:=`, which rcl refuses
    with an error line of its own), or None."""
    in_ros_args, previous = False, ""
    for arg in argv:
        if arg == "--ros-args":
            in_ros_args = True
        elif arg == "--":
            in_ros_args = False
        elif in_ros_args and previous in ("-p", "--param") and arg.endswith(":=") and len(arg) > 2:
            return arg[:-2].rpartition(":")[2]  # `node_name:param:=` names param
        previous = arg
    return None


def declare_and_read(node: Node) -> dict[str, Any]:
    """Declare every parameter of PARAMETERS on `node` (dynamically typed) and return their checked values."""
    values = {}
    for name, spec in PARAMETERS.items():
        descriptor = ParameterDescriptor(description=spec.description, dynamic_typing=True)
        declared = node.declare_parameter(name, spec.default, descriptor)
        values[name] = coerce(name, None if declared.type_ == Parameter.Type.NOT_SET else declared.value, spec)
    return values


#: Prefixes of parameters that rclpy itself may declare on demand (QoS overrides of a publisher or subscription).
_RCLPY_ON_DEMAND = ("qos_overrides.",)


def unknown_parameter_warnings(given: Iterable[str], is_known: Callable[[str], bool]) -> list[str]:
    """Warning texts about the parameters in `given` (names set on the command line or in a parameters file for
    this node) that `is_known` rejects: such a value (a typo such as `-p headles:=false`) would otherwise have no
    effect without a word. The first SHOWN_PER_KIND (in name order) get one line each, naming the closest known
    parameter when one is close; the others one line together with their count and some of their names."""
    unknown = [name for name in sorted(set(given)) if not is_known(name) and not name.startswith(_RCLPY_ON_DEMAND)]
    known = [*PARAMETERS, "use_sim_time"]
    warnings = []
    for name in unknown[:SHOWN_PER_KIND]:
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        hint = f"; did you mean '{close[0]}'?" if close else " (the node's parameters: docs/ros-interface.md)"
        warnings.append(f"unknown parameter '{name}' is ignored{hint}")
    rest = unknown[SHOWN_PER_KIND:]
    if rest:
        warnings.append(summary_line("unknown parameters", Counter(rest), what="unknown parameters are ignored"))
    return warnings


def given_parameter_names(node: Node, constructor_overrides: Iterable[str] = ()) -> list[str]:
    """Names of the parameter values given to `node`: on its command line and in its parameters files (rcl's
    overrides for this node, which its rcl handle `Node.handle` lists), and `constructor_overrides` (the names of
    the `parameter_overrides` passed to its constructor, which rclpy merges into a copy of its own)."""
    with node.handle:
        from_rcl = node.handle.get_parameters(Parameter)
    return [*from_rcl, *constructor_overrides]


def warn_unknown_parameters(node: Node, constructor_overrides: Iterable[str] = ()) -> list[str]:
    """Log (and return) the warnings about the parameters given to `node` (given_parameter_names) that it did not
    declare (unknown_parameter_warnings: a few lines however many there are)."""
    warnings = unknown_parameter_warnings(given_parameter_names(node, constructor_overrides), node.has_parameter)
    for text in warnings:
        node.get_logger().warning(text)
    return warnings


__all__ = ["LOAD_PREFIX", "PARAMETERS", "ParamSpec", "ParameterError", "coerce", "declare_and_read", "empty_override",
           "given_parameter_names", "load_limits", "unknown_parameter_warnings", "warn_unknown_parameters"]
