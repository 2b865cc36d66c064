"""MVSim ``<geometry type="..."/>`` primitives as 2.5D shapes: a footprint polygon plus a height span.

Everything here follows MVSim's own code (MRPT/mvsim, ``modules/simulator/src/Block.cpp``,
``Block::internal_parseGeometry``; ``CollisionShapeCache.cpp``; the dataset generator's
``SceneBuilder.cpp``, which replays the same primitives analytically):

=====================  ============================  ======================================================
type                   attributes (SI units)          placement in the object's own frame
=====================  ============================  ======================================================
``box``                ``lx ly lz``, all required     MRPT ``CBox`` with corners (0,0,0) and (lx,ly,lz):
                                                      the box starts at the origin, it is NOT centred.
``cylinder``           ``radius length`` required,    MRPT ``CCylinder``: axis +z, base at z=0, top at
                       ``vertex_count`` (default 10)   z=length, centred on the origin in x, y.
``sphere``             ``radius`` required,           MRPT ``CSphere`` centred on the origin: z in [-r, r].
                       ``vertex_count`` (default 10)
``ramp``               ``lx ly lz``, all required     wedge: x in [0, lx], y in [-ly/2, ly/2]; the top
                                                      face rises from z=0 at x=0 to z=lz at x=lx.
``semi_cylinder_bump`` ``lx ly lz`` required,         half of an elliptic cylinder whose axis is +x:
                       ``vertex_count`` (default 10)   x in [-lx/2, lx/2], y in [-ly/2, ly/2], height
                                                      z(y) = lz * sqrt(1 - (2y/ly)^2) (``getElevationAt``).
=====================  ============================  ======================================================

MVSim reads the attributes into zero-initialised variables and asserts ``> 0`` with "Missing 'X'
attribute", so a missing dimension is an error; ``vertex_count="0"`` (or absent) means 10. Attributes
that MVSim does not know are ignored by MVSim; here they are reported through the optional ``warn``
callback. MVSim lists no other geometry types: anything else is "Unknown type in <geometry type=...>".

Two MVSim behaviours the caller (the world loader) should know:

* In ``Block::factory`` a ``<shape>`` wins over ``<geometry>`` (``else if``), and ``<geometry>`` alone only
  builds the visual: the collision polygon becomes the geometry's outline only with ``<shape_from_visual/>``;
  without it MVSim keeps its default 1 x 1 m square. This module just describes the primitive.
* For cylinders and spheres MVSim's collision polygon has ``min(vertex_count, b2_maxPolygonVertices)``
  corners, at angles ``2*pi*k/n`` starting on +x; when it has to drop corners it enlarges the radius to
  ``r / cos(pi/n)`` so that the polygon circumscribes the circle (``processCylinderLike``). ``parse_geometry``
  keeps every corner up to ``max_vertices`` and applies the same circumscribing rule above it.

Footprints are simple polygons, counter-clockwise, in metres, in the object's frame.
"""

from __future__ import annotations

import math
from typing import Callable, Iterable, Sequence

import numpy as np

from mvsim_ros.world.specs import Geometry, polygon_area
from mvsim_ros.world.xml.values import bounded, fail, parse_float, range_note
from mvsim_ros.world.xml.xml_tree import XmlNode

Point2 = tuple[float, float]
#: The ``type`` values MVSim accepts in ``<geometry type="..."/>``.
GEOMETRY_TYPES = ("box", "cylinder", "sphere", "ramp", "semi_cylinder_bump")
#: Attributes MVSim reads from ``<geometry>`` (``Block::internal_parseGeometry``).
GEOMETRY_ATTRIBUTES = ("type", "lx", "ly", "lz", "radius", "length", "vertex_count")
#: The dimension attributes each type requires (each must be > 0).
REQUIRED_DIMENSIONS: dict[str, tuple[str, ...]] = {
    "box": ("lx", "ly", "lz"),
    "cylinder": ("radius", "length"),
    "sphere": ("radius",),
    "ramp": ("lx", "ly", "lz"),
    "semi_cylinder_bump": ("lx", "ly", "lz"),
}
#: Types that read ``vertex_count`` (MVSim: 0 or absent means 10).
USES_VERTEX_COUNT = frozenset({"cylinder", "sphere", "semi_cylinder_bump"})
DEFAULT_VERTEX_COUNT = 10
#: Most corners a footprint gets from this module (regular polygons and mesh hulls alike).
MAX_FOOTPRINT_VERTICES = 64

Warn = Callable[[XmlNode, str], None]


