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
and may raise there (KeyboardInterrupt, or the node's Interrupted: see ros/signals.py, which raises only in this
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
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import http.client
import math
import os
import re
import shutil
import socket
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import weakref
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from mvsim_ros.world.xml.budget import LoadBudget, active_budget, in_load, limit_text
from mvsim_ros.world.xml.limits import resource_limits

#: Environment variables read by :func:`current_settings`.
ENV_STORAGE_DIR = "MVSIM_STORAGE_DIR"
ENV_OFFLINE = "MVSIM_OFFLINE"
ENV_TIMEOUT_S = "MVSIM_DOWNLOAD_TIMEOUT_S"
ENV_DEADLINE_S = "MVSIM_DOWNLOAD_DEADLINE_S"
ENV_MAX_DOWNLOAD_BYTES = "MVSIM_DOWNLOAD_MAX_BYTES"
ENV_ZIP_MAX_BYTES = "MVSIM_ZIP_MAX_BYTES"
ENV_ZIP_MAX_ENTRIES = "MVSIM_ZIP_MAX_ENTRIES"

DEFAULT_TIMEOUT_S = 20.0
DEFAULT_DEADLINE_S = 120.0
DEFAULT_MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024
DEFAULT_ZIP_MAX_BYTES = 1024 * 1024 * 1024
DEFAULT_ZIP_MAX_ENTRIES = 100_000
#: Sub-folder of the cache holding extracted local zips.
LOCAL_ZIP_FOLDER = "local"

_REMOTE_SCHEMES = ("http", "https")
_TRUE = {"1", "true", "yes", "on"}
_CHUNK_BYTES = 1 << 16
_TEMP_PREFIX = ".mvsim_ros-tmp-"
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
    parts, problem = _clean_parts(inner)
    if problem:
        return f"inner path {inner!r} {problem}"
    wanted = "/".join(parts)
    try:
        with zipfile.ZipFile(zip_path) as archive:
            names = {"/".join(_clean_parts(n)[0]) for n in archive.namelist() if not n.endswith(("/", "\\"))}
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        return f"cannot read zip file {zip_path}: {exc}"
    return "" if wanted in names else f"'{inner}' is not in zip file {zip_path}"


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


def forget_failures() -> None:
    """Let hosts and URLs that failed earlier in this process be tried again."""
    with _LOCK:
        _FAILED_HOSTS.clear()
        _FAILED_URLS.clear()


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
    except _Unavailable as exc:
        return Resolution(text, None, str(exc))
    except Exception as exc:  # noqa: BLE001 - a resource problem must never stop a world from loading
        return Resolution(text, None, _one_line(f"{exc.__class__.__name__}: {exc}"))


def safe_extract(zip_path: Path, dest: Path, *, max_bytes: int = DEFAULT_ZIP_MAX_BYTES,
                 max_entries: int = DEFAULT_ZIP_MAX_ENTRIES) -> str:
    """Extract a zip into the folder dest (created), or refuse it: returns "" when done, else the reason.

    Refused whole, before anything is written, for an entry with an absolute path, a drive letter, a ``..``
    component or a symbolic link, more than max_entries entries, or declared sizes over max_bytes
    (uncompressed); and while writing, as soon as the bytes written exceed max_bytes (declared sizes can lie).
    Files get default permissions (the zip's modes are not applied). On refusal dest may hold partial output:
    extract into a temporary folder.
    """
    return _extract(zip_path, dest, max_bytes, max_entries, ENV_ZIP_MAX_BYTES)[0]


def _extract(zip_path: Path, dest: Path, max_bytes: int, max_entries: int, bytes_limit: str) -> tuple[str, int]:
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
                parts, problem = _clean_parts(info.filename)
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
                    while chunk := source.read(_CHUNK_BYTES):
                        written += len(chunk)
                        if written > max_bytes:
                            return (f"zip refused: more than {max_bytes} bytes uncompressed ({bytes_limit}; "
                                    "its declared sizes are wrong)", written)
                        out.write(chunk)
    except zipfile.BadZipFile as exc:
        return _one_line(f"not a valid zip file ({exc})"), written
    except (RuntimeError, NotImplementedError) as exc:  # encrypted entries, unsupported compression
        return _one_line(f"cannot extract the zip: {exc}"), written
    except (OSError, EOFError, zlib.error, ValueError) as exc:
        return _one_line(f"cannot extract the zip: {exc.__class__.__name__}: {exc}"), written
    return "", written


# --------------------------------------------------------------------------------------------------


class _Unavailable(Exception):
    """A resource cannot be had; the message is the one-line reason."""


class _NetworkFailure(_Unavailable):
    """The host could not be talked to (timeout, deadline, refused connection, DNS, TLS): do not try it again."""


class _OutOfTime(_Unavailable):
    """The load's time for downloads is used up: neither the host nor the URL is at fault (both stay usable)."""


class _Cancelled(Exception):
    """The caller stopped waiting for this download (deadline or signal); raised in the worker thread."""


_OVERRIDES: contextvars.ContextVar[dict] = contextvars.ContextVar("mvsim_resource_overrides", default={})
_LOCK = threading.Lock()
_ENTRY_LOCKS: dict[str, threading.Lock] = {}
#: host[:port] -> reason of its network failure; URL -> reason of its failure (HTTP error, too large, ...)
_FAILED_HOSTS: dict[str, str] = {}
_FAILED_URLS: dict[str, str] = {}
#: Load budget -> wall time [s] that load has spent downloading so far.
_LOAD_SECONDS: weakref.WeakKeyDictionary[LoadBudget, float] = weakref.WeakKeyDictionary()


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


def _entry_lock(key: str) -> threading.Lock:
    with _LOCK:
        return _ENTRY_LOCKS.setdefault(key, threading.Lock())


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _clean_parts(name: str) -> tuple[list[str], str]:
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


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    return (info.external_attr >> 16) & 0o170000 == 0o120000


def _resolve_local(text: str, base_dir: Path | str | None, settings: Settings) -> Resolution:
    path = local_path(text, base_dir)
    if path.is_file():
        return Resolution(text, path, "", "local")
    parts = local_zip_parts(text, base_dir)
    if parts is None:
        zipped = split_zip_uri(str(path))
        if zipped is not None and not Path(zipped[0]).exists():
            raise _Unavailable(f"zip file not found: {zipped[0]}")
        raise _Unavailable(f"file not found: {path}")
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
        raise _Unavailable(f"not a zip file URL: {file_url}")
    fetched = 0
    with _entry_lock(str(cached)):
        if not cached.is_file():
            fetched = _fetch(file_url, cached, settings)
        if zipped is None:
            return Resolution(uri, cached, "", "downloaded" if fetched else "cached", fetched)
        out_dir = cached.with_name(cached.name[:-len(".zip")] + ".out")
        _ensure_extracted(cached, out_dir, settings)
    return Resolution(uri, _member(out_dir, zipped[1], cached), "", "downloaded" if fetched else "cached", fetched)


def _cache_name(url: str) -> str:
    """The cache file name of a URL: its last path component (MVSim's layout; ``name.`` without an extension)."""
    name = urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1]
    if name in ("", ".", "..") or "\\" in name or "\x00" in name or name.startswith(_TEMP_PREFIX):
        raise _Unavailable(f"the URL names no file: {url}")
    return name if "." in name else name + "."


