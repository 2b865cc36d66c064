"""Red team, command-line tools (issue 27): `mvsim_teleop` given a parameter of the wrong type or value ends with
one line on stderr and exit status 2, never a traceback; right values still start it.

Each run has a pseudo-terminal as its standard input, so that a refusal is the parameter's doing, not the missing
terminal's (which is refused with status 2 as well).
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

import pytest

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))

#: Longest wait [s] for one teleop process (imports rclpy, starts a DDS participant).
RUN_TIMEOUT_S = 60


def teleop(*params: str, keys: bytes = b"", stdin_tty: bool = True) -> tuple[int, str, str]:
    """Run `python -m mvsim_ros.cli.teleop --ros-args -p ...`; type `keys` once it has printed its help (when it
    does). Returns (exit status, stdout, stderr)."""
    args = [sys.executable, "-m", "mvsim_ros.cli.teleop", "--ros-args"]
    for param in params:
        args += ["-p", param]
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(args, stdin=slave if stdin_tty else subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        os.close(slave)
        slave = -1
        if keys:
            _type_when_ready(proc, master, keys)
        out, err = proc.communicate(timeout=RUN_TIMEOUT_S)
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def _type_when_ready(proc: subprocess.Popen, master: int, keys: bytes) -> None:
    """Wait (bounded) for the teleop to put its terminal in raw mode, then type `keys` on it."""
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while time.monotonic() < deadline and proc.poll() is None:
        ready, _, _ = select.select([proc.stdout], [], [], 0.1)
        if ready:
            break
    time.sleep(0.5)  # the help is printed just before tty.setraw
    os.write(master, keys)


@pytest.mark.parametrize("param, expected", [
    ("speed:=abc", "parameter 'speed' = 'abc': expected a number"),
    ("speed:=[1.0, 2.0]", "parameter 'speed' = [1.0, 2.0]: expected a number"),
    ("turn:=[1,2]", "parameter 'turn' = [1, 2]: expected a number"),
    ("turn:=true", "parameter 'turn' = True: expected a number"),
    ("speed:=-0.5", "parameter 'speed' = -0.5: must be > 0"),
    ("turn:=.nan", "parameter 'turn' = nan: must be finite"),
    ("stamped:=maybe", "parameter 'stamped' = 'maybe': expected a boolean"),
    ("stamped:=1", "parameter 'stamped' = 1: expected a boolean"),
    ("frame_id:=[a, b]", "parameter 'frame_id' = ['a', 'b']: expected a string"),
    ("speed:=", "parameter 'speed' has no value (-p speed:=)"),
])
def test_a_wrong_parameter_is_one_line_and_exit_status_2(param, expected):
    status, out, err = teleop(param)
    assert (status, err) == (2, f"mvsim_teleop: {expected}\n"), (status, out, err)
    assert out == ""


def test_right_parameters_still_start_it_and_ctrl_c_ends_it():
    status, out, err = teleop("speed:=2", "turn:=1", "stamped:=true", "frame_id:=base_link", keys=b"\x03")
    assert (status, err) == (0, ""), (status, out, err)
    assert "speed 2.00 m/s, turn 1.00 rad/s" in out


def test_without_a_terminal_the_parameters_are_checked_first():
    assert teleop("speed:=abc", stdin_tty=False)[2] == "mvsim_teleop: parameter 'speed' = 'abc': expected a number\n"
    status, _, err = teleop("speed:=0.3", stdin_tty=False)
    assert (status, err) == (2, "mvsim_teleop: standard input is not a terminal; run it in one\n")
