"""Recording a run into one MCAP file: channels by topic, messages from the tee, a writer thread, a clean close.

Messages reach the file two ways, both through the tee (tee.c), so that they share one chunk and one order:
- the compiled fast path (and every batch publisher) delivers through `tee_library.deliver_address()`, which
  records each message delivered on a watched handle;
- a front end that publishes from Python calls `record(handle, bytes, time)`.
A handle is the front end's publisher (an address); `watch(handle, topic, type, qos=...)` tells the recorder which
topic and type it publishes, the QoS it offers, and whether that topic is recorded (`topics`: the topics to keep,
shell-style patterns; empty: all). The log time of a message is its own stamp (see schemas.py), else the time the
caller gives.

The file is what rosbag2's MCAP storage plugin writes (channels.py, qos.py, rosbag2_metadata.py): one channel per
topic name with `offered_qos_profiles` and `topic_type_hash`, `ros2msg` schemas, `cdr` messages, and the `rosbag2`
metadata record when the file opens and when it closes. A published topic's channel is made when it is watched; a
received topic's (`watch(..., stamped=False)`) when its first message is recorded, so that a topic on which the
node receives two types belongs to the type received first (channels.py names the other type's channel); a
received topic that got no message is listed at the close, with the first type watched on it.

The writer thread takes each chunk as it fills (and whatever is waiting every FLUSH_S of wall time, so that a slow
run reaches the disk as it goes), compresses it and writes it; `close()` writes the rest and the summary. The
writer runs at the simulation's priority: the tee makes publishing wait whenever a chunk has waited longer than
FLUSH_S for it, so the file follows the run within about a second of wall time also on a loaded machine. Only one
Recorder records at a time in a process (the tee is one per process).

The file is written beside its target until `claim()` (target.py): a run that fails to start leaves an existing
file untouched.

A write error (a full disk, a removed device) ends the recording, not the run: `error` holds one line saying so,
`on_error` is called once with it, the chunks already written stay readable.
"""

from __future__ import annotations

import ctypes
import fnmatch
import os
import threading
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from mvsim_ros.output.recording import rosbag2_metadata, tee_library
from mvsim_ros.output.recording.channels import ChannelTable, RecordedChannel
from mvsim_ros.output.recording.mcap_file import COMPRESSIONS, McapFile
from mvsim_ros.output.recording.qos import DEFAULT_QOS, RecordedQos
from mvsim_ros.output.recording.schemas import MessageDefinitions, SchemaNotFound, STAMP_NONE
from mvsim_ros.output.recording.target import TargetError, check_target, claim, create_partial, discard

#: Bytes of Message records per chunk (4 MiB: the writer's cost per chunk spread over more messages; a slow run's
#: chunks are written every FLUSH_S whatever their size).
CHUNK_SIZE = 4 << 20
#: Most bytes of sealed chunks waiting for the writer before publishing waits for it (nothing is dropped); the
#: environment variable MVSIM_RECORD_QUEUE_BYTES sets another limit (a smaller one bounds the memory a slow disk
#: can take; 1 makes every chunk wait for the writer).
QUEUE_LIMIT = 256 << 20
QUEUE_LIMIT_ENV = "MVSIM_RECORD_QUEUE_BYTES"
#: Wall seconds after which the writer takes a chunk that is not yet full.
FLUSH_S = 0.5

_active_lock = threading.Lock()
_active: "Recorder | None" = None


def queue_limit() -> int:
    """The bytes of sealed chunks that may wait for the writer: MVSIM_RECORD_QUEUE_BYTES (a whole number >= 1) when
    set, else QUEUE_LIMIT. RecordingError for a value that is not such a number."""
    text = os.environ.get(QUEUE_LIMIT_ENV, "").strip()
    if not text:
        return QUEUE_LIMIT
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise RecordingError(f"{QUEUE_LIMIT_ENV}={text[:40]!r}: must be a whole number of bytes >= 1")
    return value


class RecordingError(RuntimeError):
    """A recording could not start (one line: what and why)."""


