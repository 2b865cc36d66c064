"""Whether a vehicle could drive straight from one point to another: Box2D ray casts along the way, for tasks
that pick goals at random."""

from __future__ import annotations

import math

import Box2D

from mvsim_ros.physics.bodies import BodyTag


class _AnyHit(Box2D.b2RayCastCallback):
    """Box2D ray callback noting whether any solid fixture not on the `ignored` body tag lies on the ray."""

    def __init__(self, ignored: BodyTag):
        super().__init__()
        self.ignored = ignored
        self.hit = False

    def ReportFixture(self, fixture, point, normal, fraction):  # noqa: N802 (Box2D API name)
        if fixture.sensor or fixture.body.userData == self.ignored:
            return -1.0  # not an obstacle: keep looking
        self.hit = True
        return 0.0  # an obstacle: stop the ray cast


def corridor_clear(sim, vehicle: int, start: tuple[float, float], end: tuple[float, float],
                   half_width: float) -> bool:
    """True when no solid body (other than vehicle `vehicle` itself) lies in the corridor from `start` to `end`
    [m] of half width `half_width` [m], extended by half_width past `end`: checked with rays along its centre line
    and both edges."""
    (x0, y0), (x1, y1) = start, end
    length = math.hypot(x1 - x0, y1 - y0)
    if length == 0.0:
        return True
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    ex, ey = x1 + ux * half_width, y1 + uy * half_width  # the vehicle's footprint around the end point too
    hit = _AnyHit(BodyTag("vehicle", vehicle))
    for offset in (0.0, half_width, -half_width):
        ox, oy = -uy * offset, ux * offset
        sim.box2d.world.RayCast(hit, (x0 + ox, y0 + oy), (ex + ox, ey + oy))
        if hit.hit:
            return False
    return True
