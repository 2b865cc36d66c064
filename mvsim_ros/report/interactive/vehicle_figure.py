"""The interactive time plots of one vehicle (Plotly), one row per quantity on a shared time axis [s]: x, y [m]
and yaw [rad] (true and wheel odometry), speed [m/s] and yaw rate [rad/s] (true, odometry and the commands as the
controller saw them, watchdog expiries marked), the commanded steering angle [rad] when Ackermann commands were
recorded, and the odometry's error against the truth (position [m], heading [rad]). One hover box lists every
value at the cursor's time; dragging zooms, every row follows. Each y axis is at least ranges.MIN_SPANS wide."""

from __future__ import annotations

import numpy as np

from mvsim_ros.report.commands import EffectiveCommand, compress_steps, effective_command
from mvsim_ros.report.interactive.plotly_support import (COLLISION_COLOUR, COMMAND_COLOUR, EXPIRY_COLOUR,
                                                         MOST_POINTS, graph_objects, lighter, text, thin,
                                                         time_layout)
from mvsim_ros.report.odometry_error import break_wraps, odometry_error
from mvsim_ros.report.ranges import floored_range
from mvsim_ros.report.reading import Series, VehicleSeries

#: Columns the watchdog zeroes, per command topic.
WATCHED = {"cmd_vel": ("v", "w"), "ackermann": ("speed",)}


def _rows(vehicle: VehicleSeries) -> list[tuple[str, str, str]]:
    """(key, axis title, quantity of ranges.MIN_SPANS) per row."""
    rows = [("x", "x [m]", "position"), ("y", "y [m]", "position"), ("yaw", "yaw [rad]", "yaw"),
            ("v", "speed [m/s]", "speed"), ("w", "yaw rate [rad/s]", "yaw_rate")]
    if vehicle.ackermann is not None and len(vehicle.ackermann):
        rows.append(("steering", "steering [rad]", "steering"))
    if vehicle.truth is not None and vehicle.odom is not None:
        rows += [("error", "odom. error [m]", "position_error"),
                 ("yaw_error", "odom. yaw error [rad]", "yaw_error")]
    return rows


class _Rows:
    """Traces added row by row, with the values each row shows (for its floored range)."""

    def __init__(self, figure, rows: list[tuple[str, str, str]]):
        self.figure = figure
        self.row = {key: k + 1 for k, (key, _, _) in enumerate(rows)}
        self.title = {key: title for key, title, _ in rows}
        keys = list(self.row)
        self.values: dict[str, list[np.ndarray]] = {key: [] for key in keys}
        self.legend: set[str] = set()

    def line(self, key: str, t: np.ndarray, value: np.ndarray, name: str, colour: str, dash: str = "solid",
             width: float = 1.6, shape: str = "linear") -> None:
        go = graph_objects()
        self.values[key].append(value)
        group = name.split(" (")[0]
        self.figure.add_trace(go.Scatter(x=t, y=value, mode="lines", name=name, legendgroup=group,
                                         showlegend=group not in self.legend, line={"color": colour, "dash": dash,
                                                                                    "width": width, "shape": shape},
                                         hovertemplate=f"{self.title[key]}: %{{y:.4g}}"), row=self.row[key], col=1)
        self.legend.add(group)

    def series(self, key: str, series: Series | None, column: str, name: str, colour: str, dash: str = "solid",
               width: float = 1.6, angle: bool = False) -> None:
        if series is None or not len(series):
            return
        t, value = thin(series.t, series[column])
        if angle:
            t, value = break_wraps(t, value)
        self.line(key, t, value, name, colour, dash, width)

    def command(self, key: str, drawn: EffectiveCommand, name: str, colour: str = COMMAND_COLOUR) -> None:
        go = graph_objects()
        t, value = (drawn.t, drawn.value) if len(drawn.t) <= MOST_POINTS else compress_steps(drawn.t, drawn.value)
        self.line(key, t, value, name, colour, width=1.2, shape="hv")
        if len(drawn.expiries):
            self.figure.add_trace(go.Scatter(
                x=drawn.expiries, y=np.zeros(len(drawn.expiries)), mode="markers", name="watchdog expiry",
                legendgroup="watchdog expiry", showlegend="watchdog expiry" not in self.legend,
                marker={"symbol": "x-thin-open", "size": 10, "color": EXPIRY_COLOUR, "line": {"width": 2}},
                hovertemplate=f"{self.title[key]}: command expired"), row=self.row[key], col=1)
            self.legend.add("watchdog expiry")


def vehicle_figure(vehicle: VehicleSeries, duration_s: float, timeout_s: float):
    """The time plots of `vehicle` (plotly.graph_objects.Figure) over [0, duration_s] [s], commands drawn with
    the watchdog `timeout_s` [s] (0: off)."""
    from plotly.subplots import make_subplots

    rows = _rows(vehicle)
    figure = make_subplots(rows=len(rows), cols=1, shared_xaxes=True, vertical_spacing=0.25 / len(rows),
                           subplot_titles=None)
    traces = _Rows(figure, rows)
    truth_colour, odom_colour = "#1f5fbf", lighter("#2a9d2a", 0.1)
    for key in ("x", "y", "yaw", "v", "w"):
        traces.series(key, vehicle.truth, key, "ground truth", truth_colour, width=2.0, angle=key == "yaw")
        traces.series(key, vehicle.odom, key, "wheel odometry", odom_colour, dash="dash", angle=key == "yaw")
    if vehicle.cmd_vel is not None and len(vehicle.cmd_vel):
        for key in ("v", "w"):
            traces.command(key, effective_command(vehicle.cmd_vel, WATCHED["cmd_vel"], key, duration_s, timeout_s),
                           "cmd_vel (as the controller saw it)")
    if vehicle.ackermann is not None and len(vehicle.ackermann):
        traces.command("v", effective_command(vehicle.ackermann, WATCHED["ackermann"], "speed", duration_s,
                                              timeout_s), "ackermann_cmd (as the controller saw it)", "#e07b00")
        traces.command("steering", effective_command(vehicle.ackermann, WATCHED["ackermann"], "steering",
                                                     duration_s, timeout_s), "ackermann_cmd (steering)", "#e07b00")
    error = odometry_error(vehicle)
    if error is not None:
        traces.series("error", error, "position", "odometry error", "#8c2d9c")
        traces.series("yaw_error", error, "yaw", "odometry error", "#8c2d9c", angle=True)
    for span in vehicle.collisions:
        figure.add_vrect(x0=span.start, x1=span.end, row="all", col=1, fillcolor=COLLISION_COLOUR, opacity=0.18,
                         line_width=0, layer="below")
    for key, title, quantity in rows:
        low, high = floored_range(traces.values[key], quantity)
        figure.update_yaxes(title_text=title, range=[low, high], row=traces.row[key], col=1)
    time_layout(figure, len(rows))
    figure.update_xaxes(range=[0.0, max(duration_s, 1e-3)])
    collided = " (shaded: in contact)" if vehicle.collisions else ""
    figure.update_layout(title=f"{text(vehicle.name)}: pose, speed and yaw rate against the commands{collided}")
    return figure
