"""The node benchmark's rows and their worlds (`worlds/bench/`).

The speed bar's rows (NAMED_WORLDS): byte copies of the reference worlds (diff_1/10/50, ack_1/10/50,
noisy_lidar_1/10), then MVSim's demo_1robot and demo_many_robots from a checkout of MRPT/mvsim (MVSIM_WORLDS), each
beside MVSim 1.2's real-time factor (MVSIM_RTF). The project's own rows (written by `write_worlds`; a test checks
they match this module): 1 / 10 / 50 differential robots, 1 / 10 / 50 Ackermann cars, 1 / 10 differential
robots with a 181-ray 2D lidar at 20 Hz; dt = 5 ms; the vehicles drive straight ahead in parallel lanes. The map
row: one robot with two 70 m lidars driving a circle on a 400 x 400-cell occupancy grid of rooms. The rendered row:
one robot with a 640 x 480 camera and a VLP-16 3D lidar (16 x 1800 beams), both at 10 Hz, among boxes. The cases that
run them: node_rtf.py (the node's real-time factor) and sensors.py (the cost of one scan on such maps).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mvsim_ros.bench.paths import WORLDS
from mvsim_ros.bench.vehicles import CAR_CLASS, ROBOT_CLASS

#: The folder of the benchmark worlds in the repository.
WORLDS_DIR = WORLDS / "bench"
#: Forward speed commanded to every vehicle [m/s] (no turn).
SPEED = {"differential": 0.5, "ackermann": 2.0}
#: Lane spacing [m].
LANE = {"differential": 2.0, "ackermann": 5.0}
#: A 181-ray, 180 deg 2D lidar at 20 Hz on each robot of the lidar rows.
LIDAR = ('<sensor class="laser" name="laser1"><pose_3d>0.1 0 0.3 0 0 0</pose_3d><fov_degrees>180</fov_degrees>'
         '<nrays>181</nrays><range_max>20</range_max><sensor_period>0.05</sensor_period></sensor>')


#: Two 181-ray 70 m 2D lidars at 20 Hz (front and back, as on MVSim's demo_1robot car) on the large-map row's robot.
LONG_LIDARS = "".join(
    f'<sensor class="laser" name="laser{i + 1}"><pose_3d>{x:g} 0 0.3 {yaw:g} 0 0</pose_3d><fov_degrees>180'
    f'</fov_degrees><nrays>181</nrays><range_max>70</range_max><sensor_period>0.05</sensor_period></sensor>'
    for i, (x, yaw) in enumerate(((0.1, 0.0), (-0.1, 180.0))))
#: The rendered row's sensors: a 640 x 480 RGB camera and a VLP-16 (16 x 1800 beams), both at 10 Hz.
RENDERED_SENSORS = (
    '<sensor class="camera" name="cam"><pose_3d>0.3 0 0.5 -90 0 -90</pose_3d><ncols>640</ncols><nrows>480</nrows>'
    '<cx>320</cx><cy>240</cy><fx>400</fx><fy>400</fy><clip_max>50</clip_max><sensor_period>0.1</sensor_period>'
    '</sensor><sensor class="lidar3d" name="vlp"><pose_3d>0 0 0.6 0 0 0</pose_3d><model>VLP-16</model>'
    '<horz_nrays>1800</horz_nrays><sensor_period>0.1</sensor_period></sensor>')
#: Boxes around the rendered row's robot (x, y [m]), so that its camera and 3D lidar see something.
RENDERED_BOXES = ((6.0, -2.0), (6.0, 2.0), (12.0, 0.0), (-4.0, 3.0), (3.0, -6.0), (3.0, 6.0))
#: Occupancy-grid cell side of the generated maps [m].
MAP_RESOLUTION = 0.1
#: Room side of the generated maps [cells], walls 2 cells thick with a 10-cell doorway in each.
MAP_ROOM = 36


@dataclass(frozen=True)
class BenchRow:
    """One row of the node benchmark: `robots` vehicles of `kind`, with a 2D lidar each when `lidar`; with
    `map_cells` > 0, one robot with two 70 m lidars on an occupancy grid of map_cells x map_cells rooms, driving a
    circle at `turn_radps` [rad/s]; `rendered`: one robot with RENDERED_SENSORS among RENDERED_BOXES; `world` set:
    that world file as it is (its first `robots` vehicles commanded); `commanded` False: no vehicle is commanded,
    each drives on its world file's own setpoints (the speed bar's worlds, run as MVSim runs them)."""

    robots: int
    kind: str
    lidar: bool = False
    map_cells: int = 0
    turn_radps: float = 0.0
    world: Path | None = None
    rendered: bool = False
    commanded: bool = True

    @property
    def name(self) -> str:
        if self.world is not None:
            return self.world.name.removesuffix(".world.xml")
        if self.map_cells:
            return f"{self.kind}_{self.robots}_map{self.map_cells}"
        if self.rendered:
            return f"{self.kind}_{self.robots}_camera_lidar3d"
        return f"{self.kind}_{self.robots}{'_lidar' if self.lidar else ''}"

    @property
    def world_file(self) -> Path:
        return self.world if self.world is not None else WORLDS_DIR / f"{self.name}.world.xml"

    def vehicle_prefixes(self) -> list[str]:
        """The topic prefixes of the commanded vehicles ('' for a lone vehicle, else '<name>/')."""
        if self.world is None:
            return [""] if self.robots == 1 else [f"r{i + 1}/" for i in range(self.robots)]
        from mvsim_ros.world import load_world

        names = [v.name for v in load_world(self.world).vehicles]
        return [""] if len(names) == 1 else [f"{n}/" for n in names[:self.robots]]


ROWS = (BenchRow(1, "differential"), BenchRow(10, "differential"), BenchRow(50, "differential"),
        BenchRow(1, "ackermann"), BenchRow(10, "ackermann"), BenchRow(50, "ackermann"),
        BenchRow(1, "differential", True), BenchRow(10, "differential", True))
#: Rows on an occupancy-grid map (worlds/bench/<name>.world.xml and <name>.pgm): 400 x 400 cells of 0.1 m.
MAP_ROWS = (BenchRow(1, "differential", True, map_cells=400, turn_radps=1.0),)
#: Rows with rendered sensors (OpenGL: a GPU through EGL where there is one, else Mesa's software renderer).
RENDERED_ROWS = (BenchRow(1, "differential", rendered=True, turn_radps=0.3),)


def world_row(world_file: Path, vehicles: int | None = None) -> BenchRow:
    """A row running `world_file` as it is, commanding its first `vehicles` vehicles (all when None) forward at the
    speed of their kind (Ackermann's for steered vehicles)."""
    from mvsim_ros.world import load_world

    spec = load_world(world_file)
    count = len(spec.vehicles) if vehicles is None else min(vehicles, len(spec.vehicles))
    kind = "ackermann" if any("ackermann" in v.dynamics for v in spec.vehicles[:count]) else "differential"
    return BenchRow(count, kind, world=Path(world_file).resolve())


def room_map(cells: int, seed: int = 7) -> np.ndarray:
    """A cells x cells occupancy grid (True: occupied, row 0 at the top): a wall around it, rooms of MAP_ROOM cells
    with 2-cell walls and a doorway in each, 2 x 2-cell pillars on about 1 % of the free cells; the 3 m around the
    centre kept free (where the robot drives)."""
    grid = np.zeros((cells, cells), dtype=bool)
    index = np.arange(cells)
    wall = (index % MAP_ROOM < 2) | (index >= cells - 2)
    grid[wall, :] = True
    grid[:, wall] = True
    for start in range(0, cells, MAP_ROOM):  # a doorway in every wall segment
        door = slice(start + MAP_ROOM // 2 - 5, start + MAP_ROOM // 2 + 5)
        grid[door, 2:-2] &= ~wall[np.newaxis, 2:-2]
        grid[2:-2, door] &= ~wall[2:-2, np.newaxis]
    rng = np.random.default_rng(seed)
    for r, c in rng.integers(0, cells - 1, size=(cells * cells // 400, 2)):
        grid[r:r + 2, c:c + 2] = True
    clear = int(1.5 / MAP_RESOLUTION)
    middle = cells // 2
    grid[middle - clear:middle + clear, middle - clear:middle + clear] = False
    return grid


def pgm_bytes(occupied: np.ndarray) -> bytes:
    """A binary PGM image of the grid: occupied cells black, free white."""
    rows, cols = occupied.shape
    return f"P5\n{cols} {rows}\n255\n".encode() + np.where(occupied, 0, 255).astype(np.uint8).tobytes()


def map_world_xml(row: BenchRow, timestep: float = 0.005) -> str:
    """The world of a map row: its room map (`<name>.pgm` beside it, centred on the origin) and one robot at the
    origin with two 70 m lidars."""
    return (f"<!-- Generated by mvsim_ros.bench.node.write_worlds: one {row.kind} robot with two 181-ray 70 m "
            f"lidars at 20 Hz on a {row.map_cells} x {row.map_cells}-cell map of rooms, driving a circle. -->\n"
            f'<mvsim_world version="1.0">\n  <simul_timestep>{timestep}</simul_timestep>\n'
            f'  <element class="occupancy_grid"><file>{row.name}.pgm</file><resolution>{MAP_RESOLUTION:g}'
            f"</resolution></element>\n{ROBOT_CLASS if row.kind == 'differential' else CAR_CLASS}"
            f'  <vehicle name="r1" class="bench_robot"><init_pose>0 0 0</init_pose>{LONG_LIDARS}</vehicle>\n'
            f"</mvsim_world>\n")


def lanes_world_xml(row: BenchRow, timestep: float = 0.005) -> str:
    """The world of a row: its vehicles side by side in lanes along +x, facing +x, on an open plane."""
    vehicle_class = ROBOT_CLASS if row.kind == "differential" else CAR_CLASS
    sensor = LIDAR if row.lidar else ""
    vehicles = "\n".join(f'  <vehicle name="r{i + 1}" class="bench_robot"><init_pose>0 {i * LANE[row.kind]:g} 0'
                         f"</init_pose>{sensor}</vehicle>" for i in range(row.robots))
    return (f"<!-- Generated by mvsim_ros.bench.node.write_worlds: {row.robots} {row.kind} vehicle(s)"
            f"{' with a 181-ray lidar at 20 Hz' if row.lidar else ''}, in lanes, driving straight. -->\n"
            f'<mvsim_world version="1.0">\n  <simul_timestep>{timestep}</simul_timestep>\n{vehicle_class}'
            f"{vehicles}\n</mvsim_world>\n")


def rendered_world_xml(row: BenchRow, timestep: float = 0.005) -> str:
    """The world of a rendered row: one robot with RENDERED_SENSORS at the origin among RENDERED_BOXES."""
    boxes = "".join(f'  <block name="box{i + 1}"><static>true</static><zmin>0</zmin><zmax>1.5</zmax>'
                    f'<geometry type="box" lx="1" ly="1" lz="1.5"/><init_pose>{x:g} {y:g} 0</init_pose></block>\n'
                    for i, (x, y) in enumerate(RENDERED_BOXES))
    return (f"<!-- Generated by mvsim_ros.bench.node.write_worlds: one {row.kind} robot with a 640 x 480 camera and "
            f"a VLP-16 3D lidar at 10 Hz among boxes, driving a wide circle. -->\n"
            f'<mvsim_world version="1.0">\n  <simul_timestep>{timestep}</simul_timestep>\n'
            f"{ROBOT_CLASS if row.kind == 'differential' else CAR_CLASS}{boxes}"
            f'  <vehicle name="r1" class="bench_robot"><init_pose>0 0 0</init_pose>{RENDERED_SENSORS}</vehicle>\n'
            f"</mvsim_world>\n")


def write_worlds(folder: Path = WORLDS_DIR) -> list[Path]:
    """Write every row's world (and map image) into `folder`; returns the world paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for row in ROWS:
        path = folder / row.world_file.name
        path.write_text(lanes_world_xml(row), encoding="utf-8")
        paths.append(path)
    for row in MAP_ROWS:
        write_map_world(row, folder)
        paths.append(folder / row.world_file.name)
    for row in RENDERED_ROWS:
        path = folder / row.world_file.name
        path.write_text(rendered_world_xml(row), encoding="utf-8")
        paths.append(path)
    return paths


def write_map_world(row: BenchRow, folder: Path) -> Path:
    """Write a map row's world and its `<name>.pgm` into `folder`; returns the world's path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{row.name}.pgm").write_bytes(pgm_bytes(room_map(row.map_cells)))
    path = folder / row.world_file.name
    path.write_text(map_world_xml(row), encoding="utf-8")
    return path


#: The reference worlds of the speed bar, byte copies in worlds/bench/ (each runs 20 s of simulated time at dt = 5 ms
#: in MVSim's own benchmark, robots driving straight in lanes on their XML setpoints).
NAMED_WORLDS = ("diff_1", "diff_10", "diff_50", "ack_1", "ack_10", "ack_50", "noisy_lidar_1", "noisy_lidar_10")
#: MVSim's tutorial worlds the bar also names, found in a checkout of MRPT/mvsim (`mvsim_tutorial/`).
MVSIM_WORLDS = ("demo_1robot", "demo_many_robots")
#: MVSim's tutorial worlds with cameras, depth cameras and 3D lidars (the rendered-sensor case).
RENDERED_MVSIM_WORLDS = ("demo_warehouse", "demo_jackal", "demo_2robots", "demo_elevation_map")
#: MVSim 1.2's real-time factor (C++, its Box2D built with -O2, physics loop alone, on this 2-core machine class):
#: the bar the node is measured against.
MVSIM_RTF = {"diff_1": 994.0, "diff_10": 149.0, "diff_50": 30.1, "ack_1": 898.0, "ack_10": 123.0, "ack_50": 24.0,
             "noisy_lidar_1": 545.0, "noisy_lidar_10": 60.1, "demo_1robot": 142.0, "demo_many_robots": 4.06}
#: The environment variable naming a checkout of MRPT/mvsim (the option --mvsim takes precedence).
MVSIM_DIR_VARIABLE = "MVSIM_DIR"


def mvsim_checkout(given: Path | None = None) -> Path | None:
    """The MRPT/mvsim checkout to take MVSim's tutorial worlds from: `given`, else $MVSIM_DIR, else None."""
    import os

    text = str(given) if given is not None else os.environ.get(MVSIM_DIR_VARIABLE, "")
    return Path(text).expanduser() if text else None


def mvsim_world(checkout: Path, name: str) -> Path:
    """The tutorial world `name` of a MRPT/mvsim checkout; FileNotFoundError naming the path when it is missing."""
    path = checkout / "mvsim_tutorial" / f"{name}.world.xml"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such world (is {checkout} a checkout of MRPT/mvsim?)")
    return path


def named_rows(checkout: Path | None) -> list[BenchRow]:
    """The rows of the speed bar: NAMED_WORLDS from worlds/bench/, then MVSIM_WORLDS from `checkout` when given;
    uncommanded (each vehicle on its file's own setpoints, as MVSim's figures were measured)."""
    from dataclasses import replace

    paths = [WORLDS_DIR / f"{name}.world.xml" for name in NAMED_WORLDS]
    if checkout is not None:
        paths += [mvsim_world(checkout, name) for name in MVSIM_WORLDS]
    return [replace(world_row(path), commanded=False) for path in paths]


__all__ = ["BenchRow", "LANE", "MAP_ROWS", "MVSIM_RTF", "MVSIM_WORLDS", "NAMED_WORLDS", "RENDERED_MVSIM_WORLDS",
           "RENDERED_ROWS", "ROWS", "SPEED", "WORLDS_DIR", "lanes_world_xml", "mvsim_checkout", "mvsim_world",
           "named_rows",
           "map_world_xml", "pgm_bytes", "rendered_world_xml", "room_map", "world_row", "write_map_world",
           "write_worlds"]
