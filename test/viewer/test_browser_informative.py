"""What the viewer page tells a newcomer, in real headless Chromium against `mvsim_ros.cli.view` on the demo world:
name labels, the ground grid and axes, layer toggles, the selected vehicle's readout, the collision cue, and the
mouse tools (set pose, goal).

The simulation's state is read back from the server's frames by a Python WebSocket client (SimWatcher), not from
the page. The tests share one simulator process and one page and run in file order.
"""

from __future__ import annotations

import io
import math
import re
import time

import numpy as np
import pytest
from PIL import Image

import browser_support

viewer_process = browser_support.viewer_process
sim_watcher = browser_support.sim_watcher
browser_page = browser_support.browser_page

#: Inner face of the demo room's bottom wall [m] (demo_room.png: rows 157..159 at 0.1 m, centred on the origin).
BOTTOM_WALL_Y = -7.7


@pytest.fixture(autouse=True)
def no_page_errors(browser_page):
    yield
    assert browser_page.errors == [], browser_page.errors
    assert browser_page.viewer("v.errors") == []


def screenshot(browser_page) -> np.ndarray:
    """The whole page as an RGB array (H x W x 3, int16)."""
    png = browser_page.page.screenshot()
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(np.int16)


def wait_rendered(browser_page, frames: int = 3) -> None:
    """Wait until the page has applied `frames` more frames."""
    start = browser_page.viewer("v.rendered")
    browser_page.page.wait_for_function(f"window.mvsimViewer.rendered >= {start + frames}", timeout=10000)


def look_at(browser_page, x: float, y: float, distance: float = 6.0) -> None:
    """Camera `distance` m from the ROS point (x, y, 0), looking from the -y side, 57 degrees down."""
    browser_page.viewer(f"v.setView({{distance: {distance}, azimuth: {-math.pi / 2}, elevation: 1.0, "
                        f"target: [{x}, {y}, 0]}})")
    wait_rendered(browser_page)


def vehicle_row(sim_watcher, name: str) -> np.ndarray:
    """The newest frame's "vehicles" row of a vehicle: x, y, yaw, speed, lateral, yaw rate, steering, collision."""
    _, arrays = sim_watcher.state()
    index = [v["name"] for v in sim_watcher.scene["vehicles"]].index(name)
    return arrays["vehicles"][index]


def drag_on_ground(browser_page, tool_key: str, x: float, y: float, yaw: float, length: float = 1.0) -> None:
    """With the tool of `tool_key` ("p": set pose, "g": goal), press on the ground at (x, y), drag `length` m
    towards `yaw` [rad] and release."""
    page = browser_page.page
    page.keyboard.press(tool_key)
    page.wait_for_function("window.mvsimViewer.tool !== null", timeout=5000)
    x0, y0 = browser_page.viewer(f"v.project({x}, {y}, 0)")
    x1, y1 = browser_page.viewer(f"v.project({x + length * math.cos(yaw)}, {y + length * math.sin(yaw)}, 0)")
    page.mouse.move(x0, y0)
    page.mouse.down()
    for k in range(1, 6):
        page.mouse.move(x0 + (x1 - x0) * k / 5, y0 + (y1 - y0) * k / 5)
    page.mouse.up()
    page.wait_for_function("window.mvsimViewer.tool === null", timeout=5000)


def readout(browser_page) -> dict[str, str]:
    """The readout panel's fields by name."""
    return browser_page.viewer("Object.fromEntries([...document.querySelectorAll('#readout [data-field]')]"
                               ".map((e) => [e.dataset.field, e.textContent]))")


def number(text: str) -> float:
    """The first number in a readout field."""
    return float(re.search(r"-?\d+(\.\d+)?", text).group(0))


