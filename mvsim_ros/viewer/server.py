"""The browser viewer's HTTP + WebSocket server (aiohttp), run in its own asyncio loop on a daemon thread.

The node and ``mvsim_view`` run it in a child process (``server_process.py``) so that it never competes with the
simulation for the interpreter lock; it also works in-process (tests, embedding).

It serves the page (``web/index.html``, its JS and CSS), three.js from ``web/node_modules/three`` (installed by
``tools/setup_env.sh`` with ``npm ci``) and one WebSocket per page at ``/ws`` speaking the protocol of
``protocol.py``. The simulation owner's thread talks to it through plain, non-blocking methods: ``set_scene``,
``set_frame``, ``set_image`` and ``take_messages``. Each page has its own sender task holding at most one pending
frame and one pending image, so a slow or stuck page never blocks the caller nor the other pages.
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

from mvsim_ros.viewer.protocol import CONTROL_ACTIONS, DEFAULT_HOST, DEFAULT_PORT, DEFAULT_RATE_HZ

LOG = logging.getLogger("mvsim_ros.viewer")

#: Folder of the page's own files.
WEB_DIR = Path(__file__).resolve().parent / "web"
#: three.js as installed by npm (``npm ci`` in WEB_DIR).
THREE_DIR = WEB_DIR / "node_modules" / "three"
#: The page's own files served at the root, with their MIME types.
PAGE_FILES = {"viewer.js": "text/javascript", "viewer.css": "text/css"}
#: MIME types of what may be served from three.js's folders.
_THREE_TYPES = {".js": "text/javascript", ".map": "application/json"}
#: Largest message a page may send [bytes]; anything bigger closes that page's socket.
MAX_PAGE_MESSAGE = 64 * 1024
#: Page messages kept until `take_messages` drains them; older ones are dropped first.
MAX_QUEUED_MESSAGES = 1000
#: Longest vehicle name accepted in a page message [characters].
MAX_NAME = 256
#: Most steps one "step" control may ask for.
MAX_STEPS = 100000

SETUP_MISSING_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>mvsim viewer: set-up needed</title></head>
<body><h1>mvsim viewer: three.js is not installed</h1>
<p>The page needs three.js in <code>mvsim_ros/viewer/web/node_modules/three</code>. Run the set-up from the
repository root: <code>bash tools/setup_env.sh</code> (it runs <code>npm ci</code> in
<code>mvsim_ros/viewer/web/</code>), then reload this page.</p></body></html>
"""


class PortInUseError(OSError):
    """The viewer's address could not be bound (port taken, or host not on this machine)."""


def three_installed() -> bool:
    """True when the npm-installed three.js files the page imports are present."""
    return ((THREE_DIR / "build" / "three.module.js").is_file()
            and (THREE_DIR / "examples" / "jsm" / "controls" / "OrbitControls.js").is_file())


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name}")


def validate_message(text: str) -> dict:
    """Parse and check one page message (protocol.py, "Page -> server"); returns it normalised (numbers as
    float, "steps" filled in for "step"). Raises ValueError saying what is wrong."""
    try:
        msg = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(msg, dict):
        raise ValueError("not a JSON object")
    kind = msg.get("type")
    if kind in ("drive", "steer"):
        names = ("v", "w") if kind == "drive" else ("speed", "angle")
        vehicle = msg.get("vehicle")
        if not isinstance(vehicle, str) or not vehicle or len(vehicle) > MAX_NAME:
            raise ValueError(f"{kind}: 'vehicle' must be a non-empty name")
        out: dict = {"type": kind, "vehicle": vehicle}
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
    raise ValueError(f"unknown message type {kind!r}")


class _Page:
    """One connected page: what it chose and what is pending for it."""

    __slots__ = ("ws", "camera", "image", "wake", "scene_sent", "frame_sent")

    def __init__(self, ws: web.WebSocketResponse):
        self.ws = ws
        self.camera: int | None = None
        self.image: bytes | None = None  # the newest image of its camera not sent yet
        self.wake = asyncio.Event()
        self.scene_sent = -1  # serial of the last scene sent to it
        self.frame_sent = -1  # serial of the last frame sent to it


class ViewerServer:
    """HTTP + WebSocket server of the browser viewer.

    host, port: the address to bind (port 0: any free port; `port` then says which). rate_hz: most frames per
    second of wall time sent to each page [Hz]. Thread-safe: every public method may be called from any thread
    and none blocks on a page.
    """

    def __init__(self, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, rate_hz: float = DEFAULT_RATE_HZ):
        if not (_finite(rate_hz) and rate_hz > 0):
            raise ValueError(f"viewer rate must be a positive number of Hz, got {rate_hz!r}")
        self.host = host
        self.port = int(port)
        self.rate_hz = float(rate_hz)
        self._lock = threading.Lock()
        self._scene: str | None = None
        self._scene_serial = -1
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
        """Address of the page, e.g. ``http://127.0.0.1:8090/``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

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
        except socket.gaierror as exc:
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
        app = web.Application()
        app.router.add_get("/", self._index)
        app.router.add_get("/index.html", self._index)
        app.router.add_get("/ws", self._websocket)
        app.router.add_get("/three/{path:.+}", self._three)
        app.router.add_get("/{name}", self._page_file)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=0.5)
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

    # -- simulation side ------------------------------------------------------------------------------------
    def set_scene(self, scene: dict) -> None:
        """The scene message (a JSON-able dict, protocol.py 1.): sent to every page now and to each new one."""
        text = json.dumps(scene, separators=(",", ":"))
        with self._lock:
            self._scene = text
            self._scene_serial += 1
        self._wake_all()

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
        rel = request.match_info["path"]
        if not (rel.startswith("build/") or rel.startswith("examples/jsm/")):
            raise web.HTTPNotFound()
        root = THREE_DIR.resolve()
        path = (THREE_DIR / rel).resolve()
        kind = _THREE_TYPES.get(path.suffix)
        if kind is None or root not in path.parents or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Content-Type": kind, "Cache-Control": "max-age=3600"})

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
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
                elif msg.type == WSMsgType.BINARY:
                    LOG.warning("viewer: dropped a binary message from a page (the page sends JSON text only)")
        finally:
            with self._lock:
                self._pages.pop(id(page), None)
            sender.cancel()
            try:
                await sender
            except (asyncio.CancelledError, Exception):
                pass
        return ws

    def _receive(self, page: _Page, text: str) -> None:
        try:
            msg = validate_message(text)
        except ValueError as exc:
            LOG.warning("viewer: dropped a page message: %s: %.200s", exc, text)
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
            if scene is not None:
                await ws.send_str(scene)
                page.scene_sent = scene_serial
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
