"""The viewer's server in a process of its own, so that serving pages never competes with the simulation for
Python's interpreter lock.

`ViewerServerProcess` has the same simulation-side methods as `ViewerServer` (``set_scene``, ``set_trails``,
``set_frame``, ``set_image``, ``take_messages``, ``wanted_cameras``, ``page_count``, ``url``) and runs a
`ViewerServer` in a child Python process (``python -m mvsim_ros.viewer.server_process``). The two talk over two
pipes with small framed records; nothing on the simulation's side ever blocks on them:

- simulation -> server: the scene (queued, never dropped), the newest trails, frame and image per camera
  (an unsent one is replaced by a newer one), written with non-blocking writes as far as the pipe takes them and
  continued at the next call;
- server -> simulation: readiness (the bound port) or the start-up error, the pages' valid messages, and the
  pages' state (how many, which cameras they want), read without blocking in ``take_messages``.

Record: 1 byte kind, u32 little-endian payload length, payload. The child ends when its input pipe closes (the
simulation stopped or died), so it never outlives its owner; it ignores SIGINT (a Ctrl-C in the terminal reaches
the whole process group: the owner decides when the viewer stops). The allowed origins travel on the child's
command line; the token in its environment (TOKEN_ENV), which other users of the machine cannot read.
"""

from __future__ import annotations

import collections
import fcntl
import json
import logging
import os
import select
import signal
import struct
import subprocess
import sys
import threading
import time

from mvsim_ros.viewer.access import TOKEN_QUERY, normalize_origins
from mvsim_ros.viewer.protocol import DEFAULT_HOST, DEFAULT_PORT, DEFAULT_RATE_HZ

LOG = logging.getLogger("mvsim_ros.viewer")

_HEADER = struct.Struct("<cI")
_CAMERA = struct.Struct("<I")
#: Records simulation -> server.
SCENE, FRAME, IMAGE, TRAILS = b"S", b"F", b"I", b"T"
#: Records server -> simulation.
READY, FAILED, MESSAGE, PAGES = b"R", b"E", b"M", b"P"
#: Seconds the child may take to import aiohttp and bind its address.
START_TIMEOUT_S = 20.0
#: Seconds `stop()` waits for the child to close its pages and exit before killing it.
STOP_TIMEOUT_S = 5.0
#: Pipe capacity asked of the kernel [bytes] (Linux F_SETPIPE_SZ; the default 64 KiB still works).
PIPE_BYTES = 1 << 20
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
#: Environment variable that hands the run's token to the child.
TOKEN_ENV = "MVSIM_VIEWER_TOKEN"


def _record(kind: bytes, payload: bytes) -> bytes:
    return _HEADER.pack(kind, len(payload)) + payload


def _widen(fd: int) -> None:
    try:
        fcntl.fcntl(fd, _F_SETPIPE_SZ, PIPE_BYTES)
    except OSError:  # above the system's pipe-max-size: keep the default
        pass


