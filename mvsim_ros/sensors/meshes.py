"""Triangle meshes of world pieces for the GL scene: planes, walls, and the stand-in body of an actor.

Every mesh is a float32 array of rows ``x y z nx ny nz r g b`` (three rows per triangle) in the piece's own frame
[m]; the scene places it with a model matrix. Flat pieces (planes) carry both windings, so they are seen from
either side with back-face culling on.
"""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.physics.polygons import signed_area

#: Facets around an actor's cylinder and rings of its head sphere.
CYLINDER_FACETS = 16
SPHERE_RINGS = 8
#: Stand-in actor colours: body and head (MVSim's placeholder uses similar ones).
ACTOR_BODY_COLOR = (0.39, 0.59, 0.78)
ACTOR_HEAD_COLOR = (0.86, 0.71, 0.59)
_EMPTY = np.zeros((0, 9), dtype="f4")


def with_color(rows: np.ndarray, color) -> np.ndarray:
    """Rows x y z nx ny nz (N, 6) extended with one colour (r, g b in [0, 1]) as float32 (N, 9)."""
    rows = np.asarray(rows, dtype="f4").reshape(-1, 6)
    return np.hstack([rows, np.tile(np.asarray(color, dtype="f4"), (len(rows), 1))])


def prism(outline, zmin: float, zmax: float, color) -> np.ndarray:
    """Triangles of a vertical prism over a simple polygon outline, outward facing (counter-clockwise seen from
    outside). The caps are fanned from the first vertex (fine for convex outlines, an approximation for concave
    ones)."""
    pts = [tuple(map(float, p)) for p in outline]
    if len(pts) < 3 or zmax <= zmin:
        return _EMPTY
    if signed_area(pts) < 0:
        pts = pts[::-1]
    rows = []
    for i in range(1, len(pts) - 1):  # caps
        a, b, c = pts[0], pts[i], pts[i + 1]
        rows += [(*a, zmax, 0, 0, 1), (*b, zmax, 0, 0, 1), (*c, zmax, 0, 0, 1)]
        rows += [(*a, zmin, 0, 0, -1), (*c, zmin, 0, 0, -1), (*b, zmin, 0, 0, -1)]
    for i, a in enumerate(pts):  # sides
        b = pts[(i + 1) % len(pts)]
        dx, dy = b[0] - a[0], b[1] - a[1]
        length = math.hypot(dx, dy) or 1.0
        n = (dy / length, -dx / length, 0.0)
        rows += [(*a, zmin, *n), (*b, zmin, *n), (*b, zmax, *n), (*a, zmin, *n), (*b, zmax, *n), (*a, zmax, *n)]
    return with_color(rows, color)


def _facet(a, b, c) -> list[tuple]:
    """One triangle (counter-clockwise seen from outside) with its flat normal."""
    a, b, c = (np.asarray(p, dtype=float) for p in (a, b, c))
    n = np.cross(b - a, c - a)
    n = n / (np.linalg.norm(n) or 1.0)
    return [(*a, *n), (*b, *n), (*c, *n)]


def ramp_mesh(lx: float, ly: float, lz: float, color) -> np.ndarray:
    """A ramp block's wedge [m]: base x in [0, lx], y in [-ly/2, ly/2], top rising from z = 0 at x = 0 to lz at
    x = lx (the surface the physics drives on, block_geometry.surface_height), closed by a vertical back face."""
    h = 0.5 * ly
    p0, p1, p2, p3 = (0.0, -h, 0.0), (lx, -h, 0.0), (lx, h, 0.0), (0.0, h, 0.0)
    q1, q2 = (lx, -h, lz), (lx, h, lz)
    rows = (_facet(p0, q1, q2) + _facet(p0, q2, p3)  # sloped top
            + _facet(p0, p2, p1) + _facet(p0, p3, p2)  # bottom
            + _facet(p1, q2, q1) + _facet(p1, p2, q2)  # back face at x = lx
            + _facet(p0, p1, q1) + _facet(p3, q2, p2))  # triangular sides
    return with_color(rows, color)


def bump_mesh(lx: float, ly: float, lz: float, color, facets: int = 24) -> np.ndarray:
    """A semi_cylinder_bump block [m]: half an elliptic cylinder along x in [-lx/2, lx/2], its cross-section
    z = lz sqrt(1 - (2y/ly)^2) over y in [-ly/2, ly/2] (block_geometry.surface_height), with a flat bottom."""
    x0, x1 = -0.5 * lx, 0.5 * lx
    angles = np.linspace(0.0, math.pi, facets + 1)
    arc = [(0.5 * ly * math.cos(a), lz * math.sin(a)) for a in angles]  # from y = +ly/2 over the top to -ly/2
    rows = []
    for (ya, za), (yb, zb) in zip(arc[:-1], arc[1:]):
        na, nb = (2.0 * ya / ly ** 2 * 4.0, 2.0 * za / lz ** 2), (2.0 * yb / ly ** 2 * 4.0, 2.0 * zb / lz ** 2)
        na, nb = (np.array([0.0, *v]) / (np.hypot(*v) or 1.0) for v in (na, nb))  # smooth normals of the ellipse
        a0, a1, b0, b1 = (x0, ya, za), (x1, ya, za), (x0, yb, zb), (x1, yb, zb)
        rows += [(*a0, *na), (*b1, *nb), (*a1, *na), (*a0, *na), (*b0, *nb), (*b1, *nb)]
        rows += _facet((x1, 0.0, 0.0), (x1, ya, za), (x1, yb, zb))  # end caps, fanned from the axis
        rows += _facet((x0, 0.0, 0.0), (x0, yb, zb), (x0, ya, za))
    h = 0.5 * ly
    rows += _facet((x0, -h, 0.0), (x1, h, 0.0), (x1, -h, 0.0)) + _facet((x0, -h, 0.0), (x0, h, 0.0), (x1, h, 0.0))
    return with_color(rows, color)


