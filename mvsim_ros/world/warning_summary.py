"""Warnings summed up per kind: the first few of each kind in full, then one line counting the rest.

A world with 100,000 unknown attributes would otherwise log 100,000 lines. `summarize_warnings` keeps the
first SHOWN_PER_KIND warnings of each kind as they are (file:line and all) and puts, right after the last one
shown, one line such as ``... and 99,997 more unknown attributes (names: foo ×50,000, bar ×49,997)``. Kinds:

- ``unknown attributes`` (an attribute no table reads), named by the attribute;
- ``unknown tags`` (a tag no table reads, at the top level or inside an element), named by the tag;
- any other warning: the same text at several places is one kind, apart from its file:line and what it quotes
  (``block 'b7': accepted but not used here: ...`` of 40,000 blocks is one kind).

Two kinds are always one line (`grouped_warnings`), at the place of their first: GUI-only parameters (MVSim's
sensor definitions carry six per lidar) as ``13 GUI-only parameters ignored (...): viz_pointSize ×2, ...``, and
remote models that cannot be had, as one line naming each URI once and the fix (``mvsim_fetch_models WORLD``,
MVSIM_OFFLINE=1); `unavailable_remote_models` reads back which URIs were told (the GL scene does not tell them
again).

Linear in the number of warnings; a list without repeats comes back unchanged.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections import Counter
from typing import Callable, Iterable

from mvsim_ros.world.files.visual_models import unavailable_remote_model

#: Warnings of one kind printed in full before the rest of that kind is summed up in one line.
SHOWN_PER_KIND = 3
#: Most names (with their counts) listed in a summary line.
NAMES_LISTED = 5
#: Longest name [characters] shown in a summary line (longer ones end in "...").
NAME_CHARS = 40

_ATTRIBUTE = re.compile(r"unknown attribute ([^\s=\"]+)=\"|unknown <[^>]*> attribute '([^']*)' ignored")
_NESTED_TAG = re.compile(r"unknown parameter <([^>\s]+)> for ")
_TOP_TAG = re.compile(r": <([^>\s]+)>: unknown (?:tag; skipped|world parameter; kept but not used)(?:;|$)")
_LOCATION = re.compile(r"^.+?:\d+: (?=<[^>]*>: )")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_GUI_ONLY = re.compile(r"<[^>]*>: (\S+) of .+ is accepted but not used: MVSim's GUI$")
_PATHS = re.compile(r":? (?:[A-Za-z]+://|/)[^\s()]+")
_FETCH_HINT_START = "download once with"
_HOST_FAILED_EARLIER = re.compile(r"host (\S+) failed earlier in this process")
_LISTED_URI = re.compile(r"(?i)https?://\S+?(?=, |; | — )")
#: Start of the one line that says which remote models are unavailable.
REMOTE_MODELS_UNAVAILABLE = "remote models unavailable"


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


def summarize_warnings(warnings: Iterable[str], shown: int = SHOWN_PER_KIND, world_file: str = "WORLD") -> list[str]:
    """`warnings` (text lines, in order) with at most `shown` per kind (warning_kind) and, after the last shown
    of a kind that has more, one line counting the others and naming the most frequent names. GUI-only
    parameters and unavailable remote models are one line each (grouped_warnings; `world_file` is named in the
    remote models' fix)."""
    out: list[str] = []
    warnings = grouped_warnings(warnings, world_file)
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


def grouped_warnings(warnings: Iterable[str], world_file: str = "WORLD") -> list[str]:
    """`warnings` with two kinds said in one line each, at the place of their first: GUI-only parameters (when
    more than one: ``14 GUI-only parameters ignored (MVSim's GUI draws with them): viz_pointSize ×2, ...``) and remote
    models that are unavailable (a single one: its own line followed by the fix; several: one line naming every
    URI once and the fix: ``mvsim_fetch_models WORLD``, MVSIM_OFFLINE=1). Other warnings stay as they are."""
    lines = list(warnings)
    gui = Counter(found.group(1) for found in map(_GUI_ONLY.search, lines) if found)
    remote: dict[str, str] = {}
    for line in lines:
        uri = unavailable_remote_model(line)
        if uri is not None and uri not in remote:
            remote[uri] = _remote_reason(line, uri)
    if sum(gui.values()) < 2 and not remote:
        return lines
    out: list[str] = []
    gui_said = remote_said = False
    for line in lines:
        if sum(gui.values()) > 1 and _GUI_ONLY.search(line):
            if not gui_said:
                names = ", ".join(f"{name} ×{n}" if n > 1 else name for name, n in gui.most_common())
                out.append(f"{sum(gui.values()):,} GUI-only parameters ignored (MVSim's GUI draws with them): {names}")
                gui_said = True
        elif unavailable_remote_model(line) is not None:
            if not remote_said:
                out.append(f"{line}; {fetch_hint(world_file)}" if len(remote) == 1 else
                           remote_models_line(remote, world_file))
                remote_said = True
        else:
            out.append(line)
    return out


def fetch_hint(world_file: str = "WORLD") -> str:
    """How to have a world's remote models: mvsim_fetch_models, then the cache (MVSIM_OFFLINE=1 never downloads)."""
    return (f"{_FETCH_HINT_START} `mvsim_fetch_models {world_file}` (runs then read the cache; MVSIM_OFFLINE=1 keeps "
            f"runs off the network)")


def without_fetch_hint(warning: str) -> str:
    """A remote model's warning as the loader said it, without the fetch_hint that grouped_warnings appends."""
    return warning.split(f"; {_FETCH_HINT_START}", 1)[0]


def remote_models_line(reasons: dict[str, str], world_file: str = "WORLD") -> str:
    """One line for the remote models that are unavailable (`reasons`: URI -> why, from its warning): each URI
    once, after the reason it shares with others, and how to have them."""
    by_reason: dict[str, list[str]] = {}
    for uri, reason in reasons.items():
        by_reason.setdefault(reason, []).append(uri)
    listed = "; ".join(f"{reason}: {', '.join(uris)}" for reason, uris in by_reason.items())
    return f"{REMOTE_MODELS_UNAVAILABLE} ({len(reasons):,}, drawn as stand-ins): {listed} — {fetch_hint(world_file)}"


def unavailable_remote_models(warnings: Iterable[str]) -> set[str]:
    """Every URI the warnings (single ones or a remote_models_line) say is unavailable."""
    told: set[str] = set()
    for line in warnings:
        uri = unavailable_remote_model(line)
        if uri is not None:
            told.add(uri)
        elif line.startswith(REMOTE_MODELS_UNAVAILABLE + " ("):
            told.update(_LISTED_URI.findall(line.split("): ", 1)[-1]))
    return told


def _remote_reason(line: str, uri: str) -> str:
    """Why `uri` is unavailable, from its warning: the text in brackets after it, without URLs and cache paths
    (a host that failed earlier is said in short: the URL it failed on is listed on its own)."""
    rest = line.split(uri, 1)[-1]
    if not rest.startswith(" ("):
        return "unavailable"
    depth, end = 0, len(rest)
    for index, char in enumerate(rest[1:], start=1):  # the bracket closing the one after the URI
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            end = index
            break
    reason = rest[2:end]
    earlier = _HOST_FAILED_EARLIER.match(reason)
    if earlier:
        return f"host {earlier.group(1)} failed earlier; not tried again"
    return _PATHS.sub("", reason).strip()


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


#: id(world) -> the texts said about that world through `said_once` (the entry goes with the world).
_SAID: dict[int, set[str]] = {}
_SAID_LOCK = threading.Lock()


def said_once(world: object, warn: Callable[[str], None]) -> Callable[[str], None]:
    """`warn` that passes on each text at most once per `world` (a WorldSpec), however many `said_once` wrappers
    of that world say it: the GL scene of the rendered sensors and the browser viewer both build the world's
    meshes, and a model file that does not load is told once. A new WorldSpec (a world loaded again, a spawn or a
    delete) starts afresh."""
    key = id(world)
    with _SAID_LOCK:
        if key not in _SAID:
            _SAID[key] = set()
            weakref.finalize(world, _SAID.pop, key, None)

    def say(text: str) -> None:
        with _SAID_LOCK:
            said = _SAID.setdefault(key, set())
            first = text not in said
            said.add(text)
        if first:
            warn(text)

    return say


def _placeholder(found: re.Match) -> str:
    quote = found.group(0)[0]
    return f"{quote}…{quote}"


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


__all__ = ["NAMES_LISTED", "REMOTE_MODELS_UNAVAILABLE", "SHOWN_PER_KIND", "fetch_hint", "grouped_warnings",
           "listed_names", "remote_models_line", "said_once", "summarize_warnings", "summary_line",
           "unavailable_remote_models", "warning_kind", "without_fetch_hint"]
