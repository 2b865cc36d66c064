"""The figures' data: commands drawn as held steps, grid grey levels, and the PNG files written."""

from __future__ import annotations

import numpy as np
from PIL import Image
from report_fixtures import CircleRun, circle_recording

from mvsim_ros.report import plots
from mvsim_ros.report.reading import OccupancyMap, Series, VehicleSeries, read_run


def test_commands_are_held_until_the_next_one_and_the_last_until_the_end():
    series = Series(np.array([0.0, 1.0, 2.5]), {"v": np.array([0.0, 1.0, 0.4])})
    t, value = plots.command_steps(series, "v", end_s=4.0)
    np.testing.assert_allclose(t, [0.0, 1.0, 2.5, 4.0])
    np.testing.assert_allclose(value, [0.0, 1.0, 0.4, 0.4])
    t, value = plots.command_steps(series, "v", end_s=2.5)
    assert len(t) == 3


def test_grid_grey_levels_dark_where_occupied():
    cells = np.array([[0, 50, 100], [-1, 0, 100]], dtype=np.int8)
    grey = plots.grid_image(OccupancyMap(cells, 0.1, 0.0, 0.0))
    np.testing.assert_allclose(grey, [[1.0, 0.5, 0.0], [plots.UNKNOWN_GREY, 1.0, 0.0]])


def test_figures_are_written_as_png(tmp_path):
    path = tmp_path / "run.mcap"
    circle_recording(path, CircleRun(with_map=False))
    run = read_run(path)
    paths = plots.paths_figure(tmp_path / "paths.png", run)
    vehicle = plots.vehicle_figure(tmp_path / "v.png", run.vehicles["veh1"], run.duration_s)
    for image in (paths, vehicle):
        with Image.open(image) as png:
            assert png.format == "PNG" and png.width > 300 and png.height > 200
    empty = VehicleSeries("empty", "empty/")
    with Image.open(plots.vehicle_figure(tmp_path / "e.png", empty, 1.0)) as png:
        assert png.format == "PNG"
