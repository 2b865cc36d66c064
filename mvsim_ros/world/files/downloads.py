"""Downloads into the resource cache, bounded in time and size (see resources.py for the limits and the variables).

The transfer runs in a worker thread while the calling thread waits for it in slices of at most ``WAIT_SLICE_S``:
the wait is a lock acquisition made from this module's own code, so a signal handler runs at once and may raise
there. When the deadline passes or the wait is interrupted, the worker's sockets are shut down, so it ends too and
removes its temporary file. A host that failed on the network, or a URL that failed (HTTP error, too large), is
not tried again in the same process; during a world load the download time is charged to the load's budget."""

from __future__ import annotations

import http.client
import os
import socket
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import weakref
from dataclasses import dataclass
from pathlib import Path

from mvsim_ros.world.errors import one_line
from mvsim_ros.world.files.resource_settings import (CANCEL_GRACE_S, CHUNK_BYTES, ENV_DEADLINE_S,
                                                     ENV_MAX_DOWNLOAD_BYTES, ENV_OFFLINE, REMOTE_SCHEMES,
                                                     TEMP_PREFIX, WAIT_SLICE_S, Settings)
from mvsim_ros.world.xml.budget import LoadBudget, active_budget, in_load, limit_text
from mvsim_ros.world.xml.limits import resource_limits


class Unavailable(Exception):
    """A resource cannot be had; the message is the one-line reason."""


class _NetworkFailure(Unavailable):
    """The host could not be talked to (timeout, deadline, refused connection, DNS, TLS): do not try it again."""


class _OutOfTime(Unavailable):
    """The load's time for downloads is used up: neither the host nor the URL is at fault (both stay usable)."""


class _Cancelled(Exception):
    """The caller stopped waiting for this download (deadline or signal); raised in the worker thread."""


_LOCK = threading.Lock()
#: host[:port] -> reason of its network failure; URL -> reason of its failure (HTTP error, too large, ...)
_FAILED_HOSTS: dict[str, str] = {}
_FAILED_URLS: dict[str, str] = {}
#: Load budget -> wall time [s] that load has spent downloading so far.
_LOAD_SECONDS: weakref.WeakKeyDictionary[LoadBudget, float] = weakref.WeakKeyDictionary()


def forget_failures() -> None:
    """Let hosts and URLs that failed earlier in this process be tried again."""
    with _LOCK:
        _FAILED_HOSTS.clear()
        _FAILED_URLS.clear()


def fetch(url: str, dest: Path, settings: Settings) -> int:
    """Download url into dest (temp file + rename); the byte count. Raises Unavailable with the reason."""
    host = urllib.parse.urlsplit(url).netloc.rsplit("@", 1)[-1].lower()
    if settings.offline:
        raise Unavailable(f"offline ({ENV_OFFLINE}=1) and not in the cache: {dest}")
    with _LOCK:
        host_failure = _FAILED_HOSTS.get(host)
        url_failure = _FAILED_URLS.get(url)
    if host_failure is not None:
        raise Unavailable(f"host {host} failed earlier in this process ({host_failure}); not tried again")
    if url_failure is not None:
        raise Unavailable(f"{url_failure} (earlier in this process; not requested again)")
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
    except Unavailable as exc:
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
        if scheme not in REMOTE_SCHEMES:
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
    if urllib.parse.urlsplit(url).scheme.lower() not in REMOTE_SCHEMES:
        raise Unavailable(f"only http and https URLs are downloaded: {url}")
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
    """The worker's part of a download: request, checks and `_save`; errors become Unavailable / _NetworkFailure."""
    settings = transfer.settings
    cap, timeout = settings.max_download_bytes, settings.timeout_s
    request = urllib.request.Request(transfer.url, headers={"User-Agent": "mvsim_ros"})
    try:
        with _opener(transfer).open(request, timeout=timeout) as response:
            transfer.check()
            length = response.headers.get("Content-Length", "").strip()
            if length.isdigit() and int(length) > cap:
                raise Unavailable(f"too large: {int(length)} bytes, over the {cap}-byte cap "
                                  f"({ENV_MAX_DOWNLOAD_BYTES})")
            return _save(response, transfer, cap, int(length) if length.isdigit() else None)
    except (Unavailable, _Cancelled):
        raise
    except urllib.error.HTTPError as exc:
        raise Unavailable(one_line(f"HTTP {exc.code} {exc.reason}")) from None
    except TimeoutError:
        raise _NetworkFailure(f"timed out after {timeout:g} s") from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise _NetworkFailure(f"timed out after {timeout:g} s") from None
        raise _NetworkFailure(one_line(f"cannot reach the host: {exc.reason}")) from None
    except (http.client.HTTPException, OSError) as exc:
        raise _NetworkFailure(one_line(f"connection failed: {exc.__class__.__name__}: {exc}")) from None


def _save(response, transfer: _Transfer, cap: int, expected: int | None) -> int:
    """Stream a response body (at most cap bytes) into a temporary file beside the transfer's dest, renamed to dest
    when complete (all `expected` bytes, the Content-Length, when the server gave one) unless the transfer was
    cancelled.

    Read errors propagate and a body cut short is a _NetworkFailure (the network's fault); write errors become
    Unavailable (the disk's). Reads take what has arrived (`read1`), so `transfer.received` follows the body.
    """
    dest = transfer.dest
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        handle, temp_name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=".part", dir=dest.parent)
    except OSError as exc:
        raise Unavailable(one_line(f"cannot write to the cache folder {dest.parent}: {exc}")) from None
    temp = Path(temp_name)
    total = 0
    try:
        with os.fdopen(handle, "wb") as out:
            while chunk := response.read1(CHUNK_BYTES):
                transfer.check()
                total += len(chunk)
                transfer.received = total
                if total > cap:
                    raise Unavailable(f"too large: over the {cap}-byte cap ({ENV_MAX_DOWNLOAD_BYTES})")
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
        raise Unavailable(one_line(f"cannot write to the cache folder {dest.parent}: {exc}")) from None


__all__ = ["Unavailable", "fetch", "forget_failures"]
