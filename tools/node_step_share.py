"""What share of the node's wall time goes into the simulation steps at realtime_factor 0 (issue 16 asks for
>= 95 %): runs MvsimNode in this process on a world for some seconds, timing every `Simulation.run_compiled` /
`step_many` / `step` call (the steps, and /clock and odometry published from inside them) against the wall time of
the spin. Everything else is the node's Python: the executor, serving due publishers and sensors, the status line.

    .venv/bin/python tools/node_step_share.py [WORLD] [--seconds 10]
"""

from __future__ import annotations

import argparse
import time

import rclpy
from rclpy.executors import SingleThreadedExecutor

from mvsim_ros.physics import Simulation
from mvsim_ros.ros.node.simulator_node import MvsimNode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("world", nargs="?", default="worlds/bench/differential_10.world.xml")
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    spent = [0.0]

    def timed(function):
        def wrapper(*a, **k):
            start = time.perf_counter()
            try:
                return function(*a, **k)
            finally:
                spent[0] += time.perf_counter() - start
        return wrapper

    Simulation.run_compiled = timed(Simulation.run_compiled)
    original_step_many = Simulation.step_many
    rclpy.init(args=["--ros-args", "-p", f"world_file:={args.world}", "-p", "realtime_factor:=0.0",
                     "-p", "base_watchdog_timeout:=0.0"])
    node = MvsimNode()
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    if node.sim.compiled_steps_unavailable:
        Simulation.step_many = timed(original_step_many)  # the steps run step() in a loop
    for _ in range(200):  # warm up (compilation is cached on disk)
        executor.spin_once(timeout_sec=0.01)
    spent[0], sim0, start = 0.0, node.sim.time, time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        executor.spin_once(timeout_sec=0.01)
    wall = time.perf_counter() - start
    print(f"{args.world}: real-time factor {(node.sim.time - sim0) / wall:.0f}x, "
          f"{100 * spent[0] / wall:.1f} % of wall time in the steps")
    node.destroy_node()
    rclpy.shutdown()


if __name__ == "__main__":
    main()
