"""An MCAP file written chunk by chunk (the records encoded by the `mcap` package; the layout of the MCAP spec):

    magic, Header, [Schema | Channel | Metadata | Attachment | Chunk + its MessageIndex records]..., DataEnd,
    summary (Schema, Channel, Statistics, ChunkIndex, MetadataIndex, AttachmentIndex groups), SummaryOffsets,
    Footer, magic

Chunks arrive whole (their Message records built by the tee, tee.c) with an index of (channel, log time, offset)
per message: this module compresses them (lz4, zstd or none, the chunk compressions of MCAP), writes each with
one MessageIndex per channel and keeps the ChunkIndex and the statistics for the summary. Schemas and channels
are written in the data section before the first chunk that uses them, and again in the summary. Everything is
written through at each chunk, so a process killed mid-run leaves a file that reads up to its last whole chunk.
"""

from __future__ import annotations

import struct
import zlib
from typing import BinaryIO

import numpy as np
from mcap.data_stream import RecordBuilder
from mcap.opcode import Opcode
from mcap.records import (Attachment, AttachmentIndex, Channel, ChunkIndex, DataEnd, Footer, Header,
                          Metadata, MetadataIndex, Schema, Statistics, SummaryOffset)

MAGIC = b"\x89MCAP0\r\n"
COMPRESSIONS = ("lz4", "zstd", "none")
_INDEX_HEADER = struct.Struct("<BQHI")  # opcode, record length, channel id, byte length of the entries
#: Opcode, record length, message start and end time, uncompressed size, uncompressed CRC, compression name length.
_CHUNK_HEADER = struct.Struct("<BQQQQII")


def compressor(name: str):
    """The function compressing a chunk's records for compression `name` (COMPRESSIONS)."""
    if name == "lz4":
        import lz4.frame

        return lz4.frame.compress
    if name == "zstd":
        import zstandard

        return zstandard.ZstdCompressor(level=1).compress
    if name == "none":
        return None
    raise ValueError(f"unknown compression {name!r} (one of {', '.join(COMPRESSIONS)})")


