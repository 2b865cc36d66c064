"""Red team, the browser viewer: foreign pages, bursts of controls, floods of bad messages, hostile request paths
and command lines, against the real server on 127.0.0.1 (mvsim_view in a subprocess, the node over DDS, and the
server in-process where the log records are counted).

A page from another site must get HTTP 403 (no scene, no driving) while the viewer's own page, allowed origins
and non-browser clients connect; 1000 resets are a few resets and the simulation keeps running; 20,000 invalid
messages write a bounded number of log lines; hostile paths are answered 4xx without a traceback; a bad mvsim_view
argument is one line on stderr and exit status 2.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import math
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import aiohttp
import pytest
import rclpy
from rosgraph_msgs.msg import Clock

from conftest import DEMO_WORLD, REPO
from dds_probe import ProbeNode, node_command, stop_process
from mvsim_ros.viewer import server as server_module
from mvsim_ros.viewer.frame_message import unpack_message
from mvsim_ros.viewer.server import ViewerServer

TRUSTED = "http://trusted.example:1234"
RESET = json.dumps({"type": "control", "action": "reset"})
VIEW_COMMAND = [sys.executable, "-m", "mvsim_ros.cli.view"]


class ViewProcess:
    """`mvsim_view DEMO_WORLD --port 0 --no-open ...` in a subprocess; its output lines are kept in `lines`."""

    def __init__(self, *extra: str, seconds: float = 300.0):
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env.pop("DISPLAY", None)
        self.proc = subprocess.Popen(
            VIEW_COMMAND + [str(DEMO_WORLD), "--port", "0", "--no-open", "--seconds", str(seconds), *extra],
            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        self.url = ""
        deadline = time.monotonic() + 60.0
        while not self.url:
            line = self.proc.stdout.readline()
            if not line or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("mvsim_view printed no address:\n" + "".join(self.lines))
            self.lines.append(line)
            found = re.search(r"viewer at (http://\S+)", line)
            self.url = found.group(1) if found else ""
        self.port = int(re.search(r":(\d+)/", self.url).group(1))
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line)

    def ws_url(self, token: str | None = None) -> str:
        return f"ws://127.0.0.1:{self.port}/ws" + (f"?token={token}" if token else "")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10.0)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="module")
def viewer():
    proc = ViewProcess("--allow-origin", TRUSTED)
    yield proc
    proc.stop()


def run(coro, timeout: float = 90.0):
    return asyncio.run(asyncio.wait_for(coro, timeout))


def handshake(port: int, origin: str | None, host: str | None = None, path: str = "/ws") -> bytes:
    """The status line the server answers to a WebSocket handshake with these Origin and Host headers."""
    lines = [f"GET {path} HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}", "Upgrade: websocket",
             "Connection: Upgrade", f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}",
             "Sec-WebSocket-Version: 13"]
    if origin is not None:
        lines.append(f"Origin: {origin}")
    return raw_request(port, ("\r\n".join(lines) + "\r\n\r\n").encode())


def raw_request(port: int, request: bytes) -> bytes:
    """The status line answered to `request` (bytes as sent)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        reply = b""
        while b"\r\n" not in reply:
            data = sock.recv(4096)
            if not data:
                break
            reply += data
    return reply.split(b"\r\n")[0]


async def first_text(ws) -> dict:
    """The first text message (the scene) a socket receives."""
    while True:
        msg = await ws.receive(timeout=20)
        if msg.type == aiohttp.WSMsgType.TEXT:
            return json.loads(msg.data)
        assert msg.type == aiohttp.WSMsgType.BINARY, msg


async def r1_pose(ws, scene: dict) -> tuple[float, float, float]:
    """(simulated time [s], x [m], y [m]) of r1 in the next frame on `ws`."""
    row = next(v["body"] for v in scene["vehicles"] if v["name"] == "r1")
    while True:
        msg = await ws.receive(timeout=20)
        if msg.type == aiohttp.WSMsgType.TEXT:
            scene.clear()
            scene.update(json.loads(msg.data))
            continue
        header, arrays, _ = unpack_message(msg.data)
        if header.get("type") == "frame":
            x, y = arrays["bodies"][row, :2].tolist()
            return header["time"], x, y


