"""Keyboard teleop in a real terminal: `mvsim_teleop` (and teleop_twist_keyboard when installed) runs in a
detached tmux session, keys are typed with `tmux send-keys`, and the robot's odometry from the simulator
(demo_2robots, real time) shows what a held and a tapped key do."""

from __future__ import annotations

import importlib.util
import math
import os
import shlex
import shutil
import subprocess
import sys
import time

import pytest
import rclpy
from nav_msgs.msg import Odometry

from conftest import DEMO_WORLD
from dds_probe import ProbeNode, node_command, stop_process

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (apt-get install tmux)")


def _teleop_commands() -> list:
    ours = pytest.param([sys.executable, "-m", "mvsim_ros.cli.teleop"], id="mvsim_teleop")
    real_available = importlib.util.find_spec("teleop_twist_keyboard") is not None
    real = pytest.param([sys.executable, "-m", "teleop_twist_keyboard"], id="teleop_twist_keyboard",
                        marks=pytest.mark.skipif(not real_available,
                                                 reason="teleop_twist_keyboard is not installed (no wheel exists)"))
    return [ours, real]


class Tmux:
    """A tmux server of our own (socket `-L name`) running one command in a detached session."""

    def __init__(self, name: str):
        self.base = ["tmux", "-L", name]

    def start(self, command: list[str]) -> None:
        env = f"ROS_DOMAIN_ID={os.environ['ROS_DOMAIN_ID']}"
        line = f"env {env} {shlex.join(command)}"
        subprocess.run(self.base + ["new-session", "-d", "-s", "teleop", "-x", "100", "-y", "30", line], check=True)

    def keys(self, *keys: str) -> None:
        subprocess.run(self.base + ["send-keys", "-t", "teleop", "-l", *keys], check=True)

    def screen(self) -> str:
        result = subprocess.run(self.base + ["capture-pane", "-p", "-t", "teleop"], capture_output=True, text=True)
        return result.stdout

    def kill(self) -> None:
        subprocess.run(self.base + ["kill-server"], capture_output=True)


class OdomProbe(ProbeNode):
    """Records r1's odometry with the wall time [s] (time.monotonic) each message arrived."""

    def __init__(self, context):
        super().__init__(context, "teleop_probe")
        self.odom: list[tuple[float, Odometry]] = []
        self.node.create_subscription(Odometry, "/r1/odom", lambda m: self.odom.append((time.monotonic(), m)), 100)

    def spin_until(self, wall_time: float) -> None:
        self.spin_for(max(0.0, wall_time - time.monotonic()))


@pytest.fixture
def session(request):
    """Simulator on demo_2robots (real time) + a probe + the teleop (the test's parameter) in tmux, ready."""
    proc = subprocess.Popen(node_command(f"world_file:={DEMO_WORLD}", "realtime_factor:=1.0"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = OdomProbe(context)
    tmux = Tmux(f"mvsim_teleop_test_{os.getpid()}")
    try:
        assert probe.wait_for(lambda: probe.odom, 30.0), "no /r1/odom from the simulator"
        tmux.start(request.param + ["--ros-args", "-r", "cmd_vel:=/r1/cmd_vel"])
        assert probe.wait_for(lambda: probe.node.count_subscribers("/r1/cmd_vel") > 0
                              and probe.node.count_publishers("/r1/cmd_vel") > 0, 20.0), \
            f"teleop did not come up; its screen:\n{tmux.screen()}"
        probe.spin_for(1.0)  # the teleop switches its terminal to raw mode right after advertising
        _check_key_path(probe, tmux)
        yield probe, tmux
    finally:
        tmux.kill()
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_process(proc)


def _speed(msg: Odometry) -> float:
    return math.hypot(msg.twist.twist.linear.x, msg.twist.twist.linear.y)


def _check_key_path(probe: OdomProbe, tmux: Tmux, timeout: float = 20.0) -> None:
    """Make sure keys reach the simulator before a test measures anything: the graph shows the teleop's publisher
    as soon as the probe discovers it, which on a loaded machine can be before the simulator's subscription has
    matched it, and a key's single message sent before that match is lost (volatile QoS, as with
    teleop_twist_keyboard). So press `i` until r1 moves, then `k` (stop) until it stands still again."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tmux.keys("i")
        if probe.wait_for(lambda: _speed(probe.odom[-1][1]) > 0.1, 2.0):
            break
    else:
        raise AssertionError(f"no key moved r1 within {timeout:.0f} s; the teleop's screen:\n{tmux.screen()}")
    while time.monotonic() < deadline:
        tmux.keys("k")
        probe.spin_for(0.5)
        if probe.wait_for(lambda: _speed(probe.odom[-1][1]) < 0.005, 2.0):
            probe.spin_for(0.3)
            return
    raise AssertionError("r1 did not stop on the teleop's stop key")


#: Allowance [s] for a key to go from `tmux send-keys` through the teleop and DDS into the simulator.
KEY_LATENCY_S = 0.1


@pytest.mark.parametrize("session", _teleop_commands(), indirect=True)
def test_a_held_key_drives_without_stopping(session):
    """A held key: the terminal sends it once, then (after its repeat delay, 500 ms) every 30 ms; the robot keeps
    moving at more than half the 0.5 m/s command from the first repeat to the end."""
    probe, tmux = session
    tmux.keys("i")
    first_repeat = time.monotonic() + 0.5
    probe.spin_until(first_repeat)
    end = first_repeat + 2.0
    while time.monotonic() < end:
        tmux.keys("i")
        probe.spin_until(min(end, time.monotonic() + 0.03))
    held = [(t, _speed(m)) for t, m in probe.odom if first_repeat + KEY_LATENCY_S <= t <= end]
    assert len(held) > 50, f"only {len(held)} odometry messages while the key was held"
    slowest = min(held, key=lambda sample: sample[1])
    assert slowest[1] > 0.25, (f"the robot slowed to {slowest[1]:.3f} m/s at {slowest[0] - first_repeat:.2f} s after "
                               "the first repeat while the key was held")


@pytest.mark.parametrize("session", _teleop_commands(), indirect=True)
def test_a_tapped_key_moves_for_one_watchdog_period(session):
    """One key press: 0.5 m/s until the simulator's watchdog (base_watchdog_timeout, 1 s by default) stops the
    robot; 3 s later it has moved 0.4-0.7 m and stands still."""
    probe, tmux = session
    start = probe.odom[-1][1].pose.pose.position
    tmux.keys("i")
    probe.spin_for(3.0)
    t_last, last = probe.odom[-1]
    moved = math.hypot(last.pose.pose.position.x - start.x, last.pose.pose.position.y - start.y)
    assert 0.4 <= moved <= 0.7, f"one tap moved the robot {moved:.3f} m (expected 0.4-0.7 m)"
    assert _speed(last) < 0.05, f"still moving at {_speed(last):.3f} m/s 3 s after a single tap"
