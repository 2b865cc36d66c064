"""Blocks of numbers as text lines, printf-style: one conversion (e.g. '%.15g', '%f') for every value, written
by Python's % operator (C printf's conversions, as numpy.savetxt writes its rows), one call per block of rows."""

from __future__ import annotations

import numpy as np


def rows_text(block: np.ndarray, spec: str, separator: str) -> str:
    """The text of a 2D block (rows x columns): each value converted with the printf conversion `spec`, values
    separated by `separator`, each row ended by a newline. NaN and infinities are written nan, inf, -inf."""
    block = np.asarray(block, dtype=np.float64)
    rows, cols = block.shape
    line = separator.join([spec] * cols) + "\n"
    return (line * rows) % tuple(block.ravel().tolist())


__all__ = ["rows_text"]
