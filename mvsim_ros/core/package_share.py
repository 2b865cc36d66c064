"""This package's share directories: the ament index's (where a ROS 2 install puts its worlds, launch files and
configurations), for the code that looks world files up there, and the one of the compiled helper libraries."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path


def package_share_directory() -> Path | None:
    """`share/mvsim_ros` of the ament index, or None without an index (AMENT_PREFIX_PATH unset: a plain venv) or
    when the package is not in it."""
    try:
        from ament_index_python.packages import get_package_share_directory

        return Path(get_package_share_directory("mvsim_ros"))
    except (ImportError, LookupError, ValueError, OSError):
        return None


def native_share_dir() -> Path:
    """Where the compiled helper libraries (and the Box2D headers they build against) live: $MVSIM_NATIVE_DIR, or
    this interpreter's prefix/share/mvsim_ros (the venv)."""
    return Path(os.environ.get("MVSIM_NATIVE_DIR") or Path(sys.prefix) / "share" / "mvsim_ros")


def native_library_path(stem: str, source: Path, flags: list[str]) -> Path:
    """The library `source` builds to with `flags`: native/<stem>-<hash>.so in native_share_dir(), the hash covering
    the source and the flags, so an edited source is rebuilt beside (and instead of) the old one."""
    digest = hashlib.sha256(source.read_bytes() + " ".join(flags).encode()).hexdigest()[:12]
    return native_share_dir() / "native" / f"{stem}-{digest}.so"
