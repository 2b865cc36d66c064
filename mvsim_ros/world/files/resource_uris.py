"""Resource URIs as MVSim writes them, classified without touching the network: remote (http/https) or local,
a file inside a zip (``.../pack.zip/inner/file``), the absolute path a local URI names, and whether a zip lists
a member (its central directory only)."""

from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path


def is_remote_uri(uri: str) -> bool:
    """True for ``http://`` and ``https://`` URIs (any letter case)."""
    return uri.strip().lower().startswith(("http://", "https://"))


def split_zip_uri(uri: str) -> tuple[str, str] | None:
    """(``.../pack.zip``, ``inner/path``) at the first ``.zip/`` of the URI (as MVSim splits it), else None.

    In an http(s) URI only the path counts: a host name ending in ``.zip`` is not a zip file.
    """
    start = 0
    if is_remote_uri(uri):
        host_at = uri.find("://") + 3
        start = uri.find("/", host_at)
        if start < 0:
            return None
    pos = uri.find(".zip/", start)
    if pos < 0:
        return None
    return uri[:pos + 4], uri[pos + 5:]


def local_zip_parts(uri: str, base_dir: Path | str | None = None) -> tuple[Path, str] | None:
    """(zip file, inner path) when a local URI names a file inside an existing local zip, else None.

    The URI may be relative to base_dir, absolute, or ``file://``. Every ``.zip/`` of the absolute path is tried
    from the left, so a folder named ``x.zip`` above the real zip does not hide it. A path that is itself an
    existing file is not a zip member.
    """
    path = local_path(uri, base_dir)
    text = str(path)
    if path.is_file():
        return None
    start = 0
    while (pos := text.find(".zip/", start)) >= 0:
        candidate = Path(text[:pos + 4])
        if candidate.is_file():
            return candidate, text[pos + 5:]
        start = pos + 1
    return None


def local_path(uri: str, base_dir: Path | str | None = None) -> Path:
    """The absolute path a local URI names: ``file://`` stripped, ``~`` expanded, relative to base_dir (or cwd)."""
    text = uri.strip()
    if text.lower().startswith("file://"):
        text = text[len("file://"):]
    path = Path(text).expanduser()
    if not path.is_absolute():
        path = Path(base_dir if base_dir is not None else Path.cwd()) / path
    return Path(os.path.abspath(path))


def zip_member_problem(zip_path: Path, inner: str) -> str:
    """Why ``inner`` cannot be read from the zip file (one line), or "" when the zip lists it as a file.

    Reads only the zip's central directory (nothing is extracted).
    """
    parts, problem = zip_entry_parts(inner)
    if problem:
        return f"inner path {inner!r} {problem}"
    wanted = "/".join(parts)
    try:
        with zipfile.ZipFile(zip_path) as archive:
            names = {"/".join(zip_entry_parts(n)[0]) for n in archive.namelist() if not n.endswith(("/", "\\"))}
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        return f"cannot read zip file {zip_path}: {exc}"
    return "" if wanted in names else f"'{inner}' is not in zip file {zip_path}"


def zip_entry_parts(name: str) -> tuple[list[str], str]:
    """Path components of a zip entry / inner path, or a problem ('is an absolute path', ...)."""
    if "\x00" in name:
        return [], "has a NUL character"
    if name.startswith(("/", "\\")):
        return [], "is an absolute path"
    if re.match(r"^[A-Za-z]:", name):
        return [], "has a drive letter"
    parts = [p for p in re.split(r"[\\/]", name) if p not in ("", ".")]
    if ".." in parts:
        return [], "escapes the extraction folder ('..')"
    return parts, ""


__all__ = ["is_remote_uri", "local_path", "local_zip_parts", "split_zip_uri", "zip_entry_parts", "zip_member_problem"]
