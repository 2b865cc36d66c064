"""Blocks of numbers as text lines, printf-style: one conversion (e.g. '%.15g', '%f') for every value, written by
numpy.savetxt (C printf's conversions through Python's % operator, row by row)."""

from __future__ import annotations

import io

import numpy as np


def rows_text(block: np.ndarray, spec: str, separator: str) -> str:
    """The text of a 2D block (rows x columns): each value converted with the printf conversion `spec`, values
    separated by `separator`, each row ended by a newline. NaN and infinities are written nan, inf, -inf."""
    text = io.StringIO()
    np.savetxt(text, np.asarray(block, dtype=np.float64), fmt=spec, delimiter=separator, newline="\n")
    return text.getvalue()


__all__ = ["rows_text"]
