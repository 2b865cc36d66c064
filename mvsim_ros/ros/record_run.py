"""Recording runs from Python and from `mvsim_view --record`, with no ROS graph to join.

The simulator node runs inside the calling process on a context of its own, publishing and recording exactly as
`mvsim_node` with `record:=FILE` does; the file is closed with its summary when the run ends. That context is
private: its DDS participant is created with automatic discovery off (ROS 2's `ROS_AUTOMATIC_DISCOVERY_RANGE=OFF`,
for this context alone) and no static peers, on a domain drawn from the operating system's randomness, so no
other participant on this machine or network sees its topics or reaches its subscriptions (`cmd_vel`).

- `record_run(world_file, "run.mcap", seconds=20.0)`: exactly `seconds` of simulated time, as fast as it can; the
  vehicles drive the constant commands given (`twists`: name -> (v [m/s], w [rad/s])), the command watchdog off.
  For sweeps and regression tests that want the run in the format the ROS 2 tools read. Every argument (the
  world and its vehicle names included) is checked before the file is created: a bad one leaves the target as
  it was.
- `private_node(parameters)`: the node and its executor on such a context, for a front end that runs it its own
  way (mvsim_view --record serves its viewer).
"""

from __future__ import annotations

import contextlib
import math
import numbers
import os
import random
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

#: DDS domains drawn for in-process runs (valid ROS 2 domain ids, away from the usual low ones).
PRIVATE_DOMAINS = range(150, 230)
#: The environment variables rcl reads, while it initialises a context, to set up DDS discovery.
DISCOVERY_VARIABLES = {"ROS_AUTOMATIC_DISCOVERY_RANGE": "OFF", "ROS_STATIC_PEERS": ""}
_environment_lock = threading.Lock()


@dataclass(frozen=True)
class RecordedRun:
    """What `record_run` wrote: the file, the simulated seconds [s] and the messages recorded."""

    path: Path
    seconds: float
    messages: int


@contextlib.contextmanager
def private_node(parameters: dict[str, Any]) -> Iterator[tuple[Any, Any]]:
    """(node, executor): the simulator node with `parameters` on a context and DDS domain of its own, destroyed
    (its recording closed) and the context shut down on exit. Raises the node's start-up errors (WorldFileError,
    ParameterError, RecordingError, ...)."""
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter

    from mvsim_ros.ros.node.simulator_node import MvsimNode

    context = private_context()
    node = None
    try:
        node = MvsimNode(context=context, parameter_overrides=[Parameter(k, value=v) for k, v in parameters.items()])
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        yield node, executor
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.shutdown(context=context)


def private_context():
    """An initialised rclpy Context that discovers no other participant and that none discovers: automatic
    discovery off and no static peers while rcl initialises it (the process's environment is put back right
    after), on a domain drawn with the operating system's randomness (a program's seeded `random` draws no
    known domain)."""
    import rclpy

    context = rclpy.Context()
    with _environment_lock:
        saved = {name: os.environ.get(name) for name in DISCOVERY_VARIABLES}
        os.environ.update(DISCOVERY_VARIABLES)
        try:
            rclpy.init(context=context, domain_id=random.SystemRandom().choice(PRIVATE_DOMAINS))
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    return context


#: Parameters record_run sets from its own arguments (refused in `parameters`).
OWN_PARAMETERS = ("world_file", "record", "record_compression", "record_topics")


