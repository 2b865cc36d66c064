"""Warnings summed up per kind: the first few of each kind in full, then one line counting the rest.

A world with 100,000 unknown attributes would otherwise log 100,000 lines. `summarize_warnings` keeps the
first SHOWN_PER_KIND warnings of each kind as they are (file:line and all) and puts, right after the last one
shown, one line such as ``... and 99,997 more unknown attributes (names: foo ×50,000, bar ×49,997)``. Kinds:

- ``unknown attributes`` (an attribute no table reads), named by the attribute;
- ``unknown tags`` (a tag no table reads, at the top level or inside an element), named by the tag;
- any other warning: the same text at several places is one kind, apart from its file:line and what it quotes
  (``block 'b7': accepted but not used here: ...`` of 40,000 blocks is one kind). A remote model that cannot
  be had is a kind of its own per URI (the GL scene reads which URIs were told).

Linear in the number of warnings; a list without repeats comes back unchanged.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterable

from mvsim_ros.world.files.visual_models import unavailable_remote_model

#: Warnings of one kind printed in full before the rest of that kind is summed up in one line.
SHOWN_PER_KIND = 3
#: Most names (with their counts) listed in a summary line.
NAMES_LISTED = 5
#: Longest name [characters] shown in a summary line (longer ones end in "...").
NAME_CHARS = 40

_ATTRIBUTE = re.compile(r"unknown attribute ([^\s=\"]+)=\"|unknown <[^>]*> attribute '([^']*)' ignored")
_NESTED_TAG = re.compile(r"unknown parameter <([^>\s]+)> for ")
_TOP_TAG = re.compile(r": <([^>\s]+)>: unknown (?:tag; skipped|world parameter; kept but not used)$")
_LOCATION = re.compile(r"^.+?:\d+: (?=<[^>]*>: )")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def warning_kind(warning: str) -> tuple[str, str | None]:
    """(kind, name) of one warning text: ("unknown attributes", attribute), ("unknown tags", "<tag>"), or, for
    any other warning, its text without the leading ``file:line: `` and with quoted parts as '…', and no name."""
    found = _ATTRIBUTE.search(warning)
    if found:
        return "unknown attributes", found.group(1) or found.group(2)
    found = _NESTED_TAG.search(warning) or _TOP_TAG.search(warning)
    if found:
        return "unknown tags", f"<{found.group(1)}>"
    if unavailable_remote_model(warning):
        return warning, None
    return _QUOTED.sub(_placeholder, _LOCATION.sub("", warning, count=1)), None


def summarize_warnings(warnings: Iterable[str], shown: int = SHOWN_PER_KIND) -> list[str]:
    """`warnings` (text lines, in order) with at most `shown` per kind (warning_kind) and, after the last shown
    of a kind that has more, one line counting the others and naming the most frequent names."""
    out: list[str] = []
    seen: Counter[str] = Counter()
    last_shown: dict[str, int] = {}
    hidden: dict[str, Counter[str | None]] = {}
    for warning in warnings:
        kind, name = warning_kind(warning)
        seen[kind] += 1
        if seen[kind] <= shown:
            out.append(warning)
            last_shown[kind] = len(out) - 1
        else:
            hidden.setdefault(kind, Counter())[name] += 1
    if not hidden:
        return out
    after: dict[int, str] = {last_shown[kind]: summary_line(kind, names) for kind, names in hidden.items()}
    result: list[str] = []
    for index, warning in enumerate(out):
        result.append(warning)
        if index in after:
            result.append(after[index])
    return result


def summary_line(kind: str, names: Counter[str | None], what: str | None = None) -> str:
    """The line standing for the hidden warnings of `kind` (`names`: how many of each name; None for warnings
    without a name). `what` replaces the kind in the text (e.g. "unknown parameters are ignored")."""
    count = sum(names.values())
    if None in names:  # warnings that repeat one text: the text says what they are
        return f"... and {count:,} more at other places of: {_short(kind, 200)}"
    return f"... and {count:,} more {what or kind} ({listed_names(names)})"


def listed_names(names: Counter[str | None]) -> str:
    """``names: a ×3, b ×2, ...`` for the NAMES_LISTED most frequent names (×1 left out), ending with the number of
    different names when there are more."""
    common = names.most_common(NAMES_LISTED)
    parts = [_short(str(name), NAME_CHARS) + (f" ×{n:,}" if n > 1 else "") for name, n in common]
    if len(names) > NAMES_LISTED:
        parts.append(f"... {len(names):,} different names")
    return "names: " + ", ".join(parts)


def _placeholder(found: re.Match) -> str:
    quote = found.group(0)[0]
    return f"{quote}…{quote}"


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


__all__ = ["NAMES_LISTED", "SHOWN_PER_KIND", "listed_names", "summarize_warnings", "summary_line", "warning_kind"]
