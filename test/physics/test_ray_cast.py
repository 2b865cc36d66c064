"""The shim's 2D ray scan (walls through its grid index, other bodies listed per scan) gives, beam for beam, the
ranges of pybox2d's b2World::RayCast with a closest-hit callback, with the same bodies hidden."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mvsim_ros.bench.node import BenchRow, pgm_bytes, room_map
from mvsim_ros.physics import Simulation, box2d_native
from mvsim_ros.sensors.suite import build_sensors
from mvsim_ros.world import load_world

pytestmark = pytest.mark.skipif(not box2d_native.AVAILABLE, reason="the Box2D shim is not built")

ROBOT = """
  <vehicle:class name="bot">
    <dynamics class="differential">
      <chassis mass="15.0"><shape><pt>-0.25 -0.22</pt><pt>0.25 -0.22</pt><pt>0.25 0.22</pt><pt>-0.25 0.22</pt>
      </shape></chassis>
      <l_wheel pos="0.0  0.25" mass="1.0" width="0.05" diameter="0.20"/>
      <r_wheel pos="0.0 -0.25" mass="1.0" width="0.05" diameter="0.20"/>
    </dynamics>
  </vehicle:class>
"""


def _world(tmp_path, cells: int, resolution: float = 0.1):
    """A room map of cells x cells, two <walls> across it, three robots (the first with a 361-ray 360 deg
    lidar of 30 m) and two blocks."""
    (tmp_path / "map.pgm").write_bytes(pgm_bytes(room_map(cells)))
    lidar = ('<sensor class="laser" name="scan"><pose_3d>0.1 0 0.3 0 0 0</pose_3d><fov_degrees>360</fov_degrees>'
             '<nrays>361</nrays><range_max>30</range_max><range_std_noise>0</range_std_noise>'
             '<angle_std_noise_deg>0</angle_std_noise_deg></sensor>')
    robots = "".join(f'<vehicle name="r{i + 1}" class="bot"><init_pose>{x} {y} {yaw}</init_pose>'
                     f'{lidar if i == 0 else ""}</vehicle>'
                     for i, (x, y, yaw) in enumerate(((0, 0, 0), (1.0, 0.4, 30), (-0.8, -0.6, 90))))
    blocks = "".join(f'<block><init_pose>{x} {y} 0</init_pose><mass>5</mass><zmin>0</zmin><zmax>1</zmax><shape>'
                     '<pt>-0.2 -0.2</pt><pt>0.2 -0.2</pt><pt>0.2 0.2</pt><pt>-0.2 0.2</pt></shape></block>'
                     for x, y in ((0.5, -1.0), (-1.0, 1.0)))
    xml = (f'<mvsim_world version="1.0"><element class="occupancy_grid"><file>map.pgm</file>'
           f"<resolution>{resolution}</resolution></element>"
           "<walls><wallThickness>0.1</wallThickness><shape><pt>-3 -2.5</pt><pt>4 3.5</pt><pt>-4 3</pt><pt>-4 -3</pt>"
           "</shape></walls>"
           f"{ROBOT}{robots}{blocks}</mvsim_world>")
    path = tmp_path / "ray.world.xml"
    path.write_text(xml, encoding="utf-8")
    world = load_world(path)
    return world, Simulation(world)


def _pybox2d_ranges(lidar, box2d_world, origin, bearings) -> np.ndarray:
    """The same beams through pybox2d's ray casts (the path taken without the shim)."""
    available = box2d_native.AVAILABLE
    box2d_native.AVAILABLE = False
    try:
        return lidar.ray_cast(box2d_world, origin, bearings)
    finally:
        box2d_native.AVAILABLE = available


@pytest.mark.parametrize("cells", [50, 200])
def test_scans_equal_pybox2d_closest_hits_from_random_poses(tmp_path, cells):
    world, sim = _world(tmp_path, cells)
    lidar = build_sensors(world, 1).lidars[0]
    rng = np.random.default_rng(cells)
    half = 0.5 * cells * 0.1
    returns = 0
    for trial in range(30):
        # Inside the map and out of it (the grid entered from outside), evenly spaced and jittered beams.
        spread = half + (3.0 if trial % 3 == 0 else -0.5)
        origin = (float(rng.uniform(-spread, spread)), float(rng.uniform(-spread, spread)))
        bearings = rng.uniform(-math.pi, math.pi) + lidar.params.angles
        if trial % 2:
            bearings = bearings + rng.normal(0.0, 0.01, bearings.size)
        for visible in (True, False):
            lidar.params.bodies_visible = visible
            shim = lidar.ray_cast(sim.box2d.world, origin, bearings)
            python = _pybox2d_ranges(lidar, sim.box2d.world, origin, bearings)
            assert shim.tobytes() == python.tobytes()
            returns += int(np.isfinite(shim).sum())
    assert returns > 1000


