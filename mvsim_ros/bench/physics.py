"""The physics cases of the benchmark: real-time factor (simulated s / wall s) of the physics step, with and without
ROS publishing, and what the terrain under the wheels costs.

Cases: differential robots (twist_pid, default friction) 1/10/50, with and without ROS; Ackermann cars
(twist_front_steer_pid, default friction) 1/10/50; 10 ackermann_drivetrain cars with a torsen_4wd drivetrain
and Pacejka tyres; with --kind articulated, articulated-steer vehicles (two bodies and a pivot motor each).
Vehicles are spread on an open plane, each driving its own circle, headless and without sensors (vehicles.py).
"ros" adds what the node publishes at its default rates (odometry, ground truth, collision and TF for every vehicle
at 50 Hz of simulated time, /clock at 100 Hz) on a real DDS participant. The terrain case runs the same vehicles on
rolling hills (an elevation map, slopes up to about 17 deg) side by side with the flat world, alternating between
the two in each run, and reports what the terrain phase (ground under every wheel, 3D pose, slope gravity) costs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from mvsim_ros.bench.vehicles import make_simulation

#: Simulated time [s] of one timed chunk of steps (the clock is read between chunks).
CHUNK_S = 0.1
#: Simulated time [s] stepped before timing starts.
WARMUP_S = 0.5
#: The default cases: (kind, vehicle counts, with the ROS publishing columns).
DEFAULT_CASES = (("differential", (1, 10, 50), True), ("ackermann", (1, 10, 50), False), ("drivetrain", (10,), False))


@dataclass(frozen=True)
class PhysicsRun:
    """One run of `measure`: chunks of `chunk_steps` steps of `dt` [s], timed bare and (with ROS) with publishing.

    bare_wall_s, ros_wall_s [s]: wall time of the bare and of the publishing chunks; steps: steps the simulation
    counted over all the timed chunks (both kinds)."""

    dt: float
    chunk_steps: int
    bare_chunks: int
    bare_wall_s: float
    ros_chunks: int = 0
    ros_wall_s: float = 0.0
    steps: int = 0

    @property
    def bare_rtf(self) -> float:
        """Real-time factor of the bare chunks: their simulated time over their wall time."""
        return self.bare_chunks * self.chunk_steps * self.dt / self.bare_wall_s

    @property
    def ros_rtf(self) -> float | None:
        """Real-time factor of the publishing chunks (None: measured without ROS)."""
        return self.ros_chunks * self.chunk_steps * self.dt / self.ros_wall_s if self.ros_chunks else None


def measure(robots: int, wall_seconds: float, with_ros: bool, timestep: float = 0.005,
            kind: str = "differential") -> PhysicsRun:
    """Time `robots` vehicles of `kind` over about `wall_seconds` of wall time per figure, after a warm-up.

    With ROS, the same simulation alternates chunks of CHUNK_S of simulated time stepped bare and stepped with
    publishing, timed separately: changes of the machine's speed (other load, a noisy virtual machine) hit both
    figures alike, so their ratio is the cost of publishing. The DDS participant gets a second to finish the
    discovery of its publishers before timing starts (discovery is a start-up cost, not a per-step one).
    """
    sim = make_simulation(robots, timestep, kind)
    chunk = max(1, int(CHUNK_S / sim.dt))
    if not with_ros:
        for _ in range(int(WARMUP_S / sim.dt)):
            sim.step()
        first, chunks, start = sim.steps, 0, time.perf_counter()
        while time.perf_counter() - start < wall_seconds:
            for _ in range(chunk):
                sim.step()
            chunks += 1
        return PhysicsRun(sim.dt, chunk, chunks, time.perf_counter() - start, steps=sim.steps - first)

    import rclpy

    from mvsim_ros.ros.publishing.state_publishers import SimPublishers

    if not rclpy.ok():
        rclpy.init()
    node = rclpy.create_node(f"mvsim_bench_{robots}")
    try:
        publish = SimPublishers(node, sim).publish_due
        time.sleep(1.0)
        for _ in range(int(WARMUP_S / sim.dt)):
            sim.step()
            publish()
        bare_wall = ros_wall = 0.0
        chunks, first = 0, sim.steps
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
            chunks += 1
    finally:
        node.destroy_node()
    return PhysicsRun(sim.dt, chunk, chunks, bare_wall, chunks, ros_wall, sim.steps - first)


def measure_terrain(robots: int, wall_seconds: float, timestep: float = 0.005,
                    kind: str = "differential") -> tuple[float, float]:
    """(real-time factor on flat ground, on hills) of the same vehicles, over about `wall_seconds` each after a
    warm-up: chunks of CHUNK_S of simulated time alternate between the two simulations, so changes of the
    machine's speed hit both figures alike."""
    flat, hills = make_simulation(robots, timestep, kind), make_simulation(robots, timestep, kind, terrain=True)
    chunk = max(1, int(CHUNK_S / flat.dt))
    for sim in (flat, hills):
        for _ in range(int(WARMUP_S / sim.dt)):
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


def rtf_table(cases, seconds: float, repeat: int, dt: float, with_ros: bool = True, out=print) -> None:
    """Print (through `out`) the real-time factor table of `cases` ((kind, vehicle counts, with ROS) each): best
    of `repeat` runs of `seconds`; the publish cost, when measured, the median over the runs."""
    out(f"real-time factor (simulated s / wall s), dt = {dt * 1e3:g} ms, no sensors, best of {repeat} runs; "
        f"publish cost: median over the runs")
    for kind, counts, case_ros in cases:
        case_ros = case_ros and with_ros
        ros_columns = f"  {'+ ROS publish':>13}  {'publish cost':>12}" if case_ros else ""
        out(f"\n{kind:>12}  {'physics only':>12}{ros_columns}")
        for robots in counts:
            runs = [measure(robots, seconds, case_ros, dt, kind) for _ in range(repeat)]
            line = f"{robots:>12}  {max(run.bare_rtf for run in runs):>11.1f}x"
            if case_ros:
                # Best real-time factor with publishing; the cost is the median over the runs of each run's
                # ratio of its side-by-side timed chunks (not picked from the best run: no selection bias).
                cost = float(np.median([1 - run.ros_rtf / run.bare_rtf for run in runs]))
                line += f"  {max(run.ros_rtf for run in runs):>12.1f}x  {100 * cost:>11.0f}%"
            out(line)


def terrain_table(kind: str, counts, seconds: float, repeat: int, dt: float, out=print) -> None:
    """Print (through `out`) the terrain case: best real-time factors on flat ground and on hills, and the
    median cost of the hills over `repeat` runs, per vehicle count."""
    out(f"terrain: {kind} robots driving circles on hills (elevation map, slopes up to 17 deg) and on flat ground, "
        f"dt = {dt * 1e3:g} ms, chunks of both alternated in each run; best real-time factors, median cost over "
        f"{repeat} runs")
    out(f"\n{kind:>12}  {'flat':>9}  {'hills':>9}  {'terrain cost':>12}")
    for robots in counts:
        runs = [measure_terrain(robots, seconds, dt, kind) for _ in range(repeat)]
        cost = float(np.median([1 - hills / flat for flat, hills in runs]))
        out(f"{robots:>12}  {max(r[0] for r in runs):>8.1f}x  {max(r[1] for r in runs):>8.1f}x  {100 * cost:>11.1f}%")


__all__ = ["CHUNK_S", "DEFAULT_CASES", "PhysicsRun", "WARMUP_S", "measure", "measure_terrain", "rtf_table",
           "terrain_table"]