def parse_geometry(node: XmlNode, max_vertices: int = MAX_FOOTPRINT_VERTICES, warn: Warn | None = None) -> Geometry:
    """Read one ``<geometry type="..." .../>`` element.

    Raises WorldFileError (file, line, tag) for a missing or unknown type (the message lists the valid
    ones), a missing, non-numeric, zero or negative dimension, or a vertex_count that is not an integer
    >= 3. ``max_vertices`` (>= 3) caps the corners of cylinder and sphere footprints, circumscribing as
    MVSim does. ``warn(node, message)``, if given, hears about attributes MVSim would ignore.
    """
    if max_vertices < 3:
        raise ValueError(f"max_vertices must be >= 3, got {max_vertices}")
    kind = node.attrib.get("type", "").strip()
    valid = ", ".join(GEOMETRY_TYPES)
    if not kind:
        raise fail(node, f"<geometry> needs a type=\"...\" attribute; valid types: {valid}")
    if kind not in REQUIRED_DIMENSIONS:
        raise fail(node, f"unknown geometry type '{kind}'; valid types: {valid}")
    if warn is not None:
        for name in node.attrib:
            if name not in GEOMETRY_ATTRIBUTES:
                warn(node, f"unknown <geometry> attribute '{name}' ignored; known: {', '.join(GEOMETRY_ATTRIBUTES)}")

    params = {name: _dimension(node, kind, name) for name in REQUIRED_DIMENSIONS[kind]}
    if kind in USES_VERTEX_COUNT:
        params["vertex_count"] = float(_vertex_count(node))

    if kind == "box":
        lx, ly, lz = params["lx"], params["ly"], params["lz"]
        return Geometry(kind, _rectangle(0.0, 0.0, lx, ly), 0.0, lz, params)
    if kind == "cylinder":
        footprint = regular_polygon(params["radius"], int(params["vertex_count"]), max_vertices)
        return Geometry(kind, footprint, 0.0, params["length"], params)
    if kind == "sphere":
        radius = params["radius"]
        footprint = regular_polygon(radius, int(params["vertex_count"]), max_vertices)
        return Geometry(kind, footprint, -radius, radius, params)
    if kind == "ramp":
        lx, ly, lz = params["lx"], params["ly"], params["lz"]
        return Geometry(kind, _rectangle(0.0, -0.5 * ly, lx, 0.5 * ly), 0.0, lz, params)
    # semi_cylinder_bump
    lx, ly, lz = params["lx"], params["ly"], params["lz"]
    return Geometry(kind, _rectangle(-0.5 * lx, -0.5 * ly, 0.5 * lx, 0.5 * ly), 0.0, lz, params)


def regular_polygon(radius: float, vertex_count: int, max_vertices: int = MAX_FOOTPRINT_VERTICES) -> list[Point2]:
    """A regular polygon around the origin, first corner on +x, counter-clockwise.

    With vertex_count <= max_vertices every corner lies at ``radius``. Above that the polygon gets
    max_vertices corners at ``radius / cos(pi / max_vertices)``, so it still contains the circle
    (MVSim's ``CollisionShapeCache::processCylinderLike`` rule).
    """
    n = vertex_count
    r = radius
    if n > max_vertices:
        n = max_vertices
        r = radius / math.cos(math.pi / n)
    return [(r * math.cos(2.0 * math.pi * k / n), r * math.sin(2.0 * math.pi * k / n)) for k in range(n)]


def surface_height(g: Geometry, x: float, y: float) -> float | None:
    """Height of the top surface above the object's base at local (x, y), or None outside the footprint.

    Ramp and semi_cylinder_bump follow MVSim's ``Block::getElevationAt``: ``lz * x / lx`` and
    ``lz * sqrt(max(0, 1 - (2y/ly)^2))``; every other kind is flat at zmax.
    """
    if not point_in_convex_polygon(g.footprint, x, y):
        return None
    if g.kind == "ramp":
        return g.params["lz"] * x / g.params["lx"]
    if g.kind == "semi_cylinder_bump":
        return g.params["lz"] * math.sqrt(max(0.0, 1.0 - (2.0 * y / g.params["ly"]) ** 2))
    return g.zmax


