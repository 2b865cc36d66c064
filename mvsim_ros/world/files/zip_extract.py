"""Zip extraction that refuses unsafe archives whole: entries with an absolute path, a drive letter, a ``..``
component or a symbolic link, too many entries, or more uncompressed bytes than allowed (declared sizes and the
bytes actually written both count)."""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

from mvsim_ros.world.errors import one_line
from mvsim_ros.world.files.resource_settings import (CHUNK_BYTES, DEFAULT_ZIP_MAX_BYTES, DEFAULT_ZIP_MAX_ENTRIES,
                                                     ENV_ZIP_MAX_BYTES, ENV_ZIP_MAX_ENTRIES)
from mvsim_ros.world.files.resource_uris import zip_entry_parts


def safe_extract(zip_path: Path, dest: Path, *, max_bytes: int = DEFAULT_ZIP_MAX_BYTES,
                 max_entries: int = DEFAULT_ZIP_MAX_ENTRIES) -> str:
    """Extract a zip into the folder dest (created), or refuse it: returns "" when done, else the reason.

    Refused whole, before anything is written, for an entry with an absolute path, a drive letter, a ``..``
    component or a symbolic link, more than max_entries entries, or declared sizes over max_bytes
    (uncompressed); and while writing, as soon as the bytes written exceed max_bytes (declared sizes can lie).
    Files get default permissions (the zip's modes are not applied). On refusal dest may hold partial output:
    extract into a temporary folder.
    """
    return extract_zip(zip_path, dest, max_bytes, max_entries, ENV_ZIP_MAX_BYTES)[0]


def extract_zip(zip_path: Path, dest: Path, max_bytes: int, max_entries: int, bytes_limit: str) -> tuple[str, int]:
    """safe_extract's work: (reason or "", bytes written); `bytes_limit` names the byte cap in refusals."""
    written = 0
    try:
        with zipfile.ZipFile(zip_path) as archive:
            infos = archive.infolist()
            if len(infos) > max_entries:
                return (f"zip refused: {len(infos)} entries, over the limit of {max_entries} ({ENV_ZIP_MAX_ENTRIES})",
                        0)
            plan: list[tuple[zipfile.ZipInfo, list[str]]] = []
            declared = 0
            for info in infos:
                parts, problem = zip_entry_parts(info.filename)
                if not problem and _is_symlink(info):
                    problem = "is a symbolic link"
                if problem:
                    return f"zip refused: entry {info.filename!r} {problem}", 0
                declared += max(info.file_size, 0)
                plan.append((info, parts))
            if declared > max_bytes:
                return f"zip refused: {declared} bytes uncompressed, over the limit of {max_bytes} ({bytes_limit})", 0
            dest.mkdir(parents=True, exist_ok=True)
            for info, parts in plan:
                target = dest.joinpath(*parts)
                if info.is_dir() or not parts:
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(info) as source, open(target, "wb") as out:
                    while chunk := source.read(CHUNK_BYTES):
                        written += len(chunk)
                        if written > max_bytes:
                            return (f"zip refused: more than {max_bytes} bytes uncompressed ({bytes_limit}; "
                                    "its declared sizes are wrong)", written)
                        out.write(chunk)
    except zipfile.BadZipFile as exc:
        return one_line(f"not a valid zip file ({exc})"), written
    except (RuntimeError, NotImplementedError) as exc:  # encrypted entries, unsupported compression
        return one_line(f"cannot extract the zip: {exc}"), written
    except (OSError, EOFError, zlib.error, ValueError) as exc:
        return one_line(f"cannot extract the zip: {exc.__class__.__name__}: {exc}"), written
    return "", written


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    return (info.external_attr >> 16) & 0o170000 == 0o120000


__all__ = ["extract_zip", "safe_extract"]
