"""Gymnasium environment steps per second (`mvsim_ros.gym`, no ROS): one MvsimEnv and a vector of 8 on the bench
world with one differential robot and a 181-ray 2D lidar, 0.05 s of simulated time per env step, random actions,
beside the physics alone (the same world stepped with Simulation.run for the simulated time the env covered, and
with Simulation.step_many in batches of one env step, the way the env steps it); and MvsimBatchEnv's copies
(BATCH_COPIES of them, one and two threads) beside MvsimVectorEnv's, with and without the lidar.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from mvsim_ros.bench.paths import WORLDS

#: One differential robot with a 181-ray lidar over 180 deg, 20 m, at 20 Hz (bench.node.write_worlds' world).
GYM_WORLD = WORLDS / "bench" / "differential_1_lidar.world.xml"
#: Simulated seconds per env step [s].
STEP_S = 0.05
#: Copies of the vector case.
VECTOR_ENVS = 8
#: The same robot without its lidar.
NO_LIDAR_WORLD = WORLDS / "bench" / "differential_1.world.xml"
#: Copies of the batched cases.
BATCH_COPIES = (1, 16, 64, 256, 1024)


def measure_env(wall_seconds: float, seed: int = 0) -> int:
    """Env steps one MvsimEnv takes in `wall_seconds` [s] with random actions (resets, when an episode ends, are
    counted in the time)."""
    from mvsim_ros.gym import MvsimEnv

    env = MvsimEnv(GYM_WORLD, step_s=STEP_S)
    env.action_space.seed(seed)
    env.reset(seed=seed)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < wall_seconds:
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        steps += 1
        if terminated or truncated:
            env.reset()
    return steps


def measure_vector(wall_seconds: float, num_envs: int = VECTOR_ENVS, seed: int = 0) -> int:
    """Env steps (over all copies) a vector of `num_envs` envs takes in `wall_seconds` [s] with random actions."""
    from mvsim_ros.gym import make_vector_env

    vector = make_vector_env(num_envs, world=GYM_WORLD, step_s=STEP_S)
    vector.action_space.seed(seed)
    vector.reset(seed=seed)
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < wall_seconds:
        vector.step(vector.action_space.sample())
        calls += 1
    vector.close()
    return calls * num_envs


def measure_copies(wall_seconds: float, num_envs: int, lidar: bool = True, threads: int | None = 1,
                   batched: bool = True, seed: int = 0) -> float:
    """Env steps per second (over all copies) of `num_envs` copies of the bench world (`lidar`: with its 181-ray
    lidar, else NO_LIDAR_WORLD) stepped with random actions for at least `wall_seconds` [s] (and two steps):
    MvsimBatchEnv with `threads` threads (`batched`), else MvsimVectorEnv. Building and the first reset are not
    timed; autoresets are."""
    from mvsim_ros.gym import MvsimBatchEnv, make_vector_env

    world = GYM_WORLD if lidar else NO_LIDAR_WORLD
    if batched:
        envs = MvsimBatchEnv(world, num_envs, step_s=STEP_S, threads=threads, copy=False)
    else:
        envs = make_vector_env(num_envs, world=world, step_s=STEP_S)
    envs.action_space.seed(seed)
    envs.reset(seed=seed)
    actions = [envs.action_space.sample() for _ in range(16)]
    envs.step(actions[0])
    calls, start = 0, time.perf_counter()
    while calls < 2 or time.perf_counter() - start < wall_seconds:
        envs.step(actions[calls % len(actions)])
        calls += 1
    wall = time.perf_counter() - start
    envs.close()
    return calls * num_envs / wall


def batch_table(seconds: float, repeat: int, copies: tuple[int, ...] = BATCH_COPIES,
                out=print) -> list[tuple[int, bool, float, float, float]]:
    """Print (through `out`) and return (copies, lidar, MvsimBatchEnv on 1 thread, on 2 threads, MvsimVectorEnv)
    env steps per second over all copies, median of `repeat` runs of `seconds` [s] per case."""
    out(f"\nBatched copies: MvsimBatchEnv (one compiled call per env step, 1 and 2 threads) beside MvsimVectorEnv, "
        f"{GYM_WORLD.relative_to(WORLDS.parent)} with and without its lidar, {STEP_S:g} s per step, random actions; "
        f"env-steps/s over all copies, median of {repeat} runs of {seconds:g} s")
    out(f"\n{'copies':>7} {'lidar':>6} {'batch 1 thread':>15} {'batch 2 threads':>16} {'vector':>10}")
    rows = []
    for lidar in (True, False):
        for count in copies:
            rates = [statistics.median(measure_copies(seconds, count, lidar, threads, threads is not None)
                                       for _ in range(max(1, repeat))) for threads in (1, 2, None)]
            rows.append((count, lidar, *rates))
            out(f"{count:>7} {'yes' if lidar else 'no':>6} {rates[0]:>15,.0f} {rates[1]:>16,.0f} {rates[2]:>10,.0f}")
    return rows


def measure_physics(simulated_seconds: float, compiled: bool = False) -> float:
    """Wall time [s] Simulation.run takes for `simulated_seconds` [s] of the same world (the robot on a constant
    twist, no sensors); `compiled`: Simulation.step_many instead, in batches of one env step (as the env steps)."""
    from mvsim_ros.physics import Simulation
    from mvsim_ros.world import load_world

    sim = Simulation(load_world(GYM_WORLD))
    sim.set_twist(0, 0.5, 0.2)
    per_step = int(round(STEP_S / sim.dt))
    batches = int(round(simulated_seconds / STEP_S))
    sim.step_many(per_step)  # the compiled steps' first call outside the timing
    start = time.perf_counter()
    if compiled:
        for _ in range(batches):
            sim.step_many(per_step)
    else:
        sim.run(simulated_seconds)
    return time.perf_counter() - start


def gym_rates(wall_seconds: float) -> tuple[float, float, float, float]:
    """One run: env steps/s of one env, of the vector of 8 (all copies), and those the physics alone would allow
    (the env's simulated time over the wall time Simulation.run, then step_many, take for it)."""
    env_steps = measure_env(wall_seconds)
    vector_steps = measure_vector(wall_seconds)
    run_wall = measure_physics(env_steps * STEP_S)
    compiled_wall = measure_physics(env_steps * STEP_S, compiled=True)
    return env_steps / wall_seconds, vector_steps / wall_seconds, env_steps / run_wall, env_steps / compiled_wall


def gym_table(seconds: float, repeat: int, out=print) -> list[tuple[str, float]]:
    """Print (through `out`) and return (case, env steps per second), median of `repeat` runs of `seconds` [s]
    (wall time) per case."""
    runs = [gym_rates(seconds) for _ in range(max(1, repeat))]
    rates = [statistics.median(column) for column in zip(*runs)]
    cases = ["one env", f"vector of {VECTOR_ENVS} (all copies)", "physics alone (Simulation.run)",
             "physics alone (step_many, per env step)"]
    out(f"Gymnasium env steps (mvsim_ros.gym, no ROS): {GYM_WORLD.relative_to(WORLDS.parent)} (1 robot, 181-ray "
        f"2D lidar), {STEP_S:g} s per step, random actions; median of {repeat} runs of {seconds:g} s")
    out(f"\n{'case':<40} {'env-steps/s':>12} {'x real time':>12}")
    for case, rate in zip(cases, rates):
        out(f"{case:<40} {rate:>12,.0f} {rate * STEP_S:>12.1f}")
    return list(zip(cases, np.asarray(rates, dtype=float).tolist()))


__all__ = ["BATCH_COPIES", "GYM_WORLD", "NO_LIDAR_WORLD", "STEP_S", "VECTOR_ENVS", "batch_table", "gym_rates",
           "gym_table", "measure_copies", "measure_env", "measure_physics", "measure_vector"]
