"""Vehicle commands and CSV logs over real DDS: AckermannDriveStamped steering, TwistStamped cmd_vel, dropped NaN
commands, and the log services. The node runs in a subprocess, probed with rclpy from the test."""

from __future__ import annotations

import csv
import math
import os
import subprocess
from pathlib import Path

import pytest
import rclpy
from ackermann_msgs.msg import AckermannDriveStamped
from geometry_msgs.msg import TwistStamped
from nav_msgs.msg import Odometry
from std_srvs.srv import Trigger

from dds_probe import ProbeNode, node_command, stamp_s, stop_process
from conftest import REPO, robot_world_xml

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))

CAR_CLASS = REPO / "worlds" / "definitions" / "car.vehicle.xml"
WHEELBASE_M = 2.5
SPEED_MPS, STEER_RAD = 2.0, 0.3
EXPECTED_YAW_RATE = SPEED_MPS * math.tan(STEER_RAD) / WHEELBASE_M  # bicycle model, ~0.2475 rad/s


def yaw_of(msg: Odometry) -> float:
    q = msg.pose.pose.orientation
    return 2.0 * math.atan2(q.z, q.w)


def ackermann(speed: float, steering_angle: float, steering_rate: float = 0.0) -> AckermannDriveStamped:
    msg = AckermannDriveStamped()
    msg.drive.speed = speed
    msg.drive.steering_angle = steering_angle
    msg.drive.steering_angle_velocity = steering_rate
    return msg


class Probe(ProbeNode):
    """A test node: odometry and ground truth of one vehicle, a command publisher, the log service clients."""

    def __init__(self, context, prefix: str, command_type, command_topic: str):
        super().__init__(context, "mvsim_command_probe")
        self.odom: list[Odometry] = []
        self.truth: list[Odometry] = []
        n = self.node
        n.create_subscription(Odometry, f"/{prefix}odom", self.odom.append, 100)
        n.create_subscription(Odometry, f"/{prefix}base_pose_ground_truth", self.truth.append, 100)
        self.cmd = n.create_publisher(command_type, f"/{prefix}{command_topic}", 10)
        self.clear_logs = n.create_client(Trigger, "/mvsim/clear_logs")
        self.new_log_session = n.create_client(Trigger, "/mvsim/new_log_session")

    def call(self, client, timeout: float = 10.0) -> Trigger.Response:
        assert client.wait_for_service(timeout_sec=timeout), f"service {client.srv_name} not available"
        future = client.call_async(Trigger.Request())
        assert self.wait_for(future.done, timeout), f"no answer from {client.srv_name}"
        return future.result()

    def truth_after(self, t0: float) -> list[Odometry]:
        return [m for m in self.truth if stamp_s(m) > t0]


def start_node(tmp: Path, world_xml: str, *params: str):
    world = tmp / "test.world.xml"
    world.write_text(world_xml)
    log = open(tmp / "node_output.txt", "w")
    proc = subprocess.Popen(node_command(f"world_file:={world}", *params), stdout=log, stderr=subprocess.STDOUT,
                            text=True)
    return proc, log


def stop_node(proc, log) -> None:
    stop_process(proc)
    log.close()


def steady_yaw_rates(messages: list[Odometry], window_s: float) -> tuple[list[float], float]:
    """Twist yaw rates of the messages in the last window_s of sim time, and the yaw rate from their poses."""
    end = stamp_s(messages[-1])
    recent = [m for m in messages if stamp_s(m) >= end - window_s]
    turned = sum(math.remainder(yaw_of(b) - yaw_of(a), math.tau) for a, b in zip(recent, recent[1:]))
    return [m.twist.twist.angular.z for m in recent], turned / (stamp_s(recent[-1]) - stamp_s(recent[0]))


CAR_AND_ROBOT_WORLD = robot_world_xml(
    init_pose="0 -40 0",  # far from the car's circle (radius ~8.3 m about (0, 8.3))
    extra=f'<include file="{CAR_CLASS}"/><vehicle name="car1" class="car"><init_pose>0 0 0</init_pose></vehicle>',
)


@pytest.fixture(scope="class")
def car(tmp_path_factory):
    """car1 (Ackermann) and r1 (differential), at 4x real time, no watchdog, logging on.

    Not "as fast as possible": on a loaded machine the probe then falls behind and its keep-last queues drop
    messages, leaving too few in the judged window."""
    tmp = tmp_path_factory.mktemp("ackermann")
    proc, log = start_node(tmp, CAR_AND_ROBOT_WORLD, "realtime_factor:=4.0", "base_watchdog_timeout:=0.0",
                           "odometry_publish_rate:=20.0", f"log_dir:={tmp / 'logs'}")
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = Probe(context, "car1/", AckermannDriveStamped, "ackermann_cmd")
    try:
        assert probe.wait_for(lambda: len(probe.truth) > 5, timeout=30.0), "no ground truth from the node"
        yield proc, probe, tmp
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_node(proc, log)


