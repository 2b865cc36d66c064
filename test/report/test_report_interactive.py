"""The page's figures follow the run as the controller saw it: commands zero after the watchdog expired, y axes
with a floor, every block of the world on the map, odometry against the truth, x / y / yaw against time, and
plotly.js inline (no address outside the page)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from report_fixtures import CircleRun, RunWriter, circle_recording, odometry, twist

from mvsim_ros.report import write_report
from mvsim_ros.report.commands import effective_command
from mvsim_ros.report.interactive.map_figure import map_figure
from mvsim_ros.report.interactive.vehicle_figure import vehicle_figure
from mvsim_ros.report.ranges import MIN_SPANS, floored_range
from mvsim_ros.report.reading import Series, read_run
from mvsim_ros.report.watchdog import watchdog_of
from mvsim_ros.report.world_blocks import MVSIM_BLOCKS_END

#: A world of two blocks: a static wall and a movable box (its outline from its origin: 0.5 m x 0.5 m).
WORLD = """<mvsim_world version="1.0">
  <element class="occupancy_grid"><file>missing_here.png</file></element>
  <block name="wall"><static>true</static><color>#404040</color><init_pose>4 -2 0</init_pose>
    <shape><pt>0 0</pt><pt>0.3 0</pt><pt>0.3 4</pt><pt>0 4</pt></shape></block>
  <block name="box"><mass>5</mass><color>#c08020</color><init_pose>2 1 0</init_pose>
    <shape><pt>0 0</pt><pt>0.5 0</pt><pt>0.5 0.5</pt><pt>0 0.5</pt></shape></block>
