"""Reading an MCAP file's bytes within a memory budget: every length the file declares (a record, a field, a
chunk's compressed and uncompressed size) is checked against the bytes left in the file and against the budget
before anything is allocated, and a chunk is decompressed with a cap on its output.

- a length over the budget raises OverBudget: the report stops (one line, see docs/report.md);
- a length past the end of the file raises mcap's EndOfFile: the file was cut short, read up to there;
- a chunk whose contents do not decompress to exactly the size it declares, or whose records run past its end,
  raises DamagedChunk: that chunk is skipped.

The records inside a chunk are read one at a time (mcap's `breakup_chunk` lists all of them first, so a chunk of
millions of tiny records would cost gigabytes before the first one is looked at).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, BinaryIO, Iterator

if TYPE_CHECKING:
    from mcap.records import Channel, Chunk, Message, Schema

#: One mebibyte [bytes].
MIB = 1 << 20
#: Most bytes one read of the file may take (a record's data, a chunk's compressed data) [bytes].
RECORD_BUDGET_BYTES = 256 * MIB
#: Most bytes a chunk's contents may take once decompressed (its declared uncompressed size) [bytes].
CHUNK_BUDGET_BYTES = 256 * MIB
#: Largest zstd window (the decoder's history buffer) a chunk may ask for [bytes].
ZSTD_WINDOW_BYTES = 128 * MIB
#: Output is produced in pieces of this size, so a chunk that expands past its declared size costs at most one
#: piece more [bytes].
PIECE_BYTES = 4 * MIB
#: Fixed fields of a Message record before its data: channel id, sequence, log time, publish time [bytes].
MESSAGE_FIELDS_BYTES = 2 + 4 + 8 + 8


class OverBudget(Exception):
    """The file declares a size over the report's memory budget; the message is one line."""


class DamagedChunk(ValueError):
    """A chunk whose contents do not match what it declares; the message is one line."""


def format_size(count: int) -> str:
    """A size for a message: '1 TiB', '256 MiB', '812 bytes'."""
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift:
            return f"{count / (1 << shift):.4g} {unit}"
    return f"{count} bytes"


class BoundedFile:
    """A file of `size` bytes read by mcap's StreamReader: no read may ask for more than the bytes left in the file
    (mcap's EndOfFile: the file was cut short) nor more than `most` bytes (OverBudget), so a declared length is
    checked before the buffer for it is allocated."""

    def __init__(self, handle: BinaryIO, size: int, most: int = RECORD_BUDGET_BYTES):
        self.handle = handle
        self.size = size
        self.most = most

    def tell(self) -> int:
        """Offset of the next byte read [bytes]."""
        return self.handle.tell()

    def read(self, count: int) -> bytes:
        """`count` bytes, all of them. Raises OverBudget, EndOfFile, or ValueError for a negative count (a record
        declaring a length shorter than its own fields)."""
        from mcap.exceptions import EndOfFile

        if count < 0:
            raise ValueError("a record declares a length shorter than its own fields")
        at = self.handle.tell()
        if count > self.most:
            raise OverBudget(f"a record at byte {at} declares {format_size(count)}, over the budget of "
                             f"{format_size(self.most)} for one record")
        if count > self.size - at:
            raise EndOfFile()
        return self.handle.read(count)


def decompress_chunk(chunk: Chunk) -> tuple[io.BytesIO, int]:
    """The contents of an mcap Chunk record and their length [bytes], decompressed with a cap.

    Raises OverBudget when the chunk declares more than CHUNK_BUDGET_BYTES uncompressed; DamagedChunk when its
    contents are not exactly the declared size; zstandard.ZstdError, RuntimeError (lz4) or mcap's
    UnsupportedCompressionError when they do not decompress.
    """
    declared = chunk.uncompressed_size
    if declared > CHUNK_BUDGET_BYTES:
        raise OverBudget(f"a chunk declares {format_size(declared)} uncompressed, over the budget of "
                         f"{format_size(CHUNK_BUDGET_BYTES)} for one chunk")
    if chunk.compression == "":
        out = io.BytesIO(chunk.data)
    elif chunk.compression == "zstd":
        out = _zstd(chunk.data, declared)
    elif chunk.compression == "lz4":
        out = _lz4(chunk.data, declared)
    else:
        from mcap.exceptions import UnsupportedCompressionError

        raise UnsupportedCompressionError(chunk.compression)
    length = out.getbuffer().nbytes
    if length != declared:
        raise DamagedChunk(f"a chunk declares {declared} bytes uncompressed but holds "
                           f"{'more' if length > declared else length}")
    return out, length


def _zstd(data: bytes, declared: int) -> io.BytesIO:
    """At most `declared` + 1 bytes of the zstd frames in `data` (whatever sizes their headers claim)."""
    import zstandard

    out = io.BytesIO()
    decompressor = zstandard.ZstdDecompressor(max_window_size=ZSTD_WINDOW_BYTES)
    with decompressor.stream_reader(data, read_across_frames=True) as reader:
        while out.tell() <= declared:
            piece = reader.read(min(PIECE_BYTES, declared + 1 - out.tell()))
            if not piece:
                break
            out.write(piece)
    out.seek(0)
    return out


def _lz4(data: bytes, declared: int) -> io.BytesIO:
    """At most `declared` + 1 bytes of the lz4 frame in `data` (whatever content size its header claims)."""
    import lz4.frame

    out = io.BytesIO()
    decompressor = lz4.frame.LZ4FrameDecompressor()
    pending = data
    while out.tell() <= declared and not decompressor.eof:
        piece = decompressor.decompress(pending, max_length=min(PIECE_BYTES, declared + 1 - out.tell()))
        pending = b""
        if not piece and decompressor.needs_input:
            break
        out.write(piece)
    out.seek(0)
    return out


def chunk_records(chunk: Chunk) -> Iterator[Schema | Channel | Message]:
    """The Schema, Channel and Message records inside an mcap Chunk record, one at a time (other records are
    skipped). Raises what decompress_chunk raises, and DamagedChunk when a record runs past the chunk's end or is
    not a record (opcode 0)."""
    from mcap.data_stream import ReadDataStream
    from mcap.opcode import Opcode
    from mcap.records import Channel, Message, Schema

    contents, length = decompress_chunk(chunk)
    stream = ReadDataStream(contents)
    while stream.count < length:
        opcode = stream.read1()
        size = stream.read8()
        start = stream.count
        if opcode == 0 or size > length - start:
            raise DamagedChunk(f"the record at byte {start - 9} of a chunk is not a record or runs past its end")
        if opcode == Opcode.MESSAGE:
            if size < MESSAGE_FIELDS_BYTES:
                raise DamagedChunk(f"a message record of a chunk declares {size} bytes, less than its fields")
            record = Message.read(stream, size)
        elif opcode == Opcode.CHANNEL:
            record = Channel.read(stream)
        elif opcode == Opcode.SCHEMA:
            record = Schema.read(stream)
        else:
            record = None
        left = size - (stream.count - start)
        if left < 0:
            raise DamagedChunk(f"the record at byte {start - 9} of a chunk runs past its declared length")
        if left:
            stream.read(left)
        if record is not None:
            yield record
