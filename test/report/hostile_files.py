"""Hostile MCAP files for the report's tests, built record by record with mcap's record classes: chunks that declare
absurd sizes, compression bombs, records longer than the file. A helper module imported by the tests of this
folder (not a conftest.py)."""

from __future__ import annotations

import struct

import lz4.frame
import zstandard
from mcap.data_stream import RecordBuilder
from mcap.opcode import Opcode
from mcap.records import Channel, Chunk, DataEnd, Footer, Header, Message, Schema

MAGIC = b"\x89MCAP0\r\n"
MIB = 1 << 20
GIB = 1 << 30


def record_bytes(*records) -> bytes:
    """The records serialized one after the other."""
    builder = RecordBuilder()
    for record in records:
        record.write(builder)
    return builder.end()


def mcap_file(*records, raw: bytes = b"") -> bytes:
    """A whole MCAP file: magic, header, `records`, then `raw` bytes, data end, footer (no summary), magic."""
    return (MAGIC + record_bytes(Header(profile="ros2", library="hostile"), *records) + raw
            + record_bytes(DataEnd(data_section_crc=0), Footer(summary_start=0, summary_offset_start=0,
                                                               summary_crc=0)) + MAGIC)


def blob_messages(count: int = 20, topic: str = "/blob") -> bytes:
    """A schema, a channel and `count` small messages, 0.1 s apart: the contents of a valid chunk."""
    records = [Schema(id=1, name="std_msgs/msg/UInt8MultiArray", encoding="ros2msg", data=b"uint8[] data\n"),
               Channel(id=1, topic=topic, message_encoding="cdr", schema_id=1, metadata={})]
    records += [Message(channel_id=1, log_time=k * 10**8, data=bytes(12), publish_time=k * 10**8, sequence=k)
                for k in range(count)]
    return record_bytes(*records)


def chunk(contents: bytes, compression: str = "", declared: int | None = None,
          compressed: bytes | None = None) -> Chunk:
    """A chunk record holding `contents` (compressed with `compression`, or the given `compressed` bytes) and
    declaring `declared` bytes uncompressed (default: the true size)."""
    if compressed is None:
        if compression == "zstd":
            compressed = zstandard.ZstdCompressor().compress(contents)
        elif compression == "lz4":
            compressed = lz4.frame.compress(contents)
        else:
            compressed = contents
    return Chunk(compression=compression, data=compressed, message_start_time=0, message_end_time=0,
                 uncompressed_crc=0, uncompressed_size=len(contents) if declared is None else declared)


def zstd_zeros(size: int) -> bytes:
    """A zstd frame of `size` zero bytes that does not state its content size (about 32 KiB per GiB)."""
    compressor = zstandard.ZstdCompressor(level=1, write_content_size=False).compressobj()
    zeros = bytes(16 * MIB)
    parts = [compressor.compress(zeros) for _ in range(size // len(zeros))]
    parts.append(compressor.compress(bytes(size % len(zeros))))
    return b"".join(parts) + compressor.flush()


def zstd_claiming(contents: bytes, content_size: int) -> bytes:
    """A zstd frame of `contents` whose header claims `content_size` bytes (an 8-byte frame content size)."""
    frame = zstandard.ZstdCompressor(write_content_size=False, write_checksum=False).compress(contents)
    descriptor = frame[4]
    assert descriptor & 0xE3 == 0, "expected a frame with a window descriptor, no size and no dictionary"
    return frame[:4] + bytes([descriptor | 0xC0]) + frame[5:6] + struct.pack("<Q", content_size) + frame[6:]


def lz4_claiming(contents: bytes, content_size: int) -> bytes:
    """An lz4 frame of `contents` whose header claims `content_size` bytes."""
    compressor = lz4.frame.LZ4FrameCompressor(auto_flush=True, content_checksum=False)
    return compressor.begin(source_size=content_size) + compressor.compress(contents) + b"\0\0\0\0"


def with_record_length(record: bytes, length: int) -> bytes:
    """The serialized `record` with the length field of its header replaced by `length`."""
    return record[:1] + struct.pack("<Q", length) + record[9:]


def with_chunk_data_length(chunk_record: bytes, length: int) -> bytes:
    """A serialized chunk record whose data-length field claims `length` bytes."""
    assert chunk_record[0] == Opcode.CHUNK
    compression_length = struct.unpack_from("<I", chunk_record, 9 + 28)[0]
    at = 9 + 28 + 4 + compression_length
    return chunk_record[:at] + struct.pack("<Q", length) + chunk_record[at + 8:]
