"""Over real DDS: the simulator (seed car world), the trajectory tracker and the kinematic controller as three
processes with their default gains (Kp = 5, feed-forward, epsilon = PL_distance = 0.1 m); the car ends up on the
circle, the tracking error topic says so, the reference path is the circle, and all three stop cleanly on
SIGTERM."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import rclpy
from geometry_msgs.msg import Vector3Stamped
from nav_msgs.msg import Odometry, Path as PathMsg
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from conftest import REPO
from dds_probe import ProbeNode, node_command, stamp_s, stop_process

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))

WORLD = REPO / "worlds" / "seed002_car.world.xml"
RADIUS_M, RATE_RADPS = 2.0, 0.5  # the tracker's defaults: 1 m/s, one lap in 12.6 s of simulated time
LAP_S = 2.0 * math.pi / RATE_RADPS
GROUND_TRUTH = "base_pose_ground_truth"


def script_command(script: str, module: str, *args: str) -> list[str]:
    """A console script of the venv, or `python -m` its module when it is not installed."""
    path = Path(sys.executable).parent / script
    base = [str(path)] if path.exists() else [sys.executable, "-m", module]
    return base + ["--ros-args", *args]


def start(command: list[str], log: Path) -> tuple[subprocess.Popen, object]:
    handle = open(log, "w")
    return subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, cwd=REPO), handle


def test_tracker_controller_and_simulator_put_the_car_on_the_circle(tmp_path):
    remap = ["-r", f"odom:={GROUND_TRUTH}", "-p", "use_sim_time:=true"]
    commands = {
        "simulator": node_command(f"world_file:={WORLD}", "realtime_factor:=1.5", "headless:=true"),
        "tracker": script_command("mvsim_trajectory_tracker", "mvsim_ros.tracking.nodes.tracker_node", *remap,
                                  "-p", "trajectory_type:=circle", "-p", f"R:={RADIUS_M}", "-p", f"W:={RATE_RADPS}",
                                  "-p", "ramp_time:=1.0", "-p", "active:=true"),
        "controller": script_command("mvsim_car_kinematic_controller",
                                     "mvsim_ros.tracking.nodes.kinematic_controller_node",
                                     *remap, "-p", f"world_file:={WORLD}"),
    }
    processes = {name: start(cmd, tmp_path / f"{name}.log") for name, cmd in commands.items()}
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "tracking_probe")
    truth: list[Odometry] = []
    errors: list[Vector3Stamped] = []
    paths: list[PathMsg] = []
    probe.node.create_subscription(Odometry, f"/{GROUND_TRUTH}", truth.append, 50)
    probe.node.create_subscription(Vector3Stamped, "/tracking_error", errors.append, 50)
    latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    probe.node.create_subscription(PathMsg, "/reference_trajectory", paths.append, latched)

    def sim_time() -> float:
        return stamp_s(truth[-1]) if truth else 0.0

    try:
        started = probe.wait_for(lambda: bool(errors), timeout=60.0)
        logs = {name: (tmp_path / f"{name}.log").read_text() for name in processes}
        assert started, f"the tracker never published a tracking error; logs: {logs}"
        t_start = stamp_s(errors[0])
        assert probe.wait_for(lambda: sim_time() > t_start + 1.3 * LAP_S, timeout=90.0), "the simulation stalled"
        window = [m for m in truth if stamp_s(m) > t_start + 1.1 * LAP_S]
        assert len(window) > 20
        distances = [math.hypot(m.pose.pose.position.x, m.pose.pose.position.y - RADIUS_M) for m in window]
        assert max(abs(d - RADIUS_M) for d in distances) < 0.05, distances
        speeds = [m.twist.twist.linear.x for m in window]
        assert min(speeds) > 0.8 * RADIUS_M * RATE_RADPS  # driving round, not parked on the circle
        late_errors = [m.vector.z for m in errors if stamp_s(m) > t_start + 1.1 * LAP_S]
        assert late_errors and max(late_errors) < 0.05
        assert paths, "no reference_trajectory received"
        points = [(p.pose.position.x, p.pose.position.y) for p in paths[-1].poses]
        assert len(points) > 100 and all(abs(math.hypot(x, y - RADIUS_M) - RADIUS_M) < 1e-6 for x, y in points)
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        for process, handle in processes.values():
            stop_process(process)
            handle.close()
    codes = {name: process.returncode for name, (process, _) in processes.items()}
    assert codes == {"simulator": 0, "tracker": 0, "controller": 0}, codes