def scale_geometry(g: Geometry, scale: tuple[float, float, float]) -> Geometry:
    """The geometry scaled by (sx, sy, sz) about its object's origin. Raises ValueError unless each is finite > 0.

    MVSim has no per-instance scale for ``<geometry>`` primitives: their attributes are absolute sizes.
    Its only scales belong to 3D models: ``<visual><model_scale>`` (one factor, applied to the model's
    vertices before ``model_offset_*``/``model_yaw|pitch|roll``, i.e. ``p' = R (s p) + t``) and a block
    instance's ``<visual_scale>``, which replaces the class's model_scale. To honour those for a mesh,
    set ``VisualSpec.model_scale`` before ``load_model_footprint``: scaling its result here also scales
    the model offset, which MVSim does not. This function is for callers that want a scaled variant.

    Dimensions in params scale along their axis (lx by sx, ly by sy, lz and length by sz, radius by sx).
    A cylinder scaled unevenly in x, y, or a sphere scaled unevenly at all, is no longer that primitive:
    it comes back as kind 'polygon' with empty params.
    """
    sx, sy, sz = (float(s) for s in scale)
    for s in (sx, sy, sz):
        if not (math.isfinite(s) and s > 0.0):
            raise ValueError(f"scale factors must be finite and > 0, got {scale!r}")
    footprint = [(sx * x, sy * y) for x, y in g.footprint]
    kind = g.kind
    params: dict[str, float] = {}
    if (kind == "cylinder" and sx != sy) or (kind == "sphere" and not sx == sy == sz):
        kind = "polygon"
    else:
        factors = {"lx": sx, "ly": sy, "lz": sz, "length": sz, "radius": sx}
        params = {k: v * factors.get(k, 1.0) for k, v in g.params.items()}
    return Geometry(kind, footprint, g.zmin * sz, g.zmax * sz, params)


def polygon_geometry(points: Sequence[Point2], zmin: float, zmax: float) -> Geometry:
    """A 'polygon' Geometry (e.g. from ``<shape>``): the points, made counter-clockwise. ValueError if degenerate."""
    pts = [(float(x), float(y)) for x, y in points]
    area = polygon_area(pts)
    if len(pts) < 3 or area == 0.0:
        raise ValueError("a polygon needs at least 3 points and a non-zero area")
    if zmax < zmin:
        raise ValueError(f"zmax ({zmax:g}) is below zmin ({zmin:g})")
    if area < 0.0:
        pts.reverse()
    return Geometry("polygon", pts, float(zmin), float(zmax), {})


def merge_geometries(geoms: Iterable[Geometry], max_vertices: int = MAX_FOOTPRINT_VERTICES) -> Geometry:
    """One 'mesh' Geometry covering all of them: the convex hull of the footprints and the union of the z spans.

    MVSim merges the shapes of several ``<visual>`` entries of one object into one collision shape.
    """
    geoms = list(geoms)
    if not geoms:
        raise ValueError("nothing to merge")
    points = np.array([p for g in geoms for p in g.footprint], dtype=float)
    hull = simplify_hull_outer(convex_hull_2d(points), max_vertices)
    zmin = min(g.zmin for g in geoms)
    zmax = max(g.zmax for g in geoms)
    xs = [p[0] for p in hull]
    ys = [p[1] for p in hull]
    params = {"lx": max(xs) - min(xs), "ly": max(ys) - min(ys), "lz": zmax - zmin}
    return Geometry("mesh", hull, zmin, zmax, params)


# --------------------------------------------------------------------------------------------------
# Planar helpers, shared with visual_models.


def point_in_convex_polygon(polygon: Sequence[Point2], x: float, y: float, tol: float = 1e-12) -> bool:
    """True if (x, y) is inside or on the boundary of a counter-clockwise convex polygon."""
    n = len(polygon)
    for i in range(n):
        (x0, y0), (x1, y1) = polygon[i], polygon[(i + 1) % n]
        if (x1 - x0) * (y - y0) - (y1 - y0) * (x - x0) < -tol:
            return False
    return True


def convex_hull_2d(points: np.ndarray) -> list[Point2]:
    """Convex hull of (N, 2) points, counter-clockwise, from the lowest-x (then lowest-y) corner.

    Collinear and coincident points (within 1e-12 of the cloud's extent) are dropped. Returns fewer than
    3 points when the cloud has no area. Interior points are discarded in bulk first (Akl-Toussaint), so
    a mesh of 10^5 vertices costs milliseconds.
    """
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    if len(pts) == 0:
        return []
    extent = float(np.max(np.ptp(pts, axis=0)))
    pts = _discard_interior(pts)
    pts = np.unique(pts, axis=0)  # lexicographic by x, then y
    if len(pts) < 3:
        return [(float(x), float(y)) for x, y in pts]
    tol = 1e-12 * max(extent, 1e-300) ** 2

    def chain(sequence: np.ndarray) -> list[tuple[float, float]]:
        out: list[tuple[float, float]] = []
        for x, y in sequence:
            while len(out) >= 2:
                (ax, ay), (bx, by) = out[-2], out[-1]
                if (bx - ax) * (y - ay) - (by - ay) * (x - ax) > tol:
                    break
                out.pop()
            out.append((float(x), float(y)))
        return out

    lower = chain(pts)
    upper = chain(pts[::-1])
    return lower[:-1] + upper[:-1]


