"""One linear pass over an MCAP file: every record read in file order, nothing sought.

A run killed with SIGKILL leaves its chunks but no data end, summary or footer; reading in file order needs none
of them, so such a file reads up to its last complete record and is reported as cut short (`Recording.complete`
false); a chunk whose contents do not decompress or parse is skipped and counted. Per topic the pass keeps every
message's log time [ns] and size [bytes] without decoding it; only the messages that `select` asks for are
decoded (ROS 2 CDR with the channel's ros2msg schema) and reduced at once to the values wanted, so a big sensor
topic costs a decompression and a length, never a decode; a topic whose reducer is marked `latest_only` keeps the
bytes of its latest message (by log time) and decodes that one alone at the end.

Memory is bounded (see mvsim_ros.report.bounded and docs/report.md, "Hostile or damaged files"): declared sizes
are checked before anything is allocated, and the counts below are budgets; a file over one of them raises
RecordingError. A message whose log time does not fit in a signed 64-bit count of nanoseconds is skipped and
counted (`Recording.skipped_log_times`).
"""

from __future__ import annotations

import struct
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from mvsim_ros.report.bounded import BoundedFile, OverBudget, chunk_records, format_size

#: `select(topic, schema name)` -> a function reducing a decoded message to a tuple of numbers (bools count as 0
#: or 1), or None (not decoded); a reducer marked with `latest_only` may return anything.
Selector = Callable[[str, str], "Callable[[Any], tuple] | None"]

#: Most messages a file may hold, all topics together (each costs 8 bytes of log time).
MAX_MESSAGES = 20_000_000
#: Most messages decoded, all topics together (each costs about 8 bytes per value kept and the decoding time).
MAX_DECODED_MESSAGES = 4_000_000
#: Largest message decoded [bytes]; a bigger one is counted as not decoded.
DECODED_MESSAGE_BUDGET_BYTES = 16 << 20
#: Most bytes of schemas, channels, metadata and attachment names kept, the whole file together [bytes].
KEPT_BUDGET_BYTES = 64 << 20
#: Latest log time a message may have: the largest signed 64-bit count of nanoseconds (year 2262) [ns].
MAX_LOG_TIME_NS = 2**63 - 1
#: Largest world attachment whose bytes are kept (the world file the run simulated, read for its blocks) [bytes].
WORLD_ATTACHMENT_BUDGET_BYTES = 8 << 20


def latest_only(reduce: Callable[[Any], tuple]) -> Callable[[Any], tuple]:
    """Mark a reducer whose topic is wanted for its latest message only (e.g. a latched map): the pass keeps that
    message's bytes and decodes it alone at the end, so a topic repeated many times is decoded once."""
    reduce.latest_only = True  # type: ignore[attr-defined]
    return reduce


