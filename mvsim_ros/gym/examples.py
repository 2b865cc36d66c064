"""Two policies on `mvsim/GoalReach-v0`, runnable from a shell (the README's commands):

    python -m mvsim_ros.gym.examples random     # random actions: one episode
    python -m mvsim_ros.gym.examples goal       # a proportional controller on the relative goal: three episodes

Each prints one line per episode: steps, return, whether the goal was reached. The random policy samples the
normalised action space; the controller speaks in physical units (action_units='physical').
"""

from __future__ import annotations

import math
import sys

import gymnasium
import numpy as np

import mvsim_ros.gym  # noqa: F401  (registers the mvsim/... ids)


def goal_policy(observation: dict) -> np.ndarray:
    """(v [m/s], w [rad/s]): turn toward the goal (given in the vehicle frame), drive when facing it."""
    dx, dy, _ = observation["goal"].tolist()
    bearing = math.atan2(dy, dx)
    v = min(1.0, 0.8 * math.hypot(dx, dy)) * max(0.0, math.cos(bearing))
    return np.array([v, 2.0 * bearing], dtype=np.float32)


def run_episode(env: gymnasium.Env, seed: int, policy=None) -> tuple[int, float, bool]:
    """One episode from reset(seed): (steps, return, goal reached); `policy(observation)` or random actions."""
    observation, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    steps, total = 0, 0.0
    while True:
        action = env.action_space.sample() if policy is None else policy(observation)
        observation, reward, terminated, truncated, info = env.step(action)
        steps, total = steps + 1, total + float(reward)
        if terminated or truncated:
            return steps, total, bool(info["is_success"])


def main(argv: list[str] | None = None) -> int:
    which = (argv if argv is not None else sys.argv[1:]) or ["goal"]
    if which[0] not in ("random", "goal"):
        print("usage: python -m mvsim_ros.gym.examples random|goal", file=sys.stderr)
        return 2
    units = "normalized" if which[0] == "random" else "physical"
    env = gymnasium.make("mvsim/GoalReach-v0", action_units=units)
    seeds = [42] if which[0] == "random" else [0, 1, 2]
    for seed in seeds:
        steps, total, reached = run_episode(env, seed, None if which[0] == "random" else goal_policy)
        print(f"{which[0]} policy, seed {seed}: {steps} steps, return {total:.2f}, reached the goal: {reached}")
    env.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
