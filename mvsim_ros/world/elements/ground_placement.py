"""Placing objects on the ground at load time, as MVSim does for every simulable object it creates.

MVSim (``Simulable::parseSimulable``) sets the initial z of a block or actor to the highest surface under it that is
not above a query point: the object's given z plus half its height (blocks: half of zmax; actors: 1.5 m), so an
object put on an upper floor stays there and one on a hill sits on the hill. Surfaces are the world elements that
report an elevation (elevation maps, horizontal planes); with none at or below the point, z = 0. The tag
``<skip_elevation_adjust>`` keeps the given z. (Vehicles are left to the terrain physics, physics/terrain.)

One difference: the query starts from the given z or the elevation map's height there, whichever is higher
(`terrain_base`). MVSim starts from the given z alone, so an object given no z on a hill higher than half its height
ends up at z = 0, under the hill.
"""

from __future__ import annotations

import dataclasses
import math

from mvsim_ros.world.specs import ElevationMapSpec, WorldSpec

#: Height [m] above an actor's given z up to which a surface counts as under it (MVSim's default query height).
ACTOR_QUERY_HEIGHT_M = 1.5


def highest_surface_below(world: WorldSpec, x: float, y: float, z: float) -> float:
    """Height [m] of the highest surface at (x, y) that is not above z; 0 when there is none (MVSim's fallback)."""
    below = [h for h in (e.elevation_at(x, y) for e in world.elements if hasattr(e, "elevation_at"))
             if h is not None and h <= z]
    return max(below) if below else 0.0


def terrain_base(world: WorldSpec, x: float, y: float) -> float:
    """Height [m] of the highest elevation map at (x, y), or -inf where there is none: where an object given a lower
    z (or none) starts looking for the ground."""
    heights = [h for h in (e.elevation_at(x, y) for e in world.elements if isinstance(e, ElevationMapSpec))
               if h is not None and math.isfinite(h)]
    return max(heights) if heights else -math.inf


def place_on_surfaces(world: WorldSpec) -> None:
    """Set the initial z of every block and actor of `world` onto the surface below it (see the module docstring)."""
    if not any(hasattr(e, "elevation_at") for e in world.elements) and \
            all(b.init_pose.z == 0.0 for b in world.blocks) and all(a.init_pose.z == 0.0 for a in world.actors):
        return  # flat ground and everything on it already
    for block in world.blocks:
        if not block.skip_elevation_adjust:
            pose = block.init_pose
            base = max(pose.z, terrain_base(world, pose.x, pose.y))
            z = highest_surface_below(world, pose.x, pose.y, base + 0.5 * block.zmax)
            block.init_pose = dataclasses.replace(pose, z=z)
    for actor in world.actors:
        if not actor.skip_elevation_adjust:
            pose = actor.init_pose
            base = max(pose.z, terrain_base(world, pose.x, pose.y))
            z = highest_surface_below(world, pose.x, pose.y, base + ACTOR_QUERY_HEIGHT_M)
            actor.init_pose = dataclasses.replace(pose, z=z)


__all__ = ["highest_surface_below", "place_on_surfaces", "terrain_base", "ACTOR_QUERY_HEIGHT_M"]