def _member(out_dir: Path, inner: str, zip_path: Path) -> Path:
    parts, problem = _clean_parts(inner)
    if problem:
        raise _Unavailable(f"inner path {inner!r} {problem}")
    target = out_dir.joinpath(*parts)
    if not parts or not target.is_file():
        raise _Unavailable(f"'{inner}' is not in zip file {zip_path.name}")
    return target


def _ensure_extracted(zip_path: Path, out_dir: Path, settings: Settings) -> None:
    """Extract zip_path into out_dir unless that folder exists (temp folder + rename: never half-extracted)."""
    if out_dir.is_dir():
        return
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=_TEMP_PREFIX, dir=out_dir.parent))
    try:
        max_bytes, label = settings.zip_max_bytes, ENV_ZIP_MAX_BYTES
        budget = active_budget() if in_load() else None
        if budget is not None and budget.decompressed_room() < max_bytes:
            max_bytes = budget.decompressed_room()
            label = f"what is left of the {limit_text('max_decompressed_bytes', budget.limits.max_decompressed_bytes)}"
        reason, written = _extract(zip_path, temp, max_bytes, settings.zip_max_entries, label)
        if budget is not None:
            budget.decompressed_bytes += written
        if reason:
            raise _Unavailable(f"{zip_path.name}: {reason}")
        try:
            os.rename(temp, out_dir)
        except OSError:
            if not out_dir.is_dir():  # else another process finished the same extraction first
                raise
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _fetch(url: str, dest: Path, settings: Settings) -> int:
    """Download url into dest (temp file + rename); the byte count. Raises _Unavailable with the reason."""
    host = urllib.parse.urlsplit(url).netloc.rsplit("@", 1)[-1].lower()
    if settings.offline:
        raise _Unavailable(f"offline ({ENV_OFFLINE}=1) and not in the cache: {dest}")
    with _LOCK:
        host_failure = _FAILED_HOSTS.get(host)
        url_failure = _FAILED_URLS.get(url)
    if host_failure is not None:
        raise _Unavailable(f"host {host} failed earlier in this process ({host_failure}); not tried again")
    if url_failure is not None:
        raise _Unavailable(f"{url_failure} (earlier in this process; not requested again)")
    deadline = _deadline(settings)
    started = time.monotonic()
    try:
        return _download(url, dest, settings, deadline)
    except _OutOfTime:
        raise
    except _NetworkFailure as exc:
        with _LOCK:
            _FAILED_HOSTS[host] = str(exc)
        raise
    except _Unavailable as exc:
        with _LOCK:
            _FAILED_URLS[url] = str(exc)
        raise
    finally:
        _charge_load(time.monotonic() - started)


