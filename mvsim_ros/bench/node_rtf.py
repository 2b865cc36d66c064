"""The node benchmark (`python -m mvsim_ros.bench --node`): the simulator node's real-time factor, read from /clock,
on the worlds of `worlds/bench/` (node.py's rows), beside the physics alone on the same world.

The node runs in its own process with `realtime_factor:=0` (as fast as it can), its default publishing and the
command watchdog off; a probe process commands every vehicle (`cmd_vel`, once a second) and reads the latest
`/clock` every 20 ms. After a warm-up the real-time factor is the simulated time /clock advanced over a span of wall
time; the physics-only figure steps the same world in this process with the same commands and no ROS.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

from mvsim_ros.bench.node import ROWS, SPEED, BenchRow
from mvsim_ros.bench.node_process import default_domain_id, start_node, stop_node


def physics_rtf(row: BenchRow, wall_seconds: float) -> float:
    """Real-time factor of the physics alone (sensors measured when due) on the row's world, vehicles commanded as
    the node's probe commands them (an uncommanded row's on their world file's setpoints), after a 0.5 s
    (simulated) warm-up: the runtime Runner with the runtime SensorRunner as its one sink, stepping straight up to
    the next lidar sample, which is then scanned from Python (the node scans 2D lidars
    inside its compiled steps, so on the lidar rows it can beat this figure)."""
    from mvsim_ros.runtime.sensor_runner import SensorRunner

    return runner_rtf(row, wall_seconds, SensorRunner)


def runner_rtf(row: BenchRow, wall_seconds: float, make_sink) -> float:
    """Real-time factor of the row's world stepped by the runtime Runner with one sink, `make_sink(sim, sensors)`
    (the world's sensors, sensors.suite.build_sensors), its vehicles commanded as the row says, after a 0.5 s
    (simulated) warm-up, over `wall_seconds` of wall time."""
    from mvsim_ros.physics import Simulation
    from mvsim_ros.runtime.runner import Runner
    from mvsim_ros.sensors.suite import build_sensors
    from mvsim_ros.world import load_world

    world = load_world(row.world_file)
    sim = Simulation(world)
    runner = Runner(sim, 0.0, [make_sink(sim, build_sensors(world))])
    for i in range(row.robots if row.commanded else 0):
        sim.set_twist(i, SPEED[row.kind], row.turn_radps)
    warmup = int(0.5 / sim.dt)
    while sim.steps < warmup:
        runner.advance(warmup - sim.steps)
    first, start = sim.steps, time.perf_counter()
    while time.perf_counter() - start < wall_seconds:
        runner.advance(200)
    return (sim.steps - first) * sim.dt / (time.perf_counter() - start)


@dataclass
class NodeRun:
    """One node run: real-time factor from /clock, and how far r1 drove (ground truth) in that time [m]."""

    rtf: float
    r1_forward: float
    r1_sideways: float


def node_rtf(row: BenchRow, wall_seconds: float, warmup_s: float = 2.0, startup_timeout: float = 90.0,
             params: tuple[str, ...] = (), env: dict | None = None) -> NodeRun:
    """Run the node on the row's world at realtime_factor 0 (and `params`, more `name:=value` parameters; `env`:
    its environment, e.g. other_tree_environment's) and measure it over `wall_seconds` of wall time."""
    import rclpy
    from geometry_msgs.msg import Twist
    from nav_msgs.msg import Odometry
    from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
    from rosgraph_msgs.msg import Clock

    # The watchdog is off: at hundreds of times real time its 1 s of simulated time is a few ms of wall time, and
    # the probe would have to flood the node with commands to keep the vehicles going.
    proc = start_node(f"world_file:={row.world_file}", "realtime_factor:=0.0", "base_watchdog_timeout:=0.0", *params,
                      env=env)
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node("mvsim_bench_probe", context=context)
    executor = rclpy.executors.SingleThreadedExecutor(context=context)
    executor.add_node(node)
    try:
        prefixes = row.vehicle_prefixes()
        commands = [node.create_publisher(Twist, f"/{p}cmd_vel", 10) for p in prefixes] if row.commanded else []
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


_PHYSICS_IN_OTHER_TREE = """
import sys
from dataclasses import replace
from pathlib import Path
from mvsim_ros.bench.node import world_row
from mvsim_ros.bench.node_rtf import physics_rtf
row = replace(world_row(Path(sys.argv[1]), int(sys.argv[2])), turn_radps=float(sys.argv[4]))
print(physics_rtf(row, float(sys.argv[3])))
"""


def physics_rtf_in(env: dict, row: BenchRow, wall_seconds: float) -> float:
    """physics_rtf of `row` run by the mvsim_ros that `env` selects (other_tree_environment), in a subprocess: its
    world file as a world row, commanding the same vehicles at the same turn rate (none for an uncommanded row)."""
    import subprocess
    import sys

    argv = [str(row.world_file), str(row.robots if row.commanded else 0), str(wall_seconds), str(row.turn_radps)]
    done = subprocess.run([sys.executable, "-c", _PHYSICS_IN_OTHER_TREE, *argv], env=env, capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"the physics benchmark of the other tree failed: {done.stderr.strip()[-400:]}")
    return float(done.stdout.strip().splitlines()[-1])


def run_table(wall_seconds: float, repeat: int = 3, rows=ROWS, out=print, reference: dict | None = None,
              against: dict | None = None) -> list[tuple[BenchRow, float, float]]:
    """Print (through `out`) and return, per row: median node real-time factor over `repeat` runs (from /clock),
    and the best physics-only one. `reference`: MVSim's figure per world name, printed beside each row with the
    ratio; `against`: the environment of another source tree (other_tree_environment), whose node and physics run
    beside each of this tree's runs, alternating, so that the machine's noise falls on both alike."""
    default_domain_id()
    driving = ("vehicles on their world files' own setpoints" if not any(r.commanded for r in rows)
               else "vehicles commanded straight ahead")
    out(f"node benchmark: realtime_factor 0, default publishing, {driving}; "
        f"node figure = median of {repeat} runs of {wall_seconds:g} s (from /clock), physics = best of {repeat}")
    header = f"\n{'world':<30} {'node':>9} {'physics':>9} {'node/physics':>13}"
    if reference is not None:
        header += f" {'MVSim 1.2':>10} {'node/MVSim':>11}"
    if against is not None:
        header += f" {'other node':>11} {'other phys.':>11} {'node/other':>11}"
    out(header)
    results = []
    for row in rows:
        nodes, physics, other_nodes, other_physics = [], [], [], []
        for _ in range(repeat):
            if against is not None:
                other_nodes.append(node_rtf(row, wall_seconds, env=against).rtf)
            nodes.append(node_rtf(row, wall_seconds).rtf)
            if against is not None:
                other_physics.append(physics_rtf_in(against, row, min(wall_seconds, 3.0)))
            physics.append(physics_rtf(row, min(wall_seconds, 3.0)))
        node, best = statistics.median(nodes), max(physics)
        line = f"{row.name:<30} {node:8.1f}x {best:8.1f}x {node / best:12.2f}"
        if reference is not None:
            bar = reference.get(row.name)
            line += f" {bar:9g}x {node / bar:10.2f}" if bar else f" {'-':>10} {'-':>11}"
        if against is not None:
            other = statistics.median(other_nodes)
            line += f" {other:10.1f}x {max(other_physics):10.1f}x {node / other:10.2f}"
        out(line)
        results.append((row, node, best))
    return results


__all__ = ["NodeRun", "node_rtf", "physics_rtf", "physics_rtf_in", "run_table", "runner_rtf"]