# -- origins ---------------------------------------------------------------------------------------------------
def test_foreign_origins_get_403_and_cannot_drive(viewer):
    port = viewer.port
    before = len(viewer.lines)
    for origin, host in [("http://evil.example", None), ("null", None), ("http://127.0.0.1:1", None),
                         (f"http://evil.example:{port}", f"evil.example:{port}")]:  # the last: DNS rebinding
        status = handshake(port, origin, host)
        assert status.startswith(b"HTTP/1.1 403"), (origin, status)

    async def go():
        async with aiohttp.ClientSession() as session, session.ws_connect(viewer.ws_url()) as watcher:
            scene = await first_text(watcher)
            _, x0, y0 = await r1_pose(watcher, scene)
            for _ in range(20):  # a foreign page trying to drive r1 for 2 s
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    async with session.ws_connect(viewer.ws_url(), origin="http://evil.example") as ws:
                        await ws.send_str(json.dumps({"type": "drive", "vehicle": "r1", "v": 1.0, "w": 0.0}))
                assert refused.value.status == 403
                await asyncio.sleep(0.1)
            _, x1, y1 = await r1_pose(watcher, scene)
            return math.hypot(x1 - x0, y1 - y0)

    moved = run(go())
    assert moved < 0.02, moved
    time.sleep(0.3)
    said = [line for line in viewer.lines[before:] if "refused a WebSocket" in line]
    assert 1 <= len(said) <= 6, said  # 24 refusals, warned at most once a second
    assert "evil.example" in said[0]


def test_own_allowed_and_scriptless_origins_connect_and_drive(viewer):
    port = viewer.port
    for origin, host in [(f"http://127.0.0.1:{port}", None), (f"http://localhost:{port}", f"localhost:{port}"),
                         (TRUSTED, None), (None, None)]:
        assert handshake(port, origin, host).startswith(b"HTTP/1.1 101"), origin

    async def go():
        async with aiohttp.ClientSession() as session, \
                session.ws_connect(viewer.ws_url(), origin=f"http://127.0.0.1:{port}") as page:
            scene = await first_text(page)
            assert [v["name"] for v in scene["vehicles"]] == ["r1", "r2"]
            t0, x0, y0 = await r1_pose(page, scene)
            t = t0
            while t < t0 + 2.0:  # hold "forward" for 2 s of simulated time, as the page does
                await page.send_str(json.dumps({"type": "drive", "vehicle": "r1", "v": 0.5, "w": 0.0}))
                await asyncio.sleep(0.1)
                t, _, _ = await r1_pose(page, scene)
            await page.send_str(json.dumps({"type": "drive", "vehicle": "r1", "v": 0.0, "w": 0.0}))
            _, x1, y1 = await r1_pose(page, scene)
            async with session.ws_connect(viewer.ws_url(), origin=TRUSTED) as allowed:
                assert (await first_text(allowed))["type"] == "scene"
            return math.hypot(x1 - x0, y1 - y0)

    assert run(go()) > 0.5


def test_token_is_required_when_asked_for():
    proc = ViewProcess("--token", seconds=120.0)
    try:
        token = re.search(r"\?token=([\w-]+)$", proc.url).group(1)
        assert len(token) >= 20
        for path in ("/ws", "/ws?token=wrong", f"/ws?token={token}x"):
            assert handshake(proc.port, None, path=path).startswith(b"HTTP/1.1 403"), path
        assert handshake(proc.port, "http://evil.example", path=f"/ws?token={token}").startswith(b"HTTP/1.1 403")

        async def go():
            async with aiohttp.ClientSession() as session, session.ws_connect(proc.ws_url(token)) as ws:
                return await first_text(ws)

        assert run(go())["type"] == "scene"
    finally:
        proc.stop()
    assert "Traceback" not in "".join(proc.lines)


def test_the_page_passes_its_token_on():
    """The page opened at the token-carrying address connects (headless Chromium); the same page without the
    token is refused and shows no frame."""
    from browser_support import BrowserPage, browser_skip_reason

    if browser_skip_reason():
        pytest.skip(browser_skip_reason())
    proc = ViewProcess("--token", seconds=120.0)
    page = None
    try:
        page = BrowserPage(proc.url)
        page.page.wait_for_function("window.mvsimViewer && window.mvsimViewer.frames > 5", timeout=30000)
        assert page.viewer("v.connected") and page.viewer("v.vehicles") == ["r1", "r2"]
        page.page.goto(proc.url.split("?")[0])
        time.sleep(2.0)
        assert page.viewer("v.frames") == 0 and not page.viewer("v.connected")
    finally:
        if page is not None:
            page.close()
        proc.stop()
    assert any("refused a WebSocket" in line and "token" in line for line in proc.lines), proc.lines


