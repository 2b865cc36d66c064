"""Resource URIs of MVSim world files turned into local files: downloads cached once, zips extracted safely.

The URI forms MVSim accepts wherever it resolves a file through its remote-resources manager (``<model_uri>``,
plane and terrain textures, skybox faces, ``<walls><model_uri>``):

=====================================================  ==========================================================
URI                                                    local file
=====================================================  ==========================================================
``http(s)://host/dir/model.dae``                       ``<cache>/model.dae``, downloaded once
``http(s)://host/dir/pack.zip/inner/dir/model.dae``    ``<cache>/pack.zip`` downloaded once, extracted into
                                                       ``<cache>/pack.out/``; the file is ``pack.out/inner/...``
``dir/model.dae``, ``/abs/model.dae``, ``file://...``  the file itself (relative to the XML file's folder)
``dir/models.zip/inner/model.dae`` (local zip)         extracted into ``<cache>/local/<sha256>/`` (the hash of the
                                                       zip's real path, size and modification time), never next
                                                       to the user's file
=====================================================  ==========================================================

``<cache>`` is ``$MVSIM_STORAGE_DIR``, else ``$HOME/.cache/mvsim-storage`` (MVSim's own folder and layout: a
cache filled by MVSim is used as it is; like MVSim, two URLs whose last path components are equal share one
cached file). A file already in the cache is served with no network access.

Downloads (urllib): only ``http``/``https``, redirects only to ``http``/``https``; a timeout for connecting and for
every read (``MVSIM_DOWNLOAD_TIMEOUT_S``, default 20 s); an overall deadline for the whole download, from the
request to the last byte, however the server paces its bytes (``MVSIM_DOWNLOAD_DEADLINE_S``, default 120 s); a size
cap (``MVSIM_DOWNLOAD_MAX_BYTES``, default 512 MiB); written to a temporary file in the cache and renamed when
complete, so no half-written file ever looks cached, even with two processes fetching the same file. After a
network failure (timeout, deadline, refused connection, DNS, TLS) a host is not tried again in the same process; a
URL that failed (HTTP 404, too large) is not requested again either. ``MVSIM_OFFLINE=1`` never downloads: cached
files only.

The transfer itself runs in a worker thread while the calling thread waits for it in slices of at most
``WAIT_SLICE_S``: the wait is a lock acquisition made from this module's own code, so a signal handler runs at once
and may raise there (KeyboardInterrupt, or the node's Interrupted: see ros/node/signals.py, which raises only in this
package's frames, never inside socket or http.client code). When the deadline passes or the wait is interrupted, the
worker's sockets are shut down, so it ends too and removes its temporary file.

During a world load the remote resources also obey the load's ResourceLimits (limits.py, node parameters
``load_max_download_seconds`` for one download and ``load_max_remote_seconds`` for all downloads of the load
together): the shortest of the deadlines applies, and a refusal names the one that was reached. A load whose time
for downloads is used up downloads nothing more (cached files are still served).

Zips (remote or local) are refused whole when any entry is an absolute path, has a drive letter or a ``..``
component, or is a symbolic link, or when the entries exceed ``MVSIM_ZIP_MAX_BYTES`` (default 1 GiB,
uncompressed; both the declared sizes and the bytes actually written count) or ``MVSIM_ZIP_MAX_ENTRIES`` (default
100,000). Extraction goes to a temporary folder that is renamed when complete. During a world load the bytes a zip
may inflate are also bounded by what is left of the load's ``max_decompressed_bytes`` (limits.py, node parameter
``load_max_decompressed_bytes``), and the bytes written are charged to it: the smaller of the two caps applies,
and a refusal names the one that was reached. (The environment variables stay the caps of the resource cache
itself, e.g. for ``fetch_models``; LoadLimits bounds what one load may cost.)

Nothing here raises to the caller: :func:`resolve_uri` returns a :class:`Resolution` whose ``path`` is None and
whose ``reason`` is one line when the resource is unavailable. Thread-safe: one lock per cache entry.

This module resolves a URI and holds the cache layout; the parts live beside it: resource_settings.py (settings
and their variables), resource_uris.py (URI forms), zip_extract.py (safe extraction) and downloads.py (bounded
downloads). Their public names are importable from here too, as the one interface of the resource cache.
"""


