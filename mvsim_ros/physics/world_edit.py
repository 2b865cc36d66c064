"""Adding a vehicle or block to a running simulation, or removing one, with everything else continuing exactly.

The Box2D world is edited in place (the new body is created in it, or the removed one destroyed), so every other
body keeps all of its Box2D state: pose, velocity, sleep timer, contacts and the joints' warm-start impulses. A new
Simulation is then built over the edited bodies for the edited WorldSpec, and the simulation's own state (time,
commands, wheels, controllers, odometry, ...: sim_state.SimulationState) is carried over from the old one row by
row in `carry_over`. The old Simulation gives its Box2D world away: it must not be stepped again.

Adding a body to a Box2D world changes nothing for the others as long as it touches none of them (it forms an
island of its own; the broad phase keeps the ids, hence the pair order, of the existing proxies), so a run with
a spawn far away repeats the run without it to the last bit.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from mvsim_ros.physics.bodies import (Box2DWorld, BodyTag, ContactCounter, add_block_body, add_pivot_joint,
                                      add_proximity_fixtures, add_vehicle_body, destroy_body)
from mvsim_ros.physics.kinematic.movers import block_path
from mvsim_ros.physics.sim_state import RowMap
from mvsim_ros.physics.simulation import Simulation
from mvsim_ros.world.specs import BlockSpec, VehicleSpec, WorldSpec

ENTITY_KINDS = ("vehicle", "block")


def with_entity(sim: Simulation, entity: VehicleSpec | BlockSpec) -> Simulation:
    """A new Simulation of `sim`'s world plus `entity` (appended to the vehicles or the blocks), with the same
    command timeout, in which every existing body and all of the simulation's state continue exactly; the new
    entity starts at its init pose (at its init velocity, zero unless the spec says), a keyframe-animated block
    where its path is at the current time. `sim` must not be used afterwards (its bodies move to the new one).

    Raises ValueError (and changes nothing) for a name already used by a vehicle or block, or an entity that is
    neither a VehicleSpec nor a BlockSpec."""
    if not isinstance(entity, (VehicleSpec, BlockSpec)):
        raise ValueError(f"can only add a VehicleSpec or BlockSpec, got {type(entity).__name__}")
    spec = sim.spec
    taken = {v.name for v in spec.vehicles} | {b.name for b in spec.blocks}
    if entity.name in taken:
        raise ValueError(f"a vehicle or block named {entity.name!r} already exists")
    old, n = sim.box2d, len(spec.vehicles)
    vehicles, units, pivots, blocks = list(old.vehicles), list(old.units), list(old.pivots), list(old.blocks)
    if isinstance(entity, VehicleSpec):
        new_spec = _edited(spec, vehicles=spec.vehicles + [entity])
        vehicles.append(add_vehicle_body(old.world, entity, n))
        add_proximity_fixtures(vehicles[-1], entity.chassis.shape, spec.collision_threshold)
        if entity.articulation is not None:
            units.append(add_vehicle_body(old.world, entity, n, unit=1))
            pivots.append(add_pivot_joint(old.world, entity, vehicles[-1], units[-1]))
        vehicle_rows, block_rows = list(range(n)) + [-1], list(range(len(spec.blocks)))
    else:
        new_spec = _edited(spec, blocks=spec.blocks + [entity])
        body = add_block_body(old.world, old.ground, entity, len(spec.blocks), spec.gravity)
        if entity.animation is not None:  # on the world clock: where its keyframes are now
            x, y, _, yaw, _, _ = block_path(entity)(sim.time)
            body.transform = ((x, y), yaw)
        blocks.append(body)
        vehicle_rows, block_rows = list(range(n)), list(range(len(spec.blocks))) + [-1]
    edited = _rebuilt_box2d(old, vehicles, units, pivots, blocks)
    return carry_over(sim, Simulation(new_spec, sim.command_timeout, box2d=edited), vehicle_rows, block_rows)


def without_entity(sim: Simulation, kind: str, index: int) -> Simulation:
    """A new Simulation of `sim`'s world without vehicle or block `index` (`kind` "vehicle" or "block"), in which
    every other body and all of the simulation's state continue exactly. The removed body's joints go with it:
    a trailer whose tractor is removed stays, as a free vehicle (or block). `sim` must not be used afterwards.

    Raises ValueError (and changes nothing) for an unknown kind or index."""
    return without_entities(sim, [(kind, index)])


def without_entities(sim: Simulation, removed: list[tuple[str, int]]) -> Simulation:
    """`without_entity` for several entities at once: (kind, index) pairs, indices into `sim`'s lists (one new
    Simulation however many go). Raises ValueError (and changes nothing) for an unknown kind or index."""
    spec = sim.spec
    gone: dict[str, set[int]] = {kind: set() for kind in ENTITY_KINDS}
    for kind, index in removed:
        if kind not in ENTITY_KINDS:
            raise ValueError(f"kind must be one of {', '.join(ENTITY_KINDS)}, got {kind!r}")
        entities = spec.vehicles if kind == "vehicle" else spec.blocks
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < len(entities):
            raise ValueError(f"no {kind} with index {index!r} (the world has {len(entities)} {kind}s)")
        gone[kind].add(int(index))
    names = {spec.vehicles[k].name for k in gone["vehicle"]} | {spec.blocks[k].name for k in gone["block"]}
    joints = [j for j in spec.joints if j.body_a not in names and j.body_b not in names]
    old = sim.box2d
    articulated = sim.articulations.vehicle.tolist()
    # Box2D bodies first (each takes its joints along; the contact listener sees its contacts end), then the lists.
    for index in sorted(gone["vehicle"]):
        if index in articulated:
            destroy_body(old.world, old.units[articulated.index(index)])  # takes its pivot joint along
        destroy_body(old.world, old.vehicles[index])
    for index in sorted(gone["block"]):
        destroy_body(old.world, old.blocks[index])
    vehicle_rows = [k for k in range(len(spec.vehicles)) if k not in gone["vehicle"]]
    block_rows = [k for k in range(len(spec.blocks)) if k not in gone["block"]]
    kept_units = [r for r, k in enumerate(articulated) if k not in gone["vehicle"]]
    new_spec = _edited(spec, vehicles=[spec.vehicles[k] for k in vehicle_rows],
                       blocks=[spec.blocks[k] for k in block_rows], joints=joints)
    edited = _rebuilt_box2d(old, [old.vehicles[k] for k in vehicle_rows], [old.units[r] for r in kept_units],
                            [old.pivots[r] for r in kept_units], [old.blocks[k] for k in block_rows])
    return carry_over(sim, Simulation(new_spec, sim.command_timeout, box2d=edited), vehicle_rows, block_rows)


def _edited(spec: WorldSpec, **changes) -> WorldSpec:
    """A copy of `spec` with `changes`; lists it shares with the original are copied, so neither sees the
    other's later edits."""
    copies = {"vehicles": list(spec.vehicles), "blocks": list(spec.blocks), "joints": list(spec.joints),
              "warnings": list(spec.warnings)}
    return dataclasses.replace(spec, **{**copies, **changes})


