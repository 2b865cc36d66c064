"""/clock and the vehicle streams sent from inside the compiled steps (runtime/fast_path/streams.py), read over real
DDS: every /clock on the 10 ms grid, in order, next to none missing, odometry on the 20 ms grid, and the numbers a
driving robot must show (ground truth advancing at the commanded speed, odometry and TF agreeing with it). The node
publishes a timer tick's worth of messages at once (at 10x real time, 10 ms of wall time is 10 /clock messages), and
its reliable keep-last-10 writers drop for a reader that falls that far behind (DDS semantics): a loaded machine may
lose the odd message, so gaps are allowed to be rare, never backwards or duplicated.
"""

from __future__ import annotations

import math
import subprocess

import rclpy
from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock
from tf2_msgs.msg import TFMessage

from conftest import REPO
from dds_probe import ProbeNode, node_command, stamp_s, stop_process

WORLD = REPO / "worlds" / "bench" / "differential_10.world.xml"
SPEED = 0.5  # [m/s] commanded to r1


def test_clock_and_odometry_from_the_compiled_steps(tmp_path):
    log_path = tmp_path / "node.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(node_command(f"world_file:={WORLD}", "realtime_factor:=10.0",
                                             "base_watchdog_timeout:=0.0"), stdout=log, stderr=subprocess.STDOUT)
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "compiled_streams_probe")
    clock: list[Clock] = []
    odom: list[Odometry] = []
    truth: list[Odometry] = []
    tf: list[TFMessage] = []
    n = probe.node
    n.create_subscription(Clock, "/clock", clock.append, 1000)
    n.create_subscription(Odometry, "/r1/odom", odom.append, 1000)
    n.create_subscription(Odometry, "/r1/base_pose_ground_truth", truth.append, 1000)
    n.create_subscription(TFMessage, "/r1/tf", tf.append, 1000)
    drive = n.create_publisher(Twist, "/r1/cmd_vel", 10)
    command = Twist()
    command.linear.x = SPEED
    try:
        assert probe.wait_for(lambda: len(truth) > 5, timeout=60.0), "no ground truth from the node"
        probe.spin_for(2.0, publish=lambda: drive.publish(command), rate_hz=5.0)
        clock.clear(), odom.clear(), truth.clear(), tf.clear()
        probe.spin_for(3.0)
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_process(proc)
    assert "are published from the compiled steps" in log_path.read_text()

    # /clock: every 10 ms of simulated time, on the grid, in order, (next to) none missing.
    nanoseconds = [m.clock.sec * 1_000_000_000 + m.clock.nanosec for m in clock]
    assert len(nanoseconds) > 500
    assert all(ns % 10_000_000 == 0 for ns in nanoseconds)
    steps = [b - a for a, b in zip(nanoseconds, nanoseconds[1:])]
    assert min(steps) > 0 and sum(s == 10_000_000 for s in steps) >= 0.98 * len(steps)

    # Odometry and ground truth: every 20 ms, same stamps; r1 drives straight at the commanded speed.
    stamps = [round(stamp_s(m) * 1e9) for m in odom]
    assert len(stamps) > 250 and all(ns % 20_000_000 == 0 for ns in stamps)
    steps = [b - a for a, b in zip(stamps, stamps[1:])]
    assert min(steps) > 0 and sum(s == 20_000_000 for s in steps) >= 0.98 * len(steps)
    assert set(round(stamp_s(m) * 1e9) for m in truth) & set(stamps)
    first, last = truth[0], truth[-1]
    elapsed = stamp_s(last) - stamp_s(first)
    speed = (last.pose.pose.position.x - first.pose.pose.position.x) / elapsed
    assert math.isclose(speed, SPEED, rel_tol=0.02), speed
    assert abs(last.pose.pose.position.y - first.pose.pose.position.y) < 1e-3
    assert math.isclose(odom[-1].twist.twist.linear.x, SPEED, rel_tol=0.02)
    by_stamp = {round(stamp_s(m) * 1e9): m for m in odom}
    for msg in tf[-20:]:  # odom -> base_link equals the odometry of the same instant
        t = msg.transforms[0]
        match = by_stamp.get(t.header.stamp.sec * 1_000_000_000 + t.header.stamp.nanosec)
        assert match is not None
        assert (t.transform.translation.x, t.transform.translation.y) == (match.pose.pose.position.x,
                                                                          match.pose.pose.position.y)
        assert t.transform.rotation.z == match.pose.pose.orientation.z
