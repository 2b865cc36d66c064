"""docs/parameters.md from the parameter tables: every parameter MVSim reads, its default, ours, our support.

    python -m mvsim_ros.world.params.doc            # rewrite docs/parameters.md
    python -m mvsim_ros.world.params.doc --check    # exit 1 if the committed page differs from the tables
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mvsim_ros.world.params import all_tables
from mvsim_ros.world.params.table import SAME, SIMULATED, Param, ParamTable

#: The generated page.
DOC_PATH = Path(__file__).resolve().parents[3] / "docs" / "parameters.md"

_HEADER = """# World-file parameters

Every parameter MVSim reads from a world file, by XML context, under MVSim's name: its unit once read, MVSim's
default, the default here when it differs (and why), and what this simulator does with it. A world written for
MVSim gives MVSim's values here. Degrees in the file (`*_deg`, `fov_degrees`, angles in poses) are radians once
read. *simulated*: read and acted on with MVSim's meaning. *not simulated*: accepted, warned about once, no
effect (the note says why). *gui only*: a setting of MVSim's desktop GUI; the browser viewer has its own.
Anything else in a world file is warned about with its file and line.

This page is generated from `mvsim_ros/world/params/` (`python -m mvsim_ros.world.params.doc`); edit the tables,
not the page.
"""


def _value(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return " ".join(_value(v) for v in value)
    text = str(value)
    return f"`{text}`" if text else '""'


def _row(param: Param) -> str:
    name = f"`{param.name}`" + (" (attribute)" if param.attribute else "")
    if param.aliases:
        name += "<br>also: " + ", ".join(f"`{a}`" for a in param.aliases)
    ours = "same" if param.ours is SAME else _value(param.ours)
    support = param.support if param.support != SIMULATED else "simulated"
    note = param.note.replace("|", "\\|")
    unit = param.unit or "—"
    if param.type == "deg":
        unit = "deg in the file, rad"
    meaning = param.meaning.replace("|", "\\|")
    return f"| {name} | {meaning} | {unit} | {_value(param.default)} | {ours} | {support} | {note} |"


def _section(table: ParamTable) -> list[str]:
    lines = [f"## `{table.context}`", ""]
    if table.description:
        lines += [table.description, ""]
    lines += ["| parameter | meaning | unit | MVSim default | default here | support | note |",
              "|---|---|---|---|---|---|---|"]
    lines += [_row(p) for p in table.params]
    return lines + [""]


def render() -> str:
    """The whole page."""
    tables = all_tables()
    count = sum(len(t) for t in tables)
    lines = [_HEADER, f"{count} parameters in {len(tables)} contexts.", ""]
    lines += ["Contexts: " + ", ".join(f"[`{t.context}`](#{_anchor(t.context)})" for t in tables), ""]
    for table in tables:
        lines += _section(table)
    return "\n".join(lines).rstrip() + "\n"


def _anchor(context: str) -> str:
    return context.replace(".", "").replace("_", "_").lower()


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, compare) docs/parameters.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page differs from the tables")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = DOC_PATH.read_text(encoding="utf-8") if DOC_PATH.exists() else ""
        if current != text:
            print(f"{DOC_PATH} is out of date: run python -m mvsim_ros.world.params.doc", file=sys.stderr)
            return 1
        return 0
    DOC_PATH.write_text(text, encoding="utf-8")
    print(f"wrote {DOC_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
