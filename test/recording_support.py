"""Reading MCAP recordings the way a damaged one must be read: record by record, up to the first cut record."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import lz4.frame


def whole_chunks(path: Path) -> tuple[list[list[tuple[int, int]]], dict[str, int], int]:
    """Read an MCAP file record by record up to its end or its first cut record: the (channel, log time) of the
    messages of each whole chunk (decompressed whole; its CRC checked where it has one), the channel ids by topic,
    and the number of bytes after the last whole record."""
    from mcap.data_stream import ReadDataStream
    from mcap.records import Channel, Chunk

    data = path.read_bytes()
    assert data[:8] == b"\x89MCAP0\r\n"
    at, chunks, channels = 8, [], {}
    while at + 9 <= len(data):
        opcode, length = struct.unpack_from("<BQ", data, at)
        if at + 9 + length > len(data):
            break
        if opcode == 0x04:
            channel = Channel.read(ReadDataStream(io.BytesIO(data[at + 9:at + 9 + length])))
            channels.setdefault(channel.topic, channel.id)
        if opcode == 0x06:
            chunk = Chunk.read(ReadDataStream(io.BytesIO(data[at + 9:at + 9 + length])))
            records = lz4.frame.decompress(chunk.data)
            assert chunk.uncompressed_crc in (0, zlib.crc32(records)) and len(records) == chunk.uncompressed_size
            messages, r = [], 0
            while r < len(records):
                op, n = struct.unpack_from("<BQ", records, r)
                assert op == 0x05
                channel, _, log_time = struct.unpack_from("<HIQ", records, r + 9)
                messages.append((channel, log_time))
                r += 9 + n
            chunks.append(messages)
        at += 9 + length
    return chunks, channels, len(data) - at
