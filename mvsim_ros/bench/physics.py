"""Benchmark: real-time factor (simulated s / wall s) of the physics step, with and without ROS publishing.

    python -m mvsim_ros.bench                 # every case below, dt = 5 ms
    python -m mvsim_ros.bench --kind differential --robots 1 5 --seconds 5 --no-ros
    python -m mvsim_ros.bench --viewer         # what the browser viewer costs one robot (a page connected)
    python -m mvsim_ros.bench --terrain        # what the terrain under the wheels costs 50 robots on hills
    python -m mvsim_ros.bench --node           # the node's real-time factor from /clock on worlds/bench/
    python -m mvsim_ros.bench --node --world FILE [--vehicles N]   # the node on any world file
    python -m mvsim_ros.bench --scan-cost      # one 181-ray 70 m 2D scan on maps of 50^2, 200^2, 800^2 cells
    python -m mvsim_ros.bench --edits          # spawning and deleting an entity in a node with 1000 blocks

Cases: differential robots (twist_pid, default friction) 1/10/50, with and without ROS; Ackermann cars
(twist_front_steer_pid, default friction) 1/10/50; 10 ackermann_drivetrain cars with a torsen_4wd drivetrain
and Pacejka tyres; with --kind articulated, articulated-steer vehicles (two bodies and a pivot motor each).
Vehicles are spread on an open plane, each driving its own circle, headless and without sensors. "ros" adds
what the node publishes at its default rates (odometry, ground truth, collision and TF for every vehicle at
50 Hz of simulated time, /clock at 100 Hz) on a real DDS participant. --terrain runs the same vehicles on rolling
hills (an elevation map, slopes up to about 17 deg) side by side with the flat world, alternating between the two
in each run, and reports what the terrain phase (ground under every wheel, 3D pose, slope gravity) costs.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import time
from pathlib import Path

import numpy as np

from mvsim_ros.physics import Simulation
from mvsim_ros.world import load_world_string

ROBOT_CLASS = """
  <vehicle:class name="bench_robot">
    <dynamics class="differential">
      <chassis mass="15.0"><shape><pt>-0.25 -0.22</pt><pt>0.25 -0.22</pt><pt>0.30 0</pt><pt>0.25 0.22</pt>
        <pt>-0.25 0.22</pt></shape></chassis>
      <l_wheel pos="0.0  0.25" mass="1.0" width="0.05" diameter="0.20"/>
      <r_wheel pos="0.0 -0.25" mass="1.0" width="0.05" diameter="0.20"/>
      <controller class="twist_pid"><KP>60</KP><KI>60</KI><I_MAX>0.5</I_MAX><max_torque>6.5</max_torque>
      </controller>
    </dynamics>
    <friction class="default"><mu>0.8</mu><C_damping>0.05</C_damping><C_rr>0.01</C_rr></friction>
  </vehicle:class>
"""


_CAR_WHEELS = """
      <rl_wheel pos="0  0.75" mass="15.0" width="0.22" diameter="0.65"/>
      <rr_wheel pos="0 -0.75" mass="15.0" width="0.22" diameter="0.65"/>
      <fl_wheel mass="15.0" width="0.22" diameter="0.65"/> <fr_wheel mass="15.0" width="0.22" diameter="0.65"/>
      <f_wheels_x>2.5</f_wheels_x> <f_wheels_d>1.5</f_wheels_d> <max_steer_ang_deg>35</max_steer_ang_deg>
      <chassis mass="1200.0" zmin="0.15" zmax="1.45"><shape><pt>-0.9 -0.9</pt><pt>3.4 -0.9</pt><pt>3.6 0</pt>
        <pt>3.4 0.9</pt><pt>-0.9 0.9</pt></shape></chassis>"""
CAR_CLASS = f"""
  <vehicle:class name="bench_robot">
    <dynamics class="ackermann">{_CAR_WHEELS}
      <controller class="twist_front_steer_pid"><KP>1500</KP><KI>500</KI><I_MAX>1</I_MAX>
        <max_torque>800</max_torque></controller>
    </dynamics>
    <friction class="default"><mu>0.9</mu><C_damping>1.0</C_damping><C_rr>0.012</C_rr></friction>
  </vehicle:class>
