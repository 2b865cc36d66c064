"""The sensor cases of the benchmark: 2D lidar scans per second and the demo world's real-time factor with its
lidars, rendered sensors (camera frames, 3D lidar points per second), and the cost of one 2D scan on maps of rooms
of growing size (node.py's map worlds). Physics and sensors only, no ROS.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np

from mvsim_ros.bench.node import BenchRow, write_map_world
from mvsim_ros.bench.paths import DEMO_WORLD
from mvsim_ros.physics import Simulation

#: Map sides [cells] of the scan-cost case.
SCAN_COST_CELLS = (50, 200, 800)
#: Rays of the scan-cost case's lidar (181 over 180 deg, 70 m).
SCAN_COST_RAYS = 181


def measure_sensors(wall_seconds: float) -> tuple[float, float]:
    """(2D lidar scans per second with 360 rays in the demo world, demo world real-time factor with its
    lidars scanning at their own period) — physics and sensors only, no ROS."""
    from mvsim_ros.sensors.lidar2d import Lidar2D
    from mvsim_ros.sensors.suite import build_sensors
    from mvsim_ros.world import load_world, with_sensor_params

    world = load_world(DEMO_WORLD)
    sim = Simulation(world)
    spec = with_sensor_params(world.vehicles[0].sensors[0], {"nrays": "360", "fov_degrees": "359"})
    lidar = Lidar2D(spec, 0, world, np.random.default_rng(0))
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < wall_seconds:
        lidar.scan(sim.box2d.world, sim.pose[lidar.vehicle])
        count += 1
    scans_per_s = count / (time.perf_counter() - start)

    sim = Simulation(world)
    lidars = build_sensors(world).lidars
    for i in range(len(world.vehicles)):
        sim.set_twist(i, 0.5, 0.3)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < wall_seconds:
        sim.step()
        for lidar in lidars:
            if lidar.due(sim.time):
                lidar.scan(sim.box2d.world, sim.pose[lidar.vehicle])
        steps += 1
    return scans_per_s, steps * sim.dt / (time.perf_counter() - start)


def measure_rendered_sensors(wall_seconds: float) -> tuple[float, float]:
    """(640x480 RGB frames per second, VLP-16 points per second) rendered in the demo world's scene."""
    from mvsim_ros.sensors.scene import Scene
    from mvsim_ros.sensors.suite import build_sensors
    from mvsim_ros.world import load_world_string

    text = DEMO_WORLD.read_text().replace(
        '<vehicle name="r1" class="demo_diff_robot">',
        '<vehicle name="r1" class="demo_diff_robot">'
        '<sensor class="camera" name="cam"><pose_3d>0.3 0 0.5 -90 0 -90</pose_3d><ncols>640</ncols>'
        '<nrows>480</nrows><cx>320</cx><cy>240</cy><fx>400</fx><fy>400</fy><clip_max>50</clip_max></sensor>'
        '<sensor class="lidar3d" name="vlp"><pose_3d>0 0 0.6 0 0 0</pose_3d><model>VLP-16</model>'
        '<horz_nrays>1800</horz_nrays></sensor>')
    world = load_world_string(text, file=str(DEMO_WORLD))
    sim = Simulation(world)
    sensors = build_sensors(world)
    scene = Scene(world)
    scene.update(sim)
    camera, lidar = sensors.cameras[0], sensors.lidars3d[0]
    rates = []
    for work in (lambda: camera.capture(scene, sim.pose[0]), lambda: lidar.scan(scene, sim.pose[0])):
        count, start = 0, time.perf_counter()
        while time.perf_counter() - start < wall_seconds:
            work()
            count += 1
        rates.append(count / (time.perf_counter() - start))
    return rates[0], rates[1] * lidar.rings * lidar.columns


