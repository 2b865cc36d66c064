"""Writing the report's files without following links: each file is written to a new temporary file in the output
folder, then renamed onto its name, so a symbolic link already at that name is replaced by the file, never written
through (its target is left as it was), and nobody sees a half-written file. The output folder itself may be a link:
it is followed."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable


def _file_mode() -> int:
    """Permission bits of a new file under the process's umask (0o666 masked)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def replace_file(path: Path, write: Callable[[BinaryIO], None]) -> Path:
    """Write the file at `path` with `write(handle)` (a binary file open for writing): into a new temporary file
    beside it, then renamed onto `path`. Returns `path`. Raises OSError when the folder cannot be written; the
    temporary file is removed on any failure."""
    path = Path(path)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            os.fchmod(handle.fileno(), _file_mode())
            write(handle)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    return path


def replace_text(path: Path, text: str) -> Path:
    """Write `text` (UTF-8) to the file at `path` as replace_file does. Returns `path`."""
    return replace_file(path, lambda handle: handle.write(text.encode("utf-8")))
