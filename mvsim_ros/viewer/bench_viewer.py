"""What the browser viewer costs the simulation: the benchmark's viewer case (`python -m mvsim_ros.bench --viewer`).

One benchmark robot drives its circle; a ViewerServer and ViewerLink serve it to one connected page: headless
Chromium (Debian's /usr/bin/chromium driven by Playwright, software WebGL) when available, else a WebSocket client
in another process that reads every frame. The run alternates phases of PHASE_S wall seconds: stepping bare, and
stepping with `link.service()` after every step (frames encoded at the viewer rate, sent by the server's thread,
drawn by the page). Both kinds of phase share the same machine state, so their real-time factors compare side by
side; the cost is 1 - viewer / bare.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass

import numpy as np

#: Wall seconds of one phase (bare or with the viewer) before switching.
PHASE_S = 0.2
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--use-angle=swiftshader",
                  "--enable-unsafe-swiftshader"]
#: The fallback page: a WebSocket client in another process that reads and decodes every frame until stdin closes.
_READER = """
import asyncio, sys
import aiohttp

async def main(url):
    async with aiohttp.ClientSession() as session, session.ws_connect(url, max_msg_size=0) as ws:
        print("connected", flush=True)
        async for msg in ws:
            pass

asyncio.run(main(sys.argv[1]))
"""


@dataclass
class ViewerCost:
    """Real-time factors [simulated s / wall s] without and with the viewer, frames the page received, and
    what the page was ('chromium' or 'websocket client')."""

    bare: float
    with_viewer: float
    frames: int
    page: str
    seconds: float = 0.0  # wall time of the measured phases [s]
    #: The viewer's own time in the process, as a fraction of the wall time: link.service() on the simulation's
    #: thread plus the CPU time of the server's thread (which holds the interpreter lock while it works). Not
    #: disturbed by the machine's ups and downs, unlike the ratio of real-time factors.
    accounted: float = 0.0

    @property
    def cost(self) -> float:
        """Fraction of the real-time factor the viewer takes (1 - with_viewer / bare)."""
        return 1.0 - self.with_viewer / self.bare


class _BenchHost:
    """The smallest ViewerHost: a running Simulation, nothing to pause or reset (the page sends no commands)."""

    def __init__(self, sim) -> None:
        self.sim, self.sensors, self.scene_version, self.paused, self.rtf = sim, None, 0, False, 0.0

    def drive(self, vehicle_index: int, v: float, w: float) -> None:
        self.sim.set_twist(vehicle_index, v, w)

    def steer(self, vehicle_index: int, speed: float, angle: float) -> None:
        self.sim.set_ackermann(vehicle_index, speed, angle)

    def pause(self) -> None:
        pass

    def play(self) -> None:
        pass

    def step(self, n: int) -> None:
        pass

    def reset(self) -> None:
        pass


class _Page:
    """One connected page: Chromium through Playwright, or the fallback WebSocket reader process."""

    def __init__(self, url: str, browser: bool = True) -> None:
        self._pw = self._browser = self._page = self._proc = None
        if browser and os.path.exists(CHROMIUM):
            try:
                from playwright.sync_api import sync_playwright
            except ImportError:
                sync_playwright = None
            if sync_playwright is not None:
                self._pw = sync_playwright().start()
                self._browser = self._pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                         args=CHROMIUM_FLAGS)
                self._page = self._browser.new_page(viewport={"width": 960, "height": 640})
                self._page.goto(url)
                self.kind = "chromium"
                return
        ws_url = url.replace("http://", "ws://").rstrip("/") + "/ws"
        self._proc = subprocess.Popen([sys.executable, "-c", _READER, ws_url], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True)
        self._proc.stdout.readline()
        self.kind = "websocket client"

    def frames(self) -> int:
        """Frames the page received so far (-1 when the page cannot say: the fallback reader)."""
        if self._page is None:
            return -1
        return int(self._page.evaluate("window.mvsimViewer ? window.mvsimViewer.frames : 0"))

    def close(self) -> None:
        if self._browser is not None:
            self._browser.close()
            self._pw.stop()
        if self._proc is not None:
            self._proc.terminate()
            self._proc.wait(10.0)


def _phase(sim, link, spent: list[float]) -> float:
    """Step for PHASE_S of wall time (calling `link.service()` after every step when given, its wall time added
    to spent[0] and the phase's to spent[1]); the real-time factor reached."""
    start, steps = time.perf_counter(), 0
    clock = time.perf_counter
    while clock() - start < PHASE_S:
        if link is None:
            for _ in range(20):
                sim.step()
        else:
            for _ in range(20):
                sim.step()
                before = clock()
                link.service()
                spent[0] += clock() - before
        steps += 20
    wall = time.perf_counter() - start
    if link is not None:
        spent[1] += wall
    return steps * sim.dt / wall


def _thread_cpu_s(thread) -> float:
    """CPU time [s] a thread has used so far (Linux: its POSIX CPU-time clock)."""
    return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))


def measure_viewer(wall_seconds: float, kind: str = "differential", browser: bool = True) -> ViewerCost:
    """ViewerCost of one `kind` robot over about 2 x `wall_seconds` of alternating phases, after a warm-up: the
    median bare real-time factor, and that times the median ratio of the pairs."""
    from mvsim_ros.bench import make_simulation
    from mvsim_ros.viewer.link import ViewerLink
    from mvsim_ros.viewer.server import ViewerServer

    sim = make_simulation(1, kind=kind)
    server = ViewerServer(port=0)
    server.start()
    link = ViewerLink(server, _BenchHost(sim))
    page = None
    try:
        link.service()
        page = _Page(server.url, browser)
        deadline = time.monotonic() + 30.0
        while page.frames() == 0:  # the page loads and draws its first frames, the simulation running
            if time.monotonic() > deadline:
                raise RuntimeError(f"the viewer page at {server.url} received no frame within 30 s")
            for _ in range(20):
                sim.step()
                link.service()
            time.sleep(0.01)
        for _ in range(int(0.5 / sim.dt)):  # warm-up, the page drawing
            sim.step()
            link.service()
        frames0 = page.frames()
        ratios, bare_rtf, viewer_rtf = [], [], []
        spent = [0.0, 0.0]  # wall time in link.service(), wall time of the viewer phases [s]
        server_cpu0 = _thread_cpu_s(server.thread)
        started = time.perf_counter()
        while time.perf_counter() - started < 2 * wall_seconds:
            # A pair of phases, in ABBA order over successive pairs so that a drifting machine speed cancels.
            order = (False, True) if len(ratios) % 2 == 0 else (True, False)
            rates = {}
            for with_viewer in order:
                rates[with_viewer] = _phase(sim, link if with_viewer else None, spent)
            ratios.append(rates[True] / rates[False])
            bare_rtf.append(rates[False])
            viewer_rtf.append(rates[True])
        elapsed = time.perf_counter() - started
        server_cpu = _thread_cpu_s(server.thread) - server_cpu0
        frames = page.frames() - frames0 if frames0 >= 0 else -1
        bare = float(np.median(bare_rtf))
        return ViewerCost(bare, bare * float(np.median(ratios)), frames, page.kind, elapsed,
                          (spent[0] + server_cpu) / spent[1])
    finally:
        if page is not None:
            page.close()
        server.stop()
