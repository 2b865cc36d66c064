"""Start-up of the node as a user meets it: every failure is one line on stderr and exit status 2, never a
traceback; integer values are accepted for floating-point parameters."""

from __future__ import annotations

import os
import subprocess
import time

import pytest
import rclpy
from rosgraph_msgs.msg import Clock

from conftest import DEMO_WORLD
from dds_probe import ProbeNode, node_command

START_TIMEOUT_S = 60.0

_TWO_VEHICLES = """<mvsim_world version="1.0">
  <vehicle:class name="bot"><dynamics class="differential"/></vehicle:class>
  <vehicle name="{name}" class="bot"/>
  <vehicle name="{other}" class="bot"><init_pose>3 0 0</init_pose></vehicle>
</mvsim_world>
"""


def _run(*params: str, cwd=None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("AMENT_PREFIX_PATH", None)  # as in a plain venv: no ament index to look relative paths up in
    return subprocess.run(node_command(*params), capture_output=True, text=True, timeout=START_TIMEOUT_S,
                          cwd=cwd, env=env)


def _unreadable_file(tmp_path):
    """A regular file that cannot be read: mode 000, or (as root, whom modes do not stop) a /proc file whose
    read fails."""
    if os.geteuid() == 0:
        return "/proc/self/mem"
    path = tmp_path / "secret.world.xml"
    path.write_text("<mvsim_world/>")
    path.chmod(0)
    return str(path)


def _failures(tmp_path):
    broken = tmp_path / "broken.world.xml"
    broken.write_text('<mvsim_world version="1.0">\n  <vehicle name="a" class="nope"/>\n</mvsim_world>\n')
    empty = tmp_path / "empty.world.xml"
    empty.write_text("")
    bad_name = tmp_path / "bad_name.world.xml"
    bad_name.write_text(_TWO_VEHICLES.format(name="my-robot", other="my_robot"))  # the same ROS name
    folder = tmp_path / "a_directory"
    folder.mkdir()
    return {
        "broken world": ([f"world_file:={broken}"], [f"{broken}:2", "<vehicle>", "nope"]),
        "empty world": ([f"world_file:={empty}"], [str(empty), "the file is empty"]),
        "directory": ([f"world_file:={folder}"], [str(folder), "directory"]),
        "unreadable file": ([f"world_file:={_unreadable_file(tmp_path)}"], ["cannot read"]),
        "missing relative path": (["world_file:=no/such/world.xml"], ["no/such/world.xml", "not found"]),
        "bad vehicle name": ([f"world_file:={bad_name}"], [f"{bad_name}:4", f"{bad_name}:3", "'my-robot'",
                                                           "'my_robot'", "rename"]),
        "non-numeric float parameter": ([f"world_file:={DEMO_WORLD}", "realtime_factor:=fast"],
                                        ["realtime_factor", "number"]),
        "negative rate": ([f"world_file:={DEMO_WORLD}", "simul_rate:=-5.0"], ["simul_rate", "> 0"]),
        "negative seed": ([f"world_file:={DEMO_WORLD}", "random_seed:=-1"], ["random_seed"]),
    }


@pytest.mark.parametrize("case", ["broken world", "empty world", "directory", "unreadable file",
                                  "missing relative path", "bad vehicle name", "non-numeric float parameter",
                                  "negative rate", "negative seed"])
def test_start_failure_is_one_line_and_exit_2(case, tmp_path):
    params, expected = _failures(tmp_path)[case]
    result = _run(*params, cwd=tmp_path)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("mvsim_node: ")
    for text in expected:
        assert text in lines[0], lines[0]


def test_a_vehicle_name_that_is_no_ros_name_is_published_under_a_valid_one(tmp_path, probe):
    """MVSim's own worlds name vehicles '01a_truck'; 'my-robot' is common too: their topics go under
    '_01a_truck/', 'my_robot/' with one warning each, and the node runs."""
    from nav_msgs.msg import Odometry

    world = tmp_path / "names.world.xml"
    world.write_text(_TWO_VEHICLES.format(name="my-robot", other="01a_truck"))
    heard = set()
    for topic in ("/my_robot/odom", "/_01a_truck/odom"):
        probe.node.create_subscription(Odometry, topic, lambda m, t=topic: heard.add(t), 10)
    proc = subprocess.Popen(node_command(f"world_file:={world}"), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert probe.wait_for(lambda: len(heard) == 2, START_TIMEOUT_S), heard
    finally:
        proc.terminate()
        _, stderr = proc.communicate(timeout=20)
    assert "vehicle 'my-robot' is published as 'my_robot'" in stderr
    assert "vehicle '01a_truck' is published as '_01a_truck'" in stderr
    assert "Traceback" not in stderr


@pytest.fixture
def probe():
    context = rclpy.Context()
    rclpy.init(context=context)
    node = ProbeNode(context, "startup_probe")
    yield node
    node.node.destroy_node()
    rclpy.shutdown(context=context)


def test_integer_realtime_factor_zero_runs_as_fast_as_possible(probe):
    """`-p realtime_factor:=0` is an integer on the command line: accepted as 0.0, so simulated time runs ahead
    of the wall clock (real time would give at most 1 s per s). Other float parameters take ints too."""
    stamps = []
    probe.node.create_subscription(Clock, "/clock", lambda m: stamps.append((time.monotonic(), m.clock)), 10)
    proc = subprocess.Popen(node_command(f"world_file:={DEMO_WORLD}", "realtime_factor:=0", "simul_rate:=50",
                                         "base_watchdog_timeout:=1"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert probe.wait_for(lambda: len(stamps) > 0, START_TIMEOUT_S), "no /clock from the node"
        probe.spin_for(3.0)
    finally:
        proc.terminate()
        _, stderr = proc.communicate(timeout=20)
    (wall0, clock0), (wall1, clock1) = stamps[0], stamps[-1]
    sim_elapsed = (clock1.sec - clock0.sec) + 1e-9 * (clock1.nanosec - clock0.nanosec)
    assert sim_elapsed > 1.5 * (wall1 - wall0)
    assert "Traceback" not in stderr
    assert proc.returncode == 0
