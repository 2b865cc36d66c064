"""The report's figures (matplotlib, Agg backend, imported when a figure is drawn): the paths of every vehicle over
the occupancy grid, and per vehicle its speed, yaw rate (and steering) against the commands over time.

Every text is drawn as it is (no TeX, no math text: a name such as `$\\foo$` is shown with its dollars), and each
PNG file replaces its name without following a link there (mvsim_ros.report.files)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from mvsim_ros.report.files import replace_file
from mvsim_ros.report.reading import OccupancyMap, Run, Series, VehicleSeries

#: Resolution of the PNG files [dots per inch].
DPI = 96
#: Grey of unknown cells (0 black, 1 white).
UNKNOWN_GREY = 0.82
COLLISION_COLOUR = "#d62728"
COMMAND_STYLE = {"color": "black", "lw": 1.0, "where": "post"}
#: matplotlib settings while a figure is drawn: texts shown as they are (names come from the recording).
PLAIN_TEXT = {"text.usetex": False, "text.parse_math": False}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _plain_text(draw):
    """Run a figure function with PLAIN_TEXT in effect (created and saved inside it)."""

    @functools.wraps(draw)
    def drawing(*args, **kwargs):
        import matplotlib

        with matplotlib.rc_context(PLAIN_TEXT):
            return draw(*args, **kwargs)

    return drawing


def _colours(count: int) -> list:
    """One colour per vehicle (tab10, cycled)."""
    import matplotlib

    cmap = matplotlib.colormaps["tab10"]
    return [cmap(k % 10) for k in range(count)]


def grid_image(grid: OccupancyMap) -> np.ndarray:
    """Grey levels of the grid's cells (1 free, 0 fully occupied, UNKNOWN_GREY unknown), row 0 at the origin."""
    cells = grid.cells.astype(float)
    grey = 1.0 - np.clip(cells, 0.0, 100.0) / 100.0
    grey[grid.cells < 0] = UNKNOWN_GREY
    return grey


def _draw_grid(ax, grid: OccupancyMap) -> None:
    from matplotlib.transforms import Affine2D

    width, height = grid.size_m
    placement = Affine2D().rotate(grid.origin_yaw).translate(grid.origin_x, grid.origin_y)
    ax.imshow(grid_image(grid), cmap="gray", vmin=0.0, vmax=1.0, origin="lower", interpolation="nearest",
              extent=(0.0, width, 0.0, height), transform=placement + ax.transData, zorder=0)


def _bounds(run: Run) -> tuple[float, float, float, float] | None:
    """(x min, x max, y min, y max) [m] of every path and the grid, or None when there is nothing to show."""
    xs, ys = [], []
    for vehicle in run.vehicles.values():
        for series in (vehicle.truth, vehicle.odom):
            if series is not None and len(series):
                xs.append(series["x"])
                ys.append(series["y"])
    if run.grid is not None:
        corners = run.grid.corners()
        xs.append(corners[:, 0])
        ys.append(corners[:, 1])
    if not xs:
        return None
    x, y = np.concatenate(xs), np.concatenate(ys)
    return float(x.min()), float(x.max()), float(y.min()), float(y.max())


@_plain_text
def paths_figure(path: Path, run: Run) -> Path:
    """Every vehicle's true path (solid) and wheel-odometry path (dashed, in its odom frame) over the occupancy
    grid; start (circle), end (square) and collisions (red x) marked; axes in metres, equal scale."""
    from matplotlib.lines import Line2D

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9.0, 6.5))
    if run.grid is not None:
        _draw_grid(ax, run.grid)
    handles = []
    for colour, vehicle in zip(_colours(len(run.vehicles)), run.vehicles.values()):
        for series, style, label in ((vehicle.truth, "-", "ground truth"), (vehicle.odom, "--", "wheel odometry")):
            if series is None or not len(series):
                continue
            ax.plot(series["x"], series["y"], ls=style, color=colour, lw=1.6 if style == "-" else 1.1, zorder=2)
            ax.plot(series["x"][0], series["y"][0], "o", color=colour, ms=7, mfc="white", mew=1.8, zorder=3)
            ax.plot(series["x"][-1], series["y"][-1], "s", color=colour, ms=6, zorder=3)
            handles.append(Line2D([], [], ls=style, color=colour, label=f"{vehicle.name} ({label})"))
        hits = [(span.x, span.y) for span in vehicle.collisions if span.x is not None]
        if hits:
            ax.plot(*np.array(hits).T, "x", color=COLLISION_COLOUR, ms=9, mew=2.2, zorder=4)
    handles += [Line2D([], [], ls="", marker="o", color="grey", mfc="white", label="start"),
                Line2D([], [], ls="", marker="s", color="grey", label="end")]
    if any(span.x is not None for vehicle in run.vehicles.values() for span in vehicle.collisions):
        handles.append(Line2D([], [], ls="", marker="x", color=COLLISION_COLOUR, mew=2.2, label="collision"))
    bounds = _bounds(run)
    if bounds is not None:
        x0, x1, y0, y1 = bounds
        margin = 0.05 * max(x1 - x0, y1 - y0, 1.0)
        ax.set_xlim(x0 - margin, x1 + margin)
        ax.set_ylim(y0 - margin, y1 + margin)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title("Paths" + (" over the occupancy grid" if run.grid is not None else ""))
    ax.grid(True, alpha=0.3)
    if run.vehicles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize=8)
    else:
        ax.text(0.5, 0.5, "no odometry recorded", ha="center", va="center", transform=ax.transAxes)
    return _save(fig, path)


