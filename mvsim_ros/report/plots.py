"""The report's figures (matplotlib, Agg backend, imported when a figure is drawn): the paths of every vehicle over
the occupancy grid and the world's blocks, and per vehicle its speed, yaw rate (and steering) against the commands
as the controller saw them (commands.py: zero after a watchdog expiry, each expiry marked) over time; every y axis
at least ranges.MIN_SPANS wide. The page's interactive figures (interactive/) show the same and more.

Every text is drawn as it is (no TeX, no math text: a name such as `$\\foo$` is shown with its dollars), and each
PNG file replaces its name without following a link there (mvsim_ros.report.files)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from mvsim_ros.report.commands import effective_command
from mvsim_ros.report.files import replace_file
from mvsim_ros.report.ranges import floored_range
from mvsim_ros.report.reading import OccupancyMap, Run, Series, VehicleSeries
from mvsim_ros.report.watchdog import DEFAULT_TIMEOUT_S

#: Resolution of the PNG files [dots per inch].
DPI = 96
#: Grey of unknown cells (0 black, 1 white).
UNKNOWN_GREY = 0.82
COLLISION_COLOUR = "#d62728"
EXPIRY_COLOUR = "#b00020"
#: Columns the watchdog zeroes, per command column drawn.
WATCHED = {"v": ("v", "w"), "w": ("v", "w"), "speed": ("speed",), "steering": ("speed",)}
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
    for block in run.world.blocks:
        for outline in (block.start, block.end):
            if outline is not None:
                xs.append(outline[:, 0])
                ys.append(outline[:, 1])
    if not xs:
        return None
    x, y = np.concatenate(xs), np.concatenate(ys)
    return float(x.min()), float(x.max()), float(y.min()), float(y.max())


@_plain_text
def paths_figure(path: Path, run: Run) -> Path:
    """Every vehicle's true path (solid) and wheel-odometry path (dashed, lighter, drawn above it; in its odom
    frame) over the occupancy grid and the world's blocks (filled: start; dashed outline: where a movable block
    ended); start (circle), end (square) and collisions (red x) marked; axes in metres, equal scale."""
    from matplotlib.colors import to_rgb
    from matplotlib.lines import Line2D

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9.0, 6.5))
    if run.grid is not None:
        _draw_grid(ax, run.grid)
    handles = _draw_blocks(ax, run)
    for colour, vehicle in zip(_colours(len(run.vehicles)), run.vehicles.values()):
        light = tuple(c + (1.0 - c) * 0.35 for c in to_rgb(colour))
        for series, style, label, shade, depth in ((vehicle.truth, "-", "ground truth", colour, 2),
                                                   (vehicle.odom, "--", "wheel odometry", light, 3)):
            if series is None or not len(series):
                continue
            ax.plot(series["x"], series["y"], ls=style, color=shade, lw=2.0 if style == "-" else 1.2, zorder=depth)
            ax.plot(series["x"][0], series["y"][0], "o", color=shade, ms=7, mfc="white", mew=1.8, zorder=4)
            ax.plot(series["x"][-1], series["y"][-1], "s", color=shade, ms=6, zorder=4)
            handles.append(Line2D([], [], ls=style, color=shade, label=f"{vehicle.name} ({label})"))
        hits = [(span.x, span.y) for span in vehicle.collisions if span.x is not None]
        if hits:
            ax.plot(*np.array(hits).T, "x", color=COLLISION_COLOUR, ms=9, mew=2.2, zorder=5)
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
    if run.vehicles or run.world.blocks:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize=8)
    if not run.vehicles:
        ax.text(0.5, 0.5, "no odometry recorded", ha="center", va="center", transform=ax.transAxes)
    return _save(fig, path)


def _draw_blocks(ax, run: Run) -> list:
    """Each block filled where it started, a dashed outline where a movable one ended; legend handles."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Polygon

    handles = []
    for block in run.world.blocks:
        ax.add_patch(Polygon(block.start, closed=True, facecolor=block.colour, edgecolor=block.colour, alpha=0.5,
                             lw=0.8, zorder=1))
        if block.end is not None:
            ax.add_patch(Polygon(block.end, closed=True, fill=False, edgecolor=block.colour, ls="--", lw=1.4,
                                 zorder=1))
    if run.world.blocks:
        handles.append(Patch(facecolor="grey", alpha=0.5, label="block (start)"))
    if any(block.end is not None for block in run.world.blocks):
        handles.append(Line2D([], [], ls="--", color="grey", label="movable block (end)"))
    return handles


