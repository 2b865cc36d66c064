"""The node benchmark (`python -m mvsim_ros.bench --node`): the simulator node's real-time factor, read from /clock,
on the worlds of `worlds/bench/`, beside the physics alone on the same world.

Rows (issue 16's table, MVSim 1.2's benchmark set): 1 / 10 / 50 differential robots, 1 / 10 / 50 Ackermann cars,
1 / 10 differential robots with a 181-ray 2D lidar at 20 Hz; dt = 5 ms; the vehicles drive straight ahead in
parallel lanes. The node runs in its own process with `realtime_factor:=0` (as fast as it can), its default
publishing and the command watchdog off; a probe process commands every vehicle (`cmd_vel`, once a second) and
reads the latest `/clock` every 20 ms. After a warm-up the
real-time factor is the simulated time /clock advanced over a span of wall time; the physics-only figure steps the
same world in this process with the same commands and no ROS.

`worlds/bench/` holds the generated worlds (`write_worlds`; a test checks they match this module).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mvsim_ros.bench.physics import CAR_CLASS, ROBOT_CLASS

#: The folder of the benchmark worlds in the repository.
WORLDS_DIR = Path(__file__).resolve().parents[1] / "worlds" / "bench"
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
#: Occupancy-grid cell side of the generated maps [m].
MAP_RESOLUTION = 0.1
#: Room side of the generated maps [cells], walls 2 cells thick with a 10-cell doorway in each.
MAP_ROOM = 36


@dataclass(frozen=True)
class BenchRow:
    """One row of the node benchmark: `robots` vehicles of `kind`, with a 2D lidar each when `lidar`; with
    `map_cells` > 0, one robot with two 70 m lidars on an occupancy grid of map_cells x map_cells rooms, driving a
    circle at `turn_radps` [rad/s]; `world` set: that world file as it is (its first `robots` vehicles commanded)."""

    robots: int
    kind: str
    lidar: bool = False
    map_cells: int = 0
    turn_radps: float = 0.0
    world: Path | None = None

    @property
    def name(self) -> str:
        if self.world is not None:
            return self.world.name.removesuffix(".world.xml")
        if self.map_cells:
            return f"{self.kind}_{self.robots}_map{self.map_cells}"
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
    return paths


def write_map_world(row: BenchRow, folder: Path) -> Path:
    """Write a map row's world and its `<name>.pgm` into `folder`; returns the world's path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{row.name}.pgm").write_bytes(pgm_bytes(room_map(row.map_cells)))
    path = folder / row.world_file.name
    path.write_text(map_world_xml(row), encoding="utf-8")
    return path


def physics_rtf(row: BenchRow, wall_seconds: float) -> float:
    """Real-time factor of the physics alone (sensors measured when due) on the row's world, vehicles driving
    straight, after a 0.5 s (simulated) warm-up: `step_many` straight up to the next lidar sample, which is then
    scanned from Python (the node scans 2D lidars inside its compiled steps, ros/compiled_scans.py, so on
    the lidar rows it can beat this figure)."""
    from mvsim_ros.physics import Simulation
    from mvsim_ros.core.schedule import DueTimes, steps_until
    from mvsim_ros.sensors.suite import build_sensors
    from mvsim_ros.world import load_world

    world = load_world(row.world_file)
    sim = Simulation(world)
    lidars = build_sensors(world).lidars
    for i in range(row.robots):
        sim.set_twist(i, SPEED[row.kind], row.turn_radps)

    def scan_due() -> None:
        for lidar in lidars:
            if lidar.due(sim.time):
                lidar.scan(sim.box2d.world, sim.pose[lidar.vehicle])

    due = DueTimes()
    due.add(scan_due, [lidar.schedule for lidar in lidars])

    def advance(at_most: int) -> None:
        sim.step_many(min(at_most, steps_until(due.next_due(), sim.steps, sim.dt)))
        due.serve_due(sim.time)

    warmup = int(0.5 / sim.dt)
    while sim.steps < warmup:
        advance(warmup - sim.steps)
    first, start = sim.steps, time.perf_counter()
    while time.perf_counter() - start < wall_seconds:
        advance(200)
    return (sim.steps - first) * sim.dt / (time.perf_counter() - start)


@dataclass
class NodeRun:
    """One node run: real-time factor from /clock, and how far r1 drove (ground truth) in that time [m]."""

    rtf: float
    r1_forward: float
    r1_sideways: float


