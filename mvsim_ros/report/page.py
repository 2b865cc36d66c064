"""The report's HTML page: one self-contained file (inline CSS, plotly.js inline, no external address) with the
interactive figures (zoom, pan, a time cursor with every value at that time) and, folded under each, its PNG copy
written beside the page (a relative link: for printing, or where scripts are off); every name taken from the
recording is escaped."""

from __future__ import annotations

from html import escape

from dataclasses import dataclass, field

from mvsim_ros.report.rates import TopicRate, format_bytes, format_hz, format_period_ms
from mvsim_ros.report.reading import VALUE_BOUND, Run, VehicleSeries
from mvsim_ros.report.recording import is_world_attachment
from mvsim_ros.report.world_blocks import MVSIM_BLOCKS_END, WORLD_METADATA

CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1100px; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f1f3f6; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.facts th { width: 12em; }
.warn { background: #fff3cd; border: 1px solid #e0b400; padding: 0.6em 0.9em; margin: 0.8em 0; }
tr.irregular td { background: #fff3cd; }
img { max-width: 100%; height: auto; border: 1px solid #ddd; }
details.static { margin: 0.4em 0 1em; }
div.figure { width: 100%; }
code { font-size: 0.95em; }
.muted { color: #666; }
"""


def _num(value: str) -> str:
    return f'<td class="num">{escape(value)}</td>'


def _text(value: str) -> str:
    return f"<td>{escape(value)}</td>"


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def _clip(text: str, most: int = 200) -> str:
    """`text` cut to `most` characters (an ellipsis marks the cut)."""
    return text if len(text) <= most else text[:most - 1] + "…"


def world_name(run: Run) -> str | None:
    """The world file named by the 'mvsim' metadata record (key 'world_file'), or None."""
    return run.recording.metadata_value(*WORLD_METADATA)


def _world_attachments(run: Run) -> list[str]:
    """Names of attachments that hold a world (XML by name or media type)."""
    return [name for name, media, _ in run.recording.attachments if is_world_attachment(name, media)]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def _left_out(run: Run) -> list[str]:
    """One sentence (plain text) per kind of thing left out of the figures and tables."""
    recording = run.recording
    notes = []
    if recording.damaged_chunks:
        its = "its" if recording.damaged_chunks == 1 else "their"
        notes.append(f"{_plural(recording.damaged_chunks, 'damaged chunk')} skipped: {its} messages (from the damage "
                     f"on) are missing from the figures and the table.")
    if recording.skipped_log_times:
        notes.append(f"{_plural(recording.skipped_log_times, 'message')} skipped: a log time of 2^63 ns or more "
                     f"(past the year 2262) is not a time this report can place.")
    if run.invalid_samples:
        total = sum(run.invalid_samples.values())
        where = ", ".join(f"{topic} ({count})" for topic, count in sorted(run.invalid_samples.items()))
        notes.append(f"{_plural(total, 'sample')} not drawn: a value that is NaN, infinite or beyond "
                     f"±{VALUE_BOUND:g} (m, m/s, rad/s, rad); per topic: {_clip(where, 600)}.")
    return notes + run.notes


def _status(run: Run) -> str:
    notes = "".join(f'<div class="warn">{escape(note)}</div>' for note in _left_out(run))
    return notes + _closing(run)


def _closing(run: Run) -> str:
    recording = run.recording
    if recording.complete and recording.has_summary:
        return "<p>The recording is complete (footer and summary present).</p>"
    if recording.complete:
        return '<p class="muted">The recording is complete but has no summary section (not indexed).</p>'
    lost = f"; {format_bytes(recording.unread_bytes)} after it not read" if recording.unread_bytes else ""
    return (f'<div class="warn"><strong>The file was cut short</strong>: no summary and no footer, so the recorder '
            f'did not close it (e.g. the process was killed). Everything up to the last complete record is shown '
            f'({escape(recording.stop_reason)}{escape(lost)}).</div>')


def _facts(run: Run) -> str:
    recording = run.recording
    rows = [("file", escape(recording.path.name)), ("size", escape(format_bytes(recording.file_bytes))),
            ("simulated duration", f"{run.duration_s:.3f} s"), ("messages", str(recording.message_count)),
            ("topics", str(len(recording.topics))), ("vehicles", str(len(run.vehicles)))]
    world = world_name(run)
    if world is not None:
        rows.append(("world file", f"<code>{escape(world)}</code>"))
    for name, values in recording.metadata:
        if name == MVSIM_BLOCKS_END:
            rows.append((f"metadata {escape(name)}", f"end poses of {len(values)} blocks"))
            continue
        pairs = [(key, value) for key, value in values.items() if (name, key) != WORLD_METADATA]
        if pairs:
            rows.append((f"metadata {escape(name)}", ", ".join(
                f"{escape(key)} = <code>{escape(_clip(value))}</code>" for key, value in pairs)))
    attached = _world_attachments(run)
    if attached:
        rows.append(("world attached", ", ".join(f"<code>{escape(name)}</code>" for name in attached)))
    others = [name for name, _, _ in recording.attachments if name not in attached]
    if others:
        rows.append(("attachments", ", ".join(f"<code>{escape(name)}</code>" for name in others)))
    if recording.profile or recording.library:
        rows.append(("written by", escape(" / ".join(x for x in (recording.library, recording.profile) if x))))
    if run.grid is not None:
        width, height = run.grid.size_m
        rows.append(("occupancy grid", f"{run.grid.cells.shape[1]} x {run.grid.cells.shape[0]} cells of "
                     f"{run.grid.resolution:g} m ({width:g} m x {height:g} m)"))
    body = "".join(f"<tr><th>{name}</th><td>{value}</td></tr>" for name, value in rows)
    return f'<table class="facts">{body}</table>'


def _vehicle_row(vehicle: VehicleSeries) -> str:
    truth = vehicle.truth
    max_speed = f"{float(abs(truth['v']).max()):.3g}" if truth is not None and len(truth) else "–"
    topics = ", ".join(name for name, series in (("ground truth", truth), ("odom", vehicle.odom),
                                                 ("cmd_vel", vehicle.cmd_vel), ("ackermann_cmd", vehicle.ackermann))
                       if series is not None)
    return ("<tr>" + _text(vehicle.name) + _text(topics) + _num(f"{vehicle.path_length():.2f}") + _num(max_speed)
            + _num(str(len(vehicle.collisions))) + "</tr>")


def _collision_table(vehicle: VehicleSeries) -> str:
    if not vehicle.collisions:
        return '<p class="muted">No collision.</p>'
    rows = []
    for span in vehicle.collisions:
        where = f"({span.x:.2f}, {span.y:.2f})" if span.x is not None else "–"
        end = _seconds(span.end) + (" (still in contact at the end)" if span.open else "")
        rows.append("<tr>" + _num(_seconds(span.start)) + _num(end) + _num(_seconds(span.end - span.start))
                    + _num(where) + "</tr>")
    return ('<table class="collisions"><tr><th>start [s]</th><th>end [s]</th><th>duration [s]</th>'
            '<th>position x, y [m]</th></tr>' + "".join(rows) + "</table>")


def _rate_table(rates: list[TopicRate]) -> str:
    rows = []
    for rate in rates:
        cls = ' class="irregular"' if rate.irregular else ""
        rows.append(f"<tr{cls}>" + _text(rate.topic) + _text(rate.type_name) + _num(str(rate.count))
                    + _num(format_hz(rate.rate_hz)) + _num(format_period_ms(rate.min_period_s))
                    + _num(format_period_ms(rate.max_period_s)) + _num(format_bytes(rate.total_bytes))
                    + _text(("irregular: " + rate.irregular) if rate.irregular else "") + "</tr>")
    return ('<table class="rates"><tr><th>topic</th><th>type</th><th>messages</th><th>mean rate [Hz]</th>'
            '<th>min period [ms]</th><th>max period [ms]</th><th>bytes</th><th>note</th></tr>'
            + "".join(rows) + "</table>")


def _decode_error(run: Run, topic: str) -> str:
    """A list item: why a topic the report reads was not (wholly) decoded."""
    recording = run.recording
    failed = recording.decode_failures.get(topic)
    count = f"{failed} of {len(recording.topics[topic].times)} messages failed, " if failed else ""
    return f"<li><code>{escape(topic)}</code>: {escape(count + recording.decode_errors[topic])}</li>"


@dataclass
class Interactive:
    """The page's interactive figures, as HTML: the library's <script> (`library`), the map's <div> and script,
    and one per vehicle (vehicle name -> HTML). Empty: no interactive figure."""

    library: str = ""
    map: str = ""
    vehicles: dict[str, str] = field(default_factory=dict)


def _static(image: str, alt: str, css_class: str, interactive: bool) -> str:
    """A PNG figure: shown as it is, or folded under the interactive one (its printable copy)."""
    img = f'<img class="{css_class}" src="{escape(image)}" alt="{escape(alt)}">'
    if not interactive:
        return img
    return f'<details class="static"><summary>the same as a static image (PNG)</summary>{img}</details>'


def render_page(run: Run, rates: list[TopicRate], paths_image: str, vehicle_images: dict[str, str],
                interactive: Interactive | None = None) -> str:
    """The page as HTML text; `paths_image` and `vehicle_images` (vehicle name -> file) are relative links;
    `interactive`: the interactive figures (none: the PNGs alone)."""
    recording = run.recording
    shown = interactive or Interactive()
    title = f"Run report: {recording.path.name}"
    parts = [f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>",
             f"<style>{CSS}</style>{shown.library}</head><body>", f"<h1>{escape(title)}</h1>", _status(run),
             _facts(run), "<h2>Paths</h2>",
             '<p>Solid: true path (<code>base_pose_ground_truth</code>, map frame); dashed and lighter, drawn above '
             'it: wheel odometry (<code>odom</code>, its own frame, which starts at the true initial pose); circle: '
             'start, square: end; red x: collision; blocks filled where they started, dashed where a movable one '
             'ended. Drag to zoom, double-click to see everything again.</p>']
    if shown.map:
        parts.append(f'<div class="figure map">{shown.map}</div>')
    parts.append(_static(paths_image, "paths of the vehicles", "paths", bool(shown.map)))
    if run.vehicles:
        parts += ["<h2>Vehicles</h2>", f"<p>{escape(run.watchdog.describe())} The odometry error is the distance "
                  "(and heading difference) between the odometry pose and the true pose at the same time.</p>",
                  '<table class="vehicles"><tr><th>vehicle</th><th>recorded</th><th>path length [m]</th>'
                  "<th>max |speed| [m/s]</th><th>collisions</th></tr>",
                  *(_vehicle_row(vehicle) for vehicle in run.vehicles.values()), "</table>"]
    for name, vehicle in run.vehicles.items():
        parts += [f"<h3>{escape(name)}</h3>"]
        if name in shown.vehicles:
            parts.append(f'<div class="figure vehicle">{shown.vehicles[name]}</div>')
        if name in vehicle_images:
            parts.append(_static(vehicle_images[name], f"{name}: speed and yaw rate against the commands",
                                 "vehicle", name in shown.vehicles))
        parts.append(_collision_table(vehicle))
    parts += ["<h2>Topics</h2>",
              "<p>Rates in Hz of simulated time: (messages - 1) / (last - first log time); a row is flagged when a "
              "period is far from the median one (commands and collision flags come on events: not flagged).</p>",
              _rate_table(rates)]
    if recording.decode_errors:
        parts += ["<h2>Not decoded</h2><ul>", *(_decode_error(run, topic) for topic in sorted(recording.decode_errors)),
                  "</ul>"]
    parts.append("</body></html>\n")
    return "\n".join(parts)
