"""Fixtures of the browser viewer's tests: `mvsim_ros.cli.view` in a subprocess, a Python WebSocket client reading the
simulation's state from its frames, and headless Chromium (Debian's /usr/bin/chromium) driven by Playwright.

A helper module, not a conftest.py: test modules elsewhere do `from conftest import ...`, which a second
conftest.py (imported later, under the same module name) would break.

Chromium runs with WebGL in software: ANGLE on SwiftShader (``--use-angle=swiftshader --enable-unsafe-swiftshader``),
so no GPU and no display are needed. Playwright never downloads a browser here: it is given `executable_path`.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mvsim_ros.viewer.server import three_installed

REPO = Path(__file__).resolve().parents[1]
DEMO_WORLD = REPO / "worlds" / "demo_2robots.world.xml"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
    # WebGL without a GPU: ANGLE's Vulkan backend on SwiftShader (software), asked for explicitly so that Chromium
    # does not warn about an automatic fallback.
    "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
]
VIEWPORT = {"width": 960, "height": 640}


def browser_skip_reason() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not os.path.exists(CHROMIUM):
        return f"{CHROMIUM} is absent (tools/setup_env.sh installs Debian's chromium)"
    if not three_installed():
        return "three.js is not installed in mvsim_ros/viewer/web/node_modules (run tools/setup_env.sh)"
    return None


class ViewerProcess:
    """`python -m mvsim_ros.cli.view WORLD --port 0 --no-open` in a subprocess; `url` is read from its output."""

    def __init__(self, world: Path, seconds: float = 300.0):
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "ROS_DOMAIN_ID": "63"}
        env.pop("DISPLAY", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mvsim_ros.cli.view", str(world), "--port", "0", "--no-open",
             "--seconds", str(seconds)],
            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        self.url = None
        deadline = time.monotonic() + 60.0
        while self.url is None:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("mvsim_ros.cli.view exited early:\n" + "".join(self.lines))
            self.lines.append(line)
            found = re.search(r"viewer at (http://\S+)", line)
            if found:
                self.url = found.group(1)
            if time.monotonic() > deadline:
                raise RuntimeError("mvsim_ros.cli.view printed no URL within 60 s:\n" + "".join(self.lines))
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10.0)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class SimWatcher:
    """A Python WebSocket client of the viewer that keeps the newest scene and frame, read back from the
    simulation itself (not from the page)."""

    def __init__(self, url: str):
        from mvsim_ros.viewer.frame_message import unpack_message

        self._unpack = unpack_message
        self.ws_url = url.replace("http://", "ws://").rstrip("/") + "/ws"
        self.scene: dict | None = None
        self.header: dict | None = None
        self.arrays: dict = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._error: list[BaseException] = []
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)
        self._thread.start()
        if not self._ready.wait(20.0):
            raise RuntimeError(f"no frame from {self.ws_url} within 20 s: {self._error}")

    async def _run(self) -> None:
        import aiohttp

        try:
            async with aiohttp.ClientSession() as session, session.ws_connect(self.ws_url, max_msg_size=0) as ws:
                while not self._stop.is_set():
                    try:
                        msg = await ws.receive(timeout=0.2)
                    except asyncio.TimeoutError:
                        continue
                    if msg.type == aiohttp.WSMsgType.TEXT:
                        text = json.loads(msg.data)
                        if text.get("type") == "scene":
                            with self._lock:
                                self.scene = text
                    elif msg.type == aiohttp.WSMsgType.BINARY:
                        header, arrays, _ = self._unpack(msg.data)
                        if header.get("type") == "frame":
                            with self._lock:
                                self.header, self.arrays = header, {k: v.copy() for k, v in arrays.items()}
                            if self.scene is not None:
                                self._ready.set()
                    else:
                        break
        except BaseException as exc:  # surfaced by the next wait
            self._error.append(exc)
            self._ready.set()

    def state(self) -> tuple[dict, dict]:
        """(newest frame header, its arrays)."""
        if self._error:
            raise RuntimeError(f"watcher failed: {self._error[0]!r}")
        with self._lock:
            return dict(self.header), dict(self.arrays)

    def pose(self, vehicle: str) -> tuple[float, float, float, float]:
        """(simulated time [s], x [m], y [m], yaw [rad]) of a vehicle's body in the newest frame."""
        header, arrays = self.state()
        row = next(v["body"] for v in self.scene["vehicles"] if v["name"] == vehicle)
        x, y, _, yaw = arrays["bodies"][row, :4].tolist()
        return header["time"], x, y, yaw

    def wait(self, predicate, timeout: float = 10.0, what: str = "condition") -> tuple[dict, dict]:
        """Wait until predicate(header, arrays) holds for a frame; returns that frame."""
        deadline = time.monotonic() + timeout
        while True:
            header, arrays = self.state()
            if predicate(header, arrays):
                return header, arrays
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; last frame header: {header}")
            time.sleep(0.02)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5.0)


class BrowserPage:
    """Headless Chromium showing the viewer page; records console errors and page errors."""

    def __init__(self, url: str):
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        self.browser = self._pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        self.page = self.browser.new_page(viewport=VIEWPORT)
        self.console: list[str] = []
        self.errors: list[str] = []
        self.page.on("console", self._on_console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        self.page.goto(url)

    def _on_console(self, msg) -> None:
        self.console.append(f"{msg.type}: {msg.text}")
        if msg.type in ("error", "assert"):
            self.errors.append(f"console {msg.type}: {msg.text}")

    def viewer(self, expression: str):
        """Evaluate `expression` with `v` = window.mvsimViewer."""
        return self.page.evaluate(f"(() => {{ const v = window.mvsimViewer; return {expression}; }})()")

    def close(self) -> None:
        try:
            self.browser.close()
        finally:
            self._pw.stop()


@pytest.fixture(scope="module")
def viewer_process():
    reason = browser_skip_reason()
    if reason:
        pytest.skip(reason)
    proc = ViewerProcess(DEMO_WORLD)
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def sim_watcher(viewer_process):
    watcher = SimWatcher(viewer_process.url)
    yield watcher
    watcher.close()


@pytest.fixture(scope="module")
def browser_page(viewer_process):
    page = BrowserPage(viewer_process.url)
    yield page
    page.close()