def _rebuilt_box2d(old: Box2DWorld, vehicles: list, units: list, pivots: list, blocks: list) -> Box2DWorld:
    """The Box2DWorld over the edited body lists: bodies re-tagged with their new indices, a new contact counter
    (filled by carry_over) installed as the world's listener."""
    articulated = [body.userData.index for body in units]  # still the old vehicle indices
    new_index = {old_index: k for k, old_index in enumerate(body.userData.index for body in vehicles)}
    for k, body in enumerate(vehicles):
        body.userData = BodyTag("vehicle", k)
    for body, old_index in zip(units, articulated):
        body.userData = BodyTag("vehicle", new_index[old_index])
    for k, body in enumerate(blocks):
        body.userData = BodyTag("block", k)
    contacts = ContactCounter(len(vehicles))
    contacts.install(old.world)
    com = np.array([tuple(b.localCenter) for b in vehicles + units], dtype=float).reshape(-1, 2)
    return Box2DWorld(old.world, old.ground, vehicles, blocks, contacts, units, pivots, com, list(old.actors))


def carry_over(old: Simulation, new: Simulation, vehicle_rows: list[int], block_rows: list[int]) -> Simulation:
    """Copy the simulation state of `old` into `new`, built over the same Box2D bodies (so body poses and
    velocities need no copy). vehicle_rows[k] / block_rows[k]: the index in `old` of `new`'s vehicle / block k,
    or -1 for one that is new (it keeps what `new` started it with). Returns `new`.

    The state is sim_state.SimulationState, carried field by field through the row map between the two
    simulations (every field, whatever it is: a new state variable needs nothing here). Then what follows from
    it: a new keyframe-animated block on its path at the current time, and the terrain (see _settle_terrain).
    """
    rows = RowMap.between(old.state_rows(), new.state_rows(), {"vehicle": vehicle_rows, "block": block_rows})
    both_terrain = old.terrain.active and new.terrain.active
    new.set_state(old.get_state().carried(new.get_state(), rows, terrain=both_terrain))
    new.movers.place_on_paths(rows.fresh["mover"], new.time)
    _settle_terrain(new, carried=both_terrain)
    return new


def _settle_terrain(new: Simulation, carried: bool) -> None:
    """Terrain after a carry-over: surfaces moved to the current time and the loads the carried bodies' 3D state
    implies. A new body keeps the place its construction found it (on the ground under it). When the terrain came
    with the new entity (`carried` False), everyone goes onto it from where they are."""
    terrain = new.terrain
    if not terrain.active:
        return
    terrain.move_surfaces(new.box2d.blocks, new.block_pose3, new.movers, new.time)
    if carried:
        terrain.update_loads(new.wheels.normal_force)
    else:
        everything = np.arange(len(terrain.z))
        terrain.settle(new.body_pose, new.wheels.normal_force, new.box2d.blocks, new.block_pose3, new.movers,
                       new.time, everything, np.arange(len(new.spec.blocks)))


__all__ = ["carry_over", "with_entity", "without_entities", "without_entity"]
