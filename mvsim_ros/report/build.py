"""Writing a report: read the recording, draw the figures (PNG files, and the interactive ones written into the
page with plotly.js), write index.html beside them (each file written to a temporary file and renamed onto its
name: a link at that name is replaced, not followed; see mvsim_ros.report.files)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from mvsim_ros.report import page, plots
from mvsim_ros.report.files import replace_text
from mvsim_ros.report.page import Interactive
from mvsim_ros.report.rates import TopicRate, topic_rates
from mvsim_ros.report.reading import Run, read_run

PATHS_IMAGE = "paths.png"


@dataclass
class Report:
    """A written report: its page, the PNG files beside it, and what they were made from."""

    index: Path
    images: list[Path]
    run: Run
    rates: list[TopicRate]


def default_out_dir(mcap_path: str | Path) -> Path:
    """`RUN_report/` beside `RUN.mcap`."""
    mcap_path = Path(mcap_path)
    return mcap_path.with_name(mcap_path.stem + "_report")


def _image_name(vehicle: str, taken: set[str]) -> str:
    """A file name for a vehicle's figure: 'vehicle_<name>.png', only [A-Za-z0-9_-] kept, unique."""
    stem = "vehicle_" + (re.sub(r"[^A-Za-z0-9_-]+", "_", vehicle).strip("_") or "unnamed")
    name, k = stem + ".png", 2
    while name in taken:
        name, k = f"{stem}_{k}.png", k + 1
    taken.add(name)
    return name


def interactive_figures(run: Run) -> Interactive:
    """The page's interactive figures: the map and one set of time plots per vehicle, with plotly.js."""
    from mvsim_ros.report.interactive.map_figure import map_figure
    from mvsim_ros.report.interactive.plotly_support import figure_html, plotly_library
    from mvsim_ros.report.interactive.vehicle_figure import vehicle_figure

    vehicles = {name: figure_html(vehicle_figure(vehicle, run.duration_s, run.watchdog.timeout_s), f"vehicle-{k}")
                for k, (name, vehicle) in enumerate(run.vehicles.items())}
    return Interactive(plotly_library(), figure_html(map_figure(run), "map"), vehicles)


def write_report(mcap_path: str | Path, out_dir: str | Path | None = None) -> Report:
    """Read the MCAP recording at `mcap_path` and write `index.html` (with its interactive figures), `paths.png`
    and one `vehicle_*.png` per vehicle into `out_dir` (default: `default_out_dir`), created when missing (a link
    to a folder is followed; a link at a file's name is replaced by the file).

    Raises mvsim_ros.report.recording.RecordingError when the file is missing, unreadable, not MCAP or over a
    budget of the reader (see docs/report.md); OSError when the folder cannot be written.
    """
    run = read_run(mcap_path)
    out = Path(out_dir) if out_dir is not None else default_out_dir(mcap_path)
    out.mkdir(parents=True, exist_ok=True)
    rates = topic_rates(run.recording)
    images = [plots.paths_figure(out / PATHS_IMAGE, run)]
    taken = {PATHS_IMAGE}
    vehicle_images = {}
    for name, vehicle in run.vehicles.items():
        file_name = _image_name(name, taken)
        images.append(plots.vehicle_figure(out / file_name, vehicle, run.duration_s, run.watchdog.timeout_s))
        vehicle_images[name] = file_name
    index = out / "index.html"
    replace_text(index, page.render_page(run, rates, PATHS_IMAGE, vehicle_images, interactive_figures(run)))
    return Report(index, images, run, rates)
