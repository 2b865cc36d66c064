"""The simulator node as a separate process for the node benchmarks: started with parameters, stopped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def default_domain_id() -> None:
    """Give this process and the node processes it starts a ROS_DOMAIN_ID of their own (from the process id)
    unless one is set, so that a benchmark does not talk to other ROS programs on the machine."""
    os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))


def start_node(*params: str) -> subprocess.Popen:
    """`mvsim_node` (its console script next to this Python, else the module) with `name:=value` parameters, its
    output discarded."""
    script = Path(sys.executable).parent / "mvsim_node"
    base = [str(script)] if script.exists() else [sys.executable, "-m", "mvsim_ros.ros.node.process"]
    args = [arg for param in params for arg in ("-p", param)]
    return subprocess.Popen(base + ["--ros-args", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop_node(proc: subprocess.Popen, timeout_s: float = 20.0) -> None:
    """SIGTERM the node and wait for it; SIGKILL it after `timeout_s` [s]."""
    proc.terminate()
    try:
        proc.wait(timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


__all__ = ["default_domain_id", "start_node", "stop_node"]
