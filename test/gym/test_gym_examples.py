"""The README's two policy commands: random actions end their episode; the scripted policy reaches every goal."""

import subprocess
import sys


def run(which: str) -> list[str]:
    result = subprocess.run([sys.executable, "-m", "mvsim_ros.gym.examples", which], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_the_scripted_policy_reaches_the_goal_of_every_episode():
    lines = run("goal")
    assert len(lines) == 3 and all(line.endswith("reached the goal: True") for line in lines)


def test_the_random_policy_runs_one_episode():
    lines = run("random")
    assert len(lines) == 1 and lines[0].startswith("random policy, seed 42:")
