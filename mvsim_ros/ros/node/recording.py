"""The node's run recording (`record:=FILE.mcap`): every publisher and subscription of the node tapped into one
`output.recording.Recorder`.

- Publishers: each is watched when created (its rcl handle's address names it to the tee). Messages the compiled
  fast path or a batch publisher delivers are recorded by the tee itself, on their way to rcl; for the ones
  published from Python the publisher's `publish` serializes the message once, publishes those bytes and records
  them (what a subscriber receives, byte for byte). `raw_publisher(pub)` gives the byte-publishing function with the
  same recording, for code that publishes serialized bytes.
- Subscriptions: commands and poses the node receives are recorded on their topic (serialized again from the
  received message), logged at the simulated time they arrive, whatever stamp the sender wrote in them (a teleop
  stamps wall time).
Log times of published messages are their stamps (simulated time), else the simulated time at publication.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from rclpy.serialization import serialize_message

from mvsim_ros.output.recording.recorder import Recorder
from mvsim_ros.output.recording.schemas import MessageDefinitions

#: Keys of received topics in the tee's table: above every address a publisher handle can have.
_RECEIVED_KEYS_START = 1 << 62
_RAW_ATTRIBUTE = "_mvsim_publish_raw"


def type_name(msg_type: type) -> str:
    """'pkg/msg/Type' of a generated ROS 2 message class."""
    return f"{msg_type.__module__.split('.')[0]}/msg/{msg_type.__name__}"


_IDL_TO_MSG = {"boolean": "bool", "octet": "byte", "float": "float32", "double": "float64", "char": "char"}


def _msg_type_text(idl: str) -> str:
    """A field type of `get_fields_and_field_types()` in .msg syntax ('sequence<double, 3>' -> 'float64[<=3]')."""
    if idl.startswith("sequence<"):
        inner, _, bound = idl[len("sequence<"):-1].partition(", ")
        return _msg_type_text(inner) + (f"[<={bound}]" if bound else "[]")
    base, bracket, rest = idl.partition("[")
    return _IDL_TO_MSG.get(base, base) + (bracket + rest if bracket else "")


def fields_of(name: str) -> list[str]:
    """'type name' lines of a message type 'pkg/Type' from its generated class (for types without a .msg file)."""
    package, _, message = name.partition("/")
    msg_type = getattr(importlib.import_module(f"{package}.msg"), message)
    return [f"{_msg_type_text(kind)} {field}" for field, kind in msg_type.get_fields_and_field_types().items()]


def open_recorder(path: str, topics: list[str], compression: str, world_file: str,
                  on_error: Callable[[str], None], follow_symlinks: bool = False) -> Recorder:
    """A Recorder for the node (RecordingError, one line, when it cannot record), with the world file attached.
    The file stays beside `path` until the node claims it (its run started)."""
    recorder = Recorder(path, topics, compression, MessageDefinitions(fields_of),
                        metadata={"world_file": world_file, "simulator": "mvsim_ros"}, on_error=on_error,
                        follow_symlinks=follow_symlinks)
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

    def tap_publisher(self, publisher: Any, msg_type: type) -> Any:
        """Watch `publisher`; when its topic is recorded, its `publish` (and `raw_publisher`) record too."""
        handle = publisher.handle.pointer
        if not self.recorder.watch(handle, publisher.topic_name, type_name(msg_type)):
            publisher.__dict__.pop("publish", None)
            publisher.__dict__.pop(_RAW_ATTRIBUTE, None)
            return publisher
        recorder, sim_time, send = self.recorder, self.sim_time, publisher.handle.publish_raw

        def publish_raw(data: bytes) -> None:
            send(data)
            recorder.record(handle, data, sim_time())

        def publish(msg) -> None:
            publish_raw(msg if isinstance(msg, bytes) else serialize_message(msg))

        publisher.publish = publish
        setattr(publisher, _RAW_ATTRIBUTE, publish_raw)
        return publisher

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

    def close(self) -> None:
        """Write the rest of the run and the file's summary."""
        self.recorder.close()


def raw_publisher(publisher: Any) -> Callable[[bytes], None]:
    """The function publishing serialized bytes on `publisher` (recording them when the node records its topic)."""
    return publisher.__dict__.get(_RAW_ATTRIBUTE) or publisher.handle.publish_raw