class RecordingError(Exception):
    """The file cannot be read as MCAP at all (missing, unreadable, not MCAP) or is over a budget of the reader
    (a declared size or a count); the message is one line."""


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
    """Values kept from the decoded messages of one topic: log times [ns] and per message a row of `width` numbers
    (`rows()`); a `latest_only` topic keeps its latest message's reduced tuple alone (`latest`, its time in
    `times`)."""

    topic: str
    type_name: str
    times: array = field(default_factory=lambda: array("q"))
    values: array = field(default_factory=lambda: array("d"))
    width: int = 0
    latest: tuple | None = None

    def add(self, log_time: int, row: tuple) -> None:
        """Keep one message's row of numbers. Raises TypeError or ValueError when it is not one of `width`
        numbers."""
        values = array("d", row)
        if self.width == 0:
            self.width = len(values)
        if len(values) != self.width:
            raise ValueError(f"{len(values)} values where the topic's first message had {self.width}")
        self.values.extend(values)
        self.times.append(log_time)

    def rows(self) -> np.ndarray:
        """The rows kept, shape (messages, width), float."""
        return np.frombuffer(self.values, dtype=float).reshape(len(self.times), self.width) if self.width \
            else np.zeros((len(self.times), 0))


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
    world_xml: bytes | None = None  # the first XML attachment's bytes (at most WORLD_ATTACHMENT_BUDGET_BYTES)
    decode_errors: dict[str, str] = field(default_factory=dict)  # topic -> why (some of) it was not decoded
    decode_failures: dict[str, int] = field(default_factory=dict)  # topic -> messages that failed to decode
    damaged_chunks: int = 0  # chunks whose contents could not be read (skipped)
    skipped_log_times: int = 0  # messages skipped: log time over MAX_LOG_TIME_NS
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
        times = [log.log_times() for log in self.topics.values() if log.times]
        return (min(int(t.min()) for t in times), max(int(t.max()) for t in times)) if times else None

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
        self.messages = 0
        self.decoded_messages = 0
        self.kept_bytes = 0
        # topic -> (log time, message bytes, decoder, reducer) of the latest message of a latest_only topic
        self.pending: dict[str, tuple[int, bytes, Any, Any]] = {}

    def keep(self, count: int) -> None:
        """Count `count` bytes of records kept for the whole pass. Raises OverBudget past KEPT_BUDGET_BYTES."""
        self.kept_bytes += count
        if self.kept_bytes > KEPT_BUDGET_BYTES:
            raise OverBudget(f"its schemas, channels, metadata and attachment names take over "
                             f"{format_size(KEPT_BUDGET_BYTES)}, the budget for them")

    def schema(self, record) -> None:
        if self.schemas.get(record.id) != record:  # a repeated record (e.g. in the summary) costs nothing more
            self.keep(len(record.data) + len(record.name) + len(record.encoding))
        self.schemas[record.id] = record

    def channel(self, record) -> None:
        if self.channels.get(record.id) != record:
            self.keep(len(record.topic) + len(record.message_encoding)
                      + sum(len(key) + len(value) for key, value in record.metadata.items()))
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
        self.messages += 1
        if self.messages > MAX_MESSAGES:
            raise OverBudget(f"it holds over {MAX_MESSAGES:,} messages, the budget")
        if record.log_time > MAX_LOG_TIME_NS:
            self.recording.skipped_log_times += 1
            return
        route = self.routes.get(record.channel_id) or self._route(record.channel_id)
        log, decoded, decoder, reduce = route
        log.times.append(record.log_time)
        log.total_bytes += len(record.data)
        if decoded is None:
            return
        if len(record.data) > DECODED_MESSAGE_BUDGET_BYTES:
            self._failed(log.topic, record.log_time, f"{format_size(len(record.data))}, over the budget of "
                         f"{format_size(DECODED_MESSAGE_BUDGET_BYTES)} for one decoded message")
            return
        if getattr(reduce, "latest_only", False):
            held = self.pending.get(log.topic)
            if held is None or record.log_time >= held[0]:
                self.pending[log.topic] = (record.log_time, record.data, decoder, reduce)
            return
        self.decoded_messages += 1
        if self.decoded_messages > MAX_DECODED_MESSAGES:
            raise OverBudget(f"it holds over {MAX_DECODED_MESSAGES:,} messages of the topics the report decodes, "
                             f"the budget")
        try:
            decoded.add(record.log_time, reduce(decoder(record.data)))
        except Exception as error:  # a malformed message: counted, reported (the first), skipped
            self._failed(log.topic, record.log_time, error)

    def _failed(self, topic: str, log_time: int, error: Any) -> None:
        """Count a message of `topic` that was not decoded; the first one's reason is kept."""
        failures = self.recording.decode_failures
        failures[topic] = failures.get(topic, 0) + 1
        self.recording.decode_errors.setdefault(topic, f"the first at log time {log_time} ns: {error}")

    def finish(self) -> None:
        """Decode the latest message of every latest_only topic."""
        for topic, (log_time, data, decoder, reduce) in self.pending.items():
            try:
                row = reduce(decoder(data))
            except Exception as error:  # a malformed message: counted, reported, skipped
                self._failed(topic, log_time, error)
                continue
            decoded = self.recording.decoded[topic]
            decoded.times.append(log_time)
            decoded.latest = row
        self.pending.clear()


def is_world_attachment(name: str, media_type: str) -> bool:
    """Whether an attachment holds a world (XML by its name or its media type)."""
    return name.lower().endswith(".xml") or "xml" in media_type.lower()


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

    Raises RecordingError when the file is missing, unreadable, does not start with the MCAP magic or is over a
    budget (a declared size or a count, see the module's docstring).
    """
    from mcap import records
    from mcap.exceptions import EndOfFile, InvalidMagic
    from mcap.stream_reader import StreamReader

    path = Path(path)
    try:
        handle = open(path, "rb")
    except OSError as error:
        raise RecordingError(f"cannot open {path}: {error.strerror or error}") from None
    with handle:
        size = path.stat().st_size
        recording = Recording(path=path, file_bytes=size)
        state = _Pass(recording, select)
        reader = StreamReader(BoundedFile(handle, size), emit_chunks=True, record_size_limit=None)
        records_iter = reader.records
        try:
            first = next(records_iter)
        except OverBudget as error:
            raise RecordingError(f"{path}: {error} (see docs/report.md)") from None
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
                        for inner in chunk_records(record):
                            _dispatch(state, inner)
                    except errors:  # its bytes do not decompress or parse: the rest of the chunk is skipped
                        recording.damaged_chunks += 1
                else:
                    _dispatch(state, record)
                good_end = handle.tell()
                if isinstance(record, records.Footer):
                    recording.complete = True
                    recording.has_summary = record.summary_start != 0
        except OverBudget as error:
            raise RecordingError(f"{path}: {error} (see docs/report.md)") from None
        except errors as error:
            recording.stop_reason = _describe(error)
        except OSError as error:
            recording.stop_reason = f"read error: {error.strerror or error}"
        state.finish()
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
        state.keep(len(record.name) + sum(len(key) + len(value) for key, value in record.metadata.items()))
        state.recording.metadata.append((record.name, dict(record.metadata)))
    elif isinstance(record, records.Attachment):
        state.keep(len(record.name) + len(record.media_type))
        state.recording.attachments.append((record.name, record.media_type, len(record.data)))
        if state.recording.world_xml is None and is_world_attachment(record.name, record.media_type) \
                and len(record.data) <= WORLD_ATTACHMENT_BUDGET_BYTES:
            state.keep(len(record.data))
            state.recording.world_xml = bytes(record.data)
