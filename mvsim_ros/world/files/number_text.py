"""Numbers written as text in world files and their data files: a MATLAB-style matrix "[a b; c d]" and
whitespace- or comma-separated rows, each value within the position bounds; errors name file, line and tag."""

from __future__ import annotations

import re

import numpy as np

from mvsim_ros.world.xml.values import fail, parse_bounded
from mvsim_ros.world.xml.xml_tree import XmlNode


def matlab_matrix(text: str, node: XmlNode, what: str) -> np.ndarray:
    """A matrix written as "[a b c; d e f]" (rows split by ';', values by spaces or commas)."""
    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")):
        raise fail(node, f"{what}: expected a matrix like [1 2 3; 4 5 6], got {text!r}")
    rows = [r for r in body[1:-1].split(";") if r.strip()]
    values = [[parse_bounded(v, node, "position", what) for v in re.split(r"[\s,]+", r.strip()) if v] for r in rows]
    if not values or any(len(r) != len(values[0]) for r in values):
        raise fail(node, f"{what}: all rows must have the same number of values")
    return np.array(values, dtype=np.float64)


def text_rows(text: str, node: XmlNode, what: str, min_cols: int, exact: bool = False) -> list[list[float]]:
    """Numbers per line (spaces, tabs or commas between them); empty lines and lines starting '#'/'%' skipped."""
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#%":
            continue
        row = [parse_bounded(v, node, "position", what) for v in re.split(r"[\s,]+", line) if v]
        if len(row) < min_cols or (exact and len(row) != min_cols):
            need = f"exactly {min_cols}" if exact else f"at least {min_cols}"
            raise fail(node, f"{what}: each line needs {need} numbers, got {line!r}")
        rows.append(row)
    if not rows:
        raise fail(node, f"{what}: no data")
    return rows


__all__ = ["matlab_matrix", "text_rows"]
