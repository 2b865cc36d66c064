"""record_run: a run recorded from Python without a ROS graph ends at exactly the simulated time asked for, its
ground truth drives the circle of radius v/w commanded, and it equals the same run stepped by the library alone."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from nav_msgs.msg import Odometry
from rclpy.serialization import deserialize_message

import dds_probe  # noqa: F401  (a per-run ROS_DOMAIN_ID)
from mvsim_ros.physics import Simulation
from mvsim_ros.ros.record_run import record_run
from mvsim_ros.world import load_world

WORLD = Path(__file__).resolve().parents[2] / "worlds" / "demo_2robots.world.xml"


def messages(path: Path, topic: str) -> list[tuple[int, bytes]]:
    from mcap.reader import make_reader

    with path.open("rb") as stream:
        return [(m.log_time, m.data) for _, _, m in make_reader(stream).iter_messages(topics=[topic])]


def test_a_recorded_run_is_the_library_run_on_a_circle_of_radius_v_over_w(tmp_path):
    v, w, seconds = 0.5, 0.5, 4.0
    run = record_run(WORLD, tmp_path / "run.mcap", seconds, twists={"r1": (v, w)})
    assert run.seconds == pytest.approx(seconds, abs=1e-9) and run.messages > 0
    clock = messages(run.path, "/clock")
    assert clock[-1][0] == 4_000_000_000 and [t for t, _ in clock] == sorted(t for t, _ in clock)
    truth = [deserialize_message(data, Odometry) for _, data in messages(run.path, "/r1/base_pose_ground_truth")]
    assert truth[-1].header.stamp.sec == 4 and truth[-1].header.stamp.nanosec == 0
    # After the start-up (1 s), points of the path lie on one circle of radius v / w.
    xy = np.array([(m.pose.pose.position.x, m.pose.pose.position.y) for m in truth[len(truth) // 4:]])
    a = np.column_stack([2 * xy, np.ones(len(xy))])
    cx, cy, c = np.linalg.lstsq(a, (xy ** 2).sum(axis=1), rcond=None)[0]
    assert np.sqrt(c + cx ** 2 + cy ** 2) == pytest.approx(v / w, rel=0.03)
    # The same run stepped by the library alone ends where the recording's ground truth does.
    sim = Simulation(load_world(str(WORLD)))
    sim.set_twist(sim.vehicle_index("r1"), v, w)
    sim.run(seconds)
    x, y, _ = sim.pose[sim.vehicle_index("r1")]
    assert (truth[-1].pose.pose.position.x, truth[-1].pose.pose.position.y) == pytest.approx((x, y), abs=1e-9)


def test_only_the_topics_asked_for_are_recorded(tmp_path):
    run = record_run(WORLD, tmp_path / "odom.mcap", 1.0, topics=("/*/odom",))
    from mcap.reader import make_reader

    with run.path.open("rb") as stream:
        summary = make_reader(stream).get_summary()
    assert sorted(c.topic for c in summary.channels.values()) == ["/r1/odom", "/r2/odom"]
    assert all(n == 51 for n in summary.statistics.channel_message_counts.values())  # 50 Hz over [0, 1] s


def test_a_private_run_is_heard_and_driven_by_no_other_participant(tmp_path):
    """A listener with ordinary discovery on the private node's own domain, and one on the tests' domain, hear no
    /clock; the cmd_vel they publish neither reaches r1 nor the recording. The domain draw leaves the program's
    seeded `random` as it was."""
    import os
    import random

    import rclpy
    from geometry_msgs.msg import Twist
    from rclpy.executors import SingleThreadedExecutor
    from rosgraph_msgs.msg import Clock

    from mvsim_ros.ros.record_run import private_node

    record = tmp_path / "private.mcap"
    random.seed(1)
    expected_draw = random.random()
    random.seed(1)
    parameters = {"world_file": str(WORLD), "record": str(record), "realtime_factor": 1.0, "status_period": 0.0}
    with private_node(parameters) as (node, executor):
        assert random.random() == expected_draw  # the seeded generator was not drawn from
        domains = sorted({node.context.get_domain_id(), int(os.environ["ROS_DOMAIN_ID"])})
        listeners, heard = [], []
        for domain in domains:
            context = rclpy.Context()
            rclpy.init(context=context, domain_id=domain)
            listener = rclpy.create_node(f"outsider_{domain}", context=context)
            listener.create_subscription(Clock, "/clock", heard.append, 10)
            drive = listener.create_publisher(Twist, "/r1/cmd_vel", 10)
            outside = SingleThreadedExecutor(context=context)
            outside.add_node(listener)
            listeners.append((context, listener, drive, outside))
        twist = Twist()
        twist.linear.x = 0.5
        end = time.monotonic() + 4.0
        while time.monotonic() < end:
            executor.spin_once(timeout_sec=0.01)
            for _, _, drive, outside in listeners:
                drive.publish(twist)
                outside.spin_once(timeout_sec=0.0)
        r1 = node.sim.vehicle_index("r1")
        moved = abs(float(node.sim.velocity[r1][0])) + abs(float(node.sim.velocity[r1][1]))
        for context, listener, _, outside in listeners:
            outside.shutdown()
            listener.destroy_node()
            rclpy.shutdown(context=context)
    assert heard == [] and moved < 1e-3
    assert messages(record, "/clock") and messages(record, "/r1/cmd_vel") == []