from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import threading
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from mvsim_ros.world.errors import one_line
from mvsim_ros.world.files.downloads import Unavailable, fetch, forget_failures
from mvsim_ros.world.files.resource_settings import (CANCEL_GRACE_S, DEFAULT_DEADLINE_S, DEFAULT_MAX_DOWNLOAD_BYTES,
                                                     DEFAULT_TIMEOUT_S, DEFAULT_ZIP_MAX_BYTES, DEFAULT_ZIP_MAX_ENTRIES,
                                                     ENV_DEADLINE_S, ENV_MAX_DOWNLOAD_BYTES, ENV_OFFLINE,
                                                     ENV_STORAGE_DIR, ENV_TIMEOUT_S, ENV_ZIP_MAX_BYTES,
                                                     ENV_ZIP_MAX_ENTRIES, LOCAL_ZIP_FOLDER, TEMP_PREFIX, WAIT_SLICE_S,
                                                     Settings, current_settings, overrides)
from mvsim_ros.world.files.resource_uris import (is_remote_uri, local_path, local_zip_parts, split_zip_uri,
                                                 zip_entry_parts, zip_member_problem)
from mvsim_ros.world.files.zip_extract import extract_zip, safe_extract
from mvsim_ros.world.xml.budget import active_budget, in_load, limit_text


@dataclass(frozen=True)
class Resolution:
    """Where a resource URI lives on this machine.

    path: the local file, or None when it is unavailable; reason: why not (one line; "" when found);
    source: "local" (a plain local file), "cached" (already in the cache or extracted from a local zip),
    "downloaded" (fetched by this call) or "failed"; downloaded_bytes: bytes this call downloaded.
    """

    uri: str
    path: Path | None
    reason: str = ""
    source: str = "failed"
    downloaded_bytes: int = 0

    @property
    def ok(self) -> bool:
        """True when the resource is available (``path`` is a local file)."""
        return self.path is not None


def resolve_uri(
    uri: str,
    base_dir: Path | str | None = None,
    *,
    storage_dir: Path | str | None = None,
    timeout_s: float | None = None,
    offline: bool | None = None,
    deadline_s: float | None = None,
) -> Resolution:
    """The local file a resource URI names, downloading / extracting it into the cache when needed.

    base_dir: folder relative local paths resolve against (the XML file's); storage_dir, timeout_s [s], offline,
    deadline_s [s]: override the settings (see :func:`current_settings`). Never raises an Exception: an unavailable
    resource gives a Resolution with path None and a one-line reason. A signal handler's exception
    (KeyboardInterrupt, ...) raised while a download is awaited propagates, once the download is cancelled.
    """
    text = (uri or "").strip()
    if not text:
        return Resolution(text, None, "empty URI")
    try:
        settings = current_settings(storage_dir=storage_dir, timeout_s=timeout_s, offline=offline,
                                    deadline_s=deadline_s)
        if is_remote_uri(text):
            return _resolve_remote(text, settings)
        return _resolve_local(text, base_dir, settings)
    except Unavailable as exc:
        return Resolution(text, None, str(exc))
    except Exception as exc:  # noqa: BLE001 - a resource problem must never stop a world from loading
        return Resolution(text, None, one_line(f"{exc.__class__.__name__}: {exc}"))


_LOCK = threading.Lock()
#: Cache entry (file or extraction folder) -> the lock held while it is being made.
_ENTRY_LOCKS: dict[str, threading.Lock] = {}


def _entry_lock(key: str) -> threading.Lock:
    with _LOCK:
        return _ENTRY_LOCKS.setdefault(key, threading.Lock())


def _resolve_local(text: str, base_dir: Path | str | None, settings: Settings) -> Resolution:
    path = local_path(text, base_dir)
    if path.is_file():
        return Resolution(text, path, "", "local")
    parts = local_zip_parts(text, base_dir)
    if parts is None:
        zipped = split_zip_uri(str(path))
        if zipped is not None and not Path(zipped[0]).exists():
            raise Unavailable(f"zip file not found: {zipped[0]}")
        raise Unavailable(f"file not found: {path}")
    zip_path, inner = parts
    real = zip_path.resolve()
    stat = real.stat()
    digest = hashlib.sha256(f"{real}\0{stat.st_size}\0{stat.st_mtime_ns}".encode("utf-8", "surrogateescape"))
    out_dir = settings.storage_dir / LOCAL_ZIP_FOLDER / digest.hexdigest()
    with _entry_lock(str(out_dir)):
        _ensure_extracted(real, out_dir, settings)
    return Resolution(text, _member(out_dir, inner, zip_path), "", "cached")