def simplify_hull_outer(hull: Sequence[Point2], max_vertices: int) -> list[Point2]:
    """A convex polygon with at most max_vertices (>= 4) corners that contains the given convex polygon.

    Kept exact when it already fits. Otherwise, repeatedly drop the edge whose removal adds the least
    area: its two neighbouring edges are extended until they meet. Every step keeps the intersection of a
    subset of the hull's supporting half-planes, so the result always contains the hull. (For 5 or more
    corners some pair of neighbouring edges always meets ahead: the exterior angles sum to 2 pi.) If
    numerics leave no such edge, the axis-aligned bounding rectangle is returned.
    """
    if max_vertices < 4:
        raise ValueError(f"max_vertices must be >= 4, got {max_vertices}")
    poly = np.asarray(hull, dtype=float).reshape(-1, 2)
    while len(poly) > max_vertices:
        p0 = np.roll(poly, 1, axis=0)  # v[i-1]
        p1 = poly  # v[i]
        p2 = np.roll(poly, -1, axis=0)  # v[i+1]
        p3 = np.roll(poly, -2, axis=0)  # v[i+2]
        d1 = p1 - p0
        d2 = p3 - p2
        edge = p2 - p1
        denom = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (edge[:, 0] * d2[:, 1] - edge[:, 1] * d2[:, 0]) / denom
            added = 0.5 * np.abs(t * (d1[:, 0] * edge[:, 1] - d1[:, 1] * edge[:, 0]))
        added = np.where((denom > 0.0) & np.isfinite(added) & (t >= 0.0), added, np.inf)
        i = int(np.argmin(added))
        if not np.isfinite(added[i]):
            lo, hi = poly.min(axis=0), poly.max(axis=0)
            return _rectangle(float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
        apex = p1[i] + t[i] * d1[i]
        nxt = (i + 1) % len(poly)
        poly[i] = apex
        poly = np.delete(poly, nxt, axis=0)
    return [(float(x), float(y)) for x, y in poly]


# --------------------------------------------------------------------------------------------------


def _dimension(node: XmlNode, kind: str, name: str) -> float:
    text = node.attrib.get(name)
    if text is None or not text.strip():
        needs = ", ".join(REQUIRED_DIMENSIONS[kind])
        raise fail(node, f"{kind} geometry: missing attribute {name}=\"...\" (a {kind} needs {needs}, in metres)")
    value = parse_float(text.strip(), node, f"{kind} geometry {name} [m]")
    if value <= 0.0:
        raise fail(node, f"{kind} geometry: {name} must be > 0, got {value:g}{range_note('geometry_size')}")
    return bounded(value, node, "geometry_size", f"{kind} geometry {name} [m]")


def _vertex_count(node: XmlNode) -> int:
    text = node.attrib.get("vertex_count", "").strip()
    if not text:
        return DEFAULT_VERTEX_COUNT
    value = parse_float(text, node, "vertex_count")
    if value != int(value):
        raise fail(node, f"vertex_count must be an integer, got {text!r}")
    count = int(value)
    if count == 0:
        return DEFAULT_VERTEX_COUNT  # MVSim: 0 means the default
    if count < 3:
        raise fail(node, f"vertex_count must be >= 3 (or 0 for the default {DEFAULT_VERTEX_COUNT}), got {count}"
                         f"{range_note('vertex_count')}")
    return int(bounded(count, node, "vertex_count", "vertex_count"))


def _rectangle(x0: float, y0: float, x1: float, y1: float) -> list[Point2]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def _discard_interior(pts: np.ndarray) -> np.ndarray:
    """Drop points strictly inside the polygon of the extreme points in 8 directions (they cannot be on the hull)."""
    if len(pts) < 64:
        return pts
    x, y = pts[:, 0], pts[:, 1]
    keys = (x, x + y, y, y - x, -x, -x - y, -y, x - y)  # counter-clockwise directions
    idx = []
    for k in keys:
        i = int(np.argmax(k))
        if not idx or idx[-1] != i:
            idx.append(i)
    if len(idx) > 1 and idx[0] == idx[-1]:
        idx.pop()
    if len(set(idx)) < 3:
        return pts
    corners = pts[idx]
    inside = np.ones(len(pts), dtype=bool)
    for a, b in zip(corners, np.roll(corners, -1, axis=0)):
        cross = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0])
        inside &= cross > 0.0
    return pts[~inside]


__all__ = [
    "DEFAULT_VERTEX_COUNT",
    "GEOMETRY_ATTRIBUTES",
    "GEOMETRY_TYPES",
    "MAX_FOOTPRINT_VERTICES",
    "REQUIRED_DIMENSIONS",
    "convex_hull_2d",
    "merge_geometries",
    "parse_geometry",
    "point_in_convex_polygon",
    "polygon_geometry",
    "regular_polygon",
    "scale_geometry",
    "simplify_hull_outer",
    "surface_height",
]
