"""MVSim-like worlds look right in the viewer, in real headless Chromium against `mvsim_ros.cli.view` on a
warehouse of our own (viewer_worlds.WAREHOUSE_WORLD: a building with a ceiling and two robots of the same chassis
colour): the robot is seen from the default view (the ceiling culled as MVSim culls it), the vehicles have
distinct colours, the grid is whole on first load, and a page opened late draws the trails the simulator kept.

The tests share one simulator process and run in file order (the first ones need a page that has not driven).
"""

from __future__ import annotations

import io
import time

import numpy as np
import pytest
from PIL import Image

import browser_support
from viewer_worlds import WAREHOUSE_WORLD

#: Initial position of r1 [m] and its chassis top [m] (WAREHOUSE_WORLD).
R1_XY, R1_TOP = (2.0, 1.0), 0.6


@pytest.fixture(scope="module")
def viewer_process(tmp_path_factory):
    reason = browser_support.browser_skip_reason()
    if reason:
        pytest.skip(reason)
    world = tmp_path_factory.mktemp("warehouse") / "warehouse.world.xml"
    world.write_text(WAREHOUSE_WORLD)
    proc = browser_support.ViewerProcess(world)
    yield proc
    proc.stop()


sim_watcher = browser_support.sim_watcher
browser_page = browser_support.browser_page


@pytest.fixture(autouse=True)
def no_page_errors(browser_page):
    yield
    assert browser_page.errors == [], browser_page.errors
    assert browser_page.viewer("v.errors") == []


def screenshot(page) -> np.ndarray:
    """The whole page as an RGB array (H x W x 3, int16)."""
    return np.asarray(Image.open(io.BytesIO(page.screenshot())).convert("RGB")).astype(np.int16)


def first_frames(browser_page, frames: int = 3) -> None:
    """Wait until the page has applied `frames` frames (and drawn them)."""
    browser_page.page.wait_for_function(f"window.mvsimViewer.rendered >= {frames}", timeout=20000)
    browser_page.page.wait_for_timeout(300)


def window(image: np.ndarray, x: float, y: float, half: int = 2) -> np.ndarray:
    """The pixels (N x 3) within `half` pixels of (x, y)."""
    col, row = int(round(x)), int(round(y))
    return image[max(row - half, 0):row + half + 1, max(col - half, 0):col + half + 1].reshape(-1, 3)


def test_robot_is_seen_from_the_default_view(browser_page):
    first_frames(browser_page)
    assert browser_page.viewer("v.layerShown('roofs')") == {"shown": True, "items": 1}
    image = screenshot(browser_page.page)
    x, y = browser_page.viewer(f"v.project({R1_XY[0]}, {R1_XY[1]}, {R1_TOP})")
    height, width = image.shape[:2]
    assert 0 <= x < width and 0 <= y < height, "r1 is outside the default view"
    pixels = window(image, x, y)
    red = (pixels[:, 0] > pixels[:, 1] + 50) & (pixels[:, 0] > pixels[:, 2] + 50)
    assert red.mean() > 0.5, f"r1's red chassis is not seen at its place: {pixels.tolist()}"
    # The whole building is in view: its four corners project inside the page.
    for cx, cy in [(-15, -13), (20, -13), (20, 13), (-15, 13)]:
        px, py = browser_page.viewer(f"v.project({cx}, {cy}, 0)")
        assert 0 <= px < width and 0 <= py < height, (cx, cy, px, py)


def test_roofs_toggle_hides_the_ceiling(browser_page):
    page = browser_page.page
    page.click("#layer-roofs")
    assert browser_page.viewer("v.layerShown('roofs')") == {"shown": False, "items": 1}
    page.click("#layer-roofs")
    assert browser_page.viewer("v.layerShown('roofs')")["shown"] is True


def test_two_vehicles_have_different_colours(browser_page):
    colors = browser_page.viewer("v.vehicleColors")
    assert set(colors) == {"r1", "r2"} and colors["r1"] != colors["r2"]
    legend = browser_page.page.eval_on_selector_all(
        "#legend .legend-item", "items => items.map(i => [i.dataset.vehicle, "
        "getComputedStyle(i.querySelector('.legend-swatch')).backgroundColor])")
    assert [name for name, _ in legend] == ["r1", "r2"]
    assert legend[0][1] != legend[1][1]
    borders = browser_page.page.eval_on_selector_all(
        ".vehicle-label", "labels => labels.map(l => getComputedStyle(l).borderTopColor)")
    assert len(borders) == 2 and borders[0] != borders[1]


def grid_line_contrast(browser_page, image, points, offset) -> float:
    """Share of `points` (ROS x, y on the ground) where the grid line is brighter than the ground `offset` m
    beside it."""
    hits = 0
    for x, y in points:
        on = window(image, *browser_page.viewer(f"v.project({x}, {y}, 0)"), half=1).sum(axis=1).max()
        ox, oy = x + offset[0], y + offset[1]
        off = window(image, *browser_page.viewer(f"v.project({ox}, {oy}, 0)"), half=1).sum(axis=1).max()
        hits += on > off + 30
    return hits / len(points)


def test_grid_is_whole_on_first_load(browser_page, sim_watcher):
    assert browser_page.viewer("v.lastDrive") is None, "the page has not driven yet"
    image = screenshot(browser_page.page)
    cx, cy = browser_page.viewer("v.grid.centre")
    # A bold line along y (x = cx + 5) and one along x (y = cy + 5), sampled away from the robots and walls.
    along_y = [(cx + 5, y) for y in np.arange(-8.0, 10.5, 1.5)]
    along_x = [(x, cy + 5) for x in np.arange(-12.0, 18.5, 1.5)]
    assert grid_line_contrast(browser_page, image, along_y, (0.5, 0)) > 0.8
    assert grid_line_contrast(browser_page, image, along_x, (0, 0.5)) > 0.8


def test_a_page_opened_late_draws_the_trails_the_simulator_kept(browser_page, viewer_process, sim_watcher):
    _, x0, y0, _ = sim_watcher.pose("r1")
    keyboard = browser_page.page.keyboard
    keyboard.down("w")
    sim_watcher.wait(lambda h, a: abs(sim_watcher.pose("r1")[1] - x0) > 0.6, timeout=20.0, what="r1 moving")
    keyboard.up("w")
    sim_watcher.wait(lambda h, a: abs(a["vehicles"][0][3]) < 0.02, timeout=20.0, what="r1 stopping")
    time.sleep(1.0)  # the simulator hands its trails to the server every 0.5 s
    late = browser_page.browser.new_page(viewport=browser_support.VIEWPORT)
    errors = []
    late.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        late.goto(viewer_process.url)
        late.wait_for_function("window.mvsimViewer.trailsReceived >= 1", timeout=20000)
        late.wait_for_function("window.mvsimViewer.rendered >= 2", timeout=20000)
        assert late.evaluate("window.mvsimViewer.layerShown('trails')")["items"] >= 1
        assert errors == []
    finally:
        late.close()
