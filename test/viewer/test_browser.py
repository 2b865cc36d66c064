"""The viewer page in real headless Chromium against `mvsim_ros.cli.view` on the demo world (robots r1, r2).

The simulation's state is read back from the server's frames by a Python WebSocket client (SimWatcher), not from
the page's own numbers. The tests share one simulator process and one page and run in file order.
"""

from __future__ import annotations

import io
import math
import time

import numpy as np
import pytest
from PIL import Image

import browser_support

# The module-scoped fixtures (one simulator process, one watcher, one page for all the tests below).
viewer_process = browser_support.viewer_process
sim_watcher = browser_support.sim_watcher
browser_page = browser_support.browser_page

BACKGROUND = (0x1D, 0x23, 0x2A)


@pytest.fixture(autouse=True)
def no_page_errors(browser_page):
    yield
    assert browser_page.errors == [], browser_page.errors
    assert browser_page.viewer("v.errors") == []


def screenshot(browser_page) -> np.ndarray:
    """The canvas as an RGB array (H x W x 3, uint8)."""
    png = browser_page.page.locator("#view canvas").screenshot()
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(np.int16)


def wait_rendered(browser_page, frames: int = 3) -> None:
    """Wait until the page has applied `frames` more frames."""
    start = browser_page.viewer("v.rendered")
    browser_page.page.wait_for_function(f"window.mvsimViewer.rendered >= {start + frames}", timeout=10000)


def test_page_loads(browser_page, sim_watcher):
    browser_page.page.wait_for_function("window.mvsimViewer && window.mvsimViewer.frames > 5", timeout=20000)
    v = browser_page.viewer("({version: v.sceneVersion, vehicles: v.vehicles, selected: v.selected, "
                            "connected: v.connected, time: v.time})")
    assert v["version"] == sim_watcher.scene["version"]
    assert v["vehicles"] == ["r1", "r2"] and v["selected"] == "r1"
    assert v["connected"] and v["time"] > 0
    assert "running" in browser_page.page.locator("#status").inner_text()


def test_canvas_is_not_blank(browser_page):
    wait_rendered(browser_page)
    image = screenshot(browser_page)
    colours = np.unique(image.reshape(-1, 3), axis=0)
    assert len(colours) > 100, len(colours)
    not_background = np.abs(image - np.array(BACKGROUND)).sum(axis=2) > 30
    assert not_background.mean() > 0.2, not_background.mean()


def look_at(browser_page, x: float, y: float, distance: float = 6.0) -> None:
    """Camera `distance` m from the ROS point (x, y, 0), looking from the -y side, 57 degrees down."""
    browser_page.viewer(f"v.setView({{distance: {distance}, azimuth: {-math.pi / 2}, elevation: 1.0, "
                        f"target: [{x}, {y}, 0]}})")
    wait_rendered(browser_page)


def patch(image: np.ndarray, centre, half: int = 12) -> np.ndarray:
    cx, cy = (int(round(c)) for c in centre)
    return image[cy - half:cy + half, cx - half:cx + half]


def settle(sim_watcher, seconds: float = 0.6) -> None:
    """Wait `seconds` of simulated time (the robot stops after the zero command)."""
    t0 = sim_watcher.state()[0]["time"]
    sim_watcher.wait(lambda h, a: h["time"] >= t0 + seconds, what=f"{seconds} s of simulated time")


def test_w_drives_r1_forward_and_its_pixels_move(browser_page, sim_watcher):
    _, x0, y0, yaw0 = sim_watcher.pose("r1")
    look_at(browser_page, x0 + 0.5 * math.cos(yaw0), y0 + 0.5 * math.sin(yaw0))
    before = screenshot(browser_page)
    p0 = browser_page.viewer(f"v.project({x0}, {y0}, 0.2)")

    keyboard = browser_page.page.keyboard
    keyboard.down("w")
    time.sleep(2.0)
    keyboard.up("w")
    assert browser_page.viewer("v.lastDrive") == {"type": "drive", "vehicle": "r1", "v": 0.0, "w": 0.0}
    settle(sim_watcher)

    _, x1, y1, yaw1 = sim_watcher.pose("r1")
    forward = (x1 - x0) * math.cos(yaw0) + (y1 - y0) * math.sin(yaw0)
    assert 0.7 <= forward <= 1.3, (forward, (x0, y0), (x1, y1))
    assert abs(math.remainder(yaw1 - yaw0, math.tau)) < 0.1

    wait_rendered(browser_page)
    after = screenshot(browser_page)
    p1 = browser_page.viewer(f"v.project({x1}, {y1}, 0.2)")
    assert math.dist(p0, p1) > 40, (p0, p1)
    # The robot left its old place and is drawn at the new one: both patches changed a lot.
    left = np.abs(patch(before, p0) - patch(after, p0)).mean()
    arrived = np.abs(patch(before, p1) - patch(after, p1)).mean()
    assert left > 15 and arrived > 15, (left, arrived)


def test_a_turns_r1_left(browser_page, sim_watcher):
    _, _, _, yaw0 = sim_watcher.pose("r1")
    keyboard = browser_page.page.keyboard
    keyboard.down("a")
    time.sleep(1.0)
    keyboard.up("a")
    settle(sim_watcher)
    _, _, _, yaw1 = sim_watcher.pose("r1")
    turned = math.remainder(yaw1 - yaw0, math.tau)
    assert 0.5 <= turned <= 1.5, turned  # 1 rad/s for 1 s


def test_pause_step_play(browser_page, sim_watcher):
    dt = sim_watcher.scene["dt"]
    page = browser_page.page
    page.click("#pause")
    header, _ = sim_watcher.wait(lambda h, a: h["paused"], what="paused")
    t_paused = header["time"]
    time.sleep(0.5)
    assert sim_watcher.state()[0]["time"] == t_paused
    page.wait_for_function("window.mvsimViewer.paused === true", timeout=5000)

    page.click("#step")
    header, _ = sim_watcher.wait(lambda h, a: h["time"] > t_paused, what="one step")
    assert header["time"] == pytest.approx(t_paused + dt, abs=1e-9)
    time.sleep(0.3)
    assert sim_watcher.state()[0]["time"] == pytest.approx(t_paused + dt, abs=1e-9) and header["paused"]

    page.click("#play")
    sim_watcher.wait(lambda h, a: not h["paused"] and h["time"] > t_paused + 0.3, what="running again")
    page.wait_for_function("window.mvsimViewer.paused === false", timeout=5000)