def command_steps(series: Series, column: str, end_s: float) -> tuple[np.ndarray, np.ndarray]:
    """(t [s], value) of a command column as sent, drawn as steps ('post'): each value held until the next command,
    the last one until `end_s` [s] (the watchdog not applied: see commands.effective_command)."""
    t, value = series.t, series[column]
    if end_s > t[-1]:
        t, value = np.append(t, end_s), np.append(value, value[-1])
    return t, value


def _steps(ax, series: Series | None, column: str, label: str, end_s: float, timeout_s: float,
           **style) -> np.ndarray | None:
    """Draw a command column as the controller saw it (steps, zero after a watchdog expiry, expiries marked);
    returns the values drawn, None when there is no command."""
    if series is None or not len(series):
        return None
    drawn = effective_command(series, WATCHED[column], column, end_s, timeout_s)
    ax.step(drawn.t, drawn.value, label=label, **{**COMMAND_STYLE, **style})
    if len(drawn.expiries) and column in WATCHED[column]:
        ax.plot(drawn.expiries, np.zeros(len(drawn.expiries)), "x", color=EXPIRY_COLOUR, ms=7, mew=1.6,
                label="watchdog expiry", zorder=4)
    return drawn.value


def _line(ax, series: Series | None, column: str, label: str, **style) -> np.ndarray | None:
    if series is None or not len(series):
        return None
    ax.plot(series.t, series[column], label=label, **style)
    return series[column]


@_plain_text
def vehicle_figure(path: Path, vehicle: VehicleSeries, duration_s: float,
                   timeout_s: float = DEFAULT_TIMEOUT_S) -> Path:
    """Speed [m/s] and yaw rate [rad/s] of one vehicle over simulated time [s]: ground truth and wheel odometry
    against the commands (cmd_vel, ackermann_cmd: steps as the controller saw them with the watchdog `timeout_s`
    [s], 0: off); steering [rad] on a third axis when commanded; collisions shaded; y axes floored
    (ranges.MIN_SPANS)."""
    plt = _pyplot()
    steering = vehicle.ackermann is not None and len(vehicle.ackermann) > 0
    rows = 3 if steering else 2
    fig, axes = plt.subplots(rows, 1, figsize=(8.0, 2.4 * rows + 0.6), sharex=True, squeeze=False)
    axes = axes[:, 0]
    colour = "#1f5fbf"
    speed, yaw_rate = axes[0], axes[1]
    shown = {"speed": [
        _line(speed, vehicle.truth, "v", "ground truth", color=colour, lw=1.5),
        _line(speed, vehicle.odom, "v", "wheel odometry", color="#2a9d2a", lw=1.0, ls="--"),
        _steps(speed, vehicle.cmd_vel, "v", "cmd_vel", duration_s, timeout_s),
        _steps(speed, vehicle.ackermann, "speed", "ackermann_cmd", duration_s, timeout_s, color="#e07b00", ls="-.")],
        "yaw_rate": [
        _line(yaw_rate, vehicle.truth, "w", "ground truth", color=colour, lw=1.5),
        _line(yaw_rate, vehicle.odom, "w", "wheel odometry", color="#2a9d2a", lw=1.0, ls="--"),
        _steps(yaw_rate, vehicle.cmd_vel, "w", "cmd_vel", duration_s, timeout_s)]}
    speed.set_ylabel("speed [m/s]")
    yaw_rate.set_ylabel("yaw rate [rad/s]")
    if steering:
        shown["steering"] = [_steps(axes[2], vehicle.ackermann, "steering", "ackermann_cmd steering", duration_s,
                                    timeout_s, color="#e07b00")]
        axes[2].set_ylabel("steering [rad]")
    for ax, quantity in zip(axes, shown):
        ax.set_ylim(*floored_range([values for values in shown[quantity] if values is not None], quantity))
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