def test_first_view_frames_the_vehicles(browser_page, sim_watcher):
    """The demo world has no <gui>: the first view shows both robots, each big enough to make out."""
    browser_page.page.wait_for_function("window.mvsimViewer && window.mvsimViewer.frames > 5", timeout=20000)
    width, height = browser_support.VIEWPORT["width"], browser_support.VIEWPORT["height"]
    for name in ("r1", "r2"):
        _, x, y, yaw = sim_watcher.pose(name)
        centre = browser_page.viewer(f"v.project({x}, {y}, 0.2)")
        assert 0 < centre[0] < width and 0 < centre[1] < height, (name, centre)
        nose = browser_page.viewer(f"v.project({x + 0.3 * math.cos(yaw)}, {y + 0.3 * math.sin(yaw)}, 0.2)")
        tail = browser_page.viewer(f"v.project({x - 0.25 * math.cos(yaw)}, {y - 0.25 * math.sin(yaw)}, 0.2)")
        assert math.dist(nose, tail) > 15, (name, nose, tail)  # 0.55 m long: at least 15 px on the page


def test_labels_name_every_vehicle_above_it(browser_page, sim_watcher):
    _, x, y, _ = sim_watcher.pose("r1")
    look_at(browser_page, x, y, distance=8.0)
    labels = browser_page.page.locator(".vehicle-label")
    assert sorted(labels.all_inner_texts()) == ["r1", "r2"]
    label = browser_page.page.locator('.vehicle-label[data-vehicle="r1"]')
    assert label.is_visible()
    box = label.bounding_box()
    top = browser_page.viewer(f"v.project({x}, {y}, 0.4)")  # the chassis top (zmax 0.4 m)
    centre_x = box["x"] + box["width"] / 2
    assert abs(centre_x - top[0]) < 10, (box, top)
    assert box["y"] + box["height"] <= top[1] + 2, "the label sits above the vehicle"


def test_grid_axes_and_scale_are_drawn(browser_page):
    grid = browser_page.viewer("v.grid")
    assert grid["cellSize"] == 1 and grid["cells"] >= 24, grid  # covers the 24 m x 16 m room
    assert browser_page.viewer("v.layerShown('grid')") == {"shown": True, "items": 6}  # 2 grids, axes, 3 letters
    texts = browser_page.page.locator(".axis-label").all_inner_texts()
    assert sorted(texts) == ["1 m grid", "x", "y"]
    # An empty stretch of floor: grid lines are drawn across it, and go when the grid is hidden.
    look_at(browser_page, 2.0, 5.0, distance=4.0)
    with_grid = screenshot(browser_page)
    browser_page.page.click("#layer-grid")
    wait_rendered(browser_page)
    without = screenshot(browser_page)
    browser_page.page.click("#layer-grid")
    wait_rendered(browser_page)
    centre = np.s_[200:440, 300:660]
    changed = (np.abs(with_grid[centre] - without[centre]).sum(axis=2) > 20).mean()
    assert changed > 0.002, changed  # 1-pixel lines across the patch


def drive(browser_page, keys: str, seconds: float) -> None:
    """Hold `keys` (e.g. "w", "wa") for `seconds` of wall time, then release them."""
    keyboard = browser_page.page.keyboard
    for key in keys:
        keyboard.down(key)
    time.sleep(seconds)
    for key in keys:
        keyboard.up(key)


def test_trail_follows_a_driven_vehicle(browser_page, sim_watcher):
    _, x, y, _ = sim_watcher.pose("r1")
    look_at(browser_page, x + 0.5, y, distance=6.0)
    drive(browser_page, "w", 1.5)
    sim_watcher.wait(lambda h, a: abs(a["vehicles"][0, 3]) < 0.02, what="r1 stopped")
    wait_rendered(browser_page)
    trail = browser_page.viewer("v.layerShown('trails')")
    assert trail == {"shown": True, "items": 1}, trail  # r1's; r2 has not moved


