"""Recording runs from Python and from `mvsim_view --record`, with no ROS graph to join.

The simulator node runs inside the calling process on a context of its own, publishing and recording exactly as
`mvsim_node` with `record:=FILE` does; the file is closed with its summary when the run ends. That context is
private: its DDS participant is created with automatic discovery off (ROS 2's `ROS_AUTOMATIC_DISCOVERY_RANGE=OFF`,
for this context alone) and no static peers, on a domain drawn from the operating system's randomness, so no
other participant on this machine or network sees its topics or reaches its subscriptions (`cmd_vel`).

- `record_run(world_file, "run.mcap", seconds=20.0)`: exactly `seconds` of simulated time, as fast as it can; the
  vehicles drive the constant commands given (`twists`: name -> (v [m/s], w [rad/s])), the command watchdog off.
  For sweeps and regression tests that want the run in the format the ROS 2 tools read.
- `private_node(parameters)`: the node and its executor on such a context, for a front end that runs it its own
  way (mvsim_view --record serves its viewer).
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

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


def record_run(world_file: str | Path, path: str | Path, seconds: float, *,
               twists: dict[str, tuple[float, float]] | None = None, topics: tuple[str, ...] = (),
               compression: str = "lz4", parameters: dict[str, Any] | None = None) -> RecordedRun:
    """Run `world_file` for `seconds` [s] of simulated time and record it into the MCAP file `path`.

    twists: constant commands by vehicle name. topics: the topics to record (shell patterns; empty: all).
    parameters: more node parameters (e.g. {"odometry_publish_rate": 20.0}). Raises the node's start-up errors
    (WorldFileError, ParameterError, RecordingError) and RuntimeError when the recording failed on the way.
    """
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"seconds must be a positive number, got {seconds!r}")
    values = {"world_file": str(world_file), "record": str(path), "record_compression": compression,
              "realtime_factor": 0.0, "headless": True, "base_watchdog_timeout": 0.0, "status_period": 0.0,
              **({"record_topics": list(topics)} if topics else {}), **(parameters or {})}
    with private_node(values) as (node, executor):
        unknown = sorted(set(twists or {}) - set(node.sim.vehicle_names))
        if unknown:  # before the run starts: the recording is discarded and `path` left as it was
            raise ValueError(f"twists: no vehicle named {', '.join(map(repr, unknown))} in {world_file} (its "
                             f"vehicles: {', '.join(node.sim.vehicle_names)})")
        for name, (v, w) in (twists or {}).items():
            if not (math.isfinite(v) and math.isfinite(w)):
                raise ValueError(f"twists[{name!r}]: ({v!r}, {w!r}) is not a pair of finite numbers")
            node.sim.set_twist(node.sim.vehicle_index(name), v, w)
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


__all__ = ["RecordedRun", "private_context", "private_node", "record_run"]
