"""The interactive map (Plotly): the occupancy grid as an image, every block of the world (filled where it
started, a dashed outline where a movable block ended), each vehicle's true path (solid) and wheel-odometry path
(dashed, lighter, drawn above the true one), start and end markers and collisions; hovering a path shows the
time [s] and position [m] there. Axes in metres at equal scale."""

from __future__ import annotations

import base64
import io
import math

import numpy as np

from mvsim_ros.report.interactive.plotly_support import (COLLISION_COLOUR, graph_objects, lighter, text, thin,
                                                         vehicle_colour)
from mvsim_ros.report.reading import OccupancyMap, Run
from mvsim_ros.report.world_blocks import BlockOutline

#: Most pixels of the grid image (a bigger grid is shrunk by a whole factor, occupied cells kept dark).
MOST_GRID_PIXELS = 4_000_000


def grid_png(grid: OccupancyMap) -> tuple[str, tuple[float, float, float, float]]:
    """The grid as a PNG data URI (free white, occupied black, unknown grey, outside the turned grid transparent)
    and where it lies: (x left, y top, width, height) [m] of its bounding box in the map frame."""
    from PIL import Image

    cells = grid.cells
    factor = max(1, math.ceil(math.sqrt(cells.size / MOST_GRID_PIXELS)))
    occupancy = np.clip(cells.astype(float), 0.0, 100.0)
    unknown = cells < 0
    if factor > 1:
        rows, cols = (cells.shape[0] // factor) * factor, (cells.shape[1] // factor) * factor
        occupancy = occupancy[:rows, :cols].reshape(rows // factor, factor, cols // factor, factor).max(axis=(1, 3))
        unknown = unknown[:rows, :cols].reshape(rows // factor, factor, cols // factor, factor).all(axis=(1, 3))
    grey = np.where(unknown, 209.0, 255.0 * (1.0 - occupancy / 100.0)).astype(np.uint8)
    rgba = np.dstack([grey, grey, grey, np.full_like(grey, 255)])[::-1]  # row 0 at the top of the image
    image = Image.fromarray(np.ascontiguousarray(rgba), "RGBA")
    if grid.origin_yaw:
        image = image.rotate(math.degrees(grid.origin_yaw), resample=Image.Resampling.NEAREST, expand=True,
                             fillcolor=(0, 0, 0, 0))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    corners = grid.corners()
    x0, y1 = float(corners[:, 0].min()), float(corners[:, 1].max())
    width, height = float(np.ptp(corners[:, 0])), float(np.ptp(corners[:, 1]))
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii"), (x0, y1, width, height)


def _closed(points: np.ndarray) -> tuple[list[float], list[float]]:
    return points[:, 0].tolist() + [float(points[0, 0])], points[:, 1].tolist() + [float(points[0, 1])]


def _block_traces(figure, blocks: list[BlockOutline]) -> None:
    """Each block's outline at the start (filled) and, for a movable one with an end pose, at the end (dashed);
    one legend entry shows or hides them all."""
    go = graph_objects()
    if blocks:
        figure.add_trace(go.Scatter(x=[None], y=[None], mode="lines", line={"color": "#888888", "width": 6},
                                    name="blocks (filled: start, dashed: end)", legendgroup="blocks"))
    for block in blocks:
        x, y = _closed(block.start)
        kind = "movable block" if block.movable else "static block"
        figure.add_trace(go.Scatter(
            x=x, y=y, mode="lines", fill="toself", fillcolor=block.colour, opacity=0.55,
            line={"color": block.colour, "width": 1}, name=text(block.name), legendgroup="blocks",
            showlegend=False, hovertemplate=f"{text(block.name)} ({kind}, start)<extra></extra>"))
        if block.end is not None:
            x, y = _closed(block.end)
            figure.add_trace(go.Scatter(
                x=x, y=y, mode="lines", line={"color": block.colour, "width": 2, "dash": "dash"},
                name=f"{text(block.name)} (end)", legendgroup="blocks", showlegend=False,
                hovertemplate=f"{text(block.name)} (movable block, end)<extra></extra>"))


def _path_trace(series, name: str, colour: str, dash: str, width: float):
    go = graph_objects()
    t, x, y = thin(series.t, series["x"], series["y"])
    return go.Scatter(x=x, y=y, customdata=t, mode="lines", line={"color": colour, "width": width, "dash": dash},
                      name=name, hovertemplate="t %{customdata:.2f} s<br>x %{x:.2f} m<br>y %{y:.2f} m<extra>"
                      + name + "</extra>")


def map_figure(run: Run):
    """The map figure (plotly.graph_objects.Figure) of a run."""
    go = graph_objects()
    figure = go.Figure()
    if run.grid is not None:
        source, (x0, y1, width, height) = grid_png(run.grid)
        figure.add_layout_image(source=source, xref="x", yref="y", x=x0, y=y1, sizex=width, sizey=height,
                                xanchor="left", yanchor="top", sizing="stretch", layer="below")
        corners = run.grid.corners()  # an invisible trace so that the axes take in the whole grid
        figure.add_trace(go.Scatter(x=corners[:, 0], y=corners[:, 1], mode="markers", marker={"opacity": 0},
                                    hoverinfo="skip", showlegend=False, name="occupancy grid"))
    _block_traces(figure, run.world.blocks)
    for index, vehicle in enumerate(run.vehicles.values()):
        colour, name = vehicle_colour(index), text(vehicle.name)
        for series, label, line_colour, dash, width in ((vehicle.truth, "true path", colour, "solid", 2.5),
                                                        (vehicle.odom, "wheel odometry", lighter(colour, 0.35),
                                                         "dash", 1.6)):
            if series is None or not len(series):
                continue
            figure.add_trace(_path_trace(series, f"{name}: {label}", line_colour, dash, width))
            figure.add_trace(go.Scatter(
                x=[series["x"][0], series["x"][-1]], y=[series["y"][0], series["y"][-1]], mode="markers",
                marker={"symbol": ["circle-open", "square"], "size": [10, 9], "color": line_colour,
                        "line": {"width": 2, "color": line_colour}},
                customdata=[series.t[0], series.t[-1]], showlegend=False, name=f"{name}: {label}",
                hovertemplate="%{customdata:.2f} s<extra>" + f"{name}: {label} start / end</extra>"))
        hits = [(span.x, span.y, span.start) for span in vehicle.collisions if span.x is not None]
        if hits:
            x, y, t = (list(v) for v in zip(*hits))
            figure.add_trace(go.Scatter(x=x, y=y, customdata=t, mode="markers", name=f"{name}: collisions",
                                        marker={"symbol": "x", "size": 11, "color": COLLISION_COLOUR},
                                        hovertemplate="collision at %{customdata:.2f} s<extra>" + name
                                        + "</extra>"))
    figure.update_layout(title="Map: paths, blocks and the occupancy grid (drag to zoom, double-click to reset)",
                         height=640, margin={"l": 60, "r": 20, "t": 50, "b": 50}, hovermode="closest",
                         plot_bgcolor="#ffffff")
    figure.update_xaxes(title_text="x [m]", showgrid=True, gridcolor="#e3e3e3", zeroline=False)
    figure.update_yaxes(title_text="y [m]", showgrid=True, gridcolor="#e3e3e3", zeroline=False, scaleanchor="x",
                        scaleratio=1.0)
    return figure