@dataclass(frozen=True)
class _Deadline:
    """The wall time [s] one download may take, the limit that sets it (for messages), and whether that limit is
    what is left of the load's time for all its downloads (then running out is not the host's fault)."""

    seconds: float
    label: str
    load_total: bool = False


def _deadline(settings: Settings) -> _Deadline:
    """The shortest of the cache's deadline and, during a load, the load's per-download and remaining total time.
    Raises _OutOfTime when the load has no time left for downloads."""
    best = _Deadline(settings.deadline_s, ENV_DEADLINE_S)
    if not in_load():
        return best
    budget = active_budget()
    limits = resource_limits(budget.limits)
    one_text = limit_text("max_download_seconds", limits.max_download_seconds)
    one = _Deadline(float(limits.max_download_seconds), one_text)
    with _LOCK:
        spent = _LOAD_SECONDS.get(budget, 0.0)
    total_text = limit_text("max_remote_seconds", limits.max_remote_seconds)
    left = limits.max_remote_seconds - spent
    if left <= 0.0:
        raise _OutOfTime(f"no time left for downloads in this load: {spent:.1f} s spent ({total_text})")
    rest = _Deadline(left, f"what is left of the {total_text}", load_total=True)
    return min((best, one, rest), key=lambda item: item.seconds)


def _charge_load(seconds: float) -> None:
    """Count `seconds` [s] of downloading against the load in progress (nothing outside a load)."""
    if not in_load():
        return
    budget = active_budget()
    with _LOCK:
        _LOAD_SECONDS[budget] = _LOAD_SECONDS.get(budget, 0.0) + seconds


