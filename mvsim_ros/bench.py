"""Benchmark: real-time factor (simulated s / wall s) of the physics step, with and without ROS publishing.

    python -m mvsim_ros.bench                 # 1, 10 and 50 differential robots, dt = 5 ms
    python -m mvsim_ros.bench --robots 1 5 --seconds 5 --no-ros

Robots are spread on an open plane, each driving its own circle (twist_pid, default friction), headless and
without sensors. "ros" adds what the node publishes at its default rates (odometry, ground truth, collision
and TF for every robot at 50 Hz of simulated time, /clock at 100 Hz) on a real DDS participant.
"""

from __future__ import annotations

import argparse
import math
import os
import time

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


def bench_world_xml(robots: int, timestep: float = 0.005, spacing: float = 4.0) -> str:
    """A world with `robots` differential robots on a square lattice `spacing` metres apart."""
    side = math.ceil(math.sqrt(robots))
    vehicles = "\n".join(
        f'  <vehicle name="r{i + 1}" class="bench_robot"><init_pose>{(i % side) * spacing} '
        f"{(i // side) * spacing} 0</init_pose></vehicle>"
        for i in range(robots)
    )
    return f'<mvsim_world version="1.0">\n  <simul_timestep>{timestep}</simul_timestep>\n{ROBOT_CLASS}{vehicles}\n' \
           "</mvsim_world>\n"


def make_simulation(robots: int, timestep: float = 0.005) -> Simulation:
    """The benchmark simulation, every robot commanded to drive a circle of radius 1.67 m."""
    sim = Simulation(load_world_string(bench_world_xml(robots, timestep), file=f"<bench {robots} robots>"))
    for i in range(robots):
        sim.set_twist(i, 0.5, 0.3)
    return sim


def measure(robots: int, wall_seconds: float, with_ros: bool, timestep: float = 0.005) -> float:
    """Real-time factor measured over about `wall_seconds` of wall time, after a warm-up.

    With ROS, the DDS participant gets a second to finish discovery of its publishers before timing starts
    (discovery traffic is a start-up cost, not a per-step one).
    """
    sim = make_simulation(robots, timestep)
    publish = None
    node = None
    if with_ros:
        import rclpy

        from mvsim_ros.ros.publishers import SimPublishers

        if not rclpy.ok():
            rclpy.init()
        node = rclpy.create_node(f"mvsim_bench_{robots}")
        publish = SimPublishers(node, sim).publish_due
        time.sleep(1.0)
    chunk = max(1, int(0.1 / sim.dt))  # 0.1 s of simulated time between clock checks
    for _ in range(int(0.5 / sim.dt)):
        sim.step()
        if publish:
            publish()
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < wall_seconds:
        if publish:
            for _ in range(chunk):
                sim.step()
                publish()
        else:
            for _ in range(chunk):
                sim.step()
        steps += chunk
    wall = time.perf_counter() - start
    if node is not None:
        node.destroy_node()
    return steps * sim.dt / wall


def main(argv: list[str] | None = None) -> int:
    """Print a table of real-time factors."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", type=int, nargs="+", default=[1, 10, 50])
    parser.add_argument("--seconds", type=float, default=3.0, help="wall-clock seconds per run")
    parser.add_argument("--dt", type=float, default=0.005, help="time step [s]")
    parser.add_argument("--no-ros", action="store_true", help="skip the cases with ROS publishing")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs per case; the best is reported (least disturbed by other load)")
    args = parser.parse_args(argv)
    os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))
    print(f"real-time factor (simulated s / wall s), dt = {args.dt * 1e3:g} ms, differential robots, no sensors")
    print(f"{'robots':>6}  {'physics only':>12}  {'+ ROS publish':>13}  {'publish cost':>12}")
    for robots in args.robots:
        seconds = args.seconds
        bare = max(measure(robots, seconds, False, args.dt) for _ in range(args.repeat))
        if args.no_ros:
            print(f"{robots:>6}  {bare:>11.1f}x  {'-':>13}  {'-':>12}", flush=True)
            continue
        ros = max(measure(robots, seconds, True, args.dt) for _ in range(args.repeat))
        print(f"{robots:>6}  {bare:>11.1f}x  {ros:>12.1f}x  {100 * (1 - ros / bare):>11.0f}%", flush=True)
    try:
        import rclpy

        rclpy.try_shutdown()
    except ImportError:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
