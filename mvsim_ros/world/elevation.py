"""Placing objects on the ground at load time, as MVSim does for every simulable object it creates.

MVSim (``Simulable::parseSimulable``) sets the initial z of a block or actor to the highest surface under it that is
not above a query point: the object's given z plus half its height (blocks: half of zmax; actors: 1.5 m), so an
object put on an upper floor stays there and one on a hill sits on the hill. Surfaces are the world elements that
report an elevation (elevation maps, horizontal planes); with none at or below the point, z = 0. The tag
``<skip_elevation_adjust>`` keeps the given z. (Vehicles are left to the terrain physics.)
"""

from __future__ import annotations

import dataclasses

from mvsim_ros.world.specs import WorldSpec

#: Height [m] above an actor's given z up to which a surface counts as under it (MVSim's default query height).
ACTOR_QUERY_HEIGHT_M = 1.5


def highest_surface_below(world: WorldSpec, x: float, y: float, z: float) -> float:
    """Height [m] of the highest surface at (x, y) that is not above z; 0 when there is none (MVSim's fallback)."""
    below = [h for h in (e.elevation_at(x, y) for e in world.elements if hasattr(e, "elevation_at"))
             if h is not None and h <= z]
    return max(below) if below else 0.0


def place_on_surfaces(world: WorldSpec) -> None:
    """Set the initial z of every block and actor of `world` onto the surface below it (see the module docstring)."""
    if not any(hasattr(e, "elevation_at") for e in world.elements) and \
            all(b.init_pose.z == 0.0 for b in world.blocks) and all(a.init_pose.z == 0.0 for a in world.actors):
        return  # flat ground and everything on it already
    for block in world.blocks:
        if not block.skip_elevation_adjust:
            pose = block.init_pose
            z = highest_surface_below(world, pose.x, pose.y, pose.z + 0.5 * block.zmax)
            block.init_pose = dataclasses.replace(pose, z=z)
    for actor in world.actors:
        if not actor.skip_elevation_adjust:
            pose = actor.init_pose
            z = highest_surface_below(world, pose.x, pose.y, pose.z + ACTOR_QUERY_HEIGHT_M)
            actor.init_pose = dataclasses.replace(pose, z=z)


__all__ = ["highest_surface_below", "place_on_surfaces", "ACTOR_QUERY_HEIGHT_M"]