# -- bursts and floods ------------------------------------------------------------------------------------------
def test_a_burst_of_1000_resets_is_a_few_resets_and_the_simulation_keeps_running(viewer):
    async def go():
        async with aiohttp.ClientSession() as session, session.ws_connect(viewer.ws_url()) as watcher:
            await first_text(watcher)
            await watcher.receive(timeout=20)
            senders = [await session.ws_connect(viewer.ws_url()) for _ in range(10)]
            for ws in senders:  # 10 pages x 100 resets: each page within its message rate, all reach the runner
                for _ in range(100):
                    await ws.send_str(RESET)
            start = time.monotonic()
            scenes, arrivals, times = 0, [start], []
            while time.monotonic() - start < 4.0:
                msg = await watcher.receive(timeout=5)
                if msg.type == aiohttp.WSMsgType.TEXT:
                    scenes += 1
                    continue
                header, _, _ = unpack_message(msg.data)
                if header.get("type") == "frame":
                    arrivals.append(time.monotonic())
                    times.append(header["time"])
            for ws in senders:
                await ws.close()
            return scenes, max(b - a for a, b in zip(arrivals, arrivals[1:])), times

    scenes, longest_gap, times = run(go())
    assert 1 <= scenes <= 4, scenes  # one reset now, at most one more per 0.5 s while the burst drains
    assert longest_gap < 1.0, longest_gap  # frames (and steps) never stopped for long
    assert times[-1] >= 2.0, times[-3:]  # the simulation ran on after the last reset
    assert viewer.proc.poll() is None


def test_twenty_thousand_invalid_messages_write_few_lines(viewer):
    before = len(viewer.lines)

    async def go():
        async with aiohttp.ClientSession() as session:
            pages = [await session.ws_connect(viewer.ws_url()) for _ in range(20)]
            for k, ws in enumerate(pages):
                for j in range(1000):
                    await ws.send_str(f'{{"type": "fly", "n": {k * 1000 + j}}}')
            await asyncio.sleep(3.0)
            async with session.ws_connect(viewer.ws_url()) as watcher:  # still serving
                assert (await first_text(watcher))["type"] == "scene"
            for ws in pages:
                await ws.close()

    run(go())
    time.sleep(0.5)
    new = viewer.lines[before:]
    assert any("dropped" in line for line in new), new
    assert len(new) < 50, "".join(new[-60:])
    assert viewer.proc.poll() is None


def test_invalid_messages_are_all_counted_in_few_lines(monkeypatch, caplog):
    """In-process, with no per-page rate limit: every one of 20,000 invalid messages is validated and counted, in
    fewer than 50 lines."""
    monkeypatch.setattr(server_module, "PAGE_MESSAGE_RATE", 1e9)
    monkeypatch.setattr(server_module, "PAGE_MESSAGE_BURST", 1e9)
    srv = ViewerServer(port=0)
    srv.start()

    async def go():
        async with aiohttp.ClientSession() as session, \
                session.ws_connect(f"ws://127.0.0.1:{srv.port}/ws") as ws:
            for k in range(20000):
                await ws.send_str(f'{{"type": "drive", "vehicle": "r1", "v": "fast{k}", "w": 0}}')
            await ws.send_str('{"type": "control", "action": "pause"}')
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                taken = srv.take_messages()
                if taken:
                    return taken
                await asyncio.sleep(0.05)
            return []

    with caplog.at_level(logging.WARNING, logger="mvsim_ros.viewer"):
        try:
            assert run(go()) == [{"type": "control", "action": "pause"}]
        finally:
            srv.stop()  # says how many lines were held back
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) < 50, len(lines)
    counted = 0
    for line in lines:
        held = re.search(r"\((\d+) more like this not shown\)|viewer: (\d+) more warning", line)
        counted += int(held.group(1) or held.group(2)) if held else 0
        counted += 0 if line.startswith("viewer: ") and "more warning" in line else 1
    assert counted == 20000, lines


