"""One linear pass over an MCAP file: every record read in file order, nothing sought.

A run killed with SIGKILL leaves its chunks but no data end, summary or footer; reading in file order needs none
of them, so such a file reads up to its last complete record and is reported as cut short (`Recording.complete`
false); a chunk whose contents do not decompress or parse is skipped and counted. Per topic the pass keeps every
message's log time [ns] and size [bytes] without decoding it; only the messages that `select` asks for are
decoded (ROS 2 CDR with the channel's ros2msg schema) and reduced at once to the values wanted, so a big sensor
topic costs a decompression and a length, never a decode.
"""

from __future__ import annotations

import struct
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

#: `select(topic, schema name)` -> a function reducing a decoded message to the values kept, or None (not decoded).
Selector = Callable[[str, str], "Callable[[Any], tuple] | None"]


class RecordingError(Exception):
    """The file cannot be read as MCAP at all (missing, unreadable, not MCAP); the message is one line."""


@dataclass
class TopicLog:
    """What the pass kept of one topic: message type, log times [ns] and total size [bytes]."""

    topic: str
    types: list[str] = field(default_factory=list)
    times: array = field(default_factory=lambda: array("q"))  # int64, 8 bytes a message
    total_bytes: int = 0

    @property
    def type_name(self) -> str:
        """The topic's message type(s), e.g. 'nav_msgs/msg/Odometry' ('a, b' when channels differ)."""
        return ", ".join(self.types) if self.types else "(no schema)"

    def log_times(self) -> np.ndarray:
        """Log times [ns] in file order (int64)."""
        return np.frombuffer(self.times, dtype=np.int64).copy() if self.times else np.zeros(0, dtype=np.int64)


@dataclass
class Decoded:
    """Values kept from the decoded messages of one topic: log times [ns] and one tuple per message."""

    topic: str
    type_name: str
    times: list[int] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)


@dataclass
class Recording:
    """An MCAP file as read in one pass.

    complete: the footer was reached (false: the file was cut short, e.g. the recorder was killed).
    has_summary: the footer points at a summary section (false for a cut-short or unindexed file).
    stop_reason: why reading stopped before the footer ('' when complete).
    unread_bytes: bytes after the last complete record that were not read [bytes].
    """

    path: Path
    file_bytes: int
    profile: str = ""
    library: str = ""
    topics: dict[str, TopicLog] = field(default_factory=dict)
    decoded: dict[str, Decoded] = field(default_factory=dict)
    metadata: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    attachments: list[tuple[str, str, int]] = field(default_factory=list)  # (name, media type, size [bytes])
    decode_errors: dict[str, str] = field(default_factory=dict)  # topic -> why (some of) it was not decoded
    decode_failures: dict[str, int] = field(default_factory=dict)  # topic -> messages that failed to decode
    damaged_chunks: int = 0  # chunks whose contents could not be read (skipped)
    complete: bool = False
    has_summary: bool = False
    stop_reason: str = ""
    unread_bytes: int = 0

    @property
    def message_count(self) -> int:
        """Messages read, all topics together."""
        return sum(len(log.times) for log in self.topics.values())

    @property
    def time_span_ns(self) -> tuple[int, int] | None:
        """(first, last) log time [ns] over every message, or None for a file without messages."""
        firsts = [min(log.times) for log in self.topics.values() if log.times]
        lasts = [max(log.times) for log in self.topics.values() if log.times]
        return (min(firsts), max(lasts)) if firsts else None

    def metadata_value(self, name: str, key: str) -> str | None:
        """The value of `key` in the last metadata record called `name`, or None."""
        for record_name, values in reversed(self.metadata):
            if record_name == name and key in values:
                return values[key]
        return None


class _Pass:
    """State of the pass: schemas and channels seen so far, decoders made on first use."""

    def __init__(self, recording: Recording, select: Selector):
        from mcap_ros2.decoder import DecoderFactory

        self.recording = recording
        self.select = select
        self.factory = DecoderFactory()
        self.schemas: dict[int, Any] = {}
        self.channels: dict[int, Any] = {}
        # channel id -> (topic log, decoded log or None, decoder, reducer)
        self.routes: dict[int, tuple[TopicLog, Decoded | None, Any, Any]] = {}

    def schema(self, record) -> None:
        self.schemas[record.id] = record

    def channel(self, record) -> None:
        self.channels[record.id] = record
        self.routes.pop(record.id, None)

    def _route(self, channel_id: int) -> tuple[TopicLog, Decoded | None, Any, Any]:
        channel = self.channels.get(channel_id)
        topic = channel.topic if channel is not None else f"(unknown channel {channel_id})"
        schema = self.schemas.get(channel.schema_id) if channel is not None and channel.schema_id else None
        type_name = schema.name if schema is not None else ""
        log = self.recording.topics.setdefault(topic, TopicLog(topic))
        if type_name and type_name not in log.types:
            log.types.append(type_name)
        reduce = self.select(topic, type_name) if schema is not None else None
        decoded, decoder = None, None
        if reduce is not None:
            try:
                decoder = self.factory.decoder_for(channel.message_encoding, schema)
            except Exception as error:  # a schema mcap_ros2 cannot parse: the topic is counted, not decoded
                self.recording.decode_errors[topic] = f"schema {type_name}: {error}"
            if decoder is not None:
                decoded = self.recording.decoded.setdefault(topic, Decoded(topic, type_name))
            else:
                self.recording.decode_errors.setdefault(
                    topic, f"no decoder for schema encoding '{schema.encoding}' and message encoding "
                           f"'{channel.message_encoding}' (ros2msg and cdr are read)")
                reduce = None
        route = (log, decoded, decoder, reduce)
        self.routes[channel_id] = route
        return route

    def message(self, record) -> None:
        route = self.routes.get(record.channel_id) or self._route(record.channel_id)
        log, decoded, decoder, reduce = route
        log.times.append(record.log_time)
        log.total_bytes += len(record.data)
        if decoded is None:
            return
        try:
            row = reduce(decoder(record.data))
        except Exception as error:  # a malformed message: counted, reported (the first), skipped
            failures = self.recording.decode_failures
            failures[log.topic] = failures.get(log.topic, 0) + 1
            self.recording.decode_errors.setdefault(log.topic, f"the first at log time {record.log_time} ns: {error}")
            return
        decoded.times.append(record.log_time)
        decoded.rows.append(row)