</mvsim_world>
"""


def stopping_run(path: Path, metadata: dict[str, str] | None = None, blocks_end: dict[str, str] | None = None,
                 world: str | None = WORLD) -> None:
    """10 s of a robot driven at 0.5 m/s by cmd_vel at 10 Hz until t = 3 s, then no command: it stops (its true
    speed 0 from 4 s on); its yaw rate is noise of 1e-9 rad/s throughout."""
    rng = np.random.default_rng(0)
    with open(path, "wb") as handle:
        writer = RunWriter(handle)
        writer.writer.add_metadata("mvsim", {"world_file": "worlds/stopping.world.xml", **(metadata or {})})
        if world is not None:
            writer.writer.add_attachment(0, 0, "stopping.world.xml", "application/xml", world.encode())
        events = []
        x = 0.0
        for k in range(501):
            t = 0.02 * k
            v = 0.5 if t <= 4.0 else 0.0
            x += 0.02 * v
            w = float(rng.normal(0.0, 1e-9))
            events.append((t, "/r1/base_pose_ground_truth", odometry(t, x, 0.0, 0.0, v, w, "map")))
            if k % 2 == 0:
                events.append((t, "/r1/odom", odometry(t, 1.03 * x, 0.0, 0.0, 1.03 * v, w, "odom")))
        for k in range(31):
            events.append((0.1 * k, "/r1/cmd_vel", twist(0.5, 0.0)))
        for t, topic, message in sorted(events, key=lambda event: event[0]):
            writer.write(topic, message, t)
        if blocks_end is not None:
            writer.writer.add_metadata(MVSIM_BLOCKS_END, blocks_end)
        writer.finish()


def _rows(figure) -> dict[str, object]:
    """Title of each y axis -> the axis."""
    return {figure.layout[name].title.text: figure.layout[name] for name in figure.layout
            if name.startswith("yaxis") and figure.layout[name].title.text}


def test_the_command_drawn_is_zero_after_the_watchdog_expired(tmp_path):
    path = tmp_path / "stop.mcap"
    stopping_run(path)
    run = read_run(path)
    assert run.watchdog.timeout_s == 1.0 and not run.watchdog.recorded  # the node's default, said on the page
    vehicle = run.vehicles["r1"]
    drawn = effective_command(vehicle.cmd_vel, ("v", "w"), "v", run.duration_s, run.watchdog.timeout_s)
    np.testing.assert_allclose(drawn.expiries, [4.0])  # the last command at 3 s, 1 s of watchdog
    after = drawn.t >= 4.0
    assert np.all(drawn.value[after] == 0.0) and np.all(drawn.value[drawn.t < 3.0] == 0.5)
    assert drawn.t[-1] == pytest.approx(10.0)
    figure = vehicle_figure(vehicle, run.duration_s, run.watchdog.timeout_s)
    commands = [trace for trace in figure.data if trace.name.startswith("cmd_vel")]
    speed = commands[0]
    t, v = np.asarray(speed.x, dtype=float), np.asarray(speed.y, dtype=float)
    assert np.all(v[t >= 4.0] == 0.0) and v[t < 4.0].max() == 0.5
    expiry = [trace for trace in figure.data if trace.name == "watchdog expiry"]
    assert len(expiry) == 2 and list(expiry[0].x) == pytest.approx([4.0])  # marked on speed and yaw rate


def test_a_recorded_watchdog_is_used_and_zero_holds_every_command(tmp_path):
    path = tmp_path / "off.mcap"
    stopping_run(path, metadata={"base_watchdog_timeout": "0"})
    run = read_run(path)
    assert run.watchdog.timeout_s == 0.0 and run.watchdog.recorded
    drawn = effective_command(run.vehicles["r1"].cmd_vel, ("v", "w"), "v", run.duration_s, 0.0)
    assert len(drawn.expiries) == 0 and drawn.value[-1] == 0.5
    assert watchdog_of(lambda name, key: "-3").timeout_s == 1.0  # not a timeout: the default


def test_a_short_gap_keeps_the_command_and_a_stopped_one_is_not_marked():
    series = Series(np.array([0.0, 0.5, 3.0, 6.0]), {"v": np.array([1.0, 1.0, 0.0, 0.4]), "w": np.zeros(4)})
    drawn = effective_command(series, ("v", "w"), "v", end_s=8.0, timeout_s=1.0)
    np.testing.assert_allclose(drawn.t, [0.0, 0.5, 1.5, 3.0, 6.0, 7.0, 8.0])
    np.testing.assert_allclose(drawn.value, [1.0, 1.0, 0.0, 0.0, 0.4, 0.0, 0.0])
    np.testing.assert_allclose(drawn.expiries, [1.5, 7.0])  # the zero command at 3 s expires unmarked


def test_a_noise_axis_keeps_its_floor(tmp_path):
    assert floored_range([np.array([1e-9, -2e-9])], "yaw_rate") == pytest.approx((-0.1, 0.1), abs=1e-8)
    assert floored_range([np.array([0.0, 5.0])], "speed") == pytest.approx((-0.25, 5.25))
    path = tmp_path / "stop.mcap"
    stopping_run(path)
    run = read_run(path)
    figure = vehicle_figure(run.vehicles["r1"], run.duration_s, 1.0)
    axes = _rows(figure)
    low, high = axes["yaw rate [rad/s]"].range
    assert high - low >= MIN_SPANS["yaw_rate"]
    for title in ("x [m]", "y [m]", "yaw [rad]", "speed [m/s]", "odom. error [m]",
                  "odom. yaw error [rad]"):
        low, high = axes[title].range
        assert high - low > 0.0


def test_every_block_is_on_the_map_and_a_movable_one_at_its_end(tmp_path):
    path = tmp_path / "blocks.mcap"
    stopping_run(path, blocks_end={"box": "2.5 1.2 0.3", "wall": "4 -2 0"})
    run = read_run(path)
    assert [block.name for block in run.world.blocks] == ["wall", "box"]
    wall, box = run.world.blocks
    assert not wall.movable and wall.end is None and box.movable
    np.testing.assert_allclose(box.start[0], [2.0, 1.0])
    np.testing.assert_allclose(box.end[0], [2.5, 1.2])
    figure = map_figure(run)
    names = [trace.name for trace in figure.data]
    assert "wall" in names and "box" in names and "box (end)" in names
    box_trace = figure.data[names.index("box")]
    assert min(box_trace.x) == pytest.approx(2.0) and min(box_trace.y) == pytest.approx(1.0)
    assert any("does not load whole here" in note for note in run.notes)  # its image is not on this machine


def test_a_movable_block_without_an_end_pose_is_said_so(tmp_path):
    path = tmp_path / "blocks.mcap"
    stopping_run(path)
    run = read_run(path)
    assert [block.end for block in run.world.blocks] == [None, None]
    assert any("1 movable block is drawn at the start only" in note for note in run.notes)
    report = write_report(path, tmp_path / "out")
    assert "1 movable block is drawn at the start only" in report.index.read_text()


def test_odometry_is_drawn_above_the_truth_and_its_error_plotted(tmp_path):
    path = tmp_path / "circle.mcap"
    circle_recording(path, CircleRun(odom_scale=1.05))
    run = read_run(path)
    figure = map_figure(run)
    names = [trace.name for trace in figure.data]
    truth, odom = names.index("veh1: true path"), names.index("veh1: wheel odometry")
    assert odom > truth and figure.data[odom].line.color != figure.data[truth].line.color
    errors = [trace for trace in vehicle_figure(run.vehicles["veh1"], run.duration_s, 1.0).data
              if trace.name == "odometry error"]
    assert len(errors) == 2
    position = np.asarray(errors[0].y, dtype=float)
    assert position[0] == pytest.approx(0.0, abs=1e-9) and np.nanmax(position) > 0.05  # the 5 % scale drifts


def test_the_page_holds_plotly_inline_and_nothing_from_elsewhere(tmp_path):
    from plotly.offline import get_plotlyjs

    path = tmp_path / "circle.mcap"
    circle_recording(path, CircleRun(vehicles={"veh1/": (1.0, 0.5, 0.0), "veh2/": (0.8, -0.4, 3.0)}))
    html = write_report(path, tmp_path / "out").index.read_text()
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, flags=re.DOTALL)
    assert get_plotlyjs() in [body for _, body in scripts]
    assert not any("src=" in attributes for attributes, _ in scripts)
    assert html.count('class="plotly-graph-div"') == 3  # the map and one per vehicle
    assert not re.search(r"<(link|iframe|img)[^>]*(src|href)=\"(https?:)?//", html)


def test_a_hostile_world_attachment_costs_one_pass(tmp_path):
    import time

    from mvsim_ros.report.world_blocks import block_elements, world_blocks

    text = "<mvsim_world>" + "<block name='x'>" * 200_000  # never closed, no end tag anywhere
    started = time.perf_counter()
    assert block_elements(text) == []
    found = world_blocks(text.encode(), None, [])
    assert found.blocks == [] and len(found.notes) == 1 and time.perf_counter() - started < 10.0
    nested = '<mvsim_world version="1.0"><variable name="S" value="2"/><block name="a"><shape><pt>0 0</pt>' \
             '<pt>${S} 0</pt><pt>0 1</pt></shape></block><element class="x"/></mvsim_world>'
    assert block_elements(nested) == ['<variable name="S" value="2"/>',
                                      '<block name="a"><shape><pt>0 0</pt><pt>${S} 0</pt><pt>0 1</pt></shape>'
                                      '</block>']
