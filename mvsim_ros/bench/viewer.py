"""What the browser viewer costs the simulation: the benchmark's viewer case (`python -m mvsim_ros.bench --viewer`).

One benchmark robot drives its circle; the viewer's server process (ViewerServerProcess, as the node and
mvsim_view run it) and a ViewerLink serve it to one connected page: headless Chromium (Debian's /usr/bin/chromium
driven by Playwright, software WebGL) when available, else a WebSocket client in another process that reads every
frame. The run alternates phases of PHASE_S wall seconds: stepping bare, and stepping with `link.service()` after
every batch of BATCH steps, as the node calls it once per timer tick (frames encoded at the viewer rate, sent by
the server process, drawn by the page). Both kinds of phase share the same machine state, so their real-time
factors compare side by side; the cost is 1 - viewer / bare.

The browser's priority: with no GPU, Chromium draws WebGL in software (SwiftShader), and that drawing competes
with the simulation for the machine's cores like any other busy program; on a machine with a GPU it happens on
the GPU. By default (``browser_nice=10``) the page's processes run at a lower scheduling priority, so what is
measured is what the viewer itself costs the simulation (snapshots, encoding, the server process) rather than
the software renderer's share of two cores; ``browser_nice=0`` measures the browser at the simulation's priority.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

import numpy as np

#: Wall seconds of one phase (bare or with the viewer) before switching.
PHASE_S = 0.2
#: Steps between two calls of link.service() (the node: one call per timer tick of 10 ms of wall time, which is
#: about 20 steps of this robot at its real-time factor).
BATCH = 20
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
    #: The viewer's own time on the simulation's thread (link.service(): commands, frame encoding), as a fraction
    #: of the viewer phases' wall time. Not disturbed by the machine's ups and downs, unlike the ratio of
    #: real-time factors.
    accounted: float = 0.0
    #: CPU time of the server process (pages, WebSocket sends) as a fraction of the wall time: another process,
    #: so it takes nothing from the simulation's thread unless the machine's cores are all busy.
    server_cpu: float = 0.0

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

    def __init__(self, url: str, browser: bool = True, nice: int = 0) -> None:
        self._pw = self._browser = self._page = self._proc = self._folder = None
        if browser and os.path.exists(CHROMIUM):
            try:
                from playwright.sync_api import sync_playwright
            except ImportError:
                sync_playwright = None
            if sync_playwright is not None:
                executable = CHROMIUM
                if nice:  # every process of the browser inherits the priority of the one started
                    self._folder = tempfile.TemporaryDirectory(prefix="mvsim-bench-")
                    executable = os.path.join(self._folder.name, "chromium")
                    with open(executable, "w", encoding="utf-8") as script:
                        script.write(f'#!/bin/sh\nexec nice -n {int(nice)} {CHROMIUM} "$@"\n')
                    os.chmod(executable, stat.S_IRWXU)
                self._pw = sync_playwright().start()
                self._browser = self._pw.chromium.launch(executable_path=executable, headless=True,
                                                         args=CHROMIUM_FLAGS)
                self._page = self._browser.new_page(viewport={"width": 960, "height": 640})
                self._page.goto(url)
                self.kind = "chromium"
                return
        ws_url = url.replace("http://", "ws://").rstrip("/") + "/ws"
        niced = ["nice", "-n", str(int(nice))] if nice else []
        self._proc = subprocess.Popen(niced + [sys.executable, "-c", _READER, ws_url], stdin=subprocess.PIPE,
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
        if self._folder is not None:
            self._folder.cleanup()


def _phase(sim, link, spent: list[float]) -> float:
    """Step for PHASE_S of wall time (calling `link.service()` after every BATCH steps when given, its wall time
    added to spent[0] and the phase's to spent[1]); the real-time factor reached."""
    start, steps = time.perf_counter(), 0
    clock = time.perf_counter
    while clock() - start < PHASE_S:
        for _ in range(BATCH):
            sim.step()
        if link is not None:
            before = clock()
            link.service()
            spent[0] += clock() - before
        steps += BATCH
    wall = time.perf_counter() - start
    if link is not None:
        spent[1] += wall
    return steps * sim.dt / wall


def _process_cpu_s(pid: int) -> float:
    """CPU time [s] (user + system) process `pid` has used so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure_viewer(wall_seconds: float, kind: str = "differential", browser: bool = True,
                   browser_nice: int = 10) -> ViewerCost:
    """ViewerCost of one `kind` robot over about 2 x `wall_seconds` of alternating phases, after a warm-up: the
    median bare real-time factor, and that times the median ratio of the pairs. browser_nice: the page's
    scheduling niceness (0: the simulation's priority; see the module docstring)."""
    from mvsim_ros.bench.vehicles import make_simulation
    from mvsim_ros.viewer.link import ViewerLink
    from mvsim_ros.viewer.server_process import ViewerServerProcess

    sim = make_simulation(1, kind=kind)
    server = ViewerServerProcess(port=0)
    server.start()
    link = ViewerLink(server, _BenchHost(sim))
    page = None
    try:
        link.service()
        page = _Page(server.url, browser, browser_nice)
        deadline = time.monotonic() + 30.0
        while page.frames() == 0:  # the page loads and draws its first frames, the simulation running
            if time.monotonic() > deadline:
                raise RuntimeError(f"the viewer page at {server.url} received no frame within 30 s")
            for _ in range(BATCH):
                sim.step()
            link.service()
            time.sleep(0.01)
        for _ in range(int(0.5 / sim.dt / BATCH)):  # warm-up, the page drawing
            for _ in range(BATCH):
                sim.step()
            link.service()
        frames0 = page.frames()
        ratios, bare_rtf, viewer_rtf = [], [], []
        spent = [0.0, 0.0]  # wall time in link.service(), wall time of the viewer phases [s]
        server_cpu0 = _process_cpu_s(server.pid)
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
        server_cpu = _process_cpu_s(server.pid) - server_cpu0
        frames = page.frames() - frames0 if frames0 >= 0 else -1
        bare = float(np.median(bare_rtf))
        return ViewerCost(bare, bare * float(np.median(ratios)), frames, page.kind, elapsed,
                          spent[0] / spent[1], server_cpu / elapsed)
    finally:
        if page is not None:
            page.close()
        server.stop()


def report(runs: list[ViewerCost], kind: str, browser_nice: int, dt: float, out=print) -> None:
    """Print (through `out`) the runs of the viewer case: each run's figures, then the median cost."""
    out(f"viewer, 1 {kind} robot, one page ({runs[0].page}, niceness {browser_nice}), dt = {dt * 1e3:g} ms, "
        f"phases of bare and viewer stepping alternated in each run:")
    for k, run in enumerate(runs, 1):
        frame_rate = f"{run.frames / run.seconds:.0f} frames/s to the page" if run.frames >= 0 else ""
        out(f"  run {k}: {run.bare:7.1f}x bare  {run.with_viewer:7.1f}x with the viewer  cost "
            f"{100 * run.cost:5.1f} %  (viewer's time on the simulation's thread {100 * run.accounted:4.1f} %,"
            f" server process CPU {100 * run.server_cpu:4.1f} % of the wall time)  {frame_rate}")
    out(f"  median cost: {100 * float(np.median([run.cost for run in runs])):.1f} % of the real-time factor "
        f"side by side; the viewer's time on the simulation's thread: "
        f"{100 * float(np.median([r.accounted for r in runs])):.2f} %")


__all__ = ["BATCH", "PHASE_S", "ViewerCost", "measure_viewer", "report"]
