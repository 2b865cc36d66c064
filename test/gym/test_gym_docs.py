"""docs/gym.md: its two Python snippets (a random policy, the scripted goal-reaching policy) run from the repository
root and print what the page says."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import REPO

DOC = REPO / "docs" / "gym.md"


def python_snippets() -> list[str]:
    """The ```python blocks of docs/gym.md, in order."""
    return re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), flags=re.S | re.M)


def run(snippet: str) -> str:
    result = subprocess.run([sys.executable, "-c", snippet], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_page_has_two_snippets():
    assert len(python_snippets()) == 2


def test_the_random_policy_runs_an_episode():
    out = run(python_snippets()[0])
    assert "'scan': (541,)" in out and "'goal': (3,)" in out, out
    assert "Box(-1.0, 1.0, (2,), float32)" in out and "action limits: [1. 2.]" in out, out
    found = re.search(r"^random policy: (\d+) steps, return (-?[0-9.]+), reached the goal: (True|False)$", out,
                      flags=re.M)
    assert found is not None, out
    assert 1 <= int(found.group(1)) <= 400


def test_the_scripted_policy_reaches_every_goal():
    out = run(python_snippets()[1])
    lines = re.findall(r"^seed (\d): goal ([0-9.]+) m away, reached: (True|False) after (\d+) steps \(([0-9.]+) s\)$",
                       out, flags=re.M)
    assert [int(seed) for seed, *_ in lines] == [0, 1, 2], out
    for _, distance, reached, steps, seconds in lines:
        assert 1.5 <= float(distance) <= 4.0 and reached == "True" and int(steps) < 400
        assert float(seconds) == round(int(steps) * 0.05, 1)