class _RecordReader:
    """Splits bytes read from a pipe into (kind, payload) records."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[tuple[bytes, bytes]]:
        self._buffer += data
        out = []
        while len(self._buffer) >= _HEADER.size:
            kind, length = _HEADER.unpack_from(self._buffer)
            end = _HEADER.size + length
            if len(self._buffer) < end:
                break
            out.append((kind, bytes(self._buffer[_HEADER.size:end])))
            del self._buffer[:end]
        return out


class ViewerServerProcess:
    """A ViewerServer run in a child process; the owner's methods never block (see the module docstring).

    host, port, rate_hz, allowed_origins, token: as ViewerServer (port 0: any free port; `port` says which once
    started; ValueError for an allowed origin that is not one).
    """

    def __init__(self, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, rate_hz: float = DEFAULT_RATE_HZ,
                 allowed_origins: tuple[str, ...] | list[str] = (), token: str | None = None):
        rate = float(rate_hz)
        if not (rate > 0 and rate < float("inf")):
            raise ValueError(f"viewer rate must be a positive number of Hz, got {rate_hz!r}")
        if token is not None and not token:
            raise ValueError("the viewer token must not be empty")
        self.host, self.port, self.rate_hz = host, int(port), rate
        self.allowed_origins = normalize_origins(allowed_origins)
        self.token = token
        self._proc: subprocess.Popen | None = None
        self._out = self._in = -1  # our ends of the pipes: records to the child, records from it
        self._reader = _RecordReader()
        self._scenes: collections.deque[bytes] = collections.deque()  # queued whole, in order
        self._frame: bytes | None = None  # newest frame record not started yet
        self._trails: bytes | None = None  # newest trails record not started yet
        self._images: dict[int, bytes] = {}  # newest image record per camera not started yet
        self._partial = memoryview(b"")  # rest of the record being written
        self._messages: list[dict] = []
        self._pages = 0
        self._cameras: set[int] = set()
        self._closed = False

    # -- life cycle -----------------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """Address of the page, e.g. ``http://127.0.0.1:8090/`` (``...?token=...`` with a token)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        query = f"?{TOKEN_QUERY}={self.token}" if self.token else ""
        return f"http://{host}:{self.port}/{query}"

    @property
    def pid(self) -> int | None:
        """Process id of the server (None before `start()`)."""
        return None if self._proc is None else self._proc.pid

    def start(self) -> None:
        """Start the child and wait until it listens; PortInUseError (naming host:port) if it cannot bind,
        RuntimeError if it does not start."""
        from mvsim_ros.viewer.server import PortInUseError

        if self._proc is not None:
            raise RuntimeError("viewer server already started")
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        for fd in (to_child_w, from_child_w):
            _widen(fd)
        command = [sys.executable, "-m", "mvsim_ros.viewer.server_process", str(to_child_r), str(from_child_w),
                   self.host, str(self.port), repr(self.rate_hz), json.dumps(self.allowed_origins)]
        env = {key: value for key, value in os.environ.items() if key != TOKEN_ENV}
        if self.token:
            env[TOKEN_ENV] = self.token
        try:
            self._proc = subprocess.Popen(command, pass_fds=(to_child_r, from_child_w), stdin=subprocess.DEVNULL,
                                          close_fds=True, env=env)
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
        self._out, self._in = to_child_w, from_child_r
        kind, payload = self._wait_ready()
        os.set_blocking(self._out, False)
        os.set_blocking(self._in, False)
        if kind == FAILED:
            info = json.loads(payload)
            self.stop()
            error = PortInUseError if info.get("kind") == "address" else RuntimeError
            raise error(info.get("text", "viewer server failed to start"))
        self.port = int(json.loads(payload)["port"])

    def _wait_ready(self) -> tuple[bytes, bytes]:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.stop()
                raise RuntimeError(f"viewer server on {self.host}:{self.port} did not start within "
                                   f"{START_TIMEOUT_S:g} s")
            ready, _, _ = select.select([self._in], [], [], min(left, 0.5))
            if not ready:
                continue
            data = os.read(self._in, 65536)
            if not data:
                code = self._proc.wait(STOP_TIMEOUT_S)
                self.stop()
                raise RuntimeError(f"viewer server process exited during start-up (status {code}); "
                                   "see the lines above")
            for kind, payload in self._reader.feed(data):
                if kind in (READY, FAILED):
                    return kind, payload

    def stop(self) -> None:
        """Close every page and the server; returns once the child has exited (killed after STOP_TIMEOUT_S)."""
        proc, self._closed = self._proc, True
        for fd in (self._out, self._in):
            if fd >= 0:
                os.close(fd)
        self._out = self._in = -1
        if proc is None or proc.poll() is not None:
            return
        try:
            proc.wait(STOP_TIMEOUT_S)  # the child sees its input close, closes its pages and exits
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    # -- simulation side ------------------------------------------------------------------------------------
    def set_scene(self, scene: dict) -> None:
        """The scene message (JSON-able dict): every page gets it, in order with the frames around it."""
        text = json.dumps(scene, separators=(",", ":")).encode()
        self._frame = None  # frames of the old scene are stale
        self._scenes.append(_record(SCENE, text))
        self._flush()

    def set_trails(self, data: bytes) -> None:
        """The newest "trails" message (bytes); replaces one not yet handed to the child. Never blocks."""
        self._trails = _record(TRAILS, bytes(data))
        self._flush()

    def set_frame(self, data: bytes) -> None:
        """The newest frame; replaces one not yet handed to the child. Never blocks."""
        self._frame = _record(FRAME, bytes(data))
        self._flush()

    def set_image(self, camera_index: int, data: bytes) -> None:
        """The newest image of camera `camera_index`, for the pages that chose it. Never blocks."""
        self._images[int(camera_index)] = _record(IMAGE, _CAMERA.pack(int(camera_index)) + bytes(data))
        self._flush()

    def take_messages(self) -> list[dict]:
        """The pages' valid messages since the last call, oldest first (the child dropped and logged invalid
        ones); also updates `page_count` and `wanted_cameras()` and sends what is still pending."""
        self._poll()
        self._flush()
        out, self._messages = self._messages, []
        return out

    def wanted_cameras(self) -> set[int]:
        """Indices of the cameras some page asked images of (as of the last `take_messages`)."""
        return set(self._cameras)

    @property
    def page_count(self) -> int:
        """Pages connected (as of the last `take_messages`)."""
        return self._pages

    # -- pipes ----------------------------------------------------------------------------------------------
    def _flush(self) -> None:
        """Write pending records as far as the pipe takes them: scenes first, then the frame, then images."""
        if self._out < 0:
            return
        while True:
            if not self._partial:
                if self._scenes:
                    record = self._scenes.popleft()
                elif self._trails is not None:
                    record, self._trails = self._trails, None
                elif self._frame is not None:
                    record, self._frame = self._frame, None
                elif self._images:
                    record = self._images.pop(next(iter(self._images)))
                else:
                    return
                self._partial = memoryview(record)
            try:
                written = os.write(self._out, self._partial)
            except BlockingIOError:
                return
            except OSError as exc:  # the child is gone
                self._lost(exc)
                return
            self._partial = self._partial[written:]

    def _poll(self) -> None:
        if self._in < 0:
            return
        while True:
            try:
                data = os.read(self._in, 65536)
            except BlockingIOError:
                return
            except OSError as exc:
                self._lost(exc)
                return
            if not data:
                self._lost(None)
                return
            for kind, payload in self._reader.feed(data):
                if kind == MESSAGE:
                    self._messages.append(json.loads(payload))
                elif kind == PAGES:
                    state = json.loads(payload)
                    self._pages, self._cameras = int(state["pages"]), set(state["cameras"])

    def _lost(self, exc: OSError | None) -> None:
        """The child ended by itself: say so once and carry on without a viewer."""
        if not self._closed:
            code = None if self._proc is None else self._proc.poll()
            LOG.warning("viewer: the server process ended (%s); the simulation goes on without the viewer",
                        exc or f"status {code}")
        self._pages, self._cameras, self._partial = 0, set(), memoryview(b"")
        self._scenes.clear()
        self._frame, self._images = None, {}
        for fd in (self._out, self._in):
            if fd >= 0:
                os.close(fd)
        self._out = self._in = -1
        self._closed = True