class TestAckermannCarWithLogs:
    """One node: car1 (Ackermann) and r1 (differential), as fast as possible, no watchdog, logging on."""

    def test_only_the_ackermann_vehicle_subscribes_ackermann_cmd(self, car):
        _, probe, _ = car
        assert probe.wait_for(lambda: probe.cmd.get_subscription_count() == 1, timeout=10.0)
        assert probe.node.count_subscribers("/r1/ackermann_cmd") == 0
        both = {"geometry_msgs/msg/Twist", "geometry_msgs/msg/TwistStamped"}  # both types at once

        def types() -> set[str]:
            return {info.topic_type for info in probe.node.get_subscriptions_info_by_topic("/car1/cmd_vel")}

        # The TwistStamped subscription is on the node's second participant: discovered a little later.
        assert probe.wait_for(lambda: types() == both, timeout=10.0), types()

    def test_ackermann_command_turns_the_car_at_the_commanded_curvature(self, car):
        _, probe, _ = car
        probe.spin_for(0.2, publish=lambda: probe.cmd.publish(ackermann(SPEED_MPS, STEER_RAD)))
        assert probe.wait_for(lambda: any(m.twist.twist.linear.x > 0.1 for m in probe.truth), timeout=10.0)
        started = next(stamp_s(m) for m in probe.truth if m.twist.twist.linear.x > 0.1)
        # Transient: speed PID and steering settle within a few seconds; judge the last 2 s of >= 10 s.
        assert probe.wait_for(lambda: stamp_s(probe.truth[-1]) > started + 10.0, timeout=20.0)
        rates, from_poses = steady_yaw_rates(probe.truth_after(started), window_s=2.0)
        assert len(rates) >= 10
        assert min(rates) == pytest.approx(EXPECTED_YAW_RATE, rel=0.03)
        assert max(rates) == pytest.approx(EXPECTED_YAW_RATE, rel=0.03)
        assert from_poses == pytest.approx(EXPECTED_YAW_RATE, rel=0.03)
        assert probe.truth[-1].twist.twist.linear.x == pytest.approx(SPEED_MPS, rel=0.03)
        odom = [m.twist.twist.angular.z for m in probe.odom[-10:]]
        assert odom and all(w == pytest.approx(EXPECTED_YAW_RATE, rel=0.03) for w in odom)

    def test_non_finite_ackermann_commands_are_dropped_and_the_last_valid_one_kept(self, car):
        proc, probe, tmp = car
        bad = [ackermann(math.nan, -STEER_RAD), ackermann(0.5, math.inf), ackermann(0.5, -0.2, math.nan),
               ackermann(-math.inf, 0.0)]
        state = {"k": 0}

        def publish():
            probe.cmd.publish(bad[state["k"] % len(bad)])
            state["k"] += 1

        t0 = stamp_s(probe.truth[-1])
        probe.spin_for(1.0, publish=publish, rate_hz=40.0)
        assert probe.wait_for(lambda: stamp_s(probe.truth[-1]) > t0 + 3.0, timeout=10.0)
        rates, from_poses = steady_yaw_rates(probe.truth_after(t0), window_s=2.0)
        assert all(w == pytest.approx(EXPECTED_YAW_RATE, rel=0.03) for w in rates)
        assert from_poses == pytest.approx(EXPECTED_YAW_RATE, rel=0.03)
        assert probe.truth[-1].twist.twist.linear.x == pytest.approx(SPEED_MPS, rel=0.03)
        assert proc.poll() is None  # the node is still running
        assert probe.wait_for(lambda: "dropped ackermann_cmd with non-finite values" in
                              (tmp / "node_output.txt").read_text(), timeout=5.0)

    def test_log_services_clear_and_start_sessions(self, car):
        _, probe, tmp = car
        logs = tmp / "logs"
        (first,) = [p for p in logs.iterdir() if p.is_dir()]
        assert first.name.startswith("session-001_")
        expected = {"car1_pose.csv", "car1_fl_wheel.csv", "car1_fr_wheel.csv", "car1_rl_wheel.csv",
                    "car1_rr_wheel.csv", "r1_pose.csv", "r1_l_wheel.csv", "r1_r_wheel.csv"}
        assert {p.name for p in first.iterdir()} == expected
        assert probe.wait_for(lambda: (first / "car1_pose.csv").read_text().count("\n") > 10, timeout=10.0)

        answer = probe.call(probe.new_log_session)
        assert answer.success, answer.message
        second = [p for p in logs.iterdir() if p.is_dir() and p != first]
        assert len(second) == 1 and second[0].name.startswith("session-002_") and second[0].name in answer.message
        assert {p.name for p in second[0].iterdir()} == expected

        before_clear = stamp_s(probe.truth[-1])
        answer = probe.call(probe.clear_logs)
        assert answer.success, answer.message
        assert probe.wait_for(lambda: (second[0] / "car1_pose.csv").read_text().count("\n") > 10, timeout=10.0)
        _, rows = read_csv(second[0] / "car1_pose.csv", live=True)
        assert rows[0][0] > before_clear  # the rows logged before the clear are gone

    def test_logs_hold_whole_rows_of_the_turning_car_after_shutdown(self, car):
        proc, _, tmp = car
        proc.terminate()
        assert proc.wait(timeout=10) == 0
        (_, second) = sorted(p for p in (tmp / "logs").iterdir() if p.is_dir())
        header, rows = read_csv(second / "car1_pose.csv")
        assert header == ["t_s", "x_m", "y_m", "yaw_rad", "vx_mps", "vy_mps", "omega_radps"]
        assert len(rows) > 100 and all(len(r) == 7 for r in rows)
        assert rows[-1][6] == pytest.approx(EXPECTED_YAW_RATE, rel=0.03)
        dt = rows[-1][0] - rows[-2][0]
        assert dt == pytest.approx(0.005, abs=1e-9)  # a row every step by default
        header, rows = read_csv(second / "car1_fl_wheel.csv")
        assert header == ["t_s", "torque_Nm", "normal_force_N", "omega_radps", "phi_rad", "force_x_N", "force_y_N"]
        assert rows[-1][2] == pytest.approx(1200.0 * 9.81 / 4, rel=1e-3)


