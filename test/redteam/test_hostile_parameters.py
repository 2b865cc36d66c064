"""Red team, node parameters (issue 11): each hostile value is refused by the real `mvsim_node` process with exit
status 2 and exactly one line on stderr naming the parameter, never a traceback; integers where numbers are
expected, and the load_ budgets, work."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from conftest import DEMO_WORLD
from dds_probe import node_command

START_TIMEOUT_S = 60.0


def _unwritable_dir(tmp_path) -> str:
    """A directory where no log session can be created: mode 500, or (as root, whom modes do not stop) /sys."""
    if os.geteuid() == 0:
        return "/sys"
    path = tmp_path / "read_only"
    path.mkdir()
    path.chmod(0o500)
    return str(path)


def _a_file(tmp_path) -> str:
    path = tmp_path / "a_file"
    path.write_text("not a directory")
    return str(path)


#: Case name: the parameter overrides, given the test's temporary directory (the world is the demo world unless
#: the case sets world_file); the first one names the parameter the message must name.
HOSTILE = {
    "negative seed": lambda d: ("random_seed:=-1",),
    "fractional seed": lambda d: ("random_seed:=1.5",),
    "seed beyond int64": lambda d: ("random_seed:=9223372036854775808",),
    "word for a number": lambda d: ("realtime_factor:=fast",),
    "empty world_file": lambda d: ("world_file:=",),
    "blank world_file": lambda d: ("world_file:=' '",),
    "log_dir inside /proc": lambda d: ("log_dir:=/proc/mvsim_logs",),
    "log_dir is /proc": lambda d: ("log_dir:=/proc",),
    "log_dir is a file": lambda d: (f"log_dir:={_a_file(d)}",),
    "log_dir under a file": lambda d: (f"log_dir:={_a_file(d)}/logs",),
    "log_dir not writable": lambda d: (f"log_dir:={_unwritable_dir(d)}",),
    "negative log_period": lambda d: ("log_period:=-1",),
    "NaN log_period": lambda d: ("log_period:=.nan",),
    "infinite status_period": lambda d: ("status_period:=.inf",),
    "zero simul_rate": lambda d: ("simul_rate:=0",),
    "number for a boolean": lambda d: ("headless:=3",),
    "string for a boolean": lambda d: ("use_stamped_cmd_vel:=maybe",),
    "zero load budget": lambda d: ("load_max_elements:=0",),
    "negative load budget": lambda d: ("load_max_file_bytes:=-5",),
    "fractional load budget": lambda d: ("load_max_loop_iterations:=1.5",),
    "word for a load budget": lambda d: ("load_max_image_pixels:=many",),
}


def _run(*params: str) -> subprocess.CompletedProcess:
    if not any(p.startswith("world_file:=") for p in params):
        params = (f"world_file:={DEMO_WORLD}",) + params
    return subprocess.run(node_command(*params), capture_output=True, text=True, timeout=START_TIMEOUT_S)


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_parameter_is_one_line_and_exit_2(case, tmp_path):
    params = HOSTILE[case](tmp_path)
    name = params[0].split(":=")[0]
    result = _run(*params)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("mvsim_node: "), lines[0]
    assert name in lines[0], lines[0]


def test_a_load_budget_parameter_reaches_the_loader():
    """load_max_elements:=10 refuses the demo world (far more elements), naming the node parameter."""
    result = _run("load_max_elements:=10")
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1 and "load_max_elements" in lines[0], result.stderr


def test_integers_for_numbers_and_load_budgets_start_the_node(tmp_path):
    """Integers for every kind of floating-point parameter, and raised load budgets: the node starts, logs, and
    stops on SIGINT with status 0."""
    log_dir = tmp_path / "logs"
    proc = subprocess.Popen(
        node_command(f"world_file:={DEMO_WORLD}", "realtime_factor:=2", "simul_rate:=50", "base_watchdog_timeout:=1",
                     "odometry_publish_rate:=20", "clock_publish_rate:=10", "status_period:=0", "log_period:=1",
                     f"log_dir:={log_dir}", "footprint_publish_rate:=0", "load_max_elements:=2000000",
                     "load_max_file_bytes:=1000000"),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + START_TIMEOUT_S
    while not list(log_dir.glob("session-*/*_pose.csv")) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert "realtime_factor=2" in stderr
    assert list(log_dir.glob("session-*/r1_pose.csv"))
