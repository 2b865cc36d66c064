"""The browser viewer's HTTP + WebSocket server (aiohttp), run in its own asyncio loop on a daemon thread.

The node and ``mvsim_view`` run it in a child process (``server_process.py``) so that it never competes with the
simulation for the interpreter lock; it also works in-process (tests, embedding).

It serves the page (``web/index.html``, its ES modules and CSS), three.js from ``web/node_modules/three`` (installed by
``tools/setup_env.sh`` with ``npm ci``) and one WebSocket per page at ``/ws`` speaking the protocol of
``protocol.py``. The simulation owner's thread talks to it through plain, non-blocking methods: ``set_scene``,
``set_frame``, ``set_image`` and ``take_messages``. Each page has its own sender task holding at most one pending
frame and one pending image, so a slow or stuck page never blocks the caller nor the other pages.

Only the page's own origin, origins the user allowed, and clients sending no Origin (not browsers) may open the
WebSocket, with the run's token when there is one (``access.py``); each page may send at most PAGE_MESSAGE_RATE
messages a second, and warnings about pages are rate-limited (``throttle.py``). A request for a path that is not a
served file is answered 4xx, and a malformed request is logged in one line, never with a traceback.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import math
import socket
import threading
import time
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from mvsim_ros.viewer.access import TOKEN_QUERY, AccessPolicy
from mvsim_ros.viewer.protocol import (CONTROL_ACTIONS, DEFAULT_HOST, DEFAULT_PORT, DEFAULT_RATE_HZ, MAX_COORD,
                                       MAX_STEPS, MAX_YAW, POSE_MESSAGES)
from mvsim_ros.viewer.throttle import LogThrottle, TokenBucket

LOG = logging.getLogger("mvsim_ros.viewer")
#: Where aiohttp reports requests it could not handle (malformed HTTP, a failed handler); see _OneLineErrors.
HTTP_LOG = logging.getLogger("mvsim_ros.viewer.http")

#: Folder of the page's own files.
WEB_DIR = Path(__file__).resolve().parent / "web"
#: three.js as installed by npm (``npm ci`` in WEB_DIR).
THREE_DIR = WEB_DIR / "node_modules" / "three"
#: MIME types of the page's own files, by suffix.
_PAGE_TYPES = {".js": "text/javascript", ".css": "text/css"}
#: The page's own files served at the root (its ES modules, viewer.js the one index.html loads, and its style
#: sheet): name -> MIME type. Only files of these suffixes directly in WEB_DIR.
PAGE_FILES = {path.name: _PAGE_TYPES[path.suffix] for path in sorted(WEB_DIR.iterdir())
              if path.suffix in _PAGE_TYPES and path.is_file()}
#: MIME types of what may be served from three.js's folders.
_THREE_TYPES = {".js": "text/javascript", ".map": "application/json"}
#: Largest message a page may send [bytes]; anything bigger closes that page's socket.
MAX_PAGE_MESSAGE = 64 * 1024
#: Page messages kept until `take_messages` drains them; older ones are dropped first.
MAX_QUEUED_MESSAGES = 1000
#: Longest vehicle name accepted in a page message [characters].
MAX_NAME = 256
#: Messages a page may send per second of wall time, and at once; the excess is dropped with a warning.
PAGE_MESSAGE_RATE = 100.0
PAGE_MESSAGE_BURST = 200
#: Longest request path, as sent (percent-encoded) [characters]; longer ones are answered 414.
MAX_PATH = 1024
#: Warning lines about pages: at most LOG_BURST at once per kind, then one per LOG_PERIOD_S [s] of wall time.
LOG_PERIOD_S = 1.0
LOG_BURST = 20

SETUP_MISSING_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>mvsim viewer: set-up needed</title></head>
<body><h1>mvsim viewer: three.js is not installed</h1>
<p>The page needs three.js in <code>mvsim_ros/viewer/web/node_modules/three</code>. Run the set-up from the
repository root: <code>bash tools/setup_env.sh</code> (it runs <code>npm ci</code> in
<code>mvsim_ros/viewer/web/</code>), then reload this page.</p></body></html>
"""


