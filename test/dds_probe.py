"""Helpers for tests that run the node in a separate process and probe it over real DDS."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import rclpy

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))

REPO = Path(__file__).resolve().parents[1]
#: The two-robot demo world most node tests run.
DEMO_WORLD = REPO / "worlds" / "demo_2robots.world.xml"


def node_command(*params: str) -> list[str]:
    """Command line starting the node (its console script when installed) with `name:=value` parameters."""
    script = Path(sys.executable).parent / "mvsim_node"
    base = [str(script)] if script.exists() else [sys.executable, "-m", "mvsim_ros.ros.node.process"]
    args = ["--ros-args"]
    for p in params:
        args += ["-p", p]
    return base + args


def start_node(log_dir: Path, *params: str, world: Path = DEMO_WORLD) -> tuple[subprocess.Popen, Path]:
    """The node on `world`, headless, with `name:=value` parameters, in a subprocess whose output (stdout and
    stderr) goes to log_dir/node.log (beside the test's files); (process, log path)."""
    log = log_dir / "node.log"
    proc = subprocess.Popen(node_command(f"world_file:={world}", "headless:=true", *params),
                            stdout=log.open("wb"), stderr=subprocess.STDOUT)
    return proc, log


def stamp_s(msg) -> float:
    """A message's header stamp [s]."""
    return msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec


class ProbeNode:
    """A test node with its own executor: spin for a while (optionally publishing) or until a condition holds."""

    def __init__(self, context, name: str):
        self.node = rclpy.create_node(name, context=context)
        self.executor = rclpy.executors.SingleThreadedExecutor(context=context)
        self.executor.add_node(self.node)

    def spin_for(self, seconds: float, publish=None, rate_hz: float = 20.0) -> None:
        """Spin `seconds` of wall time, calling `publish()` at `rate_hz` when given."""
        end = time.monotonic() + seconds
        next_pub = time.monotonic()
        while time.monotonic() < end:
            if publish is not None and time.monotonic() >= next_pub:
                publish()
                next_pub += 1.0 / rate_hz
            self.executor.spin_once(timeout_sec=0.005)

    def wait_for(self, condition, timeout: float) -> bool:
        """Spin until condition() is true or `timeout` [s] passes; returns condition()."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if condition():
                return True
            self.executor.spin_once(timeout_sec=0.02)
        return condition()


@contextlib.contextmanager
def node_and_probe(probe_name: str, *params: str):
    """Run the node (parameters `name:=value`) in a subprocess and a ProbeNode in a fresh context; both are
    shut down on exit."""
    proc = subprocess.Popen(node_command(*params), stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, probe_name)
    try:
        yield probe
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_process(proc)


def stop_process(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """SIGTERM a process if it still runs and wait for it; SIGKILL it after `timeout` [s]."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