@pytest.mark.parametrize("layer", ["rays", "points", "trails", "footprints", "labels", "grid"])
def test_each_toggle_hides_and_shows_its_layer(browser_page, layer):
    box = browser_page.page.locator(f"#layer-{layer}")
    before = browser_page.viewer(f"v.layerShown('{layer}')")
    assert before["shown"] and box.is_checked()
    box.click()
    wait_rendered(browser_page)
    assert browser_page.viewer(f"v.layerShown('{layer}')")["shown"] is False
    assert browser_page.viewer(f"v.layers['{layer}']") is False
    if layer == "labels":
        assert not browser_page.page.locator(".vehicle-label").first.is_visible()
    if layer == "grid":
        assert not browser_page.page.locator(".axis-label").first.is_visible()
    box.click()
    wait_rendered(browser_page)
    after = browser_page.viewer(f"v.layerShown('{layer}')")
    assert after["shown"] is True and after["items"] == before["items"]
    if layer == "labels":
        assert browser_page.page.locator(".vehicle-label").first.is_visible()


def test_hiding_rays_removes_the_scan_from_the_picture(browser_page, sim_watcher):
    _, x, y, _ = sim_watcher.pose("r1")
    look_at(browser_page, x + 1.5, y, distance=5.0)
    with_rays = screenshot(browser_page)
    browser_page.page.click("#layer-rays")
    wait_rendered(browser_page)
    without = screenshot(browser_page)
    browser_page.page.click("#layer-rays")
    wait_rendered(browser_page)
    greener = (with_rays[..., 1] - with_rays[..., 0]) - (without[..., 1] - without[..., 0])
    assert (greener > 8).mean() > 0.02, (greener > 8).mean()


def test_readout_shows_the_simulation_state_of_the_selected_vehicle(browser_page, sim_watcher):
    page = browser_page.page
    keyboard = page.keyboard
    keyboard.down("w")
    keyboard.down("a")
    time.sleep(1.5)
    page.click("#pause")  # paused while turning: speed and yaw rate are not zero
    keyboard.up("a")
    keyboard.up("w")
    sim_watcher.wait(lambda h, a: h["paused"], what="paused")
    page.wait_for_function("window.mvsimViewer.paused === true", timeout=5000)
    wait_rendered(browser_page)
    header, arrays = sim_watcher.state()
    row = arrays["vehicles"][0]
    wheels = arrays["wheels"][[k for k, w in enumerate(sim_watcher.scene["wheels"]) if w["body"] == 0], 2]
    shown = readout(browser_page)
    assert shown["name"] == "r1"
    for field, column in (("x", 0), ("y", 1), ("yaw", 2), ("speed", 3), ("yaw-rate", 5)):
        assert number(shown[field]) == pytest.approx(float(row[column]), abs=2e-3), (field, shown[field], row)
    assert number(shown["speed"]) == pytest.approx(0.5, abs=0.15)
    assert number(shown["yaw-rate"]) == pytest.approx(1.0, abs=0.3)
    assert shown["steering"].startswith("none")
    assert [float(v) for v in shown["wheels"].split()[:-1]] == pytest.approx(wheels.tolist(), abs=0.01)
    assert shown["collision"] == "no" and row[7] == 0.0
    page.click("#play")
    page.wait_for_function("window.mvsimViewer.paused === false", timeout=5000)


def test_set_pose_by_mouse_moves_the_vehicle_there(browser_page, sim_watcher):
    target = (2.0, 1.0, 0.6)
    look_at(browser_page, target[0], target[1], distance=6.0)
    drag_on_ground(browser_page, "p", *target)
    sent = browser_page.viewer("v.lastPoseMessage")
    assert sent["type"] == "set_pose" and sent["vehicle"] == "r1"
    sim_watcher.wait(lambda h, a: math.dist(a["vehicles"][0, :2], target[:2]) < 0.05, what="r1 at the set pose")
    _, x, y, yaw = sim_watcher.pose("r1")
    assert (x, y) == pytest.approx(target[:2], abs=0.05)
    assert abs(math.remainder(yaw - target[2], math.tau)) < 0.05
    assert abs(vehicle_row(sim_watcher, "r1")[3]) < 0.05, "placed at rest"