class _OneLineErrors(logging.Filter):
    """Turns aiohttp's reports of failed requests (a traceback each, e.g. for a malformed request line) into one
    line naming the error, and lets at most one through per LOG_PERIOD_S [s] of wall time (with a count of the
    others)."""

    def __init__(self) -> None:
        super().__init__()
        self._bucket = TokenBucket(1, LOG_PERIOD_S)
        self._held = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._bucket.take():
            self._held += 1
            return False
        text = record.getMessage()
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None:
            text = f"{text}: {' '.join(str(exc).split())[:200]}"
            if isinstance(getattr(exc, "code", None), int) and 400 <= exc.code < 500:  # answered 4xx: a bad client
                record.levelno, record.levelname = logging.WARNING, logging.getLevelName(logging.WARNING)
        if self._held:
            text, self._held = f"{text} ({self._held} more like this not shown)", 0
        record.msg, record.args = f"viewer: {text}", None
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True


HTTP_LOG.addFilter(_OneLineErrors())


class PortInUseError(OSError):
    """The viewer's address could not be bound (port taken, or host not on this machine)."""


def three_installed() -> bool:
    """True when the npm-installed three.js files the page imports are present."""
    return ((THREE_DIR / "build" / "three.module.js").is_file()
            and (THREE_DIR / "examples" / "jsm" / "controls" / "OrbitControls.js").is_file()
            and (THREE_DIR / "examples" / "jsm" / "renderers" / "CSS2DRenderer.js").is_file())


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name}")


def _vehicle_name(kind: str, msg: dict, vehicles: frozenset[str] | None) -> str:
    """The message's "vehicle": a non-empty name of at most MAX_NAME characters, one of `vehicles` when given."""
    vehicle = msg.get("vehicle")
    if not isinstance(vehicle, str) or not vehicle or len(vehicle) > MAX_NAME:
        raise ValueError(f"{kind}: 'vehicle' must be a non-empty name")
    if vehicles is not None and vehicle not in vehicles:
        raise ValueError(f"{kind}: no vehicle named {vehicle[:80]!r} in the scene")
    return vehicle


def _pose_message(kind: str, msg: dict, vehicles: frozenset[str] | None) -> dict:
    """A checked set_pose or goal message: a known vehicle, finite x, y within MAX_COORD, yaw within MAX_YAW."""
    out: dict = {"type": kind, "vehicle": _vehicle_name(kind, msg, vehicles)}
    for name, bound in (("x", MAX_COORD), ("y", MAX_COORD), ("yaw", MAX_YAW)):
        value = msg.get(name)
        if not _finite(value) or abs(value) > bound:
            raise ValueError(f"{kind}: {name!r} must be a finite number within +-{bound:g}, got {value!r}")
        out[name] = float(value)
    return out


def validate_message(text: str, vehicles: frozenset[str] | None = None) -> dict:
    """Parse and check one page message (protocol.py, "Page -> server"); returns it normalised (numbers as
    float, "steps" filled in for "step"). vehicles: the names of the scene shown, which set_pose and goal must
    name (None: not checked). Raises ValueError saying what is wrong."""
    try:
        msg = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(msg, dict):
        raise ValueError("not a JSON object")
    kind = msg.get("type")
    if kind in ("drive", "steer"):
        names = ("v", "w") if kind == "drive" else ("speed", "angle")
        out: dict = {"type": kind, "vehicle": _vehicle_name(kind, msg, None)}
        for name in names:
            if not _finite(msg.get(name)):
                raise ValueError(f"{kind}: {name!r} must be a finite number, got {msg.get(name)!r}")
            out[name] = float(msg[name])
        return out
    if kind == "control":
        action = msg.get("action")
        if action not in CONTROL_ACTIONS:
            raise ValueError(f"control: 'action' must be one of {', '.join(CONTROL_ACTIONS)}, got {action!r}")
        out = {"type": "control", "action": action}
        if action == "step":
            steps = msg.get("steps", 1)
            if isinstance(steps, float) and steps.is_integer():
                steps = int(steps)
            if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= MAX_STEPS:
                raise ValueError(f"control: 'steps' must be an integer in 1..{MAX_STEPS}, got {steps!r}")
            out["steps"] = steps
        return out
    if kind == "camera":
        index = msg.get("index")
        if index is not None and (not isinstance(index, int) or isinstance(index, bool) or index < 0):
            raise ValueError(f"camera: 'index' must be a camera index or null, got {index!r}")
        return {"type": "camera", "index": index}
    if kind in POSE_MESSAGES:
        return _pose_message(kind, msg, vehicles)
    raise ValueError(f"unknown message type {kind!r}")