def read_csv(path: Path, live: bool = False) -> tuple[list[str], list[list[float]]]:
    """Header and rows of a CSV log. live: the node is still writing it, so a last row cut by a buffer flush is
    left out; otherwise (after shutdown) every row must be whole."""
    text = path.read_text()
    if live:
        text = text[:text.rfind("\n") + 1]
    assert text.endswith("\n"), f"{path}: last row incomplete"
    lines = list(csv.reader(text.splitlines()))
    return lines[0], [[float(v) for v in row] for row in lines[1:]]


@pytest.fixture(scope="class")
def robot(tmp_path_factory):
    """A single robot (topics without prefix), the deprecated use_stamped_cmd_vel set, logging off."""
    tmp = tmp_path_factory.mktemp("stamped")
    proc, log = start_node(tmp, robot_world_xml(), "use_stamped_cmd_vel:=true", "realtime_factor:=1.0")
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = Probe(context, "", TwistStamped, "cmd_vel")
    try:
        assert probe.wait_for(lambda: len(probe.odom) > 5, timeout=30.0), "no odometry from the node"
        yield proc, probe
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_node(proc, log)


class TestStampedCmdVelWithoutLogs:
    """One node: a single robot (topics without prefix), TwistStamped commands, logging off."""

    def test_twist_stamped_cmd_vel_moves_the_robot(self, robot):
        _, probe = robot
        both = {"geometry_msgs/msg/Twist", "geometry_msgs/msg/TwistStamped"}

        def types() -> set[str]:
            return {info.topic_type for info in probe.node.get_subscriptions_info_by_topic("/cmd_vel")}

        assert probe.wait_for(lambda: types() == both, timeout=15.0), types()  # discovery of the second participant
        assert probe.node.count_subscribers("/ackermann_cmd") == 0
        start_x = probe.truth[-1].pose.pose.position.x

        def publish():
            msg = TwistStamped()
            msg.header.frame_id = "base_link"
            msg.twist.linear.x = 1.0
            probe.cmd.publish(msg)

        probe.spin_for(1.5, publish=publish)
        assert probe.truth[-1].pose.pose.position.x - start_x > 0.8
        assert probe.odom[-1].twist.twist.linear.x == pytest.approx(1.0, abs=0.05)

    def test_log_services_answer_false_when_logging_is_off(self, robot):
        _, probe = robot
        for client in (probe.clear_logs, probe.new_log_session):
            answer = probe.call(client)
            assert not answer.success
            assert "logging is off" in answer.message and "log_dir" in answer.message