# -- the child ------------------------------------------------------------------------------------------------
class _Child:
    """Runs a ViewerServer and relays records between it and the owner's pipes."""

    def __init__(self, in_fd: int, out_fd: int, server) -> None:
        self.in_fd, self.out_fd, self.server = in_fd, out_fd, server
        self._write_lock = threading.Lock()

    def send(self, kind: bytes, payload: bytes) -> None:
        with self._write_lock:
            os.write(self.out_fd, _record(kind, payload))  # blocking: the owner reads every tick

    def relay_pages(self, stop: threading.Event) -> None:
        """Every 20 ms: the pages' messages and, when changed, their state, to the owner."""
        last = None
        try:
            while not stop.wait(0.02):
                for msg in self.server.take_messages():
                    self.send(MESSAGE, json.dumps(msg).encode())
                state = (self.server.page_count, sorted(self.server.wanted_cameras()))
                if state != last:
                    self.send(PAGES, json.dumps({"pages": state[0], "cameras": state[1]}).encode())
                    last = state
        except OSError:  # the owner is gone: relay_records sees its input close and ends the process
            pass

    def relay_records(self) -> None:
        """Until the owner closes its end: scenes, frames and images into the server."""
        reader = _RecordReader()
        while True:
            data = os.read(self.in_fd, 1 << 20)
            if not data:
                return
            for kind, payload in reader.feed(data):
                if kind == SCENE:
                    self.server.set_scene(json.loads(payload))
                elif kind == TRAILS:
                    self.server.set_trails(payload)
                elif kind == FRAME:
                    self.server.set_frame(payload)
                elif kind == IMAGE:
                    (camera,) = _CAMERA.unpack_from(payload)
                    self.server.set_image(camera, payload[_CAMERA.size:])


def child_main(argv: list[str]) -> int:
    """Entry of the child: argv = [in_fd, out_fd, host, port, rate_hz, allowed origins as a JSON list]; the
    token, if any, in the environment variable TOKEN_ENV."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.basicConfig(format="mvsim viewer: %(levelname)s: %(message)s", level=logging.WARNING)
    in_fd, out_fd, host, port, rate = int(argv[0]), int(argv[1]), argv[2], int(argv[3]), float(argv[4])
    origins = json.loads(argv[5]) if len(argv) > 5 else []
    from mvsim_ros.viewer.server import PortInUseError, ViewerServer

    child = _Child(in_fd, out_fd, None)
    try:
        child.server = server = ViewerServer(host=host, port=port, rate_hz=rate, allowed_origins=origins,
                                             token=os.environ.pop(TOKEN_ENV, None) or None)
        server.start()
    except PortInUseError as exc:
        child.send(FAILED, json.dumps({"kind": "address", "text": str(exc)}).encode())
        return 1
    except (RuntimeError, OSError, ValueError) as exc:
        child.send(FAILED, json.dumps({"kind": "other", "text": str(exc)}).encode())
        return 1
    child.send(READY, json.dumps({"port": server.port}).encode())
    stop = threading.Event()
    relay = threading.Thread(target=child.relay_pages, args=(stop,), name="viewer-relay", daemon=True)
    relay.start()
    try:
        child.relay_records()
    except OSError:
        pass
    finally:
        stop.set()
        relay.join(1.0)
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1:]))