class Recorder:
    """Records into the MCAP file `path` (created or replaced).

    topics: shell-style patterns of the topics to record (absolute names, e.g. '/clock', '/*/odom'); empty: every
    topic. compression: 'lz4' (default), 'zstd' or 'none'. definitions: where message definitions come from.
    metadata: string pairs written as the MCAP metadata record 'mvsim'. follow_symlinks: a link at `path` is
    followed (its file is replaced) instead of replaced by the recording. distro: the ROS distribution written in
    the `rosbag2` record (default: rosbag2_metadata.ros_distro()). RecordingError (one line) when `path` is
    a folder or a special file, its folder is missing, the partial file cannot be created, or another Recorder is
    recording in this process. `note` holds one line for the log when `path` is a link.

    The file is written beside `path` until `claim()`; `close()` without a claim deletes it and leaves `path` as it
    was.
    """

    def __init__(self, path: str | Path, topics: Iterable[str] = (), compression: str = "lz4",
                 definitions: MessageDefinitions | None = None, metadata: dict[str, str] | None = None,
                 on_error: Callable[[str], None] | None = None, chunk_size: int = CHUNK_SIZE,
                 follow_symlinks: bool = False, distro: str | None = None):
        global _active
        if compression not in COMPRESSIONS:
            raise RecordingError(f"record_compression: {compression!r} is not one of {', '.join(COMPRESSIONS)}")
        limit = queue_limit()
        try:
            self._target = check_target(path, follow_symlinks)
        except TargetError as exc:
            raise RecordingError(str(exc)) from None
        #: Where the file ends up (a followed link's file).
        self.path = self._target.path
        #: One line for the log about the target (a link), or None.
        self.note = self._target.note
        #: Whether the file has been moved onto `path` (the run started).
        self.claimed = False
        self._keep_partial = False  # a claim that failed keeps its file where it is (the error names it)
        self.topics = [t if t.startswith("/") else "/" + t for t in topics]
        self.definitions = definitions if definitions is not None else MessageDefinitions()
        self.on_error = on_error
        #: One line when recording stopped on an error (None while all is well).
        self.error: str | None = None
        try:
            self._tee = tee_library.tee()
        except tee_library.TeeUnavailable as exc:
            raise RecordingError(f"cannot record to '{self.path}': {exc}") from None
        with _active_lock:
            if _active is not None:
                raise RecordingError(f"cannot record to '{self.path}': this process records to '{_active.path}'")
            try:
                self._stream = create_partial(self._target)
            except TargetError as exc:
                raise RecordingError(str(exc)) from None
            _active = self
        self._file = McapFile(self._stream, compression)
        self._channels = ChannelTable(self.definitions)
        self._unbound: dict[int, tuple[str, str, RecordedQos]] = {}  # received handles without a channel yet
        self._pending: list = []  # channels (and writes) to make before the next chunk
        self._lock = threading.RLock()
        self._closed = False
        #: The ROS distribution written in the `rosbag2` record.
        self.distro = distro or rosbag2_metadata.ros_distro()
        self._pending.append(self._write_bag_metadata)  # rosbag2 writes it when the bag opens, and at its close
        if metadata:
            self._pending.append(lambda: self._file.add_metadata("mvsim", metadata))
        self._tee.mvsim_tee_start(chunk_size, limit, round(FLUSH_S * 1e9))
        self._writer = threading.Thread(target=self._write_chunks, name="mcap-writer", daemon=True)
        self._writer.start()

    # -- what is recorded -------------------------------------------------------------------------------------
    def wants(self, topic: str) -> bool:
        """Whether `topic` (an absolute name) is recorded."""
        return not self.topics or any(fnmatch.fnmatchcase(topic, pattern) for pattern in self.topics)

    def channel(self, topic: str, type_name: str, qos: RecordedQos = DEFAULT_QOS) -> tuple[int, int] | None:
        """(channel id, stamp rule) of `type_name` ('pkg/msg/Type') recorded from `topic`, made on first use with
        the QoS `qos` its publisher offers (channels.py: on `topic`, or on `<topic>/<Type>` when another type owns
        `topic`); None when the topic is not recorded. SchemaNotFound when the type's definition cannot be found."""
        if not self.wants(topic):
            return None
        with self._lock:
            channel = self._channels.find(topic, type_name)
            if channel is None:
                known = len(self._channels)
                channel = self._channels.add(topic, type_name, qos)
                if len(self._channels) > known:  # a new name (not one this type already has in the file)
                    self._pending.append(channel)
            return channel.id, channel.schema.stamp_rule

    def watch(self, handle: int, topic: str, type_name: str, stamped: bool = True,
              qos: RecordedQos = DEFAULT_QOS) -> bool:
        """Record the messages delivered or `record`ed on `handle` (a publisher's address) as `topic`; returns
        whether the topic is recorded (a handle of a topic not recorded is forgotten: it may be a new publisher
        at the address of an old one). qos: the QoS profile the publisher offers (written on the channel as
        `offered_qos_profiles`; for a received topic, the subscription's). stamped: log each message at its own
        stamp where its type has one, the channel made now; False: a received topic, each message logged at the
        time given to `record`, the channel made when the first message is recorded (see the module's
        docstring)."""
        if self.error is not None or self._closed:
            return False
        if not self.wants(topic):
            self._tee.mvsim_tee_register(handle, -1, STAMP_NONE)
            return False
        try:
            if not stamped:
                with self._lock:
                    self._channels.schema(type_name)  # a missing definition shows now, not at the first message
                    self._unbound[handle] = (topic, type_name, qos)
                    self._tee.mvsim_tee_register(handle, -1, STAMP_NONE)
                return True
            channel, rule = self.channel(topic, type_name, qos)
        except SchemaNotFound as exc:
            self._fail(f"recording stopped: {exc}")
            return False
        self._tee.mvsim_tee_register(handle, channel, rule)
        return True

    def record(self, handle: int, data: bytes, time_s: float) -> None:
        """Record `data` (a serialized message) published on `handle` (watched) at simulated time `time_s` [s]
        (its log time when its type has no stamp)."""
        if self._unbound and handle in self._unbound:
            self._bind(handle)
        self._tee.mvsim_tee_record(handle, data, len(data), max(0, round(time_s * 1e9)))

    def _bind(self, handle: int) -> None:
        """Give a received topic's handle its channel (its first message is being recorded). The handle stays in
        `_unbound` until the tee knows its channel, so that no other thread records it as unwatched meanwhile."""
        with self._lock:
            binding = self._unbound.get(handle)
            if binding is None:
                return
            topic, type_name, qos = binding
            try:
                channel, _ = self.channel(topic, type_name, qos)
            except SchemaNotFound as exc:
                channel = -1
                self._fail(f"recording stopped: {exc}")
            self._tee.mvsim_tee_register(handle, channel, STAMP_NONE)
            del self._unbound[handle]

    def _list_unheard(self) -> None:
        """Make the channels of the received topics that got no message, with the first type watched on each."""
        with self._lock:
            taken = {channel.requested_topic for channel in self._channels}
            for topic, type_name, qos in list(self._unbound.values()):
                if topic not in taken:
                    self.channel(topic, type_name, qos)
                    taken.add(topic)

    @property
    def channels(self) -> list[RecordedChannel]:
        """The channels made so far, in the file's order (topic in the file, the topic recorded from, type,
        QoS)."""
        with self._lock:
            return list(self._channels)

    def add_attachment(self, name: str, media_type: str, data: bytes) -> None:
        """Attach a file (e.g. the world file) to the recording."""
        with self._lock:
            self._pending.append(lambda: self._file.add_attachment(name, media_type, data))

    def add_metadata(self, name: str, data: dict[str, str]) -> None:
        """Add a metadata record `name` (string pairs) to the recording: written with the next chunk, or at close
        (a record added while closing, e.g. the state at the end of the run, is the file's last before its
        summary)."""
        record = {str(key): str(value) for key, value in data.items()}
        with self._lock:
            self._pending.append(lambda: self._file.add_metadata(name, record))

    @property
    def messages(self) -> int:
        """Messages written to the file so far."""
        return self._file.statistics.message_count

    # -- writing ----------------------------------------------------------------------------------------------
    def _write_pending(self) -> None:
        """Write the schemas, channels, metadata and attachments registered since the last chunk."""
        with self._lock:
            pending, self._pending = self._pending, []
        for item in pending:
            if isinstance(item, RecordedChannel):
                schema = item.schema
                if not schema.id:  # a schema is written before its first channel
                    schema.id = self._file.add_schema(schema.name, "ros2msg", schema.text)
                written = self._file.add_channel(item.topic, schema.id, "cdr", item.metadata())
                assert written == item.id, (written, item.id)  # the file numbers channels in the table's order
            else:
                item()

    def _write_bag_metadata(self) -> None:
        """Write the `rosbag2` metadata record: the topics so far with their message counts (rosbag2_metadata.py)."""
        stats = self._file.statistics
        counts = stats.channel_message_counts
        topics = [rosbag2_metadata.TopicSummary(c.topic, c.type_name, (c.qos,), c.type_hash, counts.get(c.id, 0))
                  for c in self.channels if c.id <= len(self._file.channels)]
        metadata = rosbag2_metadata.bag_metadata(self.path.name, topics, stats.message_start_time,
                                                 stats.message_end_time, stats.message_count, self.distro)
        self._file.add_metadata(rosbag2_metadata.RECORD_NAME, rosbag2_metadata.metadata_record(metadata))

    def _write_chunks(self) -> None:
        """The writer thread: every chunk the tee seals, until the recording stops and nothing waits."""
        tee = self._tee
        while True:
            chunk = tee.mvsim_tee_take(int(FLUSH_S * 1000), 1)
            if not chunk:
                if self._closed:
                    return
                continue
            try:
                if self.error is None:
                    self._write_chunk(chunk.contents)
            except OSError as exc:
                self._fail(f"recording to '{self.path}' stopped: {exc.strerror or exc} (the file holds the run up "
                           f"to {self._file.statistics.message_end_time * 1e-9:.3f} s of simulated time)")
            except Exception as exc:  # noqa: BLE001 (the writer must go on taking chunks, or publishing would wait)
                self._fail(f"recording to '{self.path}' stopped: {type(exc).__name__}: {exc}")
            finally:
                tee.mvsim_tee_free(chunk)

    def _write_chunk(self, chunk: tee_library.Chunk) -> None:
        self._write_pending()
        records = memoryview((ctypes.c_ubyte * chunk.records_length).from_address(chunk.records)).cast("B")
        index = np.ctypeslib.as_array(ctypes.cast(chunk.index, ctypes.POINTER(ctypes.c_uint64)),
                                      shape=(chunk.count, 3)).copy()
        self._file.add_chunk(records, index, chunk.start_time, chunk.end_time)
        self._stream.flush()

    def _fail(self, message: str) -> None:
        """Stop recording on an error: one line in `error`, `on_error` told once, publishing never waits."""
        if self.error is not None:
            return
        self.error = message
        self._tee.mvsim_tee_stop()
        if self.on_error is not None:
            self.on_error(message)

    def claim(self) -> None:
        """Move the file onto its target (`path`): call once the run has started. A failure ends the recording
        (`error`, `on_error`) and keeps the partial file."""
        if self.claimed or self._closed or self.error is not None:
            return
        try:
            claim(self._target)
        except TargetError as exc:
            self._keep_partial = True
            self._fail(str(exc))
            return
        self.claimed = True

    def close(self) -> None:
        """Write what is left and the summary, close the file (once; safe from a signal handler's follow-up). A
        recording never claimed is deleted: its run did not start."""
        global _active
        if self._closed:
            return
        self._closed = True
        self._tee.mvsim_tee_stop()
        self._writer.join()
        try:
            if self.error is None and self.claimed:
                self._list_unheard()
                self._write_pending()
                self._write_bag_metadata()
                self._file.finish()
            self._stream.close()
        except OSError as exc:
            self._fail(f"recording to '{self.path}' could not be completed: {exc.strerror or exc}")
        finally:
            if not self.claimed and not self._keep_partial:
                discard(self._target)
            with _active_lock:
                _active = None
