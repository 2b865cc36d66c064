"""Reading what a world file names without trusting it: sizes checked before reading, decompression streamed with a
cap, image sizes checked from the header before decoding, path names the OS refuses turned into WorldFileErrors.

Every function charges the active load budget (budget.py) and raises WorldFileError naming the limit and the
file:line:tag given as `where`. Work is done in pieces of at most `CHUNK_BYTES`, so an interrupt (SIGINT) is
handled between them rather than after one long call.
"""

from __future__ import annotations

import contextlib
import os
import stat
import warnings
import zlib
from pathlib import Path
from typing import Iterator

from PIL import Image

from mvsim_ros.world.xml.budget import Where, active_budget
from mvsim_ros.world.errors import WorldFileError

#: Largest piece inflated or read in one call [bytes].
CHUNK_BYTES = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b"


def file_size(path: Path | str, where: Where, what: str = "file") -> int:
    """Size of the regular file at `path` [bytes]; WorldFileError (at `where`) when it is missing, not a regular
    file, or a name the operating system refuses (too long, NUL character, ...)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise _error(f"{what} not found: {_shown(path)}", where) from None
    except (OSError, ValueError) as exc:  # ENAMETOOLONG, ELOOP, EACCES, embedded NUL (ValueError), ...
        reason = getattr(exc, "strerror", None) or str(exc)
        raise _error(f"cannot open {what} {_shown(path)}: {reason}", where) from None
    if not stat.S_ISREG(info.st_mode):
        raise _error(f"{what} is not a regular file: {_shown(path)}", where)
    return info.st_size


def read_world_file(path: Path | str, where: Where, what: str = "file") -> bytes:
    """The bytes of a world or included file: its size checked against max_file_bytes and counted in
    max_include_bytes before anything is read."""
    size = file_size(path, where, what)
    active_budget().add_file(size, where)
    return _read(path, size, where, what)


def read_data_file(path: Path | str, where: Where, what: str = "file") -> bytes:
    """The bytes of a data file read whole (a map, a YAML file): size checked against max_file_bytes first."""
    size = file_size(path, where, what)
    active_budget().check_file_size(size, where)
    return _read(path, size, where, what)


def gunzip(data: bytes, where: Where) -> bytearray:
    """Inflate gzip data (several members allowed, as gzip.decompress), counting every inflated byte against
    max_decompressed_bytes as it is produced: a bomb is refused after at most the remaining budget, whatever its
    header says. Corrupt or truncated data raise zlib.error, EOFError or OSError, as gzip.decompress does."""
    budget = active_budget()
    out = bytearray()
    rest = memoryview(data)
    while True:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        pending = rest
        while not inflater.eof:
            if not pending:
                raise EOFError("Compressed file ended before the end-of-stream marker was reached")
            piece = inflater.decompress(pending, CHUNK_BYTES)
            budget.add_decompressed_bytes(len(piece), where)
            out += piece
            pending = inflater.unconsumed_tail
        rest = inflater.unused_data.lstrip(b"\x00")
        if not rest:
            return out
        if rest[:2] != _GZIP_MAGIC:
            raise OSError("Not a gzipped file (trailing data after the compressed stream)")
        rest = memoryview(rest)


@contextlib.contextmanager
def open_image(path: Path | str, where: Where, what: str = "image") -> Iterator[Image.Image]:
    """Open an image for reading, refusing it from its header (before any pixel is decoded) when it has more than
    max_image_pixels pixels. PIL's own decompression-bomb warning and error never escape: this check replaces them
    (PIL's error, raised above twice ``Image.MAX_IMAGE_PIXELS`` before the size is known here, becomes the same
    refusal). Other failures (missing file, unknown format, corrupt data) raise what Image.open raises."""
    budget = active_budget()
    file_size(path, where, what)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            img = Image.open(path)
        except Image.DecompressionBombError as exc:
            raise budget.refuse("max_image_pixels", f"{what} {_shown(path)}: {exc}", where) from None
    with img:
        width, height = img.size
        budget.check_pixels(width, height, where, f"{what} {_shown(path)}")
        yield img


def _read(path: Path | str, size: int, where: Where, what: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            data = handle.read(size + 1)
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise _error(f"cannot read {what} {_shown(path)}: {reason}", where) from None
    if len(data) > size:  # it grew since stat: refuse rather than trust it
        raise _error(f"{what} {_shown(path)} changed while being read", where)
    return data


def _shown(path: Path | str, limit: int = 200) -> str:
    """A path for a message: at most `limit` characters (a hostile name can be megabytes long), NULs visible."""
    text = str(path).replace("\x00", "\\0")
    return text if len(text) <= limit else f"{text[:limit // 2]}...({len(text)} characters)...{text[-limit // 4:]}"


def _error(message: str, where: Where) -> WorldFileError:
    file, line, tag = where
    return WorldFileError(message, file=file, line=line, tag=tag)


__all__ = ["CHUNK_BYTES", "file_size", "gunzip", "open_image", "read_data_file", "read_world_file"]
