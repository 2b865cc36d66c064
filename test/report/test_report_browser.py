"""The report page in headless Chromium (file:// URL): every image loads and the topic table lists the topics."""

from __future__ import annotations

import pytest
from report_fixtures import CircleRun, circle_recording

import browser_support
from mvsim_ros.report import write_report


@pytest.fixture
def report_and_browser(tmp_path):
    """(the report of a recording of two vehicles driving circles, headless Chromium to open it in); skipped where
    the browser or Playwright is missing; the browser is closed afterwards."""
    reason = browser_support.browser_skip_reason()
    if reason:
        pytest.skip(reason)
    sync_api = pytest.importorskip("playwright.sync_api")
    path = tmp_path / "run.mcap"
    circle_recording(path, CircleRun(vehicles={"veh1/": (1.0, 0.5, 0.0), "veh2/": (0.8, -0.4, 3.0)}))
    report = write_report(path)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=browser_support.CHROMIUM, headless=True,
                                             args=browser_support.CHROMIUM_FLAGS)
        try:
            yield report, browser
        finally:
            browser.close()


def test_page_shows_the_images_and_the_topic_table(report_and_browser):
    report, browser = report_and_browser
    page = browser.new_page(viewport=browser_support.VIEWPORT)
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("requestfailed", lambda request: errors.append(f"failed: {request.url}"))
    page.goto(report.index.as_uri())
    page.wait_for_load_state("load")
    images = page.evaluate("Array.from(document.images).map(i => [i.getAttribute('src'), i.complete, "
                           "i.naturalWidth, i.naturalHeight])")
    topics = page.evaluate("Array.from(document.querySelectorAll('table.rates tr td:first-child'))"
                           ".map(td => td.textContent)")
    rate_of = page.evaluate("Object.fromEntries(Array.from(document.querySelectorAll('table.rates tr'))"
                            ".slice(1).map(tr => [tr.cells[0].textContent, tr.cells[3].textContent]))")
    heading = page.evaluate("document.querySelector('h1').textContent")
    assert errors == []
    assert [src for src, *_ in images] == ["paths.png", "vehicle_veh1.png", "vehicle_veh2.png"]
    assert all(complete and width > 0 and height > 0 for _, complete, width, height in images), images
    assert topics == sorted(rate.topic for rate in report.rates)
    assert {"/simul_map", "/veh1/base_pose_ground_truth", "/veh2/odom", "/veh2/scan"} <= set(topics)
    assert rate_of["/veh1/base_pose_ground_truth"] == "50.0" and rate_of["/veh2/odom"] == "25.0"
    assert heading == "Run report: run.mcap"


def test_interactive_figures_draw_offline_and_hover_shows_the_time(report_and_browser):
    report, browser = report_and_browser
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors, outside = [], []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    def only_the_folder(route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:  # no network: anything else is recorded and refused
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_the_folder)
    page.goto(report.index.as_uri())
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 6",
                           timeout=30000)
    plots = page.evaluate("Array.from(document.querySelectorAll('.js-plotly-plot')).map(d => d.id)")
    drag = page.locator("#vehicle-0 .nsewdrag").last  # the plot area of the speed row and below
    drag.scroll_into_view_if_needed()
    drag.hover()
    page.wait_for_function("document.querySelector('#vehicle-0 .hoverlayer').textContent.length > 0",
                           timeout=10000)
    hover = page.evaluate("document.querySelector('#vehicle-0 .hoverlayer').textContent")
    assert errors == [] and outside == []
    assert plots == ["map", "vehicle-0", "vehicle-1"]
    assert "ground truth" in hover and "cmd_vel" in hover  # one box: every value at the cursor's time