def _resolve_remote(uri: str, settings: Settings) -> Resolution:
    zipped = split_zip_uri(uri)
    file_url = zipped[0] if zipped else uri
    cached = settings.storage_dir / _cache_name(file_url)
    if zipped is not None and not cached.name.endswith(".zip"):
        raise Unavailable(f"not a zip file URL: {file_url}")
    fetched = 0
    with _entry_lock(str(cached)):
        if not cached.is_file():
            fetched = fetch(file_url, cached, settings)
        if zipped is None:
            return Resolution(uri, cached, "", "downloaded" if fetched else "cached", fetched)
        out_dir = cached.with_name(cached.name[:-len(".zip")] + ".out")
        _ensure_extracted(cached, out_dir, settings)
    return Resolution(uri, _member(out_dir, zipped[1], cached), "", "downloaded" if fetched else "cached", fetched)


def _cache_name(url: str) -> str:
    """The cache file name of a URL: its last path component (MVSim's layout; ``name.`` without an extension)."""
    name = urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1]
    if name in ("", ".", "..") or "\\" in name or "\x00" in name or name.startswith(TEMP_PREFIX):
        raise Unavailable(f"the URL names no file: {url}")
    return name if "." in name else name + "."


def _member(out_dir: Path, inner: str, zip_path: Path) -> Path:
    parts, problem = zip_entry_parts(inner)
    if problem:
        raise Unavailable(f"inner path {inner!r} {problem}")
    target = out_dir.joinpath(*parts)
    if not parts or not target.is_file():
        raise Unavailable(f"'{inner}' is not in zip file {zip_path.name}")
    return target


def _ensure_extracted(zip_path: Path, out_dir: Path, settings: Settings) -> None:
    """Extract zip_path into out_dir unless that folder exists (temp folder + rename: never half-extracted)."""
    if out_dir.is_dir():
        return
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX, dir=out_dir.parent))
    try:
        max_bytes, label = settings.zip_max_bytes, ENV_ZIP_MAX_BYTES
        budget = active_budget() if in_load() else None
        if budget is not None and budget.decompressed_room() < max_bytes:
            max_bytes = budget.decompressed_room()
            label = f"what is left of the {limit_text('max_decompressed_bytes', budget.limits.max_decompressed_bytes)}"
        reason, written = extract_zip(zip_path, temp, max_bytes, settings.zip_max_entries, label)
        if budget is not None:
            budget.decompressed_bytes += written
        if reason:
            raise Unavailable(f"{zip_path.name}: {reason}")
        try:
            os.rename(temp, out_dir)
        except OSError:
            if not out_dir.is_dir():  # else another process finished the same extraction first
                raise
    finally:
        shutil.rmtree(temp, ignore_errors=True)


__all__ = [
    "CANCEL_GRACE_S",
    "DEFAULT_DEADLINE_S",
    "DEFAULT_MAX_DOWNLOAD_BYTES",
    "DEFAULT_TIMEOUT_S",
    "DEFAULT_ZIP_MAX_BYTES",
    "DEFAULT_ZIP_MAX_ENTRIES",
    "ENV_DEADLINE_S",
    "ENV_MAX_DOWNLOAD_BYTES",
    "ENV_OFFLINE",
    "ENV_STORAGE_DIR",
    "ENV_TIMEOUT_S",
    "ENV_ZIP_MAX_BYTES",
    "ENV_ZIP_MAX_ENTRIES",
    "Resolution",
    "Settings",
    "current_settings",
    "forget_failures",
    "is_remote_uri",
    "local_path",
    "local_zip_parts",
    "overrides",
    "resolve_uri",
    "safe_extract",
    "split_zip_uri",
    "WAIT_SLICE_S",
    "zip_member_problem",
]
