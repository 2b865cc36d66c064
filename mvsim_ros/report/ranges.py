"""Axis ranges with a floor: a quantity that barely changes (a yaw rate of pure noise, 1e-8 rad/s) is drawn on an
axis at least MIN_SPANS[quantity] wide, in its own unit, centred on its values, so noise reads as a flat line and
not as a signal scaled to fill the plot."""

from __future__ import annotations

from typing import Iterable

import numpy as np

#: Smallest span of a y axis per quantity, in its unit.
MIN_SPANS = {
    "speed": 0.2,  # [m/s]
    "yaw_rate": 0.2,  # [rad/s]
    "steering": 0.1,  # [rad]
    "position": 1.0,  # [m]
    "yaw": 0.5,  # [rad]
    "position_error": 0.1,  # [m]
    "yaw_error": 0.05,  # [rad]
}
#: Margin added on each side of the values' span (a fraction of it).
MARGIN = 0.05


def floored_range(values: Iterable[np.ndarray], quantity: str) -> tuple[float, float]:
    """(low, high) of an axis showing every finite value of `values` (arrays), at least MIN_SPANS[quantity] wide:
    the values' span plus MARGIN on each side, widened about its centre to the floor when narrower. Without a
    finite value: (-floor / 2, floor / 2)."""
    floor = MIN_SPANS[quantity]
    finite = [a[np.isfinite(a)] for a in (np.asarray(v, dtype=float).reshape(-1) for v in values)]
    finite = [a for a in finite if a.size]
    if not finite:
        return -0.5 * floor, 0.5 * floor
    low = min(float(a.min()) for a in finite)
    high = max(float(a.max()) for a in finite)
    span = high - low
    low, high = low - MARGIN * span, high + MARGIN * span
    if high - low < floor:
        centre = 0.5 * (low + high)
        low, high = centre - 0.5 * floor, centre + 0.5 * floor
    return low, high
