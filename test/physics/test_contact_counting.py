"""The vehicles' contact counts (touching now, touched since the last reset) kept by the Box2D shim's contact
listener are those the pybox2d listener in Python keeps, step for step: solid contacts with walls, blocks and other
vehicles, and other bodies within the collision threshold (the proximity sensors); spawning and deleting keep
counting."""

from __future__ import annotations

import pytest

from mvsim_ros.physics import Simulation, box2d_native
from mvsim_ros.physics.bodies import ContactCounter
from mvsim_ros.physics.world_edit import with_entity, without_entity
from mvsim_ros.world import load_world_string

pytestmark = pytest.mark.skipif(not box2d_native.AVAILABLE, reason="the Box2D shim is not built")

WORLD = """<mvsim_world version="1.0">
  <collision_threshold>0.2</collision_threshold>
  <walls><wallThickness>0.2</wallThickness><shape><pt>-6 -6</pt><pt>6 -6</pt><pt>6 -6</pt><pt>6 6</pt></shape></walls>
  <vehicle:class name="bot"><dynamics class="differential">
    <chassis mass="15.0"><shape><pt>-0.25 -0.22</pt><pt>0.25 -0.22</pt><pt>0.25 0.22</pt><pt>-0.25 0.22</pt></shape>
    </chassis>
    <l_wheel pos="0.0  0.25" mass="1.0" width="0.05" diameter="0.20"/>
    <r_wheel pos="0.0 -0.25" mass="1.0" width="0.05" diameter="0.20"/>
    <controller class="twist_pid"><KP>5</KP><KI>10</KI><I_MAX>1</I_MAX><KD>0</KD><max_torque>20</max_torque>
    </controller>
  </dynamics></vehicle:class>
  <vehicle name="r1" class="bot"><init_pose>0 0 0</init_pose></vehicle>
  <vehicle name="r2" class="bot"><init_pose>2.0 0 180</init_pose></vehicle>
  <vehicle name="r3" class="bot"><init_pose>0 -4 -90</init_pose></vehicle>
  <block name="box"><mass>3</mass><init_pose>0 2.0 0</init_pose><zmin>0</zmin><zmax>1</zmax>
    <shape><pt>-0.3 -0.3</pt><pt>0.3 -0.3</pt><pt>0.3 0.3</pt><pt>-0.3 0.3</pt></shape></block>
</mvsim_world>"""
SPAWNED = """<mvsim_world version="1.0"><block name="late"><static>true</static><init_pose>0.6 -1.0 0</init_pose>
  <zmin>0</zmin><zmax>1</zmax><shape><pt>-0.2 -0.2</pt><pt>0.2 -0.2</pt><pt>0.2 0.2</pt><pt>-0.2 0.2</pt></shape>
  </block></mvsim_world>"""


def _with_python_counting(sim: Simulation) -> Simulation:
    """`sim` with its contacts counted by the Python listener instead of the shim's, from the counts so far."""
    counter = ContactCounter(len(sim.box2d.vehicles))
    counter.touching[:], counter.since_reset[:] = sim.box2d.contacts.touching, sim.box2d.contacts.since_reset
    available = box2d_native.AVAILABLE
    box2d_native.AVAILABLE = False
    try:
        counter.install(sim.box2d.world)
    finally:
        box2d_native.AVAILABLE = available
    sim.box2d.contacts = counter
    return sim


COMMANDS = {"r1": (0.8, 0.4), "r2": (0.5, 0.0), "r3": (1.0, 0.0)}  # r1 curves into r2 and the box, r3 into a wall


def _drive(sims: list[Simulation], steps: int, seen: dict) -> None:
    """Step both simulations alike, comparing their counts at every step; `seen[name]`: steps with contacts."""
    for step in range(steps):
        for sim in sims:
            for k, name in enumerate(sim.vehicle_names):
                sim.set_twist(k, *COMMANDS[name])
            sim.step()
        native, python = (sim.box2d.contacts for sim in sims)
        assert native.touching.tolist() == python.touching.tolist()
        assert native.since_reset.tolist() == python.since_reset.tolist()
        for k, name in enumerate(sims[0].vehicle_names):
            seen[name] = seen.get(name, 0) + int(native.touching[k] > 0)
        if step % 50 == 0:
            assert sims[0].take_collisions().tolist() == sims[1].take_collisions().tolist()


def test_the_shim_counts_contacts_as_the_python_listener_does():
    sims = [Simulation(load_world_string(WORLD)), _with_python_counting(Simulation(load_world_string(WORLD)))]
    assert isinstance(sims[0].box2d.contacts._listener, box2d_native.VehicleContactListener)
    seen: dict[str, int] = {}
    _drive(sims, 1200, seen)
    block = load_world_string(SPAWNED).blocks[0]
    sims = [with_entity(sims[0], block), _with_python_counting(with_entity(sims[1], block))]
    _drive(sims, 600, seen)
    sims = [without_entity(sims[0], "vehicle", 1), _with_python_counting(without_entity(sims[1], "vehicle", 1))]
    _drive(sims, 600, seen)
    assert seen["r1"] > 50 and seen["r3"] > 50  # both were in contact for a good while