def _read_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that mean the bytes ran out or are damaged (a cut-short or corrupt file)."""
    from mcap.exceptions import McapError

    errors: list[type[BaseException]] = [McapError, struct.error, EOFError, ValueError, RuntimeError,
                                         UnicodeDecodeError]
    try:
        import zstandard

        errors.append(zstandard.ZstdError)
    except ImportError:
        pass
    return tuple(errors)


def read_recording(path: str | Path, select: Selector) -> Recording:
    """Read the MCAP file at `path` in one pass; `select` picks the topics decoded (see `Selector`).

    Raises RecordingError when the file is missing, unreadable or does not start with the MCAP magic.
    """
    from mcap import records
    from mcap.exceptions import EndOfFile, InvalidMagic
    from mcap.stream_reader import StreamReader, breakup_chunk

    path = Path(path)
    try:
        handle = open(path, "rb")
    except OSError as error:
        raise RecordingError(f"cannot open {path}: {error.strerror or error}") from None
    with handle:
        size = path.stat().st_size
        recording = Recording(path=path, file_bytes=size)
        state = _Pass(recording, select)
        reader = StreamReader(handle, emit_chunks=True)
        records_iter = reader.records
        try:
            first = next(records_iter)
        except (InvalidMagic, StopIteration, *_read_errors()) as error:
            if isinstance(error, InvalidMagic):
                reason = "it does not start with the MCAP magic"
            elif isinstance(error, (EndOfFile, StopIteration, struct.error)):
                reason = "it is too short"
            else:
                reason = f"its first record is damaged ({type(error).__name__})"
            raise RecordingError(f"{path} is not an MCAP file: {reason}") from None
        except OSError as error:
            raise RecordingError(f"cannot read {path}: {error.strerror or error}") from None
        if isinstance(first, records.Header):
            recording.profile, recording.library = first.profile, first.library
        good_end = handle.tell()
        errors = _read_errors()
        try:
            for record in records_iter:
                if isinstance(record, records.Chunk):
                    try:
                        inner_records = breakup_chunk(record)
                    except errors:  # its bytes do not decompress or parse: the chunk is skipped, the file read on
                        recording.damaged_chunks += 1
                        inner_records = []
                    for inner in inner_records:
                        _dispatch(state, inner)
                else:
                    _dispatch(state, record)
                good_end = handle.tell()
                if isinstance(record, records.Footer):
                    recording.complete = True
                    recording.has_summary = record.summary_start != 0
        except errors as error:
            recording.stop_reason = _describe(error)
        except OSError as error:
            recording.stop_reason = f"read error: {error.strerror or error}"
        if not recording.complete:
            recording.unread_bytes = max(0, size - good_end)
            if recording.unread_bytes == 0 or not recording.stop_reason:
                recording.stop_reason = "the file ends after its last complete record, without a footer"
    return recording


def _describe(error: BaseException) -> str:
    """One line for the error that stopped the pass."""
    from mcap.exceptions import EndOfFile

    if isinstance(error, EndOfFile):
        return "the file ends inside a record"
    text = str(error).strip().splitlines()
    return f"damaged record ({type(error).__name__}{': ' + text[0] if text else ''})"


def _dispatch(state: _Pass, record) -> None:
    """Hand one record to the pass by its kind."""
    from mcap import records

    if isinstance(record, records.Message):
        state.message(record)
    elif isinstance(record, records.Channel):
        state.channel(record)
    elif isinstance(record, records.Schema):
        state.schema(record)
    elif isinstance(record, records.Metadata):
        state.recording.metadata.append((record.name, dict(record.metadata)))
    elif isinstance(record, records.Attachment):
        state.recording.attachments.append((record.name, record.media_type, len(record.data)))
