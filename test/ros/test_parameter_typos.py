"""Mistakes in how the node is started are said, once and plainly: a parameter name the node does not know
(`-p headles:=false`) gets one warning naming the closest known parameter (10,000 unknown names give a few
lines, not 10,000), and a viewer port that is taken is a user error (one line on stderr, exit status 2), not an
internal one."""

from __future__ import annotations

import os
import socket
import subprocess
import time

import pytest

from conftest import DEMO_WORLD
from dds_probe import node_command, stop_process
from mvsim_ros.ros.node.parameters import PARAMETERS, unknown_parameter_warnings
from mvsim_ros.world.warning_summary import SHOWN_PER_KIND

START_TIMEOUT_S = 60.0


def test_close_names_are_suggested_and_known_ones_pass():
    known = set(PARAMETERS) | {"use_sim_time"}
    warnings = unknown_parameter_warnings(["headles", "realtime_factr", "use_sim_time", "world_file", "zzz_qq"],
                                          known.__contains__)
    assert warnings == [
        "unknown parameter 'headles' is ignored; did you mean 'headless'?",
        "unknown parameter 'realtime_factr' is ignored; did you mean 'realtime_factor'?",
        "unknown parameter 'zzz_qq' is ignored (the node's parameters: docs/ros-interface.md)",
    ]


def test_many_unknown_names_give_the_first_few_and_one_line_counting_the_rest():
    known = set(PARAMETERS) | {"use_sim_time"}
    given = [f"x{k}" for k in range(10_000)] + ["headles", "world_file"]
    warnings = unknown_parameter_warnings(given, known.__contains__)
    assert warnings[:SHOWN_PER_KIND] == [
        "unknown parameter 'headles' is ignored; did you mean 'headless'?",
        "unknown parameter 'x0' is ignored (the node's parameters: docs/ros-interface.md)",
        "unknown parameter 'x1' is ignored (the node's parameters: docs/ros-interface.md)",
    ]
    assert warnings[SHOWN_PER_KIND:] == [
        "... and 9,998 more unknown parameters are ignored (names: x10, x100, x1000, x1001, x1002, "
        "... 9,998 different names)"]


def _stderr_until_started(*params: str, extra_args: tuple[str, ...] = (),
                          env_extra: dict[str, str] | None = None) -> tuple[list[str], int | None]:
    """Start the node, collect its stderr lines until it says how to drive it (it has started), then stop it."""
    env = dict(os.environ, RCUTILS_COLORIZED_OUTPUT="0", **(env_extra or {}))
    proc = subprocess.Popen([*node_command(*params), *extra_args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, env=env)
    lines: list[str] = []
    deadline = time.monotonic() + START_TIMEOUT_S
    try:
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
            if "drive it:" in line:
                break
    finally:
        stop_process(proc)
        lines += [ln for ln in proc.stderr.read().splitlines() if ln.strip()]
    return lines, proc.returncode


def test_a_misspelt_parameter_gets_one_warning_naming_the_right_one():
    lines, _ = _stderr_until_started(f"world_file:={DEMO_WORLD}", "headles:=false")
    assert any("drive it:" in line for line in lines), lines
    about = [line for line in lines if "headles" in line]
    assert len(about) == 1, lines
    assert "WARN" in about[0] and "'headless'" in about[0], about[0]


def test_10000_unknown_parameters_in_a_parameters_file_give_a_few_lines(tmp_path):
    params = tmp_path / "params.yaml"
    params.write_text("mvsim:\n  ros__parameters:\n" + "".join(f"    x{k}: 1\n" for k in range(10_000)))
    lines, _ = _stderr_until_started(f"world_file:={DEMO_WORLD}", extra_args=("--params-file", str(params)))
    assert any("drive it:" in line for line in lines), lines[-20:]
    about = [line for line in lines if "unknown parameter" in line]
    assert len(about) == SHOWN_PER_KIND + 1, about[:10]
    assert all("WARN" in line for line in about)
    assert ["'x0'" in about[0], "'x1'" in about[1], "'x10'" in about[2]] == [True] * 3, about  # in name order
    assert about[-1].endswith("... and 9,997 more unknown parameters are ignored (names: x100, x1000, x1001, x1002, "
                              "x1003, ... 9,997 different names)"), about[-1]
    assert len(lines) < 40, lines


def test_the_start_up_hint_names_mvsim_teleop_first():
    lines, _ = _stderr_until_started(f"world_file:={DEMO_WORLD}")
    hint = next(line for line in lines if "drive it:" in line)
    assert hint.index("mvsim_teleop") < hint.index("teleop_twist_keyboard"), hint
    assert "cmd_vel:=/r1/cmd_vel" in hint


@pytest.mark.parametrize("host", ["127.0.0.1"])
def test_a_taken_viewer_port_is_one_line_and_exit_2(host):
    pytest.importorskip("aiohttp")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind((host, 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = subprocess.run(node_command(f"world_file:={DEMO_WORLD}", "headless:=false",
                                             f"viewer_host:={host}", f"viewer_port:={port}"),
                                capture_output=True, text=True, timeout=START_TIMEOUT_S)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2, result.stderr
    # start-up warnings of the machine (e.g. no compiled Box2D shim) may come first; the failure is one line
    errors = [line for line in lines if not line.startswith("[WARN]")]
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith("mvsim_node: ") and f"{host}:{port}" in errors[0], errors[0]
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


def test_a_bad_scan_threads_setting_is_one_warning_of_the_node():
    lines, _ = _stderr_until_started(f"world_file:={DEMO_WORLD}", env_extra={"MVSIM_SCAN_THREADS": "bogus"})
    assert any("drive it:" in line for line in lines), lines
    about = [line for line in lines if "MVSIM_SCAN_THREADS" in line]
    assert len(about) == 1 and about[0].startswith("[WARN]") and "'bogus'" in about[0], about
