"""The node writes the ground-truth trajectory files a world asks for (<save_ground_truth_trajectory>), as MVSim
does: one file per vehicle, a 't x y z qx qy qz qw' row every 1 / ground_truth_rate s of simulated time, with the
vehicle's true pose. Driven over real DDS; the files are read after the node stopped."""

from __future__ import annotations

import math
import signal
import subprocess

import rclpy
from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry

from conftest import robot_world_xml
from dds_probe import ProbeNode, node_command, stop_process

RATE_HZ = 10.0
SPEED_MPS = 0.5


def test_the_node_writes_each_vehicles_trajectory_at_the_worlds_rate(write_world, tmp_path):
    base = tmp_path / "out" / "gt.txt"
    base.parent.mkdir()
    extra = (f"<save_ground_truth_trajectory>{base}</save_ground_truth_trajectory>"
             f"<ground_truth_rate>{RATE_HZ:g}</ground_truth_rate>")
    world = write_world(robot_world_xml(extra=extra))
    proc = subprocess.Popen(node_command(f"world_file:={world}", "realtime_factor:=2.0", "headless:=true"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "ground_truth_files_probe")
    try:
        command = probe.node.create_publisher(Twist, "/cmd_vel", 10)
        truth: list[Odometry] = []
        probe.node.create_subscription(Odometry, "/base_pose_ground_truth", truth.append, 10)
        drive = Twist()
        drive.linear.x = SPEED_MPS

        def drove_far() -> bool:  # 1.5 m: well over a second at full speed, whenever discovery let it start
            command.publish(drive)
            probe.spin_for(0.05)
            return bool(truth) and truth[-1].pose.pose.position.x > 1.5

        assert probe.wait_for(drove_far, 30.0), "r1 did not drive 1.5 m"
        proc.send_signal(signal.SIGINT)  # a clean stop closes (flushes) the files
        assert proc.wait(timeout=20) == 0
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_process(proc)
    path = tmp_path / "out" / "gt.r1.txt"
    rows = [[float(v) for v in line.split()] for line in path.read_text().splitlines()]
    assert len(rows) >= 20, f"{len(rows)} rows"
    assert all(len(row) == 8 for row in rows)
    times = [row[0] for row in rows]
    steps = [b - a for a, b in zip(times, times[1:])]
    assert all(abs(s - 1.0 / RATE_HZ) < 0.0051 for s in steps), steps[:10]  # one row per 0.1 s, on the 5 ms steps
    for t, x, y, z, qx, qy, qz, qw in rows:
        assert math.isclose(qx * qx + qy * qy + qz * qz + qw * qw, 1.0, abs_tol=1e-5)
    # r1 drives straight ahead along x from the origin at the commanded speed while the commands come (it stops
    # once they end, before the node does): its fastest 1 s stretch is that speed.
    speeds = [(b[1] - a[1]) / (b[0] - a[0]) for a, b in zip(rows, rows[10:])]
    assert abs(max(speeds) - SPEED_MPS) < 0.05, speeds
    assert all(abs(row[2]) < 0.05 for row in rows)
