"""Whether Box2D can build a body from an outline: coordinates and area in range, and a rotational inertia that
float32 arithmetic keeps positive. Checked at load so that a world Box2D would assert on is refused with file:line.

A part of a body is (mass [kg], centroid x, y [m] in the body frame, inertia about its own centroid [kg m^2]).
"""

from __future__ import annotations

from mvsim_ros.world.xml.values import bounded, fail
from mvsim_ros.world.xml.xml_tree import XmlNode

#: Smallest centroidal inertia of a body relative to its inertia about the body origin: Box2D subtracts the two
#: (float32, relative precision 1.2e-7) and asserts the result is > 0.
MIN_INERTIA_RATIO = 1e-5

Part = tuple[float, float, float, float]


def check_outline(points: list[tuple[float, float]], node: XmlNode, what: str) -> None:
    """An outline however it was made (<shape>, <geometry>, a visual model's footprint) as Box2D needs it: every
    coordinate within the 'body_coordinate' bounds (NaN never is) and its area within 'outline_area'."""
    for x, y in points:
        bounded(x, node, "body_coordinate", f"{what} outline x [m]")
        bounded(y, node, "body_coordinate", f"{what} outline y [m]")
    area2 = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1]))
    bounded(0.5 * abs(area2), node, "outline_area", f"{what} outline area [m^2]")


def outline_part(points: list[tuple[float, float]], mass: float) -> Part:
    """A uniform polygon of `mass` [kg] (any vertex order) as a part: (mass, centroid x, y [m], centroidal
    inertia [kg m^2]); a zero-area polygon is a point mass at the origin."""
    area2 = cx = cy = second_moment = 0.0
    for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1]):
        cross = x0 * y1 - x1 * y0
        area2 += cross
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
        second_moment += cross * (x0 * x0 + x0 * x1 + x1 * x1 + y0 * y0 + y0 * y1 + y1 * y1)
    if area2 == 0.0:
        return mass, 0.0, 0.0, 0.0
    cx, cy = cx / (3.0 * area2), cy / (3.0 * area2)
    about_origin = mass * second_moment / (6.0 * area2)
    return mass, cx, cy, about_origin - mass * (cx * cx + cy * cy)


def check_inertia(parts: list[Part], node: XmlNode, what: str) -> None:
    """Refuse a body Box2D cannot give a positive inertia: `parts` are its fixtures in creation order. Box2D sums
    the inertias about the body origin and subtracts m |c|^2 in float32 after every fixture it adds; when the
    centroidal inertia is a tiny fraction of that sum, the result is noise or <= 0 (an assertion). So every
    prefix of `parts` is checked."""
    for count in range(1, len(parts) + 1):
        _check_inertia(parts[:count], node, what)


def _check_inertia(parts: list[Part], node: XmlNode, what: str) -> None:
    mass = sum(m for m, _, _, _ in parts)
    if mass <= 0.0:
        return
    cx = sum(m * x for m, x, _, _ in parts) / mass
    cy = sum(m * y for m, _, y, _ in parts) / mass
    about_origin = sum(i + m * (x * x + y * y) for m, x, y, i in parts)
    about_centre = sum(i + m * ((x - cx) ** 2 + (y - cy) ** 2) for m, x, y, i in parts)
    if about_centre < MIN_INERTIA_RATIO * about_origin:
        raise fail(node, f"{what}: its outline and wheels are too small for their distance from the body origin "
                         f"(centroid at {cx:g}, {cy:g} m): Box2D (float32) cannot compute its rotational inertia; "
                         "draw the outline around the origin")


__all__ = ["MIN_INERTIA_RATIO", "check_inertia", "check_outline", "outline_part"]
