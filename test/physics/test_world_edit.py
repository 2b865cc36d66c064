"""Spawning and deleting entities in a running simulation (physics/world_edit.py): the rest of the world continues
exactly as if nothing happened, the new entity behaves as a loaded one, and a reset is a rebuild."""

import math

import numpy as np
import pytest

from conftest import REPO
from mvsim_ros.physics import Simulation
from mvsim_ros.physics.world_edit import with_entity, without_entity
from mvsim_ros.world import load_world

WORLDS = REPO / "worlds"
TIMEOUT_S = 0.5  # the watchdog stops vehicles 0.5 s after their last command


def commanded_run(world: str, edit=None, driven: int = 0) -> Simulation:
    """2 s of commands, the optional edit, then 2 s more of other commands to vehicle `driven` (the watchdog
    stops the vehicles that get none)."""
    sim = Simulation(load_world(WORLDS / f"{world}.world.xml"), command_timeout=TIMEOUT_S)
    names = list(sim.vehicle_names)
    for k in range(len(names)):
        sim.set_twist(k, 0.4 + 0.1 * k, 0.3 - 0.2 * k)
    sim.run(1.0)
    sim.set_twist(driven, 0.8, -0.2)  # this vehicle goes on being commanded; the others' commands go stale
    sim.run(1.0)
    if edit is not None:
        sim = edit(sim)
    for _ in range(4):
        sim.set_twist(sim.vehicle_index(names[driven]), 0.6, 0.25)
        sim.run(0.5)
    return sim


def coulomb_slide(v0: float, deceleration: float, dt: float) -> float:
    """Distance [m] a body slides from speed v0 [m/s] at a constant deceleration [m/s^2] under Box2D's
    semi-implicit Euler steps of dt [s]: the velocity drops first, then the position moves at the new one."""
    distance, v = 0.0, v0
    while v > 0.0:
        v = max(v - deceleration * dt, 0.0)
        distance += v * dt
    return distance


def spawn_far(sim: Simulation) -> Simulation:
    catalog = sim.spec.catalog
    return with_entity(sim, catalog.from_class(catalog.vehicle_classes()[0], "newcomer", 400.0, -300.0, 1.0))


@pytest.mark.parametrize("world", ["demo_2robots", "car_trailer", "articulated", "moving_things"])
def test_a_spawn_far_away_changes_nothing_for_the_others(world):
    plain, edited = commanded_run(world), commanded_run(world, spawn_far)
    n, bodies = len(plain.vehicle_names), len(plain.body_pose)
    assert edited.vehicle_names == plain.vehicle_names + ["newcomer"]
    assert (edited.time, edited.steps) == (plain.time, plain.steps)
    # Box2D state is untouched and the new body is an island of its own: bit for bit equal.
    np.testing.assert_allclose(edited.pose[:n], plain.pose, rtol=0, atol=1e-9)
    np.testing.assert_allclose(edited.velocity[:n], plain.velocity, rtol=0, atol=1e-9)
    units = slice(len(edited.vehicle_names), len(edited.vehicle_names) + bodies - n)
    np.testing.assert_allclose(edited.body_pose[units], plain.body_pose[n:], rtol=0, atol=1e-9)
    np.testing.assert_allclose(edited.odom_pose[:n], plain.odom_pose, rtol=0, atol=1e-9)
    np.testing.assert_allclose(edited.odom_twist[:n], plain.odom_twist, rtol=0, atol=1e-9)
    np.testing.assert_allclose(edited.block_poses(), plain.block_poses(), rtol=0, atol=1e-9)
    w = plain.wheels.count
    np.testing.assert_allclose(edited.wheels.omega[:w], plain.wheels.omega, rtol=0, atol=1e-9)
    np.testing.assert_allclose(edited.wheels.phi[:w], plain.wheels.phi, rtol=0, atol=1e-9)
    assert list(edited.articulation_angles.values())[:plain.articulations.count] == \
        pytest.approx(list(plain.articulation_angles.values()), abs=1e-9)


def test_the_spawned_vehicle_starts_at_rest_where_asked_and_drives_at_the_commanded_speed():
    sim = Simulation(load_world(WORLDS / "demo_2robots.world.xml"))
    sim.run(1.0)
    sim = spawn_far(sim)
    k = sim.vehicle_index("newcomer")
    np.testing.assert_allclose(sim.pose[k], [400.0, -300.0, 1.0], atol=1e-4)  # float32 at 400 m: 3e-5 m
    np.testing.assert_allclose(sim.velocity[k], 0.0, atol=1e-12)
    np.testing.assert_allclose(sim.odom_pose[k], sim.pose[k])
    sim.set_twist(k, 0.5, 0.0)
    sim.run(2.0)
    assert sim.body_twist()[k, 0] == pytest.approx(0.5, rel=0.05)
    assert sim.body_twist()[k, 2] == pytest.approx(0.0, abs=0.01)