def start_node(*params: str) -> subprocess.Popen:
    """`mvsim_node` (its console script next to this Python, else the module) with `name:=value` parameters, its
    output discarded."""
    script = Path(sys.executable).parent / "mvsim_node"
    base = [str(script)] if script.exists() else [sys.executable, "-m", "mvsim_ros.ros.node.process"]
    args = [arg for param in params for arg in ("-p", param)]
    return subprocess.Popen(base + ["--ros-args", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop_node(proc: subprocess.Popen, timeout_s: float = 20.0) -> None:
    """SIGTERM the node and wait for it; SIGKILL it after `timeout_s` [s]."""
    proc.terminate()
    try:
        proc.wait(timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def node_rtf(row: BenchRow, wall_seconds: float, warmup_s: float = 2.0, startup_timeout: float = 90.0) -> NodeRun:
    """Run the node on the row's world at realtime_factor 0 and measure it over `wall_seconds` of wall time."""
    import rclpy
    from geometry_msgs.msg import Twist
    from nav_msgs.msg import Odometry
    from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
    from rosgraph_msgs.msg import Clock

    # The watchdog is off: at hundreds of times real time its 1 s of simulated time is a few ms of wall time, and
    # the probe would have to flood the node with commands to keep the vehicles going.
    proc = start_node(f"world_file:={row.world_file}", "realtime_factor:=0.0", "base_watchdog_timeout:=0.0")
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node("mvsim_bench_probe", context=context)
    executor = rclpy.executors.SingleThreadedExecutor(context=context)
    executor.add_node(node)
    try:
        prefixes = row.vehicle_prefixes()
        commands = [node.create_publisher(Twist, f"/{p}cmd_vel", 10) for p in prefixes]
        drive = Twist()
        drive.linear.x = SPEED[row.kind]
        drive.angular.z = row.turn_radps
        clock: list[tuple[float, float]] = []
        truth: list[tuple[float, float]] = []
        # Latest sample only, looked at every 20 ms: the probe must not spend a core in Python callbacks on the
        # tens of thousands of /clock messages a second the node sends (its middleware still receives them all).
        latest = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.BEST_EFFORT)
        node.create_subscription(Clock, "/clock", lambda m: clock.append(
            (time.monotonic(), m.clock.sec + 1e-9 * m.clock.nanosec)), latest)
        node.create_subscription(Odometry, f"/{prefixes[0]}base_pose_ground_truth", lambda m: truth.append(
            (m.pose.pose.position.x, m.pose.pose.position.y)), latest)

        def spin(seconds: float) -> None:
            end, next_command = time.monotonic() + seconds, 0.0
            while time.monotonic() < end:
                if time.monotonic() >= next_command:  # repeated once a second: discovery may lose the first
                    for pub in commands:
                        pub.publish(drive)
                    next_command = time.monotonic() + 1.0
                for _ in range(3):  # the clock, the ground truth, a command's acknowledgement
                    executor.spin_once(timeout_sec=0.0)
                time.sleep(0.02)

        deadline = time.monotonic() + startup_timeout
        while not clock and time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"the node exited with status {proc.returncode} on {row.world_file}")
            spin(0.05)
        if not clock:
            raise RuntimeError(f"no /clock from the node within {startup_timeout:g} s on {row.world_file}")
        spin(warmup_s)
        wall0, sim0 = clock[-1]
        start = truth[-1] if truth else (0.0, 0.0)
        spin(wall_seconds)
        wall1, sim1 = clock[-1]
        end = truth[-1] if truth else start
        return NodeRun((sim1 - sim0) / (wall1 - wall0), end[0] - start[0], end[1] - start[1])
    finally:
        node.destroy_node()
        rclpy.shutdown(context=context)
        stop_node(proc)


def run_table(wall_seconds: float, repeat: int = 3, rows=ROWS, out=print) -> list[tuple[BenchRow, float, float]]:
    """Print (through `out`) and return, per row: median node real-time factor over `repeat` runs (from /clock),
    and the best physics-only one."""
    os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))
    out(f"node benchmark: realtime_factor 0, default publishing, dt = 5 ms, vehicles driving straight in lanes; "
        f"node figure = median of {repeat} runs of {wall_seconds:g} s (from /clock), physics = best of {repeat}")
    out(f"\n{'world':<26} {'node':>9} {'physics':>9} {'node/physics':>13}")
    results = []
    for row in rows:
        node = statistics.median(node_rtf(row, wall_seconds).rtf for _ in range(repeat))
        physics = max(physics_rtf(row, min(wall_seconds, 3.0)) for _ in range(repeat))
        out(f"{row.name:<26} {node:8.1f}x {physics:8.1f}x {node / physics:12.2f}")
        results.append((row, node, physics))
    return results


__all__ = ["BenchRow", "ROWS", "MAP_ROWS", "room_map", "pgm_bytes", "map_world_xml", "write_map_world", "world_row",
           "lanes_world_xml", "write_worlds", "physics_rtf", "node_rtf", "run_table", "NodeRun"]