class _HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
    """Follows redirects only to http/https URLs."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        scheme = urllib.parse.urlsplit(urllib.parse.urljoin(req.full_url, newurl)).scheme.lower()
        if scheme not in _REMOTE_SCHEMES:
            raise urllib.error.HTTPError(newurl, code, f"redirect to a non-http(s) URL refused: {newurl}",
                                         headers, fp)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class _Transfer:
    """One download, run by a worker thread; the calling thread waits for it (`wait`) and may cancel it.

    Every socket the worker opens (redirects included) is recorded, so that `cancel` can shut them down: a worker
    blocked in a read then returns at once, removes its temporary file and ends."""

    def __init__(self, url: str, dest: Path, settings: Settings):
        self.url, self.dest, self.settings = url, dest, settings
        #: Bytes of the body received so far.
        self.received = 0
        self.total = 0
        self.error: Exception | None = None
        self._finished = threading.Lock()
        self._finished.acquire()  # released by the worker when it ends
        self._guard = threading.Lock()
        self._cancelled = False
        self._committed = False
        self._sockets: list[socket.socket] = []

    def start(self) -> None:
        """Run the download in a daemon thread (a process exiting does not wait for it)."""
        threading.Thread(target=self._run, name="mvsim_ros-download", daemon=True).start()

    def wait(self, seconds: float) -> bool:
        """Wait at most `seconds` [s] for the worker to end; True when it did. Waits in slices of WAIT_SLICE_S on
        a lock, from this frame: a signal handler runs (and may raise) here at once."""
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0.0:
                return False
            if self._finished.acquire(timeout=min(left, WAIT_SLICE_S)):
                self._finished.release()
                return True

    def cancel(self) -> bool:
        """Stop the worker (its sockets shut down); False when it had already put the file in place."""
        with self._guard:
            if self._committed:
                return False
            self._cancelled = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)
        return True

    def track(self, sock: socket.socket) -> None:
        """Record a socket the worker opened (shut at once if the transfer is already cancelled)."""
        with self._guard:
            self._sockets.append(sock)
            cancelled = self._cancelled
        if cancelled:
            _shut(sock)

    def check(self) -> None:
        """In the worker: raise _Cancelled when the caller has given up."""
        if self._cancelled:
            raise _Cancelled()

    def commit(self, temp: Path) -> None:
        """In the worker: rename the complete temporary file to the cached name, unless cancelled first."""
        with self._guard:
            if self._cancelled:
                raise _Cancelled()
            _disk(os.replace, temp, self.dest, dest=self.dest)
            self._committed = True

    def _run(self) -> None:
        try:
            self.total = _get(self)
        except Exception as exc:  # noqa: BLE001 - handed to the waiting thread
            self.error = exc
        finally:
            self._finished.release()


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # already closed or never connected
        pass


class _Tracked:
    """Mixed into an http.client connection: it hands its socket (TLS or not) to its transfer once connected."""

    def __init__(self, *args, transfer: _Transfer, **kwargs):
        super().__init__(*args, **kwargs)
        self._transfer = transfer

    def connect(self) -> None:
        super().connect()
        self._transfer.track(self.sock)


class _TrackedHTTPConnection(_Tracked, http.client.HTTPConnection):
    """An HTTP connection tracked by its transfer."""


class _TrackedHTTPSConnection(_Tracked, http.client.HTTPSConnection):
    """An HTTPS connection tracked by its transfer."""


class _TrackedHTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, transfer: _Transfer):
        super().__init__()
        self._transfer = transfer

    def http_open(self, req):
        return self.do_open(_TrackedHTTPConnection, req, transfer=self._transfer)


class _TrackedHTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, transfer: _Transfer):
        super().__init__()
        self._transfer = transfer

    def https_open(self, req):
        return self.do_open(_TrackedHTTPSConnection, req, context=self._context, transfer=self._transfer)


def _opener(transfer: _Transfer) -> urllib.request.OpenerDirector:
    opener = urllib.request.OpenerDirector()
    for handler in (urllib.request.ProxyHandler(), urllib.request.UnknownHandler(), _TrackedHTTPHandler(transfer),
                    _TrackedHTTPSHandler(transfer), urllib.request.HTTPDefaultErrorHandler(), _HttpOnlyRedirects(),
                    urllib.request.HTTPErrorProcessor()):
        opener.add_handler(handler)
    return opener


def _download(url: str, dest: Path, settings: Settings, deadline: _Deadline) -> int:
    """GET url into dest within `deadline`; the byte count. Nothing is written (not even the cache folder) before
    the server answers. The transfer runs in a worker thread (see the module's docstring); whatever ends the wait
    (the deadline, a signal handler's exception) cancels it."""
    if urllib.parse.urlsplit(url).scheme.lower() not in _REMOTE_SCHEMES:
        raise _Unavailable(f"only http and https URLs are downloaded: {url}")
    transfer = _Transfer(url, dest, settings)
    transfer.start()
    try:
        finished = transfer.wait(deadline.seconds)
    except BaseException:  # a signal handler's exception: stop the worker, then let it through
        _stop(transfer)
        raise
    if not finished and _stop(transfer):
        kind = _OutOfTime if deadline.load_total else _NetworkFailure
        raise kind(f"download deadline of {deadline.seconds:.3g} s reached after {transfer.received} bytes "
                   f"({deadline.label})")
    if not finished:  # the whole file was put in place just as the deadline passed
        return transfer.received
    if transfer.error is not None:
        raise transfer.error
    return transfer.total


def _stop(transfer: _Transfer) -> bool:
    """Cancel a transfer and give its worker CANCEL_GRACE_S to remove its temporary file; False when the worker
    had already put the whole file in place (nothing was cancelled)."""
    cancelled = transfer.cancel()
    transfer.wait(CANCEL_GRACE_S)
    return cancelled


def _get(transfer: _Transfer) -> int:
    """The worker's part of a download: request, checks and `_save`; errors become _Unavailable / _NetworkFailure."""
    settings = transfer.settings
    cap, timeout = settings.max_download_bytes, settings.timeout_s
    request = urllib.request.Request(transfer.url, headers={"User-Agent": "mvsim_ros"})
    try:
        with _opener(transfer).open(request, timeout=timeout) as response:
            transfer.check()
            length = response.headers.get("Content-Length", "").strip()
            if length.isdigit() and int(length) > cap:
                raise _Unavailable(f"too large: {int(length)} bytes, over the {cap}-byte cap "
                                   f"({ENV_MAX_DOWNLOAD_BYTES})")
            return _save(response, transfer, cap, int(length) if length.isdigit() else None)
    except (_Unavailable, _Cancelled):
        raise
    except urllib.error.HTTPError as exc:
        raise _Unavailable(_one_line(f"HTTP {exc.code} {exc.reason}")) from None
    except TimeoutError:
        raise _NetworkFailure(f"timed out after {timeout:g} s") from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise _NetworkFailure(f"timed out after {timeout:g} s") from None
        raise _NetworkFailure(_one_line(f"cannot reach the host: {exc.reason}")) from None
    except (http.client.HTTPException, OSError) as exc:
        raise _NetworkFailure(_one_line(f"connection failed: {exc.__class__.__name__}: {exc}")) from None


def _save(response, transfer: _Transfer, cap: int, expected: int | None) -> int:
    """Stream a response body (at most cap bytes) into a temporary file beside the transfer's dest, renamed to dest
    when complete (all `expected` bytes, the Content-Length, when the server gave one) unless the transfer was
    cancelled.

    Read errors propagate and a body cut short is a _NetworkFailure (the network's fault); write errors become
    _Unavailable (the disk's). Reads take what has arrived (`read1`), so `transfer.received` follows the body.
    """
    dest = transfer.dest
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        handle, temp_name = tempfile.mkstemp(prefix=_TEMP_PREFIX, suffix=".part", dir=dest.parent)
    except OSError as exc:
        raise _Unavailable(_one_line(f"cannot write to the cache folder {dest.parent}: {exc}")) from None
    temp = Path(temp_name)
    total = 0
    try:
        with os.fdopen(handle, "wb") as out:
            while chunk := response.read1(_CHUNK_BYTES):
                transfer.check()
                total += len(chunk)
                transfer.received = total
                if total > cap:
                    raise _Unavailable(f"too large: over the {cap}-byte cap ({ENV_MAX_DOWNLOAD_BYTES})")
                _disk(out.write, chunk, dest=dest)
            transfer.check()
            if expected is not None and total < expected:
                raise _NetworkFailure(f"connection closed after {total} of {expected} bytes")
            _disk(out.flush, dest=dest)
            _disk(os.fsync, out.fileno(), dest=dest)
        transfer.commit(temp)
    finally:
        temp.unlink(missing_ok=True)
    return total


def _disk(operation, *args, dest: Path):
    try:
        return operation(*args)
    except OSError as exc:  # a full disk is not the host's fault
        raise _Unavailable(_one_line(f"cannot write to the cache folder {dest.parent}: {exc}")) from None


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
