"""Planar polygon helpers: area, convexity, and splitting into pieces Box2D accepts (convex, <= 8 vertices)."""

from __future__ import annotations

import numpy as np

Point2 = tuple[float, float]
BOX2D_MAX_VERTICES = 8


def signed_area(points: list[Point2]) -> float:
    """Signed area [m^2]: positive for counter-clockwise vertex order."""
    p = np.asarray(points, dtype=float)
    q = np.roll(p, -1, axis=0)
    return 0.5 * float(np.sum(p[:, 0] * q[:, 1] - q[:, 0] * p[:, 1]))


def _cross(o: Point2, a: Point2, b: Point2) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def is_convex(points: list[Point2]) -> bool:
    """True when every turn of the (closed) outline goes the same way."""
    n = len(points)
    signs = {np.sign(_cross(points[i], points[(i + 1) % n], points[(i + 2) % n])) for i in range(n)}
    signs.discard(0.0)
    return len(signs) <= 1


def _inside_triangle(p: Point2, a: Point2, b: Point2, c: Point2) -> bool:
    return _cross(a, b, p) >= 0 and _cross(b, c, p) >= 0 and _cross(c, a, p) >= 0


def triangulate(points: list[Point2]) -> list[list[Point2]]:
    """Ear-clipping triangulation of a simple polygon (any vertex order). Returns CCW triangles."""
    pts = list(points) if signed_area(points) > 0 else list(reversed(points))
    triangles: list[list[Point2]] = []
    guard = 0
    while len(pts) > 3 and guard < 10_000:
        guard += 1
        n = len(pts)
        for i in range(n):
            a, b, c = pts[i - 1], pts[i], pts[(i + 1) % n]
            if _cross(a, b, c) <= 0:
                continue  # reflex or degenerate corner: not an ear
            if any(_inside_triangle(p, a, b, c) for p in pts if p not in (a, b, c)):
                continue
            triangles.append([a, b, c])
            del pts[i]
            break
        else:
            break  # self-intersecting outline: stop and keep what we have
    if len(pts) == 3 and abs(signed_area(pts)) > 1e-12:
        triangles.append(pts)
    return triangles


def convex_pieces(points: list[Point2]) -> list[list[Point2]]:
    """Split an outline into convex pieces of at most 8 vertices (Box2D's polygon limit)."""
    if is_convex(points) and len(points) <= BOX2D_MAX_VERTICES:
        return [list(points)]
    return triangulate(points)


def merge_occupied_cells(occupied: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Cover the True cells of a 2D grid with few axis-aligned rectangles.

    Horizontal runs are found per row, then identical runs in consecutive rows are merged.
    Returns (row0, col0, row1, col1) with exclusive upper bounds.
    """
    rows, _cols = occupied.shape
    padded = np.zeros((rows, occupied.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = occupied
    edges = np.diff(padded, axis=1)
    open_runs: dict[tuple[int, int], int] = {}  # (col0, col1) -> first row
    rects: list[tuple[int, int, int, int]] = []
    for r in range(rows):
        starts = np.flatnonzero(edges[r] == 1)
        ends = np.flatnonzero(edges[r] == -1)
        runs = set(zip(starts.tolist(), ends.tolist()))
        for run in list(open_runs):
            if run not in runs:
                rects.append((open_runs.pop(run), run[0], r, run[1]))
        for run in runs:
            open_runs.setdefault(run, r)
    for run, r0 in open_runs.items():
        rects.append((r0, run[0], rows, run[1]))
    return rects
