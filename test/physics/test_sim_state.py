"""The simulation's public state (physics/sim_state.py): get_state / set_state, the rows of each row space and
the row map a world edit carries a state through, the compile refusals and the longest compiled run."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from conftest import REPO
from mvsim_ros.physics import Simulation, box2d_native
from mvsim_ros.physics.compiled_steps import SHIM_OFF
from mvsim_ros.physics.sim_state import ROW_SPACES, RowMap, SimulationState
from mvsim_ros.physics.simulation import PHI_WRAP_CHECK_STEPS
from mvsim_ros.physics.world_edit import without_entities
from mvsim_ros.world import load_world

#: Worlds with every row space filled: movers, articulations, drivetrains, steering, terrain, blocks.
WORLDS = ["worlds/moving_things.world.xml", "worlds/articulated.world.xml", "worlds/car_trailer.world.xml",
          "worlds/elevation_car.world.xml", "test/redteam/worlds/every_kind.world.xml"]


def driven(world_file: str, seconds: float = 0.5) -> Simulation:
    sim = Simulation(load_world(REPO / world_file), command_timeout=0.3)
    for k in range(len(sim.vehicle_names)):
        sim.set_twist(k, 0.5 + 0.1 * k, 0.3 - 0.1 * k)
    sim.run(seconds)
    return sim


def same(a: SimulationState, b: SimulationState) -> bool:
    return all(np.asarray(getattr(a, f.name)).tobytes() == np.asarray(getattr(b, f.name)).tobytes()
               for f in dataclasses.fields(SimulationState))


@pytest.mark.parametrize("world_file", WORLDS)
def test_every_field_has_one_row_per_row_of_its_space(world_file):
    sim = driven(world_file, 0.1)
    state, rows = sim.get_state(), sim.state_rows()
    assert set(rows.labels) == set(ROW_SPACES)
    for f in dataclasses.fields(SimulationState):
        space = f.metadata["rows"]
        if space != "clock":
            assert len(getattr(state, f.name)) == len(rows.labels[space]), f.name


@pytest.mark.parametrize("world_file", WORLDS)
def test_set_state_restores_every_field_in_place(world_file):
    sim = driven(world_file)
    saved = sim.get_state()
    odometry, commands = sim.odom_pose, sim.commands.v
    sim.set_twist(0, -0.4, 0.8)
    sim.run(0.3)
    assert not same(sim.get_state(), saved)
    sim.set_state(saved)
    assert same(sim.get_state(), saved)
    # Written in place: the step's groups still see the simulation's arrays.
    assert sim.odom_pose is odometry and sim.step_groups.odometry.pose is odometry
    assert sim.commands.v is commands and sim.step_groups.commands.v is commands
    assert isinstance(sim.steps, int) and isinstance(sim.time, float)


def test_a_state_of_another_world_is_refused_and_changes_nothing():
    sim, other = driven("worlds/demo_2robots.world.xml"), driven("worlds/articulated.world.xml")
    before = sim.get_state()
    with pytest.raises(ValueError, match="shape"):
        sim.set_state(other.get_state())
    assert same(sim.get_state(), before)


def test_the_row_map_follows_vehicles_and_blocks_across_an_edit():
    """articulated.world.xml: an articulated loader (vehicle 0, four wheels, a front unit) and a robot; removing
    the loader and block 1 moves the robot's rows and the other blocks' rows up; adding a vehicle makes fresh rows."""
    sim = Simulation(load_world(REPO / "worlds" / "articulated.world.xml"))
    rows = sim.state_rows()
    assert rows.labels["wheel"] == [("vehicle", 0, j) for j in range(4)] + [("vehicle", 1, j) for j in range(2)]
    assert rows.labels["body"] == [("vehicle", 0, 0), ("vehicle", 1, 0), ("vehicle", 0, 1)]
    smaller = without_entities(Simulation(sim.spec), [("vehicle", 0), ("block", 1)])
    mapped = RowMap.between(rows, smaller.state_rows(), {"vehicle": [1], "block": [0, 2]})
    expected = {"vehicle": ([0], [1]), "wheel": ([0, 1], [4, 5]), "body": ([0], [1]), "articulation": ([], []),
                "block": ([0, 1], [0, 2])}
    for space, (new_rows, old_rows) in expected.items():
        assert mapped.pairs[space][0].tolist() == new_rows and mapped.pairs[space][1].tolist() == old_rows, space
    assert all(mapped.fresh[space].size == 0 for space in ROW_SPACES)
    grown = RowMap.between(rows, rows, {"vehicle": [0, -1], "block": [0, 1, 2]})
    assert grown.fresh["vehicle"].tolist() == [1] and grown.fresh["wheel"].tolist() == [4, 5]
    assert grown.pairs["articulation"][0].tolist() == [0] and grown.fresh["body"].tolist() == [1]


def test_compile_refusals_and_the_longest_compiled_run_are_published():
    flat = Simulation(load_world(REPO / "worlds" / "demo_2robots.world.xml"))
    terrain = Simulation(load_world(REPO / "worlds" / "elevation_car.world.xml"))
    assert flat.longest_compiled_run == PHI_WRAP_CHECK_STEPS
    assert "terrain under the wheels" in terrain.compiled_steps_refusals
    assert terrain.compiled_steps_unavailable == ", ".join(terrain.compiled_steps_refusals)
    if box2d_native.AVAILABLE:
        assert flat.compiled_steps_refusals == () and flat.compiled_steps_unavailable == ""
        off = Simulation(flat.spec, box2d_shim=False)
        assert off.compiled_steps_refusals == (SHIM_OFF,) and off.step_groups.body_addresses is None
        off.step_many(3)  # through step()
        assert off.steps == 3
