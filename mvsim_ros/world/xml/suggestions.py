"""Names a misspelt tag or attribute was most likely meant to be: the "did you mean" of warnings and errors.

`close_name` finds the known name most like an unknown one (difflib's similarity, as the node's parameter typos
use); `edit_distance` counts the single-character edits between two names (insert, delete, replace, swap of two
neighbours), which decides whether an unknown top-level tag is a typo of an element (`<vehicel>`).
"""

from __future__ import annotations

import difflib
from functools import lru_cache
from typing import Iterable

#: Least difflib similarity ratio (0..1) for a known name to be offered as "did you mean".
SIMILARITY_CUTOFF = 0.6


def close_name(name: str, known: Iterable[str]) -> str | None:
    """The known name most similar to `name` (ratio >= SIMILARITY_CUTOFF), or None."""
    return _close_name(name, tuple(known))


@lru_cache(maxsize=4096)
def _close_name(name: str, known: tuple[str, ...]) -> str | None:
    """close_name, cached: a world repeats its unknown names (40,000 unknown tags of four names, say)."""
    found = difflib.get_close_matches(name, known, n=1, cutoff=SIMILARITY_CUTOFF)
    return found[0] if found else None


def did_you_mean(name: str, known: Iterable[str], tag: bool) -> str:
    """``; did you mean <init_pose>?`` (a tag) or ``; did you mean 'name'?`` (an attribute) for the known name
    closest to `name`; empty text when none is close."""
    found = close_name(name, known)
    if found is None:
        return ""
    return f"; did you mean <{found}>?" if tag else f"; did you mean '{found}'?"


@lru_cache(maxsize=4096)
def edit_distance(a: str, b: str) -> int:
    """Fewest single-character inserts, deletes, replacements and swaps of neighbours turning `a` into `b`
    (optimal string alignment distance). Cached: a world repeats its tags."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[len(b)]


def typo_of(name: str, known: Iterable[str]) -> str | None:
    """The known name `name` is a typo of: at most one edit away from a known name of up to 5 characters, two
    from a longer one, and `name` itself at least 3 characters long (short tags are too easily near anything).
    The closest such name (the first of equals in `known`'s order), or None."""
    if len(name) < 3:
        return None
    best: tuple[int, str] | None = None
    for candidate in known:
        allowed = 1 if len(candidate) <= 5 else 2
        if candidate == name or abs(len(candidate) - len(name)) > allowed:
            continue
        distance = edit_distance(name.lower(), candidate.lower())
        if distance <= allowed and (best is None or distance < best[0]):
            best = (distance, candidate)
    return None if best is None else best[1]


__all__ = ["SIMILARITY_CUTOFF", "close_name", "did_you_mean", "edit_distance", "typo_of"]