"""
DRIVETRAIN_CAR_CLASS = f"""
  <vehicle:class name="bench_robot">
    <dynamics class="ackermann_drivetrain">{_CAR_WHEELS}
      <drivetrain type="torsen_4wd"/>
      <controller class="twist_front_steer_pid"><KP>3000</KP><KI>500</KI><I_MAX>1</I_MAX>
        <max_torque>3000</max_torque></controller>
    </dynamics>
    <friction class="pacejka"><surface>dry</surface><C_damping>1.0</C_damping><C_rr>0.012</C_rr></friction>
  </vehicle:class>
"""
ARTICULATED_CLASS = """
  <vehicle:class name="bench_robot">
    <dynamics class="articulated">
      <chassis mass="800"/> <front_chassis mass="700"/>
      <wheel_separation_front>1.2</wheel_separation_front> <wheel_separation_rear>1.2</wheel_separation_rear>
      <rl_wheel pos="0 0.8" mass="30" width="0.3" diameter="0.8"/>
      <rr_wheel pos="0 -0.8" mass="30" width="0.3" diameter="0.8"/>
      <fl_wheel pos="0 0.8" mass="30" width="0.3" diameter="0.8"/>
      <fr_wheel pos="0 -0.8" mass="30" width="0.3" diameter="0.8"/>
      <controller class="twist_pid"><KP>3000</KP><KI>500</KI><I_MAX>1</I_MAX><max_torque>3000</max_torque>
      </controller>
    </dynamics>
    <friction class="default"><mu>0.9</mu><C_damping>1.0</C_damping><C_rr>0.01</C_rr></friction>
  </vehicle:class>