def test_axis_aligned_beams_along_and_between_grid_walls(tmp_path):
    """Beams exactly along the axes (a direction component of zero) and along cell edges."""
    world, sim = _world(tmp_path, 200)
    lidar = build_sensors(world, 1).lidars[0]
    bearings = np.array([0.0, 0.5 * math.pi, math.pi, -0.5 * math.pi, 0.25 * math.pi])
    for origin in ((0.05, 0.05), (0.0, 0.0), (3.6, 0.0), (-12.0, 0.3), (0.2, 3.65)):
        shim = lidar.ray_cast(sim.box2d.world, origin, bearings)
        assert shim.tobytes() == _pybox2d_ranges(lidar, sim.box2d.world, origin, bearings).tobytes()


def test_the_carrying_vehicle_is_never_seen_and_others_only_with_bodies_visible(tmp_path):
    world, sim = _world(tmp_path, 50)
    lidar = build_sensors(world, 1).lidars[0]
    # r2 at (1.0, 0.4): a beam from r1's lidar towards it; r1 itself surrounds the origin.
    origin = (0.1, 0.0)
    bearing = math.atan2(0.4 - 0.0, 1.0 - 0.1)
    lidar.params.bodies_visible = True
    seen = lidar.ray_cast(sim.box2d.world, origin, np.array([bearing]))[0]
    lidar.params.bodies_visible = False
    unseen = lidar.ray_cast(sim.box2d.world, origin, np.array([bearing]))[0]
    assert seen < 1.0  # r2's chassis, about 0.7 m away
    assert unseen > seen  # through r2 to the next wall
    assert unseen > 1.0


def test_one_static_index_per_world_shared_by_its_lidars(tmp_path):
    world, sim = _world(tmp_path, 50)
    a, b = build_sensors(world, 1).lidars[0], build_sensors(world, 2).lidars[0]
    address = a.static_index_address(sim.box2d.world)
    assert address != 0
    assert b.static_index_address(sim.box2d.world) == address


def test_large_map_row_world_is_what_the_generator_writes(tmp_path):
    from mvsim_ros.bench.node import MAP_ROWS, map_world_xml

    for row in MAP_ROWS:
        assert row.world_file.read_text(encoding="utf-8") == map_world_xml(row)
        assert (row.world_file.parent / f"{row.name}.pgm").read_bytes() == pgm_bytes(room_map(row.map_cells))
        world = load_world(row.world_file)
        grid = world.occupancy_grids[0]
        assert grid.occupied.shape == (row.map_cells, row.map_cells)
        assert [s.name for s in world.vehicles[0].sensors] == ["laser1", "laser2"]
        assert isinstance(row, BenchRow)


_SCAN_SCRIPT = """
import sys
import numpy as np
from mvsim_ros.physics import Simulation
from mvsim_ros.sensors.suite import build_sensors
from mvsim_ros.world import load_world
world = load_world(sys.argv[1])
sim = Simulation(world)
lidar = build_sensors(world, 1).lidars[0]
rng = np.random.default_rng(3)
scans = [lidar.ray_cast(sim.box2d.world, (float(rng.uniform(-9, 9)), float(rng.uniform(-9, 9))),
                     rng.uniform(-np.pi, np.pi) + lidar.params.angles + rng.normal(0.0, 0.01, lidar.params.rays))
         for _ in range(200)]
sys.stdout.buffer.write(np.concatenate(scans).tobytes())
"""


def test_scans_walked_by_two_threads_equal_scans_walked_by_one(tmp_path):
    """A costly scan's walls are walked by two threads where the machine has two cores (MVSIM_SCAN_THREADS=2: every
    scan, =1: none); each beam is cast alike either way, so the ranges are the same bytes."""
    import os
    import subprocess
    import sys

    _world(tmp_path, 200)
    runs = {}
    for threads in ("1", "2"):  # never split, always split
        env = {**os.environ, "MVSIM_SCAN_THREADS": threads}
        run = subprocess.run([sys.executable, "-c", _SCAN_SCRIPT, str(tmp_path / "ray.world.xml")], env=env,
                             capture_output=True, timeout=300)
        assert run.returncode == 0, run.stderr.decode()
        runs[threads] = np.frombuffer(run.stdout, dtype=float)
    assert runs["1"].size == 200 * 361 and np.isfinite(runs["1"]).sum() > 10_000
    assert runs["1"].tobytes() == runs["2"].tobytes()
