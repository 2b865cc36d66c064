"""A vehicle commanded with both Twist and TwistStamped: the node's recording keeps the second type on
`<veh>/cmd_vel/<Type>` (one type per topic, as rosbag2 does); the report plots those commands as the vehicle's
cmd_vel, merged in time order with the first type's (the same trace), each at its log time."""

from __future__ import annotations

import numpy as np

from mvsim_ros.report.interactive.vehicle_figure import vehicle_figure
from mvsim_ros.report.rates import topic_rates
from mvsim_ros.report.reading import read_run, topic_kind

from report_fixtures import RunWriter, odometry, twist


def stamped_twist(v: float, w: float, t_s: float):
    from geometry_msgs.msg import TwistStamped

    msg = TwistStamped()
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(int(round(t_s * 1e9)), 1_000_000_000)
    msg.twist.linear.x, msg.twist.angular.z = v, w
    return msg


def test_a_second_command_type_is_drawn_as_the_vehicles_command(tmp_path):
    path = tmp_path / "two_types.mcap"
    with open(path, "wb") as handle:
        writer = RunWriter(handle)
        for k in range(41):
            t = 0.1 * k
            writer.write("/r1/base_pose_ground_truth", odometry(t, 0.0, 0.0, 0.0, 0.0, 0.0, "map"), t)
        for k in range(10):  # a teleop's Twist first, 1 s; then a planner's TwistStamped, 2 s
            writer.write("/r1/cmd_vel", twist(0.5, 0.1), 0.1 * k)
        for k in range(20):
            t = 1.0 + 0.1 * k
            writer.write("/r1/cmd_vel/TwistStamped", stamped_twist(0.8, -0.2, t), t)
        writer.finish()

    assert topic_kind("/r1/cmd_vel/TwistStamped") == ("r1/", "cmd_vel")
    assert topic_kind("/r1/cmd_vel/geometry_msgs_TwistStamped_2") == ("r1/", "cmd_vel")
    assert topic_kind("/r1/cmd_vel") == ("r1/", "cmd_vel") and topic_kind("/r1/odom") == ("r1/", "odom")
    run = read_run(path)
    assert list(run.vehicles) == ["r1"]
    cmd = run.vehicles["r1"].cmd_vel
    assert len(cmd) == 30
    np.testing.assert_allclose(cmd.t, 0.1 * np.arange(30), atol=1e-9)
    np.testing.assert_allclose(cmd["v"], [0.5] * 10 + [0.8] * 20)
    np.testing.assert_allclose(cmd["w"], [0.1] * 10 + [-0.2] * 20)

    figure = vehicle_figure(run.vehicles["r1"], run.duration_s, run.watchdog.timeout_s)
    speed = [trace for trace in figure.data if trace.name.startswith("cmd_vel")][0]
    t, v = np.asarray(speed.x, dtype=float), np.asarray(speed.y, dtype=float)
    assert set(v[t < 0.95]) == {0.5} and set(v[(t > 1.05) & (t < 2.95)]) == {0.8}

    rates = {rate.topic: rate for rate in topic_rates(run.recording)}
    assert rates["/r1/cmd_vel/TwistStamped"].count == 20  # counted, an event topic like cmd_vel
    assert not rates["/r1/cmd_vel/TwistStamped"].irregular
