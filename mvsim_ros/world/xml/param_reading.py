"""Reading an element through its parameter table with the loader's warnings: the parameters this simulator
accepts without using (MVSim's GUI settings, its ZMQ publishing, ...) are named in one warning per element (at
the first of them) rather than one per tag; unknown tags and attributes keep one warning each, with their file
and line."""

from __future__ import annotations

from typing import Iterable

from mvsim_ros.world.params.table import SIMULATED, ParamTable, Values, Warn
from mvsim_ros.world.xml.xml_tree import XmlNode


def read_params(table: ParamTable, node: XmlNode, warn: Warn, *, children: Iterable[XmlNode] | None = None,
                handled_tags: Iterable[str] = (), handled_attributes: Iterable[str] = (), label: str | None = None,
                base: Values | None = None) -> Values:
    """`table.read(...)` (same arguments), its not-used notes gathered into one warning (at the first such
    parameter's tag)."""
    what = label or table.context
    unused: list[str] = []

    def filtered(at: XmlNode, message: str) -> None:
        for name in _not_used_names(table, what, message):
            if name not in unused:
                unused.append(name)
            return
        warn(at, message)

    values = table.read(node, filtered, children=children, handled_tags=handled_tags,
                        handled_attributes=handled_attributes, label=label, base=base)
    if unused:  # at the first of them: one place to look, with its line
        warn(values.node(unused[0], node), not_used_message(table, unused, what))
    return values


def not_used_message(table: ParamTable, names: list[str], what: str) -> str:
    """One line naming the accepted-but-unused parameters `names` of `what`, grouped by the reason."""
    reasons: dict[str, list[str]] = {}
    for name in names:
        reasons.setdefault(table[name].note, []).append(name)
    parts = [f"{', '.join(group)} ({note})" if note else ", ".join(group) for note, group in reasons.items()]
    return f"{what}: accepted but not used here: {'; '.join(parts)}"


def _not_used_names(table: ParamTable, what: str, message: str) -> list[str]:
    """[name] when `message` is the table's not-used note about one of its parameters, else []."""
    head = message.split(" of ", 1)[0]
    param = next((p for p in table.params if p.name == head), None)
    if param is None or param.support == SIMULATED:
        return []
    return [head] if message.startswith(f"{head} of {what} is accepted but not used") else []


__all__ = ["not_used_message", "read_params"]
