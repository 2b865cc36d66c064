"""A `foxglove_port` already in use ends the start-up with one line naming the address and the parameter to change,
exit status 2, no traceback."""

from __future__ import annotations

import socket
import subprocess

import pytest

from conftest import DEMO_WORLD
from dds_probe import node_command

#: [s] the node may take to start and fail.
START_TIMEOUT_S = 120


def test_a_taken_foxglove_port_is_one_line_and_exit_2():
    pytest.importorskip("foxglove")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = subprocess.run(node_command(f"world_file:={DEMO_WORLD}", "headless:=true", "foxglove:=true",
                                             f"foxglove_port:={port}"),
                                capture_output=True, text=True, timeout=START_TIMEOUT_S)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2, result.stderr
    errors = [line for line in lines if not line.startswith("[WARN]")]  # the machine's own start-up warnings
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith("mvsim_node: ") and f"127.0.0.1:{port}" in errors[0], errors[0]
    assert "foxglove_port" in errors[0], errors[0]
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