def measure_scan_cost(cells: int, wall_seconds: float) -> tuple[int, float]:
    """(wall fixtures, wall time of one scan [s]) of the 181-ray 70 m lidar of the map row with `cells` x
    `cells` cells (node.room_map, 0.1 m cells), cast from the map's centre without noise (the ray cast alone:
    Lidar2D's cast through the shim, or pybox2d's ray casts without it)."""
    from mvsim_ros.sensors.suite import build_sensors
    from mvsim_ros.world import load_world

    with tempfile.TemporaryDirectory() as folder:
        world = load_world(write_map_world(BenchRow(1, "differential", True, map_cells=cells), Path(folder)))
    sim = Simulation(world)
    lidar = build_sensors(world).lidars[0]
    bearings = lidar.params.angles + 0.1  # off the map's axes
    box2d_world, origin = sim.box2d.world, (0.05, 0.05)
    lidar.ray_cast(box2d_world, origin, bearings)  # builds the shim's index of the walls
    scans, start = 0, time.perf_counter()
    while time.perf_counter() - start < wall_seconds:
        for _ in range(20):
            lidar.ray_cast(box2d_world, origin, bearings)
        scans += 20
    return len(sim.box2d.ground.fixtures), (time.perf_counter() - start) / scans


#: Pieces each wall of the scan-cost yard is cut into (all four walls together: 4, 40, 400 pieces).
YARD_PIECES = (4, 40, 400)
#: Half side [m] and wall thickness [m] of the scan-cost yard.
YARD_HALF, YARD_WALL = 30.0, 0.5