# -- request paths -----------------------------------------------------------------------------------------------
HOSTILE_PATHS = [
    "/three/build/three.module.js%00.map", "/%00", "/viewer.js%00", "/three/build/%ff.js", "/three/build/%c0%ae.js",
    "/three/build/", "/three/examples/jsm/", "/three/build/../../../server.py", "/three/build/%2e%2e/%2e%2e/x.js",
    "/three/build/%2e%2e%5c%2e%2e%5cserver.py", "/%5c", "/three/build/" + "a" * 300 + ".js",
    "/three/build/" + "a/" * 700 + "x.js", "/" + "a" * 9000, "/three/build/three.module.js%", "/%ZZ",
    "/index.html/", "//etc/passwd", "/three/build/x.js%0d%0aSet-Cookie:%20a=b", "/ws",
]
HOSTILE_REQUESTS = [b"GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n", b"GET /\xff HTTP/1.1\r\nHost: x\r\n\r\n",
                    b"BREW / HTTP/1.1\r\nHost: x\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"garbage\r\n\r\n",
                    b"POST /ws HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"]


def hostile_statuses(port: int) -> dict:
    """The status line answered to each hostile path and request."""
    out = {}
    for path in HOSTILE_PATHS:
        out[path[:80]] = raw_request(port, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                                     .encode("latin-1"))
    for request in HOSTILE_REQUESTS:
        out[request[:30]] = raw_request(port, request)
    return out


def assert_all_4xx(statuses: dict) -> None:
    for what, status in statuses.items():
        assert re.match(rb"HTTP/1\.[01] 4\d\d ", status), (what, status)


def test_hostile_paths_are_4xx_without_traceback(viewer):
    before = len(viewer.lines)
    assert_all_4xx(hostile_statuses(viewer.port))
    time.sleep(0.5)
    new = "".join(viewer.lines[before:])
    assert "Traceback" not in new and " 500" not in new, new
    assert len(viewer.lines) - before < 10, new
    assert viewer.proc.poll() is None


@pytest.mark.skipif(not server_module.three_installed(), reason="three.js not installed (run tools/setup_env.sh)")
def test_hostile_paths_in_process_log_no_traceback(caplog):
    srv = ViewerServer(port=0)
    srv.start()
    try:
        with caplog.at_level(logging.DEBUG):
            statuses = hostile_statuses(srv.port)
            ok = raw_request(srv.port, b"GET /three/build/three.module.js HTTP/1.1\r\nHost: x\r\n\r\n")
    finally:
        srv.stop()
    assert_all_4xx(statuses)
    assert ok.startswith(b"HTTP/1.1 200"), ok
    records = [r for r in caplog.records if r.name.startswith(("aiohttp", "mvsim_ros"))]
    assert records, "the refusals are said"
    assert all(r.exc_info is None and "Traceback" not in r.getMessage() for r in records), records
    assert all(r.levelno < logging.ERROR for r in records), [r.getMessage() for r in records]


# -- command line ----------------------------------------------------------------------------------------------
BAD_ARGS = {
    "NaN seconds": ["--seconds", "nan"], "infinite seconds": ["--seconds", "inf"],
    "negative seconds": ["--seconds", "-1"], "word for seconds": ["--seconds", "soon"],
    "port too big": ["--port", "65536"], "negative port": ["--port", "-1"], "word for port": ["--port", "http"],
    "empty host": ["--host", ""], "host with a space": ["--host", "local host"], "host too long": ["--host", "a" * 300],
    "zero rate": ["--rate", "0"], "NaN rate": ["--rate", "nan"], "rate too high": ["--rate", "1e9"],
    "zero realtime factor": ["--realtime-factor", "0"], "infinite realtime factor": ["--realtime-factor=inf"],
    "NaN realtime factor": ["--realtime-factor", "nan"], "null origin": ["--allow-origin", "null"],
    "origin with a path": ["--allow-origin", "http://a.example/x"], "unknown option": ["--frobnicate"],
}


def view_command() -> list[str]:
    script = Path(sys.executable).parent / "mvsim_view"
    return [str(script)] if script.exists() else VIEW_COMMAND


