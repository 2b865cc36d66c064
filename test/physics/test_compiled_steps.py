"""`Simulation.step_many(n)` against n x `step()`: bit-identical states on every example world; the Box2D shim
against pybox2d's own Python API (body reads, forces, lidar rays): the same numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import REPO
from mvsim_ros.physics import Simulation, box2d_native
from mvsim_ros.physics.simulation import PHI_WRAP_CHECK_STEPS, SimulationDiverged
from mvsim_ros.sensors.suite import build_sensors, host_pose3
from mvsim_ros.world import load_world

#: Every example world, and the red-team world with every vehicle kind and two friction models.
EXAMPLE_WORLDS = sorted(p.relative_to(REPO).as_posix() for p in
                        [*REPO.glob("worlds/*.world.xml"), *REPO.glob("worlds/bench/*.world.xml"),
                         REPO / "test" / "redteam" / "worlds" / "every_kind.world.xml"])

pytestmark = pytest.mark.skipif(not box2d_native.AVAILABLE, reason=box2d_native.UNAVAILABLE_REASON)


def state(sim: Simulation) -> list[np.ndarray]:
    """Everything a step changes, as arrays to compare bit for bit."""
    w, c = sim.wheels, sim.controllers
    return [sim.body_pose, sim.body_velocity, sim.acceleration, sim.odom_pose, sim.odom_twist, w.omega, w.phi,
            w.torque, w.force_x, w.force_y, c.i_term, c.d_state, c.last_error, c.ref_y1, c.ref_y2, sim.steering.delta,
            sim.block_poses(),
            sim.commands.v, sim.commands.omega, np.array([sim.time, sim.steps])]


def assert_same(a: Simulation, b: Simulation) -> None:
    for x, y in zip(state(a), state(b)):
        assert x.dtype == y.dtype and x.shape == y.shape
        assert x.tobytes() == y.tobytes(), (x, y)


def command_all(sim: Simulation) -> None:
    """A different turning command for every vehicle (Ackermann ones steer)."""
    for k in range(len(sim.vehicle_names)):
        sim.set_twist(k, 0.6 + 0.1 * k, 0.4 - 0.07 * k)


@pytest.mark.parametrize("world_file", EXAMPLE_WORLDS)
def test_step_many_equals_repeated_step_on_every_example_world(world_file):
    world = load_world(REPO / world_file)
    one, many = Simulation(world), Simulation(world)
    for sim in (one, many):
        command_all(sim)
    for _ in range(240):
        one.step()
    many.step_many(240)
    assert_same(one, many)
    assert many.steps == 240 and many.time == 240 * many.dt


def test_compiled_steps_cover_the_benchmark_and_flat_demo_worlds():
    for name in ("bench/differential_50", "bench/ackermann_10", "bench/differential_10_lidar", "demo_2robots",
                 "car_trailer", "gridmap_yard", "seed002_car"):
        sim = Simulation(load_world(REPO / "worlds" / f"{name}.world.xml"))
        assert sim.compiled_steps_unavailable == "", name
    terrain = Simulation(load_world(REPO / "worlds" / "elevation_car.world.xml"))
    assert "terrain" in terrain.compiled_steps_unavailable


def test_uneven_batches_the_watchdog_and_the_spin_angle_wrap_match_single_steps():
    """Batches of odd sizes across the watchdog's stop (0.3 s after the last command) and the wheel-angle wrap
    every PHI_WRAP_CHECK_STEPS steps."""
    world = load_world(REPO / "worlds" / "bench" / "ackermann_10.world.xml")
    one, many = Simulation(world, command_timeout=0.3), Simulation(world, command_timeout=0.3)
    for sim in (one, many):
        command_all(sim)
    total = PHI_WRAP_CHECK_STEPS + 37
    for _ in range(total):
        one.step()
    for size in (1, 7, 0, 59, 250, 3, total - 320):
        many.step_many(size)
    assert many.steps == total
    assert_same(one, many)
    assert np.all(many.commands.v == 0.0)  # the watchdog stopped them
    assert np.all(np.abs(many.wheels.phi) <= math.pi)


def test_commands_between_batches_and_mixed_calls_match():
    world = load_world(REPO / "worlds" / "demo_2robots.world.xml")
    one, many = Simulation(world), Simulation(world)
    for k, (v, w) in enumerate([(0.5, 0.0), (1.0, -0.5), (-0.3, 0.8)]):
        for _ in range(50):
            one.step()
        many.step_many(25)
        many.step()
        many.step_many(24)
        for sim in (one, many):
            sim.set_twist(k % 2, v, w)
            sim.set_vehicle_state(1 - k % 2, 1.0 + k, -1.0, 0.3 * k, 0.2, 0.0, 0.1)
    one.step()
    many.step_many(1)
    assert_same(one, many)


def test_step_many_stops_at_the_step_that_diverged():
    world = load_world(REPO / "worlds" / "bench" / "differential_10.world.xml")
    one, many = Simulation(world), Simulation(world)
    for sim in (one, many):
        sim.step_many(10)
        sim.wheels.omega[3] = math.nan
    with pytest.raises(SimulationDiverged, match="step 11"):
        one.step()
    with pytest.raises(SimulationDiverged, match="step 11"):
        many.step_many(50)
    assert many.steps == one.steps == 11


def test_step_many_rejects_a_negative_count():
    sim = Simulation(load_world(REPO / "worlds" / "bench" / "differential_1.world.xml"))
    with pytest.raises(ValueError, match=">= 0"):
        sim.step_many(-1)


@pytest.mark.parametrize("world_file", ["worlds/demo_2robots.world.xml", "worlds/car_trailer.world.xml",
                                        "worlds/moving_things.world.xml"])
def test_shim_body_io_equals_pybox2d_python_api(world_file, monkeypatch):
    """step() with the shim reading and pushing the bodies, and with pybox2d's per-body Python calls."""
    world = load_world(REPO / world_file)
    shim = Simulation(world)
    python = Simulation(world, box2d_shim=False)  # the pybox2d path
    for sim in (shim, python):
        command_all(sim)
        for _ in range(200):
            sim.step()
    assert_same(shim, python)


