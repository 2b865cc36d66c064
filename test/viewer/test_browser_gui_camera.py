"""A world's own `<gui>` camera is the page's first view, in real headless Chromium against `mvsim_ros.cli.view`:
the camera sits cam_distance from cam_point_to, at cam_azimuth and cam_elevation (MVSim's orbit camera), with the
world's field of view; a world whose `<gui>` sets no camera is framed whole (test_browser_worlds.py)."""

from __future__ import annotations

import math

import pytest

import browser_support
from viewer_worlds import ROBOT_WORLD

#: MVSim's `<gui>` camera of the test world: distance [m], azimuth and elevation [deg], point looked at [m], fov.
DISTANCE, AZIMUTH_DEG, ELEVATION_DEG, POINT_TO, FOV_DEG = 9.0, 120.0, 35.0, (1.5, -2.0, 0.0), 45.0
GUI = (f"<gui><cam_distance>{DISTANCE}</cam_distance><cam_azimuth>{AZIMUTH_DEG}</cam_azimuth>"
       f"<cam_elevation>{ELEVATION_DEG}</cam_elevation><cam_point_to>{' '.join(map(str, POINT_TO))}</cam_point_to>"
       f"<fov_deg>{FOV_DEG}</fov_deg></gui>")


@pytest.fixture(scope="module")
def viewer_process(tmp_path_factory):
    reason = browser_support.browser_skip_reason()
    if reason:
        pytest.skip(reason)
    world = tmp_path_factory.mktemp("gui_camera") / "gui_camera.world.xml"
    world.write_text(ROBOT_WORLD.format(grid="", init_pose="0 0 0", sensors="", extra=GUI))
    proc = browser_support.ViewerProcess(world)
    yield proc
    proc.stop()


browser_page = browser_support.browser_page


def test_first_view_is_the_worlds_gui_camera(browser_page):
    browser_page.page.wait_for_function("window.mvsimViewer.rendered >= 2", timeout=20000)
    view = browser_page.viewer("v.cameraView()")
    assert view["target"] == pytest.approx(list(POINT_TO), abs=1e-3)
    az, el = math.radians(AZIMUTH_DEG), math.radians(ELEVATION_DEG)
    expected = [POINT_TO[0] + DISTANCE * math.cos(el) * math.cos(az),
                POINT_TO[1] + DISTANCE * math.cos(el) * math.sin(az), POINT_TO[2] + DISTANCE * math.sin(el)]
    assert view["position"] == pytest.approx(expected, abs=1e-3)
    assert view["fov"] == pytest.approx(FOV_DEG, abs=1e-6)
    assert browser_page.page.evaluate("document.getElementById('follow').checked") is False  # no follow_vehicle
    assert browser_page.errors == [], browser_page.errors
