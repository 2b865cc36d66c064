"""The node's run recording (`record:=FILE.mcap`): every publisher and subscription of the node tapped into one
`output.recording.Recorder`.

- Publishers: the node's outlets (ros/publishing/outlet.py) are made with `tap_publisher` as their tap. Each
  publisher is watched when created (its rcl handle's address names it to the tee). Messages the compiled fast
  path or a batch publisher delivers are recorded by the tee itself, on their way to rcl; for the ones published
  from Python, the outlet serializes the message once, publishes those bytes and hands them to the function
  `tap_publisher` returned (what a subscriber receives, byte for byte).
- Subscriptions: commands and poses the node receives are recorded on their topic (serialized again from the
  received message), logged at the simulated time they arrive, whatever stamp the sender wrote in them (a teleop
  stamps wall time).
Log times of published messages are their stamps (simulated time), else the simulated time at publication.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from rclpy.serialization import serialize_message

from mvsim_ros.output.recording.qos import RecordedQos
from mvsim_ros.output.recording.recorder import Recorder
from mvsim_ros.output.recording.schemas import MessageDefinitions
from mvsim_ros.ros.publishing.outlet import RecordBytes

#: Keys of received topics in the tee's table: above every address a publisher handle can have.
_RECEIVED_KEYS_START = 1 << 62
#: Metadata record of the blocks' poses at the end of the run (block name -> "x y yaw" [m, m, rad]), read by the
#: report (report/world_blocks.py).
BLOCKS_END_RECORD = "mvsim_blocks_end"


def type_name(msg_type: type) -> str:
    """'pkg/msg/Type' of a generated ROS 2 message class."""
    return f"{msg_type.__module__.split('.')[0]}/msg/{msg_type.__name__}"


_IDL_TO_MSG = {"boolean": "bool", "octet": "byte", "float": "float32", "double": "float64", "char": "char"}


def msg_field_type(idl: str) -> str:
    """A field type of `get_fields_and_field_types()` in .msg syntax ('sequence<double, 3>' -> 'float64[<=3]')."""
    if idl.startswith("sequence<"):
        inner, _, bound = idl[len("sequence<"):-1].partition(", ")
        return msg_field_type(inner) + (f"[<={bound}]" if bound else "[]")
    base, bracket, rest = idl.partition("[")
    return _IDL_TO_MSG.get(base, base) + (bracket + rest if bracket else "")


def fields_of(name: str) -> list[str]:
    """'type name' lines of a message type 'pkg/Type' from its generated class (for types without a .msg file)."""
    package, _, message = name.partition("/")
    msg_type = getattr(importlib.import_module(f"{package}.msg"), message)
    return [f"{msg_field_type(kind)} {field}" for field, kind in msg_type.get_fields_and_field_types().items()]


def open_recorder(path: str, topics: list[str], compression: str, world_file: str,
                  on_error: Callable[[str], None], follow_symlinks: bool = False,
                  watchdog_timeout_s: float | None = None) -> Recorder:
    """A Recorder for the node (RecordingError, one line, when it cannot record), with the world file attached and,
    in the `mvsim` metadata record, the command watchdog's timeout [s] (the report draws commands as the
    controllers saw them). The file stays beside `path` until the node claims it (its run started)."""
    metadata = {"world_file": world_file, "simulator": "mvsim_ros"}
    if watchdog_timeout_s is not None:
        metadata["base_watchdog_timeout"] = repr(float(watchdog_timeout_s))
    recorder = Recorder(path, topics, compression, MessageDefinitions(fields_of), metadata=metadata,
                        on_error=on_error, follow_symlinks=follow_symlinks)
    try:
        with open(world_file, "rb") as world:
            recorder.add_attachment(world_file.rpartition("/")[2], "application/xml", world.read())
    except OSError:
        pass  # the world was read moments ago; a file gone since only leaves the attachment out
    return recorder


class NodeRecording:
    """Taps a node's publishers and subscriptions into `recorder`; `sim_time()` [s] stamps what has no stamp."""

    def __init__(self, recorder: Recorder, sim_time: Callable[[], float]):
        self.recorder = recorder
        self.sim_time = sim_time
        self._received_keys: dict[tuple[str, type], int] = {}

    def tap_publisher(self, publisher: Any, msg_type: type) -> RecordBytes | None:
        """Watch `publisher` (an rclpy Publisher of `msg_type`; its channel carries the QoS it offers): the function
        recording the serialized messages published on it from Python (at the simulated time they are published,
        unless stamped), or None when its topic is not recorded (ros/publishing/outlet.PublisherTap)."""
        handle = publisher.handle.pointer
        if not self.recorder.watch(handle, publisher.topic_name, type_name(msg_type),
                                   qos=RecordedQos.from_profile(publisher.qos_profile)):
            return None
        recorder, sim_time = self.recorder, self.sim_time

        def record(data: bytes) -> None:
            recorder.record(handle, data, sim_time())

        return record

    def tap_callback(self, msg_type: type, topic: str, callback: Callable[[Any], None]) -> Callable[[Any], None]:
        """`callback` recording each received message on `topic` (resolved name) first, when that is recorded."""
        key = self._received_keys.get((topic, msg_type))
        if key is None:
            key = _RECEIVED_KEYS_START + len(self._received_keys)
            self._received_keys[(topic, msg_type)] = key
        if not self.recorder.watch(key, topic, type_name(msg_type), stamped=False):
            return callback
        recorder, sim_time = self.recorder, self.sim_time

        def received(msg) -> None:
            recorder.record(key, serialize_message(msg), sim_time())
            callback(msg)

        return received

    def close(self, block_poses: dict[str, tuple[float, float, float]] | None = None) -> None:
        """Write the rest of the run and the file's summary; `block_poses` (block name -> (x [m], y [m], yaw [rad])
        at the end of the run) as the metadata record BLOCKS_END_RECORD, which the report draws the movable blocks'
        end poses from."""
        if block_poses:
            self.recorder.add_metadata(BLOCKS_END_RECORD, {name: f"{x!r} {y!r} {yaw!r}"
                                                           for name, (x, y, yaw) in block_poses.items()})
        self.recorder.close()