def check_arguments(world_file: str | Path, path: str | Path, seconds: float,
                    twists: Mapping[str, tuple[float, float]] | None, topics: Sequence[str], compression: str,
                    parameters: Mapping[str, Any] | None) -> dict[str, Any]:
    """The node parameters of a `record_run`, every argument checked first, nothing created: ValueError (one
    line) for a bad number, command, topic list, compression or parameter name (ParameterError for a bad
    parameter value), RecordingError for a target that cannot be recorded to, WorldFileError or RosNameError for
    the world, ValueError for a vehicle named in `twists` that the world does not have."""
    from mvsim_ros.output.recording.mcap_file import COMPRESSIONS
    from mvsim_ros.output.recording.recorder import RecordingError
    from mvsim_ros.output.recording.target import TargetError, check_target
    from mvsim_ros.ros.node.parameters import PARAMETERS, coerce, load_limits
    from mvsim_ros.ros.topics import ros_safe_names
    from mvsim_ros.world import load_world
    from mvsim_ros.world.files.world_path import resolve_world_path

    if not (_is_number(seconds) and math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"seconds must be a positive number, got {seconds!r}")
    if isinstance(topics, (str, bytes)) or not all(isinstance(t, str) and t.strip() for t in topics):
        raise ValueError(f"topics must be a sequence of topic names or patterns, got {topics!r}")
    if compression not in COMPRESSIONS:
        raise ValueError(f"compression must be one of {', '.join(COMPRESSIONS)}, got {compression!r}")
    given = dict(parameters or {})
    for name, value in given.items():
        if name in OWN_PARAMETERS:
            raise ValueError(f"parameters: '{name}' is set by record_run's own arguments; pass it there")
        if name not in PARAMETERS:
            raise ValueError(f"parameters: no node parameter named {name!r}")
        given[name] = coerce(name, value, PARAMETERS[name])
    values = {"world_file": str(world_file), "record": str(path), "record_compression": compression,
              "realtime_factor": 0.0, "headless": True, "base_watchdog_timeout": 0.0, "status_period": 0.0,
              **({"record_topics": list(topics)} if topics else {}), **given}
    full = {name: spec.default for name, spec in PARAMETERS.items()} | values
    try:
        check_target(values["record"], full["record_follow_symlinks"])
    except TargetError as exc:
        raise RecordingError(str(exc)) from None
    world_path = resolve_world_path(values["world_file"])
    spec = load_world(world_path, random_seed=full["random_seed"], allow_shell=full["allow_shell_in_world"],
                      limits=load_limits(full))
    names = [v.name for v in ros_safe_names(spec, full["force_publish_vehicle_namespace"])[0].vehicles]
    if twists is not None and not isinstance(twists, Mapping):
        raise ValueError(f"twists must map vehicle names to (v, w) pairs, got {twists!r}")
    unknown = sorted(set(twists or {}) - set(names), key=str)
    if unknown:
        raise ValueError(f"twists: no vehicle named {', '.join(map(repr, unknown))} in {world_file} (its vehicles: "
                         f"{', '.join(names)})")
    for name, pair in (twists or {}).items():
        is_pair = isinstance(pair, (tuple, list)) and len(pair) == 2
        finite = is_pair and all(_is_number(x) and math.isfinite(x) for x in pair)
        if not finite:
            raise ValueError(f"twists[{name!r}]: {pair!r} is not a pair of finite numbers (v [m/s], w [rad/s])")
    return values


def _is_number(value: Any) -> bool:
    """Whether `value` is a real number (not a boolean)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def record_run(world_file: str | Path, path: str | Path, seconds: float, *,
               twists: Mapping[str, tuple[float, float]] | None = None, topics: Sequence[str] = (),
               compression: str = "lz4", parameters: Mapping[str, Any] | None = None) -> RecordedRun:
    """Run `world_file` for `seconds` [s] of simulated time and record it into the MCAP file `path`.

    twists: constant commands by vehicle name. topics: the topics to record (shell patterns; empty: all).
    parameters: more node parameters (e.g. {"odometry_publish_rate": 20.0}). Every argument is checked before
    anything is created (check_arguments: ValueError, ParameterError, RecordingError, WorldFileError, ...), so a
    bad one leaves `path` as it was; the node's start-up errors are raised as they are, and RuntimeError when the
    recording failed on the way.
    """
    values = check_arguments(world_file, path, seconds, twists, topics, compression, parameters)
    with private_node(values) as (node, executor):
        for name, (v, w) in (twists or {}).items():
            node.sim.set_twist(node.sim.vehicle_index(name), float(v), float(w))
        node.runner.end_step = round(seconds / node.sim.dt)  # playing as fast as it can up to exactly there
        recorder = node.recording.recorder
        while not node.runner.finished and recorder.error is None:
            executor.spin_once(timeout_sec=0.1)
        ran = node.sim.time
        node.recording.close()  # the file complete before the node goes
        node.recording = None
    if recorder.error:
        raise RuntimeError(recorder.error)
    return RecordedRun(Path(path), ran, recorder.messages)


__all__ = ["RecordedRun", "check_arguments", "private_context", "private_node", "record_run"]