class _Page:
    """One connected page: what it chose and what is pending for it."""

    __slots__ = ("ws", "camera", "image", "wake", "scene_sent", "frame_sent", "bucket")

    def __init__(self, ws: web.WebSocketResponse):
        self.ws = ws
        self.bucket = TokenBucket(PAGE_MESSAGE_BURST, 1.0 / PAGE_MESSAGE_RATE)  # its message rate
        self.camera: int | None = None
        self.image: bytes | None = None  # the newest image of its camera not sent yet
        self.wake = asyncio.Event()
        self.scene_sent = -1  # serial of the last scene sent to it
        self.frame_sent = -1  # serial of the last frame sent to it


class ViewerServer:
    """HTTP + WebSocket server of the browser viewer.

    host, port: the address to bind (port 0: any free port; `port` then says which). rate_hz: most frames per
    second of wall time sent to each page [Hz]. allowed_origins: origins besides the page's own whose pages may
    open the WebSocket (e.g. ``http://robots.lan:8090``; ValueError if one is not an origin). token: the run's
    token, which every WebSocket must then present (``/ws?token=...``; `url` carries it), or None for none.
    Thread-safe: every public method may be called from any thread and none blocks on a page.
    """

    def __init__(self, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, rate_hz: float = DEFAULT_RATE_HZ,
                 allowed_origins: tuple[str, ...] | list[str] = (), token: str | None = None):
        if not (_finite(rate_hz) and rate_hz > 0):
            raise ValueError(f"viewer rate must be a positive number of Hz, got {rate_hz!r}")
        self.host = host
        self.port = int(port)
        self.rate_hz = float(rate_hz)
        self.access = AccessPolicy(host, allowed_origins, token)
        self._page_log = LogThrottle(LOG.warning, LOG_PERIOD_S, LOG_BURST)  # what pages send
        self._notice_log = LogThrottle(LOG.warning, LOG_PERIOD_S, 1)  # refused handshakes and requests, floods
        self._lock = threading.Lock()
        self._scene: str | None = None
        self._scene_serial = -1
        self._trails: bytes | None = None  # the newest "trails" message (sent after each scene a page gets)
        self._vehicles: frozenset[str] = frozenset()  # vehicle names of the current scene
        self._frame: bytes | None = None
        self._frame_serial = -1
        self._messages: collections.deque = collections.deque(maxlen=MAX_QUEUED_MESSAGES)
        self._pages: dict[int, _Page] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._stopped = threading.Event()

    # -- life cycle -----------------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """Address of the page, e.g. ``http://127.0.0.1:8090/`` (``...?token=...`` with a token)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        query = f"?{TOKEN_QUERY}={self.access.token}" if self.access.token else ""
        return f"http://{host}:{self.port}/{query}"

    def start(self) -> None:
        """Bind the address now (PortInUseError naming host:port if it cannot), then serve on a daemon thread."""
        if self._thread is not None:
            raise RuntimeError("viewer server already started")
        sock = self._bind()
        self.port = sock.getsockname()[1]
        ready = threading.Event()
        failure: list[BaseException] = []
        self._thread = threading.Thread(target=self._serve, args=(sock, ready, failure), name="mvsim-viewer",
                                        daemon=True)
        self._thread.start()
        if not ready.wait(10.0):
            raise RuntimeError(f"viewer server on {self.host}:{self.port} did not start within 10 s")
        if failure:
            raise RuntimeError(f"viewer server on {self.host}:{self.port} failed to start: {failure[0]}")
        if not three_installed():
            LOG.warning("three.js is missing (%s): the viewer page will only say to run tools/setup_env.sh",
                        THREE_DIR)

    def _bind(self) -> socket.socket:
        try:
            infos = socket.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        except (socket.gaierror, UnicodeError) as exc:
            raise PortInUseError(f"viewer: cannot resolve host {self.host!r} ({exc}); choose another "
                                 "viewer_host") from None
        family, _, _, _, address = infos[0]
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            sock.listen(64)
            sock.setblocking(False)
        except OSError as exc:
            sock.close()
            raise PortInUseError(f"viewer: cannot listen on {self.host}:{self.port} ({exc.strerror or exc}); "
                                 "is another viewer or program using it? Choose another viewer_port "
                                 "(0: any free port)") from None
        return sock

    def _serve(self, sock: socket.socket, ready: threading.Event, failure: list) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._open(sock))
        except BaseException as exc:  # surfaced to start()
            failure.append(exc)
            ready.set()
            loop.close()
            return
        ready.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(self._close())
            loop.close()
            self._stopped.set()

    async def _open(self, sock: socket.socket) -> None:
        @web.middleware
        async def screen(request: web.Request, handler) -> web.StreamResponse:
            return await self._screen(request, handler)

        app = web.Application(middlewares=[screen])
        app.router.add_get("/", self._index)
        app.router.add_get("/index.html", self._index)
        app.router.add_get("/ws", self._websocket)
        app.router.add_get("/three/{path:.+}", self._three)
        app.router.add_get("/{name}", self._page_file)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=0.5,
                                     logger=HTTP_LOG)
        await self._runner.setup()
        await web.SockSite(self._runner, sock).start()

    async def _close(self) -> None:
        async def close(ws: web.WebSocketResponse) -> None:
            try:  # a stuck page may never take the close frame: give up on it after a second
                await asyncio.wait_for(ws.close(code=1001, message=b"viewer stopped"), 1.0)
            except (asyncio.TimeoutError, ConnectionError, RuntimeError):
                pass

        await asyncio.gather(*(close(page.ws) for page in list(self._pages.values())))
        if self._runner is not None:
            await self._runner.cleanup()

    def stop(self) -> None:
        """Close every page and the server; returns once the serving thread has ended (at most ~5 s)."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None or not thread.is_alive():
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5.0)
        self._page_log.flush()
        self._notice_log.flush()

    # -- simulation side ------------------------------------------------------------------------------------
    def set_scene(self, scene: dict) -> None:
        """The scene message (a JSON-able dict, protocol.py 1.): sent to every page now and to each new one."""
        text = json.dumps(scene, separators=(",", ":"))
        names = frozenset(str(v.get("name")) for v in scene.get("vehicles", []) if isinstance(v, dict))
        with self._lock:
            self._scene = text
            self._vehicles = names
            self._scene_serial += 1
        self._wake_all()

    def set_trails(self, data: bytes) -> None:
        """The binary "trails" message (protocol.py 4.): the vehicles' recent paths, sent after each scene a page
        gets."""
        with self._lock:
            self._trails = bytes(data)

    def set_frame(self, data: bytes) -> None:
        """The newest frame (binary, protocol.py 2.); each page gets the newest one at most `rate_hz` times a
        second, older unsent ones are dropped. Never blocks."""
        with self._lock:
            self._frame = bytes(data)
            self._frame_serial += 1
            if not self._pages:
                return
        self._wake_all()

    def set_image(self, camera_index: int, data: bytes) -> None:
        """The newest image (binary, protocol.py 3.) of camera `camera_index`, for the pages that chose it."""
        data = bytes(data)
        woken = []
        with self._lock:
            for page in self._pages.values():
                if page.camera == camera_index:
                    page.image = data
                    woken.append(page)
        if woken:
            self._call(lambda: [page.wake.set() for page in woken])

    def take_messages(self) -> list[dict]:
        """The valid page messages received since the last call, oldest first (invalid ones were dropped with a
        logged warning). Camera choices are handled here and not returned."""
        with self._lock:
            out = list(self._messages)
            self._messages.clear()
        return out

    def wanted_cameras(self) -> set[int]:
        """Indices of the cameras some page asked images of."""
        with self._lock:
            return {page.camera for page in self._pages.values() if page.camera is not None}

    @property
    def thread(self) -> threading.Thread | None:
        """The serving thread (None before `start()`)."""
        return self._thread

    @property
    def page_count(self) -> int:
        """Pages connected now."""
        return len(self._pages)

    def _wake_all(self) -> None:
        self._call(self._set_all)

    def _set_all(self) -> None:
        for page in list(self._pages.values()):
            page.wake.set()

    def _call(self, fn) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(fn)
        except RuntimeError:  # the loop closed meanwhile
            pass

    # -- request handlers (event-loop thread) ---------------------------------------------------------------
    async def _screen(self, request: web.Request, handler) -> web.StreamResponse:
        """Answer 4xx to paths no file can have (control characters, over-long) before any handler sees them."""
        status = path_problem(request.raw_path, request.path)
        if status is not None:
            self._notice_log.warn("refused request paths", f"viewer: answered {status.status_code} to "
                                  f"{request.method} {request.raw_path[:120]!r}: {status.text}")
            raise status
        return await handler(request)

    async def _index(self, request: web.Request) -> web.StreamResponse:
        if not three_installed():
            return web.Response(text=SETUP_MISSING_HTML, content_type="text/html", headers=_NO_CACHE)
        return web.FileResponse(WEB_DIR / "index.html", headers={"Content-Type": "text/html", **_NO_CACHE})

    async def _page_file(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if name not in PAGE_FILES:
            raise web.HTTPNotFound()
        return web.FileResponse(WEB_DIR / name, headers={"Content-Type": PAGE_FILES[name], **_NO_CACHE})

    async def _three(self, request: web.Request) -> web.StreamResponse:
        path = three_file(request.match_info["path"])
        if path is None:
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Content-Type": _THREE_TYPES[path.suffix],
                                               "Cache-Control": "max-age=3600"})

    def _refusal(self, request: web.Request) -> str | None:
        """Why this WebSocket handshake may not open (access.py), or None."""
        origins = request.headers.getall("Origin", [])
        if len(origins) > 1:
            return "more than one Origin header"
        tokens = request.query.getall(TOKEN_QUERY, [])
        return self.access.refusal(origins[0] if origins else None, request.headers.get("Host"),
                                   tokens[0] if len(tokens) == 1 else None)

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        refusal = self._refusal(request)
        if refusal is not None:
            origin = request.headers.get("Origin")
            hint = ("open the address the viewer printed, which carries it" if "token" in refusal else
                    "list a trusted origin in viewer_allowed_origins (mvsim_view: --allow-origin)")
            self._notice_log.warn("refused WebSocket handshakes", f"viewer: refused a WebSocket from origin "
                                  f"{(origin or '(none)')[:120]!r}: {refusal}; {hint}")
            raise web.HTTPForbidden(text=f"mvsim viewer: {refusal}\n")
        ws = web.WebSocketResponse(max_msg_size=MAX_PAGE_MESSAGE, heartbeat=20.0)
        await ws.prepare(request)
        page = _Page(ws)
        with self._lock:
            self._pages[id(page)] = page
        page.wake.set()  # the scene (and the newest frame) at once
        sender = asyncio.ensure_future(self._send_loop(page))
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    self._receive(page, msg.data)
                elif msg.type == WSMsgType.BINARY and self._within_rate(page):
                    self._page_log.warn("invalid page messages", "viewer: dropped a binary message from a page "
                                        "(the page sends JSON text only)")
        finally:
            with self._lock:
                self._pages.pop(id(page), None)
            sender.cancel()
            try:
                await sender
            except (asyncio.CancelledError, Exception):
                pass
        return ws

    def _within_rate(self, page: _Page) -> bool:
        """True when `page` may send one more message now (PAGE_MESSAGE_RATE); a warning otherwise."""
        if page.bucket.take():
            return True
        self._notice_log.warn("pages sending too fast", f"viewer: dropped messages of a page sending more than "
                              f"{PAGE_MESSAGE_RATE:g} a second")
        return False

    def _receive(self, page: _Page, text: str) -> None:
        if not self._within_rate(page):
            return
        with self._lock:
            vehicles = self._vehicles
        try:
            msg = validate_message(text, vehicles)
        except ValueError as exc:
            self._page_log.warn("invalid page messages", f"viewer: dropped a page message: {str(exc)[:200]}: "
                                f"{text[:200]!r}")
            return
        if msg["type"] == "camera":
            with self._lock:
                page.camera = msg["index"]
                page.image = None
            return
        with self._lock:
            self._messages.append(msg)

    async def _send_loop(self, page: _Page) -> None:
        """Send the page what is pending for it, newest only; at most rate_hz frames a second."""
        period = 1.0 / self.rate_hz
        last_frame = -math.inf
        ws = page.ws
        while not ws.closed:
            await page.wake.wait()
            page.wake.clear()
            with self._lock:
                scene = self._scene if page.scene_sent != self._scene_serial else None
                scene_serial = self._scene_serial
                trails = self._trails
            if scene is not None:
                await ws.send_str(scene)
                page.scene_sent = scene_serial
                if trails is not None:
                    await ws.send_bytes(trails)
            # Frames come at about the rate already (ViewerLink's cadence): only a frame early by more than a
            # quarter period waits, so that ordinary jitter costs no extra wake-up of this loop.
            wait = last_frame + period - time.monotonic()
            if wait > 0.25 * period:
                await asyncio.sleep(wait)
            with self._lock:
                frame = self._frame if page.frame_sent != self._frame_serial else None
                page.frame_sent = self._frame_serial
                image, page.image = page.image, None
                if self._scene_serial != page.scene_sent:
                    page.wake.set()  # a scene arrived while sleeping: it goes first, next round
                    frame = None
                    page.frame_sent = -1
            if frame is not None:
                last_frame = time.monotonic()
                await ws.send_bytes(frame)
            if image is not None:
                await ws.send_bytes(image)


_NO_CACHE = {"Cache-Control": "no-cache"}


def path_problem(raw_path: str, path: str) -> web.HTTPException | None:
    """The 4xx answer for a request path no served file can have, or None: over MAX_PATH characters as sent
    (414), control characters or backslashes once decoded (400)."""
    if len(raw_path) > MAX_PATH:
        return web.HTTPRequestURITooLong(text=f"path longer than {MAX_PATH} characters")
    if any(ord(c) < 32 or ord(c) == 127 or c == "\\" for c in path):
        return web.HTTPBadRequest(text="control character or backslash in the path")
    return None


def three_file(rel: str) -> Path | None:
    """The file of three.js that `rel` (a path below /three/) names, or None when it names none that may be
    served: outside build/ and examples/jsm/, not .js or .map, not a file, or not a valid file name at all."""
    if not (rel.startswith("build/") or rel.startswith("examples/jsm/")):
        return None
    try:
        root = THREE_DIR.resolve()
        path = (THREE_DIR / rel).resolve()
        if path.suffix not in _THREE_TYPES or root not in path.parents or not path.is_file():
            return None
    except (OSError, ValueError):  # NUL bytes, undecodable names, names too long for the file system
        return None
    return path
