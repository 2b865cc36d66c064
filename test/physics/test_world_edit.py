"""Spawning and deleting entities in a running simulation (physics/world_edit.py): the rest of the world continues
exactly as if nothing happened, the new entity behaves as a loaded one, and a reset is a rebuild."""

import math

import numpy as np
import pytest

from conftest import REPO
from mvsim_ros.physics import Simulation
from mvsim_ros.physics.world_edit import with_entity, without_entities, without_entity
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


def touching_blocks(sim: Simulation, first: int, count: int = 5, x0: float = 3.0, y: float = -2.0) -> Simulation:
    """`count` 0.8 m boxes of the demo world's class in a row along x, each face to face with the next."""
    catalog = sim.spec.catalog
    for k in range(count):
        sim = with_entity(sim, catalog.from_class("box_small", f"t{first + k}", x0 + 0.8 * k, y, 0.0))
    return sim


def block_index(sim: Simulation, name: str) -> int:
    return [b.name for b in sim.spec.blocks].index(name)


def test_removing_touching_blocks_ends_their_contacts_and_keeps_the_counts_right():
    sim = Simulation(load_world(WORLDS / "demo_2robots.world.xml"))
    sim = touching_blocks(sim, 0, 3, x0=0.35, y=-0.4)  # boxes span [x0, x0 + 0.8]: 5 cm ahead of r1's nose
    sim.set_twist(sim.vehicle_index("r1"), 0.3, 0.0)  # r1 drives into the row and presses it
    sim.run(0.5)
    assert sim.box2d.world.contactCount > 0
    assert sim.collision_now[sim.vehicle_index("r1")], "r1 must touch the first box"
    sim = without_entity(sim, "block", block_index(sim, "t1"))  # the middle one, touching two others
    sim = without_entity(sim, "block", block_index(sim, "t0"))  # the one r1 touches
    assert not sim.collision_now[sim.vehicle_index("r1")], "r1 touches nothing once the box is gone"
    sim.run(0.1)
    assert not sim.collision_now.any()
    assert np.all(np.isfinite(sim.body_pose))


def test_removing_many_entities_at_once_equals_removing_them_one_by_one():
    def base() -> Simulation:
        sim = touching_blocks(Simulation(load_world(WORLDS / "demo_2robots.world.xml")), 0)
        sim.set_twist(0, 0.5, 0.2)
        sim.run(0.2)
        return sim

    one_by_one = base()
    for name in ("t1", "t3", "box2"):
        one_by_one = without_entity(one_by_one, "block", block_index(one_by_one, name))
    one_by_one = without_entity(one_by_one, "vehicle", one_by_one.vehicle_index("r2"))
    at_once = base()
    at_once = without_entities(at_once, [("block", block_index(at_once, n)) for n in ("t3", "box2", "t1")]
                               + [("vehicle", at_once.vehicle_index("r2"))])
    assert [b.name for b in at_once.spec.blocks] == [b.name for b in one_by_one.spec.blocks]
    assert at_once.vehicle_names == one_by_one.vehicle_names == ["r1"]
    for sim in (at_once, one_by_one):
        sim.set_twist(0, 0.5, 0.2)
        sim.run(0.5)
    np.testing.assert_array_equal(at_once.body_pose, one_by_one.body_pose)
    np.testing.assert_array_equal(at_once.block_poses(), one_by_one.block_poses())
    with pytest.raises(ValueError, match="no block with index 99"):
        without_entities(at_once, [("block", 0), ("block", 99)])


EDIT_ROUNDS_SCRIPT = """
import sys
from mvsim_ros.physics import Simulation
from mvsim_ros.physics.world_edit import with_entity, without_entities, without_entity
from mvsim_ros.world import load_world

sim = Simulation(load_world(sys.argv[1]))
catalog = sim.spec.catalog
for round_ in range(100):
    names = [f"t{round_}_{k}" for k in range(5)]
    for k, name in enumerate(names):
        sim = with_entity(sim, catalog.from_class("box_small", name, 3.0 + 0.75 * k, -2.0, 0.0))  # 5 cm overlaps
    sim.set_twist(0, 0.3, 0.0)
    sim.run(0.1)  # they push each other apart: every neighbour pair is a touching contact
    blocks = [b.name for b in sim.spec.blocks]
    if round_ % 2:
        sim = without_entities(sim, [("block", blocks.index(n)) for n in names])
    else:
        for name in names:
            sim = without_entity(sim, "block", [b.name for b in sim.spec.blocks].index(name))
    assert sim.box2d.world.bodyCount == 1 + 2 + 3, sim.box2d.world.bodyCount
print("rounds done", sim.steps)
"""


def test_a_hundred_rounds_of_touching_blocks_spawned_and_removed_never_crash():
    """Box2D reports the end of a removed body's contacts while it is being destroyed: the contact listener must
    never see a released body tag (that crashed the process). Run in a child process, so a crash fails this
    test instead of the whole run."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", EDIT_ROUNDS_SCRIPT, str(WORLDS / "demo_2robots.world.xml")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    assert "rounds done" in done.stdout


def test_the_contact_listener_never_sees_the_tag_of_a_body_being_destroyed():
    """pybox2d releases a body's userData before Box2D reports the end of its contacts: destroy_body hides the
    tag first, so the listener sees None for the destroyed body and the other body's own tag."""
    import Box2D

    from mvsim_ros.physics.bodies import BodyTag, destroy_body

    class Recorder(Box2D.b2ContactListener):
        def __init__(self):
            super().__init__()
            self.ended: list[tuple] = []

        def EndContact(self, contact):  # noqa: N802 (Box2D API name)
            self.ended.append((contact.fixtureA.body.userData, contact.fixtureB.body.userData))

    world = Box2D.b2World(gravity=(0.0, 0.0))
    recorder = Recorder()
    world.contactListener = recorder
    bodies = []
    for k, x in enumerate((0.0, 0.95)):  # 1 m boxes overlapping by 5 cm
        body = world.CreateDynamicBody(position=(x, 0.0), userData=BodyTag("block", k))
        body.CreatePolygonFixture(box=(0.5, 0.5), density=1.0)
        bodies.append(body)
    world.Step(0.005, 8, 3)
    assert world.contactCount == 1 and next(iter(world.contacts)).touching
    doomed_tag, survivor_tag = bodies[0].userData, bodies[1].userData  # held here: compared, never released
    destroy_body(world, bodies[0])
    assert len(recorder.ended) == 1
    seen = set(map(id, recorder.ended[0]))
    assert id(doomed_tag) not in seen and id(None) in seen and id(survivor_tag) in seen
    assert world.bodyCount == 1 and world.contactCount == 0