def test_collision_cue_while_a_vehicle_touches_a_wall(browser_page, sim_watcher):
    start = (0.0, BOTTOM_WALL_Y + 0.8, -math.pi / 2)  # facing the bottom wall, 0.5 m from it
    look_at(browser_page, start[0], start[1] + 0.5, distance=6.0)
    drag_on_ground(browser_page, "p", *start)
    sim_watcher.wait(lambda h, a: math.dist(a["vehicles"][0, :2], start[:2]) < 0.05, what="r1 by the wall")
    assert browser_page.viewer("v.collisionShown('r1')") == {"outline": False, "label": False}
    browser_page.page.keyboard.down("w")
    try:
        sim_watcher.wait(lambda h, a: a["vehicles"][0, 7] == 1.0, timeout=8.0, what="r1 touching the wall")
        browser_page.page.wait_for_function("window.mvsimViewer.collisionShown('r1').outline", timeout=5000)
        shown = browser_page.viewer("({cue: v.collisionShown('r1'), other: v.collisionShown('r2')})")
        assert shown == {"cue": {"outline": True, "label": True}, "other": {"outline": False, "label": False}}
        assert "collision" in browser_page.page.locator('.vehicle-label[data-vehicle="r1"]').inner_text()
        assert readout(browser_page)["collision"] == "COLLISION"
    finally:
        browser_page.page.keyboard.up("w")
    away = (0.0, -4.0, math.pi / 2)
    drag_on_ground(browser_page, "p", *away)
    sim_watcher.wait(lambda h, a: a["vehicles"][0, 7] == 0.0, what="r1 clear of the wall")
    browser_page.page.wait_for_function("!window.mvsimViewer.collisionShown('r1').outline", timeout=5000)
    assert readout(browser_page)["collision"] == "no"


def test_goal_by_mouse_is_shown_without_moving_the_vehicle(browser_page, sim_watcher):
    _, x0, y0, _ = sim_watcher.pose("r1")
    goal = (x0 + 1.0, y0 + 0.5, 2.0)
    look_at(browser_page, goal[0], goal[1], distance=6.0)
    drag_on_ground(browser_page, "g", *goal)
    sent = browser_page.viewer("v.lastPoseMessage")
    assert sent["type"] == "goal" and sent["vehicle"] == "r1"
    assert (sent["x"], sent["y"]) == pytest.approx(goal[:2], abs=0.03)
    assert abs(math.remainder(sent["yaw"] - goal[2], math.tau)) < 0.05
    assert browser_page.viewer("v.goals.r1") == pytest.approx([sent["x"], sent["y"], sent["yaw"]])
    time.sleep(0.5)
    _, x1, y1, _ = sim_watcher.pose("r1")
    assert math.dist((x0, y0), (x1, y1)) < 0.05, "mvsim_view has no planner: the goal is only shown"


def test_status_shows_the_target_and_achieved_real_time_factor(browser_page):
    browser_page.page.wait_for_function(
        "/rtf \\d+\\.\\d\\d \\(target 1\\.00\\)/.test(document.getElementById('status').textContent)", timeout=5000)
    text = browser_page.page.locator("#status").inner_text()
    achieved = float(re.search(r"rtf (\d+\.\d+)", text).group(1))
    assert 0.3 < achieved < 2.0, text


def test_reset_rebuilds_the_overlays_once(browser_page, sim_watcher):
    """A reset sends a new scene: one label per vehicle and one set of axis letters remain, the trails start
    again, the readout follows r1 back to its initial pose."""
    version = sim_watcher.scene["version"]
    browser_page.page.click("#reset")
    browser_page.page.wait_for_function(f"window.mvsimViewer.sceneVersion > {version}", timeout=10000)
    wait_rendered(browser_page)
    assert browser_page.page.locator(".vehicle-label").count() == 2
    assert browser_page.page.locator(".axis-label").count() == 3
    assert browser_page.viewer("v.layerShown('trails')")["items"] == 0
    browser_page.page.wait_for_function(
        "Math.abs(parseFloat(document.querySelector('#readout [data-field=x]').textContent)) < 0.01", timeout=5000)