def yard_world_xml(pieces: int, as_blocks: bool) -> str:
    """A 60 m x 60 m yard walled in `pieces` pieces (a quarter on each side, end to end), with one robot carrying the
    scan-cost lidar (SCAN_COST_RAYS rays, 180 deg, 70 m): the pieces are `<walls>` segments of the ground body, or
    static `<block>`s when `as_blocks`. Either way the same wall outlines."""
    half, wall, per = YARD_HALF, YARD_WALL, max(1, pieces // 4)
    middle = half + wall / 2
    segments = []  # (x0, y0, x1, y1) [m]: each piece's centre line
    for k in range(per):
        a, b = -half + 2 * half * k / per, -half + 2 * half * (k + 1) / per
        segments += [(a, middle, b, middle), (a, -middle, b, -middle), (middle, a, middle, b), (-middle, a, -middle, b)]
    if as_blocks:
        walls = ""
        for i, (x0, y0, x1, y1) in enumerate(segments):
            dx, dy = (0.0, wall / 2) if y0 == y1 else (wall / 2, 0.0)
            corners = ((x0 - dx, y0 - dy), (x1 - dx, y1 - dy), (x1 + dx, y1 + dy), (x0 + dx, y0 + dy))
            points = "".join(f"<pt>{x:g} {y:g}</pt>" for x, y in corners)
            walls += (f'<block name="wall{i}"><static>true</static><zmin>0</zmin><zmax>1.5</zmax>'
                      f"<init_pose>0 0 0</init_pose><shape>{points}</shape></block>")
    else:
        points = "".join(f"<pt>{x0:g} {y0:g}</pt><pt>{x1:g} {y1:g}</pt>" for x0, y0, x1, y1 in segments)
        walls = f"<walls><wallThickness>{wall:g}</wallThickness><shape>{points}</shape></walls>"
    lidar = ('<sensor class="laser" name="laser1"><pose_3d>0.1 0 0.3 0 0 0</pose_3d><fov_degrees>180</fov_degrees>'
             f"<nrays>{SCAN_COST_RAYS}</nrays><range_max>70</range_max></sensor>")
    from mvsim_ros.bench.vehicles import ROBOT_CLASS

    return (f'<mvsim_world version="1.0">{walls}{ROBOT_CLASS}<vehicle name="r1" class="bench_robot"><init_pose>'
            f"0 0 0</init_pose>{lidar}</vehicle></mvsim_world>")


def measure_yard_scan_cost(pieces: int, as_blocks: bool, wall_seconds: float) -> float:
    """Wall time [s] of one scan of the yard_world_xml lidar, cast without noise from 64 places and headings spread
    over the yard (the ray cast alone, through the shim when it is built)."""
    from mvsim_ros.sensors.suite import build_sensors
    from mvsim_ros.world import load_world_string

    world = load_world_string(yard_world_xml(pieces, as_blocks))
    sim = Simulation(world)
    lidar = build_sensors(world).lidars[0]
    rng = np.random.default_rng(0)
    origins = [tuple(p) for p in rng.uniform(-0.8 * YARD_HALF, 0.8 * YARD_HALF, (64, 2)).tolist()]
    bearings = [heading + lidar.params.angles for heading in rng.uniform(-np.pi, np.pi, 64)]
    box2d_world = sim.box2d.world
    lidar.ray_cast(box2d_world, origins[0], bearings[0])  # builds the shim's index
    scans, start = 0, time.perf_counter()
    while time.perf_counter() - start < wall_seconds:
        for origin, beams in zip(origins, bearings):
            lidar.ray_cast(box2d_world, origin, beams)
        scans += len(origins)
    return (time.perf_counter() - start) / scans


def sensors_report(seconds: float, repeat: int, out=print) -> None:
    """Print (through `out`) the sensor figures, best of `repeat` runs of `seconds` each."""
    scans, rtf = max(measure_sensors(seconds) for _ in range(repeat))
    out(f"2D lidar, 360 rays, demo world: {scans:.0f} scans/s")
    out(f"demo world (2 robots, a 541-ray lidar each at 10 Hz), no ROS: {rtf:.1f}x real time")
    frames, points = max(measure_rendered_sensors(seconds) for _ in range(repeat))
    from mvsim_ros.sensors.gl_context import gl_renderer, is_software

    renderer = gl_renderer()
    out(f"OpenGL renderer: {renderer} ({'software' if is_software(renderer) else 'hardware'})")
    out(f"640x480 RGB camera, demo world (OpenGL): {frames:.0f} frames/s")
    out(f"VLP-16 (16 x 1800 beams), demo world (OpenGL): {points / 1e6:.2f} M points/s")


def scan_cost_table(seconds: float, repeat: int, out=print) -> None:
    """Print (through `out`) the cost of one scan on each map of SCAN_COST_CELLS, best of `repeat` runs of
    `seconds` each, then yard_scan_cost_table's."""
    out(f"one 2D lidar scan ({SCAN_COST_RAYS} rays over 180 deg, 70 m) from the centre of a map of rooms (0.1 m "
        f"cells, bench.node.room_map), best of {repeat} runs of {seconds:g} s")
    out(f"\n{'cells':>10} {'map [m]':>9} {'wall fixtures':>14} {'us / scan':>10} {'us / beam':>10}")
    for cells in SCAN_COST_CELLS:
        runs = [measure_scan_cost(cells, seconds) for _ in range(repeat)]
        fixtures, scan_s = runs[0][0], min(r[1] for r in runs)
        out(f"{f'{cells}^2':>10} {cells * 0.1:>9g} {fixtures:>14} {scan_s * 1e6:>10.1f} "
            f"{scan_s * 1e6 / SCAN_COST_RAYS:>10.2f}")
    yard_scan_cost_table(seconds, repeat, out)


def yard_scan_cost_table(seconds: float, repeat: int, out=print) -> dict[tuple[int, bool], float]:
    """Print (through `out`) and return the wall time [s] of one scan in the yard of yard_world_xml per (pieces,
    as_blocks): its walls on the ground body, whole (4 pieces: the ground-body row every row is compared with) or cut
    into YARD_PIECES, and as that many static blocks. Best of `repeat` runs of `seconds`, the layouts taking turns
    run by run so that the machine's noise falls on all alike."""
    cases = [(pieces, as_blocks) for as_blocks in (False, True) for pieces in YARD_PIECES]
    runs: dict[tuple[int, bool], list[float]] = {case: [] for case in cases}
    for _ in range(repeat):
        for case in cases:
            runs[case].append(measure_yard_scan_cost(*case, seconds))
    best = {case: min(times) for case, times in runs.items()}
    out(f"\nthe same scan in a {2 * YARD_HALF:g} m x {2 * YARD_HALF:g} m room, its walls cut into pieces on the "
        f"ground body (<walls>) or as static <block>s; from 64 places, best of {repeat}")
    out(f"{'walls':<26} {'us / scan':>10} {'/ ground body':>14} {'/ ground, same pieces':>22}")
    ground = best[(YARD_PIECES[0], False)]
    for pieces, as_blocks in cases:
        name = f"{pieces} static blocks" if as_blocks else f"ground body, {pieces} pieces"
        cost = best[(pieces, as_blocks)]
        out(f"{name:<26} {cost * 1e6:>10.1f} {cost / ground:>14.2f} {cost / best[(pieces, False)]:>22.2f}")
    return best


__all__ = ["SCAN_COST_CELLS", "SCAN_COST_RAYS", "YARD_PIECES", "measure_rendered_sensors", "measure_scan_cost",
           "measure_sensors", "measure_yard_scan_cost", "scan_cost_table", "sensors_report", "yard_scan_cost_table",
           "yard_world_xml"]