def test_a_spawned_block_from_text_is_pushed_like_a_loaded_one():
    sim = Simulation(load_world(WORLDS / "demo_2robots.world.xml"))
    sim.run(0.5)
    block = sim.spec.catalog.from_xml('<block name="crate" class="box_small"/>', None, 60.0, 0.0, 0.0)
    sim = with_entity(sim, block)
    assert [b.name for b in sim.spec.blocks][-1] == "crate"
    np.testing.assert_allclose(sim.block_poses()[-1], [60.0, 0.0, 0.0], atol=1e-5)
    sim.set_block_state(len(sim.spec.blocks) - 1, 60.0, 0.0, 0.0, 0.4, 0.0, 0.0)
    sim.run(2.0)
    mu = sim.spec.blocks[-1].ground_friction  # Coulomb ground friction: deceleration mu g
    assert sim.block_poses()[-1, 0] - 60.0 == pytest.approx(coulomb_slide(0.4, mu * sim.gravity, sim.dt), rel=0.01)


def test_deleting_a_vehicle_leaves_the_others_running_exactly():
    def delete_r2(sim):
        return without_entity(sim, "vehicle", sim.vehicle_index("r2"))

    plain, edited = commanded_run("demo_2robots"), commanded_run("demo_2robots", delete_r2)
    assert edited.vehicle_names == ["r1"]
    np.testing.assert_allclose(edited.pose[0], plain.pose[0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(edited.odom_pose[0], plain.odom_pose[0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(edited.block_poses(), plain.block_poses(), rtol=0, atol=1e-9)
    assert edited.wheels.count == plain.wheels.count - int(np.sum(plain.wheels.vehicle == 1))


def test_deleting_a_block_and_the_first_vehicle_reindexes_the_rest():
    def delete_both(sim):
        return without_entity(without_entity(sim, "block", 0), "vehicle", 0)

    plain, edited = commanded_run("warehouse", driven=1), commanded_run("warehouse", delete_both, driven=1)
    assert edited.vehicle_names == plain.vehicle_names[1:]
    assert [b.name for b in edited.spec.blocks] == [b.name for b in plain.spec.blocks[1:]]
    assert all(body.userData.index == k for k, body in enumerate(edited.box2d.vehicles))
    assert all(body.userData.index == k for k, body in enumerate(edited.box2d.blocks))
    np.testing.assert_allclose(edited.pose[0], plain.pose[1], rtol=0, atol=1e-9)
    np.testing.assert_allclose(edited.odom_pose[0], plain.odom_pose[1], rtol=0, atol=1e-9)


def test_deleting_a_tractor_leaves_its_trailer_as_a_free_vehicle():
    sim = Simulation(load_world(WORLDS / "car_trailer.world.xml"))
    sim.set_twist(0, 2.0, 0.0)
    sim.run(2.0)
    speed = float(sim.body_twist()[1, 0])
    assert speed > 1.0
    sim = without_entity(sim, "vehicle", 0)
    assert sim.vehicle_names == ["trailer"] and sim.spec.joints == []
    assert sim.box2d.world.jointCount == 0
    np.testing.assert_allclose(sim.body_twist()[0, 0], speed, atol=1e-9)  # it rolls on, then its wheels brake it
    sim.run(5.0)
    assert abs(sim.body_twist()[0, 0]) < speed


def test_a_reset_is_a_rebuild_from_the_original_spec():
    spec = load_world(WORLDS / "demo_2robots.world.xml")
    sim = Simulation(spec, command_timeout=0.25)
    sim.set_twist(0, 1.0, 0.5)
    sim.run(2.0)
    sim = spawn_far(sim)
    fresh = Simulation(spec, command_timeout=sim.command_timeout)
    assert fresh.command_timeout == 0.25 and fresh.time == 0.0
    assert fresh.vehicle_names == ["r1", "r2"]
    expected = [(v.init_pose.x, v.init_pose.y, v.init_pose.yaw) for v in spec.vehicles]
    np.testing.assert_allclose(fresh.pose, expected, atol=1e-6)


def test_bad_edits_are_refused_and_change_nothing():
    sim = Simulation(load_world(WORLDS / "demo_2robots.world.xml"))
    catalog = sim.spec.catalog
    pose = sim.body_pose.copy()
    with pytest.raises(ValueError, match="'r1' already exists"):
        with_entity(sim, catalog.from_class("demo_diff_robot", "r1", 10.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="'box1' already exists"):
        with_entity(sim, catalog.from_class("demo_diff_robot", "box1", 10.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="VehicleSpec or BlockSpec"):
        with_entity(sim, "r3")
    with pytest.raises(ValueError, match="no vehicle with index 2"):
        without_entity(sim, "vehicle", 2)
    with pytest.raises(ValueError, match="kind must be one of"):
        without_entity(sim, "actor", 0)
    sim.run(0.1)  # the refused edits left it whole
    assert sim.box2d.world.bodyCount == 1 + 2 + len(sim.spec.blocks)
    assert np.all(np.isfinite(sim.body_pose)) and math.isfinite(pose.sum())