"""
#: Benchmark vehicle kinds: name -> (vehicle class XML, circle twist (v [m/s], omega [rad/s]), spacing [m]).
KINDS = {
    "differential": (ROBOT_CLASS, (0.5, 0.3), 4.0),
    "ackermann": (CAR_CLASS, (2.0, 0.2), 25.0),
    "drivetrain": (DRIVETRAIN_CAR_CLASS, (2.0, 0.2), 25.0),
    "articulated": (ARTICULATED_CLASS, (1.0, 0.2), 25.0),
}


#: Hills of the terrain case: height amplitude [m] and wavelength [m] of z = A sin(2 pi x / L) cos(2 pi y / L),
#: sampled every HILLS_RESOLUTION [m] (steepest slope atan(2 pi A / L) = 17 deg).
HILLS_AMPLITUDE, HILLS_WAVELENGTH, HILLS_RESOLUTION = 0.5, 10.0, 0.5


def hills_xml(extent: float) -> str:
    """An elevation map of rolling hills covering [-10, extent + 10] m in x and y."""
    count = int(math.ceil((extent + 20.0) / HILLS_RESOLUTION)) + 1
    coords = -10.0 + HILLS_RESOLUTION * np.arange(count)
    gx, gy = np.meshgrid(coords, coords, indexing="ij")
    k = 2.0 * math.pi / HILLS_WAVELENGTH
    heights = HILLS_AMPLITUDE * np.sin(k * gx) * np.cos(k * gy)
    rows = ";\n".join(" ".join(f"{h:.4f}" for h in row) for row in heights)
    return (f'  <element class="elevation_map"><resolution>{HILLS_RESOLUTION}</resolution>'
            f"<corner_min_x>-10</corner_min_x><corner_min_y>-10</corner_min_y>\n"
            f"  <elevation_data_matrix>[{rows}]</elevation_data_matrix></element>\n")


def bench_world_xml(robots: int, timestep: float = 0.005, kind: str = "differential", terrain: bool = False) -> str:
    """A world with `robots` vehicles of a benchmark kind on a square lattice (on hills with `terrain`)."""
    vehicle_class, _, spacing = KINDS[kind]
    side = math.ceil(math.sqrt(robots))
    vehicles = "\n".join(
        f'  <vehicle name="r{i + 1}" class="bench_robot"><init_pose>{(i % side) * spacing} '
        f"{(i // side) * spacing} 0</init_pose></vehicle>"
        for i in range(robots)
    )
    ground = hills_xml((side - 1) * spacing) if terrain else ""
    return f'<mvsim_world version="1.0">\n  <simul_timestep>{timestep}</simul_timestep>\n{ground}{vehicle_class}' \
           f"{vehicles}\n</mvsim_world>\n"


def make_simulation(robots: int, timestep: float = 0.005, kind: str = "differential",
                    terrain: bool = False) -> Simulation:
    """The benchmark simulation, every vehicle commanded to drive its own circle (on hills with `terrain`)."""
    world = load_world_string(bench_world_xml(robots, timestep, kind, terrain),
                              file=f"<bench {robots} {kind}{' terrain' if terrain else ''}>")
    sim = Simulation(world)
    v, omega = KINDS[kind][1]
    for i in range(robots):
        sim.set_twist(i, v, omega)
    return sim


def measure(robots: int, wall_seconds: float, with_ros: bool, timestep: float = 0.005,
            kind: str = "differential") -> tuple[float, float | None]:
    """(real-time factor without publishing, with publishing or None), over about `wall_seconds` of wall time
    each, after a warm-up.

    With ROS, the same simulation alternates chunks of 0.1 s of simulated time stepped bare and stepped with
    publishing, timed separately: changes of the machine's speed (other load, a noisy virtual machine) hit both
    figures alike, so their ratio is the cost of publishing. The DDS participant gets a second to finish the
    discovery of its publishers before timing starts (discovery is a start-up cost, not a per-step one).
    """
    sim = make_simulation(robots, timestep, kind)
    chunk = max(1, int(0.1 / sim.dt))  # steps between clock checks
    if not with_ros:
        for _ in range(int(0.5 / sim.dt)):
            sim.step()
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < wall_seconds:
            for _ in range(chunk):
                sim.step()
            steps += chunk
        return steps * sim.dt / (time.perf_counter() - start), None

    import rclpy

    from mvsim_ros.ros.publishing.state_publishers import SimPublishers

    if not rclpy.ok():
        rclpy.init()
    node = rclpy.create_node(f"mvsim_bench_{robots}")
    publish = SimPublishers(node, sim).publish_due
    time.sleep(1.0)
    for _ in range(int(0.5 / sim.dt)):
        sim.step()
        publish()
    bare_wall = ros_wall = 0.0
    bare_steps = ros_steps = 0
    while bare_wall + ros_wall < 2 * wall_seconds:
        start = time.perf_counter()
        for _ in range(chunk):
            sim.step()
        middle = time.perf_counter()
        for _ in range(chunk):
            sim.step()
            publish()
        end = time.perf_counter()
        bare_wall, ros_wall = bare_wall + middle - start, ros_wall + end - middle
        bare_steps, ros_steps = bare_steps + chunk, ros_steps + chunk
    node.destroy_node()
    return bare_steps * sim.dt / bare_wall, ros_steps * sim.dt / ros_wall


def measure_terrain(robots: int, wall_seconds: float, timestep: float = 0.005,
                    kind: str = "differential") -> tuple[float, float]:
    """(real-time factor on flat ground, on hills) of the same vehicles, over about `wall_seconds` each after a
    warm-up: chunks of 0.1 s of simulated time alternate between the two simulations, so changes of the machine's
    speed hit both figures alike."""
    flat, hills = make_simulation(robots, timestep, kind), make_simulation(robots, timestep, kind, terrain=True)
    chunk = max(1, int(0.1 / flat.dt))
    for sim in (flat, hills):
        for _ in range(int(0.5 / sim.dt)):
            sim.step()
    walls = [0.0, 0.0]
    steps = 0
    while sum(walls) < 2 * wall_seconds:
        for k, sim in enumerate((flat, hills)):
            start = time.perf_counter()
            for _ in range(chunk):
                sim.step()
            walls[k] += time.perf_counter() - start
        steps += chunk
    return steps * flat.dt / walls[0], steps * hills.dt / walls[1]


def measure_sensors(wall_seconds: float) -> tuple[float, float]:
    """(2D lidar scans per second with 360 rays in the demo world, demo world real-time factor with its
    lidars scanning at their own period) — physics and sensors only, no ROS."""
    from pathlib import Path

    from mvsim_ros.sensors.lidar2d import Lidar2D
    from mvsim_ros.sensors.suite import build_sensors
    from mvsim_ros.world import load_world

    world = load_world(Path(__file__).resolve().parents[1] / "worlds" / "demo_2robots.world.xml")
    sim = Simulation(world)
    spec = dataclasses.replace(world.vehicles[0].sensors[0])
    spec.params = dict(spec.params, nrays="360", fov_degrees="359")
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
    from pathlib import Path

    from mvsim_ros.sensors.scene import Scene
    from mvsim_ros.sensors.suite import build_sensors
    from mvsim_ros.world import load_world_string

    demo = Path(__file__).resolve().parents[1] / "worlds" / "demo_2robots.world.xml"
    text = demo.read_text().replace(
        '<vehicle name="r1" class="demo_diff_robot">',
        '<vehicle name="r1" class="demo_diff_robot">'
        '<sensor class="camera" name="cam"><pose_3d>0.3 0 0.5 -90 0 -90</pose_3d><ncols>640</ncols>'
        '<nrows>480</nrows><cx>320</cx><cy>240</cy><fx>400</fx><fy>400</fy><clip_max>50</clip_max></sensor>'
        '<sensor class="lidar3d" name="vlp"><pose_3d>0 0 0.6 0 0 0</pose_3d><model>VLP-16</model>'
        '<horz_nrays>1800</horz_nrays></sensor>')
    world = load_world_string(text, file=str(demo))
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
    `cells` cells (bench_node.room_map, 0.1 m cells), cast from the map's centre without noise (the ray cast alone:
    Lidar2D's cast through the shim, or pybox2d's ray casts without it)."""
    import tempfile
    from pathlib import Path

    from mvsim_ros.bench.node import BenchRow, write_map_world
    from mvsim_ros.sensors.suite import build_sensors
    from mvsim_ros.world import load_world

    with tempfile.TemporaryDirectory() as folder:
        world = load_world(write_map_world(BenchRow(1, "differential", True, map_cells=cells), Path(folder)))
    sim = Simulation(world)
    lidar = build_sensors(world).lidars[0]
    bearings = lidar.params.angles + 0.1  # off the map's axes
    box2d_world, origin = sim.box2d.world, (0.05, 0.05)
    lidar._cast(box2d_world, origin, bearings)  # builds the shim's index of the walls
    scans, start = 0, time.perf_counter()
    while time.perf_counter() - start < wall_seconds:
        for _ in range(20):
            lidar._cast(box2d_world, origin, bearings)
        scans += 20
    return len(sim.box2d.ground.fixtures), (time.perf_counter() - start) / scans