@pytest.mark.parametrize("world_file", ["worlds/demo_2robots.world.xml", "worlds/warehouse.world.xml",
                                        "worlds/bench/differential_10_lidar.world.xml"])
def test_compiled_ray_scan_equals_pybox2d_ray_casts(world_file, monkeypatch):
    world = load_world(REPO / world_file)
    sim = Simulation(world)
    command_all(sim)
    sim.step_many(100)
    lidars = build_sensors(world, 1).lidars
    assert lidars
    returns = 0
    for lidar in lidars:
        lidar.params.range_noise = lidar.params.angle_noise = 0.0
        for visible in (True, False):
            lidar.params.bodies_visible = visible
            compiled = lidar.scan(sim.box2d.world, host_pose3(sim, lidar.vehicle)).copy()
            with monkeypatch.context() as m:
                m.setattr(box2d_native, "AVAILABLE", False)
                python = lidar.scan(sim.box2d.world, host_pose3(sim, lidar.vehicle)).copy()
            assert compiled.tobytes() == python.tobytes()
            returns += int(np.isfinite(compiled).sum())
    assert returns > 0


@pytest.mark.parametrize("world_file", ["worlds/gridmap_yard.world.xml", "worlds/office_yaml_map.world.xml",
                                        "worlds/moving_things.world.xml", "worlds/car_trailer.world.xml",
                                        "worlds/articulated.world.xml"])
def test_compiled_ray_scan_equals_pybox2d_from_many_poses(world_file, monkeypatch):
    """Scans from 25 random poses (walls of occupancy grids, blocks, vehicles, trailers; inside boxes and out),
    by a lidar of the world or, where it has none, one added on its first vehicle."""
    text = (REPO / world_file).read_text()
    if "class=\"laser\"" not in text:
        text = text.replace("</vehicle>", '<sensor class="laser" name="added"><pose_3d>0 0 0.3 0 0 0</pose_3d>'
                            '<nrays>361</nrays><fov_degrees>360</fov_degrees></sensor></vehicle>', 1)
    path = REPO / world_file
    world = load_world(path) if "added" not in text else _world_from_text(text, path)
    sim = Simulation(world)
    lidars = build_sensors(world, 1).lidars
    assert lidars
    rng = np.random.default_rng(11)
    lo, hi = sim.body_pose[:, :2].min(axis=0) - 8.0, sim.body_pose[:, :2].max(axis=0) + 8.0
    returns = 0
    for lidar in lidars:
        lidar.params.range_noise = lidar.params.angle_noise = 0.0
        for _ in range(25):
            pose = np.array([rng.uniform(lo[0], hi[0]), rng.uniform(lo[1], hi[1]), 0.0,
                             rng.uniform(-math.pi, math.pi), 0.0, 0.0])
            compiled = lidar.scan(sim.box2d.world, pose).copy()
            with monkeypatch.context() as m:
                m.setattr(box2d_native, "AVAILABLE", False)
                python = lidar.scan(sim.box2d.world, pose).copy()
            assert compiled.tobytes() == python.tobytes()
            returns += int(np.isfinite(compiled).sum())
            # Unevenly spaced beams (angle noise) take the shim's other path.
            bearings = pose[3] + lidar.params.angles + rng.normal(0.0, 0.01, lidar.params.rays)
            origin = (float(pose[0]), float(pose[1]))
            compiled = lidar.ray_cast(sim.box2d.world, origin, bearings)
            with monkeypatch.context() as m:
                m.setattr(box2d_native, "AVAILABLE", False)
                python = lidar.ray_cast(sim.box2d.world, origin, bearings)
            assert compiled.tobytes() == python.tobytes()
    assert returns > 0


def _world_from_text(text: str, path):
    """A world file's text, loaded as if it were at `path` (relative includes and maps resolve)."""
    copy = path.with_name(f".{path.stem}.with_lidar.xml")
    copy.write_text(text)
    try:
        return load_world(copy)
    finally:
        copy.unlink()
