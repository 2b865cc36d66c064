"""What the interactive figures share: Plotly (imported when a figure is made), the library's JavaScript written
into the page (the page works offline), each figure as a <div> and its script, names shown as text, colours,
and series thinned to a number of points a browser draws at once.

Plotly reads `<b>`, `<br>` and entities in trace names and hover texts as markup, so every name taken from the
recording goes through `text()` (HTML-escaped: shown as written)."""

from __future__ import annotations

from html import escape

import numpy as np

#: Most points of one drawn line (a longer series keeps every k-th sample, its last one too).
MOST_POINTS = 5000
#: Plotly's options for every figure: no logo, resized with the page, PNG export at twice the size.
CONFIG = {"displaylogo": False, "responsive": True,
          "toImageButtonOptions": {"format": "png", "scale": 2}}
#: Colours of the vehicles (Plotly's default sequence, as matplotlib's tab10), cycled.
VEHICLE_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                   "#bcbd22", "#17becf")
COLLISION_COLOUR = "#d62728"
COMMAND_COLOUR = "#222222"
EXPIRY_COLOUR = "#b00020"


def graph_objects():
    """plotly.graph_objects (imported on first use: the package loads without Plotly)."""
    import plotly.graph_objects as go

    return go


def text(name: str) -> str:
    """A name from the recording as Plotly shows it literally (markup characters escaped)."""
    return escape(name, quote=False)


def vehicle_colour(index: int) -> str:
    return VEHICLE_COLOURS[index % len(VEHICLE_COLOURS)]


def lighter(colour: str, amount: float = 0.45) -> str:
    """`colour` ('#rrggbb') mixed with white by `amount` (0: itself, 1: white)."""
    value = colour.lstrip("#")
    if len(value) != 6:
        return colour
    try:
        rgb = [int(value[k:k + 2], 16) for k in (0, 2, 4)]
    except ValueError:
        return colour
    return "#" + "".join(f"{round(c + (255 - c) * amount):02x}" for c in rgb)


def thin(t: np.ndarray, *columns: np.ndarray, most: int = MOST_POINTS) -> tuple[np.ndarray, ...]:
    """`t` and `columns` with every k-th sample kept (k the smallest step leaving at most `most` points), the last
    sample always kept."""
    count = len(t)
    if count <= most:
        return (t, *columns)
    step = -(-count // most)
    index = np.arange(0, count, step)
    if index[-1] != count - 1:
        index = np.append(index, count - 1)
    return (t[index], *(c[index] for c in columns))


def plotly_library() -> str:
    """The page's <script> element holding plotly.js (minified, a few MiB): no request leaves the page."""
    from plotly.offline import get_plotlyjs

    return f'<script type="text/javascript">{get_plotlyjs()}</script>'


def figure_html(figure, div_id: str) -> str:
    """A figure as a <div> (id `div_id`) and the script drawing it, the library expected in the page."""
    import plotly.io

    return plotly.io.to_html(figure, include_plotlyjs=False, full_html=False, div_id=div_id, config=CONFIG,
                             validate=True)


def time_layout(figure, rows: int) -> None:
    """Shared layout of a figure of time plots: one hover box for all traces at the cursor's time, a vertical
    cursor line across every row, time [s] on the last x axis."""
    figure.update_layout(hovermode="x unified", hoversubplots="axis", height=170 * rows + 90,
                         margin={"l": 70, "r": 20, "t": 50, "b": 50},
                         legend={"orientation": "h", "y": -0.06 - 0.2 / rows, "x": 0.0})
    figure.update_xaxes(showspikes=True, spikemode="across", spikesnap="cursor", spikethickness=1,
                        spikedash="solid", spikecolor="#555555", showgrid=True)
    figure.update_traces(xaxis=f"x{rows}" if rows > 1 else "x")
    figure.update_xaxes(title_text="simulated time [s]", row=rows, col=1)