def command_steps(series: Series, column: str, end_s: float) -> tuple[np.ndarray, np.ndarray]:
    """(t [s], value) of a command column drawn as steps ('post'): each value held until the next command, the
    last one until `end_s` [s]."""
    t, value = series.t, series[column]
    if end_s > t[-1]:
        t, value = np.append(t, end_s), np.append(value, value[-1])
    return t, value


def _steps(ax, series: Series | None, column: str, label: str, end_s: float, **style) -> bool:
    """Draw a command column as steps held until the next command; False when there is none."""
    if series is None or not len(series):
        return False
    ax.step(*command_steps(series, column, end_s), label=label, **{**COMMAND_STYLE, **style})
    return True


def _line(ax, series: Series | None, column: str, label: str, **style) -> bool:
    if series is None or not len(series):
        return False
    ax.plot(series.t, series[column], label=label, **style)
    return True


@_plain_text
def vehicle_figure(path: Path, vehicle: VehicleSeries, duration_s: float) -> Path:
    """Speed [m/s] and yaw rate [rad/s] of one vehicle over simulated time [s]: ground truth and wheel odometry
    against the commands (cmd_vel, ackermann_cmd: steps); steering [rad] on a third axis when commanded;
    collisions shaded."""
    plt = _pyplot()
    steering = vehicle.ackermann is not None and len(vehicle.ackermann) > 0
    rows = 3 if steering else 2
    fig, axes = plt.subplots(rows, 1, figsize=(8.0, 2.4 * rows + 0.6), sharex=True, squeeze=False)
    axes = axes[:, 0]
    colour = "#1f5fbf"
    speed, yaw_rate = axes[0], axes[1]
    _line(speed, vehicle.truth, "v", "ground truth", color=colour, lw=1.5)
    _line(speed, vehicle.odom, "v", "wheel odometry", color="#2a9d2a", lw=1.0, ls="--")
    _steps(speed, vehicle.cmd_vel, "v", "cmd_vel", duration_s)
    _steps(speed, vehicle.ackermann, "speed", "ackermann_cmd", duration_s, color="#e07b00", ls="-.")
    _line(yaw_rate, vehicle.truth, "w", "ground truth", color=colour, lw=1.5)
    _line(yaw_rate, vehicle.odom, "w", "wheel odometry", color="#2a9d2a", lw=1.0, ls="--")
    _steps(yaw_rate, vehicle.cmd_vel, "w", "cmd_vel", duration_s)
    speed.set_ylabel("speed [m/s]")
    yaw_rate.set_ylabel("yaw rate [rad/s]")
    if steering:
        _steps(axes[2], vehicle.ackermann, "steering", "ackermann_cmd steering", duration_s, color="#e07b00")
        axes[2].set_ylabel("steering [rad]")
    for ax in axes:
        for span in vehicle.collisions:
            ax.axvspan(span.start, span.end, color=COLLISION_COLOUR, alpha=0.18, lw=0)
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="upper right", fontsize=8, framealpha=0.85)
    if vehicle.collisions:
        from matplotlib.patches import Patch

        handles, labels = axes[0].get_legend_handles_labels()
        axes[0].legend(handles + [Patch(color=COLLISION_COLOUR, alpha=0.18)], labels + ["collision"],
                       loc="upper right", fontsize=8, framealpha=0.85)
    axes[-1].set_xlabel("simulated time [s]")
    axes[-1].set_xlim(0.0, max(duration_s, 1e-3))
    axes[0].set_title(f"{vehicle.name}: speed and yaw rate against the commands")
    return _save(fig, path)


def _save(fig, path: Path) -> Path:
    """Write the figure as PNG (replacing whatever is at `path`, a link included, see replace_file) and close it."""
    try:
        fig.tight_layout()
        replace_file(path, lambda handle: fig.savefig(handle, dpi=DPI, format="png", bbox_inches="tight",
                                                      pad_inches=0.15))
    finally:
        _pyplot().close(fig)
    return path