class McapFile:
    """Writes an MCAP file to `stream` (a binary file open for writing): call `add_schema`/`add_channel` before
    the chunks that use them, `add_chunk` per chunk, `finish` once."""

    def __init__(self, stream: BinaryIO, compression: str = "lz4", profile: str = "ros2", library: str = "mvsim_ros",
                 checksums: bool = False):
        self.stream = stream
        self.compression = compression
        #: Whether chunks carry the CRC-32 of their records (readers check it); off, a chunk's CRC field is 0. Off
        #: by default: it costs as much CPU as the lz4 compression, and each compressed chunk's length and framing
        #: already show a cut chunk.
        self.checksums = checksums
        self._compress = compressor(compression)
        self.schemas: list[Schema] = []
        self.channels: list[Channel] = []
        self._chunk_indexes: list[ChunkIndex] = []
        self._metadata_indexes: list[MetadataIndex] = []
        self._attachment_indexes: list[AttachmentIndex] = []
        self.statistics = Statistics(attachment_count=0, channel_count=0, channel_message_counts={}, chunk_count=0,
                                     message_count=0, message_end_time=0, message_start_time=0, metadata_count=0,
                                     schema_count=0)
        self._write_records([Header(profile=profile, library=library)], magic=True)

    # -- the data section -------------------------------------------------------------------------------------
    def _write_records(self, records, magic: bool = False) -> int:
        """Write records at the end of the file; returns the offset of the first."""
        builder = RecordBuilder()
        for record in records:
            record.write(builder)
        offset = self.stream.tell()
        if magic:
            self.stream.write(MAGIC)
            offset += len(MAGIC)
        self.stream.write(builder.end())
        return offset

    def add_schema(self, name: str, encoding: str, data: bytes) -> int:
        """Write a Schema record; returns its id (1, 2, ...)."""
        schema = Schema(id=len(self.schemas) + 1, data=data, encoding=encoding, name=name)
        self._write_records([schema])
        self.schemas.append(schema)
        self.statistics.schema_count += 1
        return schema.id

    def add_channel(self, topic: str, schema_id: int, message_encoding: str = "cdr",
                    metadata: dict[str, str] | None = None) -> int:
        """Write a Channel record; returns its id (1, 2, ...)."""
        channel = Channel(id=len(self.channels) + 1, topic=topic, message_encoding=message_encoding,
                          metadata=dict(metadata or {}), schema_id=schema_id)
        self._write_records([channel])
        self.channels.append(channel)
        self.statistics.channel_count += 1
        self.statistics.channel_message_counts[channel.id] = 0
        return channel.id

    def add_metadata(self, name: str, data: dict[str, str]) -> None:
        """Write a Metadata record (string pairs), indexed in the summary."""
        offset = self._write_records([Metadata(name=name, metadata=dict(data))])
        self._metadata_indexes.append(MetadataIndex(offset=offset, length=self.stream.tell() - offset, name=name))
        self.statistics.metadata_count += 1

    def add_attachment(self, name: str, media_type: str, data: bytes, time_ns: int = 0) -> None:
        """Write an Attachment record (e.g. the world file), indexed in the summary."""
        offset = self._write_records([Attachment(create_time=time_ns, log_time=time_ns, name=name,
                                                 media_type=media_type, data=data)])
        self._attachment_indexes.append(AttachmentIndex(
            offset=offset, length=self.stream.tell() - offset, log_time=time_ns, create_time=time_ns,
            data_size=len(data), name=name, media_type=media_type))
        self.statistics.attachment_count += 1

    def add_chunk(self, records, index: np.ndarray, start_ns: int, end_ns: int) -> None:
        """Write one chunk: `records` (MCAP Message records; bytes or any buffer, read once) compressed, then a
        MessageIndex per channel from `index` ((n, 3) uint64 rows: channel id, log time [ns], offset of the record
        in `records`)."""
        size = memoryview(records).nbytes
        data = self._compress(records) if self._compress is not None else records
        compression = b"" if self._compress is None else self.compression.encode()
        compressed_size = memoryview(data).nbytes
        # The Chunk record, written around its (large) data without copying it into a record builder.
        body_length = 8 + 8 + 8 + 4 + 4 + len(compression) + 8 + compressed_size
        chunk_start = self.stream.tell()
        crc = zlib.crc32(records) if self.checksums else 0  # 0: "not computed" (MCAP spec)
        self.stream.write(_CHUNK_HEADER.pack(Opcode.CHUNK, body_length, start_ns, end_ns, size, crc,
                                             len(compression)) + compression + struct.pack("<Q", compressed_size))
        self.stream.write(data)
        chunk_length = self.stream.tell() - chunk_start
        channel_of = index[:, 0].astype(np.uint16)  # channel ids are 16-bit: a stable sort of them is a radix sort
        order = np.argsort(channel_of, kind="stable")
        channels, counts = np.unique(channel_of, return_counts=True)
        entries = np.ascontiguousarray(index[order][:, 1:], dtype="<u8")
        offsets, parts, at = {}, [], 0
        index_start = self.stream.tell()
        sorted_first = np.concatenate(([0], np.cumsum(counts)[:-1]))
        for channel, begin, count in zip(channels.tolist(), sorted_first.tolist(), counts.tolist()):
            body = entries[begin:begin + count].tobytes()
            offsets[channel] = index_start + at
            part = _INDEX_HEADER.pack(Opcode.MESSAGE_INDEX, 2 + 4 + len(body), channel, len(body)) + body
            parts.append(part)
            at += len(part)
            self.statistics.channel_message_counts[channel] = \
                self.statistics.channel_message_counts.get(channel, 0) + count
        self.stream.write(b"".join(parts))
        self._chunk_indexes.append(ChunkIndex(
            message_start_time=start_ns, message_end_time=end_ns, chunk_start_offset=chunk_start,
            chunk_length=chunk_length, message_index_offsets=offsets, message_index_length=at,
            compression=compression.decode(), compressed_size=compressed_size, uncompressed_size=size))
        stats = self.statistics
        if stats.message_count == 0 or start_ns < stats.message_start_time:
            stats.message_start_time = start_ns
        stats.message_end_time = max(stats.message_end_time, end_ns)
        stats.message_count += int(index.shape[0])
        stats.chunk_count += 1

    # -- the summary ------------------------------------------------------------------------------------------
    def finish(self) -> None:
        """Write DataEnd, the summary, its offsets and the footer (the file is then complete)."""
        self._write_records([DataEnd(data_section_crc=0)])
        summary_start = self.stream.tell()
        groups = [(Opcode.SCHEMA, self.schemas), (Opcode.CHANNEL, self.channels), (Opcode.STATISTICS,
                  [self.statistics]), (Opcode.CHUNK_INDEX, self._chunk_indexes),
                  (Opcode.METADATA_INDEX, self._metadata_indexes),
                  (Opcode.ATTACHMENT_INDEX, self._attachment_indexes)]
        offsets = []
        for opcode, records in groups:
            if records:
                start = self._write_records(records)
                offsets.append(SummaryOffset(group_opcode=opcode, group_start=start,
                                             group_length=self.stream.tell() - start))
        summary_offset_start = self._write_records(offsets) if offsets else 0
        # The footer's CRC (0: not computed) would cover the summary; readers accept 0.
        self._write_records([Footer(summary_start=summary_start, summary_offset_start=summary_offset_start,
                                    summary_crc=0)])
        self.stream.write(MAGIC)
        self.stream.flush()
