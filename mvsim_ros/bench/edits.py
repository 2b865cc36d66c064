"""Benchmark: what spawning and deleting an entity costs a running node, over DDS.

    python -m mvsim_ros.bench --edits                 # 1000 spawned blocks, then 20 spawn/delete rounds
    python -m mvsim_ros.bench --edits --blocks 200 --rounds 50

The node runs the demo world in real time (realtime_factor 1, headless, /clock at 100 Hz). A probe spawns
`blocks` blocks of the world's block class through `~/spawn_entity` (on a grid away from the robots), then times
`rounds` round trips of spawning one more block and deleting it again, while it watches /clock. Reported: the
service round-trip times (median and worst, [ms]), the longest wall-clock gap between two /clock messages during
the rounds [s] (a stall of the simulation loop or a publisher the subscriber had to discover again shows here),
and the time of one `reset_simulation` (scope SPAWNED) taking all the spawned blocks away at once.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

from mvsim_ros.bench.node_process import start_node, stop_node
from mvsim_ros.bench.paths import DEMO_WORLD

#: The world the node runs: the demo world (two robots, a block class `box_small`).
WORLD = DEMO_WORLD
#: Namespace of the node's simulation services.
SERVICES = "/mvsim/"


@dataclass(frozen=True)
class EditRun:
    """Figures of one run: wall times [s]."""

    fill_s: float  # spawning all the background blocks
    spawn_s: list[float]  # each measured spawn's round trip
    delete_s: list[float]  # each measured delete's round trip
    clock_gap_s: float  # longest gap between two /clock messages during the measured rounds
    reset_s: float  # reset_simulation, scope SPAWNED, with every spawned block present


def measure_edits(blocks: int = 1000, rounds: int = 20, startup_timeout: float = 90.0) -> EditRun:
    """Start the node on WORLD, spawn `blocks` blocks, then time `rounds` spawn/delete pairs and one reset."""
    import rclpy
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from rosgraph_msgs.msg import Clock
    from simulation_interfaces import srv
    from simulation_interfaces.msg import Result

    proc = start_node(f"world_file:={WORLD}", "headless:=true", "status_period:=0.0")
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node("mvsim_edit_bench_probe", context=context)
    executor = rclpy.executors.SingleThreadedExecutor(context=context)
    executor.add_node(node)
    try:
        arrivals: list[float] = []
        node.create_subscription(Clock, "/clock", lambda _m: arrivals.append(time.monotonic()),
                                 QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE))
        clients = {name: node.create_client(kind, SERVICES + name) for name, kind in
                   (("spawn_entity", srv.SpawnEntity), ("delete_entity", srv.DeleteEntity),
                    ("reset_simulation", srv.ResetSimulation))}

        def call(name: str, request) -> float:
            start = time.monotonic()
            future = clients[name].call_async(request)
            while not future.done():
                if proc.poll() is not None:
                    raise RuntimeError(f"the node exited with status {proc.returncode} during {name}")
                executor.spin_once(timeout_sec=0.01)
            result = future.result().result
            if result.result != Result.RESULT_OK:
                raise RuntimeError(f"{name} failed: {result.error_message}")
            return time.monotonic() - start

        def spawn(name: str, x: float, y: float) -> float:
            request = srv.SpawnEntity.Request(name=name)
            request.entity_resource.uri = "box_small"
            request.initial_pose.pose.position.x, request.initial_pose.pose.position.y = x, y
            return call("spawn_entity", request)

        deadline = time.monotonic() + startup_timeout
        while not (arrivals and all(c.service_is_ready() for c in clients.values())):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the node did not come up on {WORLD} (status {proc.poll()})")
            executor.spin_once(timeout_sec=0.05)
        start = time.monotonic()
        for k in range(blocks):  # a grid of 1 m spacing, north-east of the robots
            spawn(f"fill_{k}", 20.0 + (k % 40), 20.0 + k // 40)
        fill = time.monotonic() - start
        spawns, deletes = [], []
        first = len(arrivals)
        for k in range(rounds):
            spawns.append(spawn(f"probe_{k}", -20.0, -20.0 - k))
            deletes.append(call("delete_entity", srv.DeleteEntity.Request(entity=f"probe_{k}")))
        end = time.monotonic() + 0.1
        while time.monotonic() < end:
            executor.spin_once(timeout_sec=0.01)
        seen = arrivals[first:]
        gap = max((b - a for a, b in zip(seen, seen[1:])), default=float("inf"))
        reset = call("reset_simulation", srv.ResetSimulation.Request(scope=srv.ResetSimulation.Request.SCOPE_SPAWNED))
        return EditRun(fill, spawns, deletes, gap, reset)
    finally:
        node.destroy_node()
        rclpy.shutdown(context=context)
        stop_node(proc)


def report(run: EditRun, blocks: int, out=print) -> None:
    """Print one run's figures."""
    ms = 1e3
    out(f"spawn/delete in a running node (demo world + {blocks} spawned blocks, realtime_factor 1), over DDS:")
    out(f"  filling {blocks} blocks: {run.fill_s:.1f} s ({run.fill_s / max(blocks, 1) * ms:.1f} ms per spawn)")
    out(f"  spawn one:  median {statistics.median(run.spawn_s) * ms:6.1f} ms, worst {max(run.spawn_s) * ms:6.1f} ms")
    out(f"  delete one: median {statistics.median(run.delete_s) * ms:6.1f} ms, worst {max(run.delete_s) * ms:6.1f} ms")
    out(f"  longest /clock gap during the spawns and deletes: {run.clock_gap_s:.3f} s")
    out(f"  reset_simulation (SPAWNED, {blocks} blocks at once): {run.reset_s * ms:.0f} ms")


__all__ = ["EditRun", "measure_edits", "report"]
