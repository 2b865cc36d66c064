"""The recent path of every vehicle, kept by the simulation's owner so that a page opened late still draws the
trails from the node's history (protocol.py: the binary "trails" message), not only from the moment it opened."""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from mvsim_ros.viewer.frame_message import pack_message

#: Points kept per vehicle (the oldest go first); the page keeps as many trail segments.
TRAIL_POINTS = 600
#: Smallest move [m] that adds a point (the page's TRAIL_MIN_STEP): 600 x 0.05 m = 30 m of trail.
TRAIL_MIN_STEP = 0.05


class TrailHistory:
    """Per vehicle, the last TRAIL_POINTS positions (x, y) [m] at least TRAIL_MIN_STEP apart."""

    def __init__(self, names: list[str]):
        self.names = list(names)
        self._points: list[deque] = [deque(maxlen=TRAIL_POINTS) for _ in self.names]

    def record(self, poses: np.ndarray) -> None:
        """Add the vehicles' current positions: poses (V, >= 2), rows x, y [m] in vehicle order."""
        for points, (x, y) in zip(self._points, np.asarray(poses, dtype=float)[:, :2].tolist()):
            if not (math.isfinite(x) and math.isfinite(y)):
                continue
            if not points or math.hypot(x - points[-1][0], y - points[-1][1]) >= TRAIL_MIN_STEP:
                points.append((round(x, 3), round(y, 3)))

    def forget(self, index: int) -> None:
        """Start the path of vehicle `index` afresh (it was put somewhere else: a teleport is no path)."""
        if 0 <= index < len(self._points):
            self._points[index].clear()

    def paths(self) -> dict[str, list[list[float]]]:
        """Per vehicle name, its kept points [[x, y], ...] [m], oldest first."""
        return {name: [list(p) for p in points] for name, points in zip(self.names, self._points)}

    def message(self, version: int) -> bytes:
        """The protocol's binary "trails" message: header {"type": "trails", "version", "vehicles": names} and
        one (N, 2) array "trail:<i>" per vehicle, oldest point first."""
        arrays = [(f"trail:{i}", np.asarray(list(points), dtype=float).reshape(-1, 2))
                  for i, points in enumerate(self._points)]
        return pack_message({"type": "trails", "version": int(version), "vehicles": self.names}, arrays)
