"""The training example (python -m mvsim_ros.gym.training) on a tiny budget: it starts, writes its results and
policy, and the trained policy does clearly better than the untrained one on the same fixed evaluation seeds. It
runs in a process of its own, as a user runs it (JAX's threads stay out of the test process, which other tests
fork)."""

from __future__ import annotations

import json
import subprocess
import sys

#: Env steps of the tiny run (8 copies x 2048 steps: 32 PPO updates of 64 steps per copy).
TINY_STEPS = 16_384
#: Evaluation episodes before and after (seeded training.EVAL_SEED, +1, ...).
EPISODES = 10


def test_a_tiny_training_run_improves_the_policy(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mvsim_ros.gym.training", "--steps", str(TINY_STEPS), "--seed", "0",
                           "--episodes", str(EPISODES), "--output", str(tmp_path)], capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    saved = json.loads((tmp_path / "result.json").read_text())
    assert (tmp_path / "policy.pickle").stat().st_size > 0
    assert saved["config"]["steps"] == TINY_STEPS and saved["result"]["steps"] == TINY_STEPS
    before, after = saved["result"]["before"], saved["result"]["after"]
    # a return is the distance gained toward the goal [m], -0.01 per step, +10 on arrival, -10 on a collision: a
    # mean improvement of 5 over 10 fixed episodes is metres of progress or collisions avoided in most of them, not
    # noise of the policy's initial weights
    assert after["mean_return"] >= before["mean_return"] + 5.0, (before, after)
    assert after["success_rate"] >= before["success_rate"], (before, after)