def double_sided_rectangle(x0: float, x1: float, y0: float, y1: float, z: float, color) -> np.ndarray:
    """A horizontal rectangle [x0, x1] x [y0, y1] at height z [m], facing up and down."""
    up = [(x0, y0, z, 0, 0, 1), (x1, y0, z, 0, 0, 1), (x1, y1, z, 0, 0, 1),
          (x0, y0, z, 0, 0, 1), (x1, y1, z, 0, 0, 1), (x0, y1, z, 0, 0, 1)]
    down = [(x, y, zz, 0, 0, -1) for x, y, zz, *_ in up[::-1]]
    return with_color(up + down, color)


def wall_pieces(length: float, bottom: float, height: float,
                holes: list[tuple[float, float, float, float]]) -> list[tuple[float, float, float, float]]:
    """Solid rectangles (s0, s1, z0, z1) [m] of a wall of `length` from `bottom` to `bottom + height`, minus
    rectangular `holes` (s0, s1, z0, z1): along the wall it is cut at every hole edge, and in each cut the
    height not covered by a hole stays."""
    top = bottom + height
    cuts = sorted({0.0, length, *[min(max(v, 0.0), length) for h in holes for v in h[:2]]})
    pieces = []
    for s0, s1 in zip(cuts, cuts[1:]):
        if s1 - s0 <= 1e-9:
            continue
        mid = 0.5 * (s0 + s1)
        covered = sorted((max(h[2], bottom), min(h[3], top)) for h in holes if h[0] <= mid <= h[1] and h[3] > h[2])
        z = bottom
        for z0, z1 in covered:
            if z0 > z:
                pieces.append((s0, s1, z, z0))
            z = max(z, z1)
        if z < top:
            pieces.append((s0, s1, z, top))
    return pieces


def vertical_plane_mesh(plane) -> np.ndarray:
    """A `vertical_plane` element (world/specs/terrain.py VerticalPlaneSpec) in world coordinates: boxes of its
    thickness along (x0, y0)-(x1, y1), from z up `height`, with its doors and windows cut out."""
    length = plane.length
    dx, dy = (plane.x1 - plane.x0) / length, (plane.y1 - plane.y0) / length
    holes = [(o.position * length - 0.5 * o.width, o.position * length + 0.5 * o.width,
              plane.z + o.z_min, plane.z + o.z_max) for o in plane.openings]
    half = 0.5 * plane.thickness
    color = parse_rgb(plane.color)
    out = []
    for s0, s1, z0, z1 in wall_pieces(length, plane.z, plane.height, holes):
        a = (plane.x0 + dx * s0, plane.y0 + dy * s0)
        b = (plane.x0 + dx * s1, plane.y0 + dy * s1)
        outline = [(a[0] - dy * half, a[1] + dx * half), (a[0] + dy * half, a[1] - dx * half),
                   (b[0] + dy * half, b[1] - dx * half), (b[0] - dy * half, b[1] + dx * half)]
        out.append(prism(outline, z0, z1, color))
    return np.vstack(out) if out else _EMPTY


def actor_placeholder_mesh(radius: float, height: float) -> np.ndarray:
    """MVSim's stand-in for an actor without a loadable model: a cylinder of `radius` from z = 0 to `height`
    and a head sphere of 0.8 x radius centred on top [m], in the actor's frame."""
    angles = np.linspace(0.0, 2.0 * math.pi, CYLINDER_FACETS, endpoint=False)
    outline = [(radius * math.cos(a), radius * math.sin(a)) for a in angles]
    body = prism(outline, 0.0, height, ACTOR_BODY_COLOR)
    return np.vstack([body, sphere_mesh(0.8 * radius, (0.0, 0.0, height), ACTOR_HEAD_COLOR)])


def sphere_mesh(radius: float, centre, color) -> np.ndarray:
    """A UV sphere of `radius` [m] around `centre`, outward facing."""
    lat = np.linspace(0.0, math.pi, SPHERE_RINGS + 1)
    lon = np.linspace(0.0, 2.0 * math.pi, 2 * SPHERE_RINGS + 1)

    def point(i: int, j: int) -> tuple:
        n = (math.sin(lat[i]) * math.cos(lon[j]), math.sin(lat[i]) * math.sin(lon[j]), math.cos(lat[i]))
        return (centre[0] + radius * n[0], centre[1] + radius * n[1], centre[2] + radius * n[2], *n)

    rows = []
    for i in range(SPHERE_RINGS):
        for j in range(2 * SPHERE_RINGS):
            a, b, c, d = point(i, j), point(i + 1, j), point(i + 1, j + 1), point(i, j + 1)
            rows += [a, b, c, a, c, d]
    return with_color(rows, color)


def parse_rgb(color: str) -> tuple[float, float, float]:
    """'#rrggbb' (or '#rrggbbaa') as floats in [0, 1]; grey when unreadable."""
    text = (color or "").strip().lstrip("#")
    try:
        return tuple(int(text[i:i + 2], 16) / 255.0 for i in (0, 2, 4))
    except ValueError:
        return (0.5, 0.5, 0.5)


__all__ = ["actor_placeholder_mesh", "double_sided_rectangle", "parse_rgb", "prism", "sphere_mesh",
           "vertical_plane_mesh", "wall_pieces", "with_color"]