@pytest.mark.parametrize("case", list(BAD_ARGS))
def test_a_bad_mvsim_view_argument_is_one_line_and_exit_2(case):
    result = subprocess.run(view_command() + [str(DEMO_WORLD), "--no-open", *BAD_ARGS[case]], capture_output=True,
                            text=True, timeout=60, cwd=REPO)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2, (result.returncode, result.stderr, result.stdout)
    assert len(lines) == 1 and lines[0].startswith("mvsim_view: error: "), result.stderr
    assert "Traceback" not in result.stderr + result.stdout and result.stdout == ""


# -- the node's viewer -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def node_viewer(tmp_path_factory):
    """(node process, viewer address, log path): the demo world, the viewer on a free port with a token and one
    allowed origin."""
    log_path = tmp_path_factory.mktemp("hostile_viewer_node") / "node_output.txt"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(node_command(f"world_file:={DEMO_WORLD}", "headless:=false", "viewer_port:=0",
                                             "viewer_token:=true", f"viewer_allowed_origins:=['{TRUSTED}']"),
                                stdout=log, stderr=subprocess.STDOUT, text=True)
        try:
            url = None
            deadline = time.monotonic() + 60.0
            while url is None and time.monotonic() < deadline and proc.poll() is None:
                found = re.search(r"viewer: open (http://\S+)", log_path.read_text())
                url = found.group(1) if found else None
                time.sleep(0.1)
            assert url, f"the node printed no viewer address:\n{log_path.read_text()[-3000:]}"
            yield proc, url, log_path
        finally:
            stop_process(proc)


def test_node_viewer_takes_its_token_and_allowed_origins(node_viewer):
    proc, url, log_path = node_viewer
    port, token = int(re.search(r":(\d+)/", url).group(1)), re.search(r"\?token=([\w-]+)$", url).group(1)
    for origin, path in [(None, "/ws"), (None, "/ws?token=nope"), ("http://evil.example", f"/ws?token={token}"),
                         ("null", f"/ws?token={token}")]:
        assert handshake(port, origin, path=path).startswith(b"HTTP/1.1 403"), (origin, path)
    for origin in (None, f"http://127.0.0.1:{port}", TRUSTED):
        assert handshake(port, origin, path=f"/ws?token={token}").startswith(b"HTTP/1.1 101"), origin
    assert proc.poll() is None and "Traceback" not in log_path.read_text()


def test_node_keeps_its_clock_running_through_a_burst_of_resets(node_viewer):
    proc, url, log_path = node_viewer
    port, token = int(re.search(r":(\d+)/", url).group(1)), re.search(r"\?token=([\w-]+)$", url).group(1)
    ws_url = f"ws://127.0.0.1:{port}/ws?token={token}"
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "hostile_viewer_clock_probe")
    clock: list[tuple[float, float]] = []  # (wall arrival [s], /clock [s])
    probe.node.create_subscription(
        Clock, "/clock", lambda msg: clock.append((time.monotonic(), msg.clock.sec + 1e-9 * msg.clock.nanosec)), 50)

    async def burst():
        async with aiohttp.ClientSession() as session:
            pages = [await session.ws_connect(ws_url) for _ in range(10)]
            for ws in pages:  # 10 pages x 100 resets, each page within its message rate
                for _ in range(100):
                    await ws.send_str(RESET)
            await asyncio.sleep(1.0)
            for ws in pages:
                await ws.close()

    try:
        assert probe.wait_for(lambda: len(clock) > 20, timeout=30.0), "no /clock"
        sender = threading.Thread(target=lambda: run(burst()), daemon=True)
        clock.clear()
        sender.start()
        probe.spin_for(4.0)
        sender.join(30.0)
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
    arrivals, times = [wall for wall, _ in clock], [t for _, t in clock]
    resets = sum(1 for a, b in zip(times, times[1:]) if b < a - 0.05)
    assert 1 <= resets <= 4, resets
    assert max(b - a for a, b in zip(arrivals, arrivals[1:])) < 1.0  # /clock never stopped for long
    assert times[-1] >= 2.0, times[-3:]  # and ran on after the last reset
    assert proc.poll() is None and "Traceback" not in log_path.read_text()


def test_node_refuses_a_bad_allowed_origin_with_one_line():
    result = subprocess.run(node_command(f"world_file:={DEMO_WORLD}", "viewer_allowed_origins:=['null']"),
                            capture_output=True, text=True, timeout=60)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1 and "viewer_allowed_origins" in lines[0], result.stderr
    assert "Traceback" not in result.stderr + result.stdout