#: The default cases: (kind, vehicle counts, with the ROS publishing columns).
DEFAULT_CASES = (("differential", (1, 10, 50), True), ("ackermann", (1, 10, 50), False), ("drivetrain", (10,), False))


def main(argv: list[str] | None = None) -> int:
    """Print tables of real-time factors."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=sorted(KINDS), help="only this vehicle kind")
    parser.add_argument("--robots", type=int, nargs="+", help="vehicle counts (with --kind)")
    parser.add_argument("--seconds", type=float, default=3.0, help="wall-clock seconds per run")
    parser.add_argument("--dt", type=float, default=0.005, help="time step [s]")
    parser.add_argument("--no-ros", action="store_true", help="skip the cases with ROS publishing")
    parser.add_argument("--sensors", action="store_true", help="only the sensor figures")
    parser.add_argument("--viewer", action="store_true",
                        help="only the viewer case: one robot with one connected browser page, cost in %% of the "
                             "real-time factor")
    parser.add_argument("--browser-nice", type=int, default=10, choices=range(0, 20), metavar="0..19",
                        help="viewer case: the page's scheduling niceness (default 10; 0: the simulation's priority). "
                             "Without a GPU the browser draws WebGL in software, which otherwise takes cores from "
                             "the simulation like any busy program")
    parser.add_argument("--terrain", action="store_true",
                        help="only the terrain case: vehicles (--robots, default 50) on hills and on flat ground side "
                             "by side, cost in %% of the flat real-time factor")
    parser.add_argument("--node", action="store_true",
                        help="only the node benchmark: the node's real-time factor from /clock on worlds/bench/ "
                             "(median of --repeat runs of --seconds) beside the physics alone")
    parser.add_argument("--world", type=Path, help="--node: only this world file (any MVSim world)")
    parser.add_argument("--vehicles", type=int,
                        help="--node --world: command this many of its vehicles (default: all of them)")
    parser.add_argument("--scan-cost", action="store_true",
                        help="only the cost of one 181-ray 70 m 2D lidar scan on maps of 50^2, 200^2 and 800^2 cells")
    parser.add_argument("--edits", action="store_true",
                        help="only the world-edit case: spawn and delete round trips over DDS in a node with "
                             "--blocks spawned blocks, and the longest /clock gap meanwhile")
    parser.add_argument("--blocks", type=int, default=1000, help="--edits: blocks spawned first")
    parser.add_argument("--rounds", type=int, default=20, help="--edits: spawn/delete pairs measured")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs per case; the best is reported (least disturbed by other load)")
    args = parser.parse_args(argv)
    os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))
    if args.edits:
        from mvsim_ros.bench.edits import measure_edits, report

        report(measure_edits(args.blocks, args.rounds), args.blocks)
        return 0
    if args.node:
        from mvsim_ros.bench.node import MAP_ROWS, ROWS, run_table, world_row

        if args.world is not None:
            rows = [world_row(args.world, args.vehicles)]
        else:
            rows = [r for r in ROWS + MAP_ROWS if (args.kind is None or r.kind == args.kind)
                    and (args.robots is None or r.robots in args.robots)]
        run_table(args.seconds, args.repeat, rows)
        return 0
    if args.scan_cost:
        print(f"one 2D lidar scan (181 rays over 180 deg, 70 m) from the centre of a map of rooms (0.1 m cells, "
              f"bench_node.room_map), best of {args.repeat} runs of {args.seconds:g} s")
        print(f"\n{'cells':>10} {'map [m]':>9} {'wall fixtures':>14} {'us / scan':>10} {'us / beam':>10}")
        for cells in (50, 200, 800):
            runs = [measure_scan_cost(cells, args.seconds) for _ in range(args.repeat)]
            fixtures, seconds = runs[0][0], min(r[1] for r in runs)
            print(f"{f'{cells}^2':>10} {cells * 0.1:>9g} {fixtures:>14} {seconds * 1e6:>10.1f} "
                  f"{seconds * 1e6 / 181:>10.2f}", flush=True)
        return 0
    if args.viewer:
        from mvsim_ros.bench.viewer import measure_viewer

        kind = args.kind or "differential"
        runs = [measure_viewer(args.seconds, kind, browser_nice=args.browser_nice) for _ in range(args.repeat)]
        print(f"viewer, 1 {kind} robot, one page ({runs[0].page}, niceness {args.browser_nice}), dt = "
              f"{args.dt * 1e3:g} ms, phases of bare and viewer stepping alternated in each run:")
        for k, run in enumerate(runs, 1):
            frame_rate = f"{run.frames / run.seconds:.0f} frames/s to the page" if run.frames >= 0 else ""
            print(f"  run {k}: {run.bare:7.1f}x bare  {run.with_viewer:7.1f}x with the viewer  cost "
                  f"{100 * run.cost:5.1f} %  (viewer's time on the simulation's thread {100 * run.accounted:4.1f} %,"
                  f" server process CPU {100 * run.server_cpu:4.1f} % of the wall time)  {frame_rate}")
        print(f"  median cost: {100 * float(np.median([run.cost for run in runs])):.1f} % of the real-time factor "
              f"side by side; the viewer's time on the simulation's thread: "
              f"{100 * float(np.median([r.accounted for r in runs])):.2f} %")
        return 0
    if args.terrain:
        kind = args.kind or "differential"
        print(f"terrain: {kind} robots driving circles on hills (elevation map, slopes up to 17 deg) and on flat "
              f"ground, dt = {args.dt * 1e3:g} ms, chunks of both alternated in each run; best real-time factors, "
              f"median cost over {args.repeat} runs")
        print(f"\n{kind:>12}  {'flat':>9}  {'hills':>9}  {'terrain cost':>12}")
        for robots in args.robots or (50,):
            runs = [measure_terrain(robots, args.seconds, args.dt, kind) for _ in range(args.repeat)]
            cost = float(np.median([1 - hills / flat for flat, hills in runs]))
            print(f"{robots:>12}  {max(r[0] for r in runs):>8.1f}x  {max(r[1] for r in runs):>8.1f}x  "
                  f"{100 * cost:>11.1f}%", flush=True)
        return 0
    if args.sensors:
        scans, rtf = max(measure_sensors(args.seconds) for _ in range(args.repeat))
        print(f"2D lidar, 360 rays, demo world: {scans:.0f} scans/s")
        print(f"demo world (2 robots, a 541-ray lidar each at 10 Hz), no ROS: {rtf:.1f}x real time")
        frames, points = max(measure_rendered_sensors(args.seconds) for _ in range(args.repeat))
        print(f"640x480 RGB camera, demo world (OpenGL): {frames:.0f} frames/s")
        print(f"VLP-16 (16 x 1800 beams), demo world (OpenGL): {points / 1e6:.2f} M points/s")
        return 0
    cases = DEFAULT_CASES
    if args.kind:
        cases = ((args.kind, tuple(args.robots or (1, 10, 50)), args.kind == "differential"),)
    print(f"real-time factor (simulated s / wall s), dt = {args.dt * 1e3:g} ms, no sensors, best of {args.repeat} "
          f"runs; publish cost: median over the runs")
    for kind, counts, with_ros in cases:
        with_ros = with_ros and not args.no_ros
        ros_columns = f"  {'+ ROS publish':>13}  {'publish cost':>12}" if with_ros else ""
        print(f"\n{kind:>12}  {'physics only':>12}{ros_columns}")
        for robots in counts:
            runs = [measure(robots, args.seconds, with_ros, args.dt, kind) for _ in range(args.repeat)]
            bare = max(run[0] for run in runs)
            line = f"{robots:>12}  {bare:>11.1f}x"
            if with_ros:
                # Best real-time factor with publishing; the cost is the median over the runs of each run's
                # ratio of its side-by-side timed chunks (not picked from the best run: no selection bias).
                ros = max(run[1] for run in runs)
                cost = float(np.median([1 - run[1] / run[0] for run in runs]))
                line += f"  {ros:>12.1f}x  {100 * cost:>11.0f}%"
            print(line, flush=True)
    try:
        import rclpy

        rclpy.try_shutdown()
    except ImportError:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
