"""Settings of the resource cache: where it is (``$MVSIM_STORAGE_DIR``, else ``~/.cache/mvsim-storage``) and the
limits on downloads and zips, from explicit arguments, :func:`overrides` in effect, the environment or defaults
(see resources.py for what each limit bounds)."""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

#: Environment variables read by :func:`current_settings`.
ENV_STORAGE_DIR = "MVSIM_STORAGE_DIR"
ENV_OFFLINE = "MVSIM_OFFLINE"
ENV_TIMEOUT_S = "MVSIM_DOWNLOAD_TIMEOUT_S"
ENV_DEADLINE_S = "MVSIM_DOWNLOAD_DEADLINE_S"
ENV_MAX_DOWNLOAD_BYTES = "MVSIM_DOWNLOAD_MAX_BYTES"
ENV_ZIP_MAX_BYTES = "MVSIM_ZIP_MAX_BYTES"
ENV_ZIP_MAX_ENTRIES = "MVSIM_ZIP_MAX_ENTRIES"

#: Defaults: read timeout [s], whole-download deadline [s], download cap [bytes], uncompressed zip cap [bytes],
#: entries per zip.
DEFAULT_TIMEOUT_S = 20.0
DEFAULT_DEADLINE_S = 120.0
DEFAULT_MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024
DEFAULT_ZIP_MAX_BYTES = 1024 * 1024 * 1024
DEFAULT_ZIP_MAX_ENTRIES = 100_000
#: Sub-folder of the cache holding extracted local zips.
LOCAL_ZIP_FOLDER = "local"

#: URL schemes that are downloaded (redirects too may lead only to these).
REMOTE_SCHEMES = ("http", "https")
#: Values of a yes/no environment variable that mean yes (any letter case).
_TRUE = {"1", "true", "yes", "on"}
#: Bytes read or written at once while downloading or extracting [bytes].
CHUNK_BYTES = 1 << 16
#: Name prefix of the temporary files and folders in the cache (never taken for a cached file).
TEMP_PREFIX = ".mvsim_ros-tmp-"
#: Longest single wait [s] of the calling thread for a download's worker (a signal ends a wait at once anyway).
WAIT_SLICE_S = 0.1
#: Longest wait [s] for a cancelled worker to remove its temporary file before the caller goes on.
CANCEL_GRACE_S = 0.5


@dataclass(frozen=True)
class Settings:
    """Where the cache is and the limits on downloads and zips (see the module docstring for the variables).

    storage_dir: cache folder; timeout_s [s]: for connecting and for every read; deadline_s [s]: for the whole of
    one download, from the request to the last byte; max_download_bytes, zip_max_bytes [bytes]; zip_max_entries:
    entries per zip; offline: never download.
    """

    storage_dir: Path
    timeout_s: float = DEFAULT_TIMEOUT_S
    deadline_s: float = DEFAULT_DEADLINE_S
    max_download_bytes: int = DEFAULT_MAX_DOWNLOAD_BYTES
    zip_max_bytes: int = DEFAULT_ZIP_MAX_BYTES
    zip_max_entries: int = DEFAULT_ZIP_MAX_ENTRIES
    offline: bool = False


def current_settings(
    *,
    storage_dir: Path | str | None = None,
    timeout_s: float | None = None,
    offline: bool | None = None,
    deadline_s: float | None = None,
) -> Settings:
    """The settings in force: explicit arguments, then :func:`overrides` in effect, then environment, then defaults.

    Invalid environment values (not a positive number) are ignored: the default applies.
    """
    scoped = _OVERRIDES.get()
    env = os.environ
    if storage_dir is None:
        storage_dir = scoped.get("storage_dir")
    if storage_dir is None:
        storage_dir = env.get(ENV_STORAGE_DIR, "").strip() or None
    folder = Path(storage_dir).expanduser() if storage_dir is not None else _default_storage_dir()
    if timeout_s is None:
        timeout_s = scoped.get("timeout_s")
    if timeout_s is None:
        timeout_s = _positive_env(ENV_TIMEOUT_S, DEFAULT_TIMEOUT_S, float)
    if deadline_s is None:
        deadline_s = scoped.get("deadline_s")
    if deadline_s is None:
        deadline_s = _positive_env(ENV_DEADLINE_S, DEFAULT_DEADLINE_S, float)
    if offline is None:
        offline = scoped.get("offline")
    if offline is None:
        offline = env.get(ENV_OFFLINE, "").strip().lower() in _TRUE
    return Settings(
        storage_dir=Path(os.path.abspath(folder)),
        timeout_s=float(timeout_s),
        deadline_s=float(deadline_s),
        max_download_bytes=int(scoped.get("max_download_bytes")
                               or _positive_env(ENV_MAX_DOWNLOAD_BYTES, DEFAULT_MAX_DOWNLOAD_BYTES, int)),
        zip_max_bytes=int(scoped.get("zip_max_bytes") or _positive_env(ENV_ZIP_MAX_BYTES, DEFAULT_ZIP_MAX_BYTES, int)),
        zip_max_entries=int(scoped.get("zip_max_entries")
                            or _positive_env(ENV_ZIP_MAX_ENTRIES, DEFAULT_ZIP_MAX_ENTRIES, int)),
        offline=bool(offline),
    )


@contextlib.contextmanager
def overrides(**values) -> Iterator[None]:
    """Within the block (this thread / context only), settings given here win over the environment.

    Keys: storage_dir, timeout_s [s], deadline_s [s], offline, max_download_bytes, zip_max_bytes, zip_max_entries;
    None = keep.
    """
    unknown = set(values) - set(Settings.__dataclass_fields__)
    if unknown:
        raise TypeError(f"unknown resource settings: {', '.join(sorted(unknown))}")
    merged = dict(_OVERRIDES.get())
    merged.update({key: value for key, value in values.items() if value is not None})
    token = _OVERRIDES.set(merged)
    try:
        yield
    finally:
        _OVERRIDES.reset(token)


#: The settings given to :func:`overrides` in the current thread / context.
_OVERRIDES: contextvars.ContextVar[dict] = contextvars.ContextVar("mvsim_resource_overrides", default={})


def _default_storage_dir() -> Path:
    return Path.home() / ".cache" / "mvsim-storage"


def _positive_env(name: str, default, kind):
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = kind(float(text)) if kind is int else kind(text)
    except (TypeError, ValueError, OverflowError):
        return default
    return value if value > 0 and math.isfinite(value) else default


__all__ = ["CANCEL_GRACE_S", "CHUNK_BYTES", "DEFAULT_DEADLINE_S", "DEFAULT_MAX_DOWNLOAD_BYTES", "DEFAULT_TIMEOUT_S",
           "DEFAULT_ZIP_MAX_BYTES", "DEFAULT_ZIP_MAX_ENTRIES", "ENV_DEADLINE_S", "ENV_MAX_DOWNLOAD_BYTES",
           "ENV_OFFLINE", "ENV_STORAGE_DIR", "ENV_TIMEOUT_S", "ENV_ZIP_MAX_BYTES", "ENV_ZIP_MAX_ENTRIES",
           "LOCAL_ZIP_FOLDER", "REMOTE_SCHEMES", "Settings", "TEMP_PREFIX", "WAIT_SLICE_S",
           "current_settings", "overrides"]
