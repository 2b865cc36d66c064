"""Style: flake8 over the package, tests, launch files and setup.py (settings in setup.cfg)."""

import subprocess
import sys

from conftest import REPO


def test_flake8_reports_nothing():
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "mvsim_ros", "test", "launch", "setup.py"],
        cwd=REPO, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
