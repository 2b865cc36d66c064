"""The three tracking nodes in-process: parameters declared with descriptions, seed defaults, run-time changes
checked by the set-parameters callback (bad ones refused with the reason, nothing changed), world-file reading;
and a bad parameter on the command line as one line with exit status 2."""

import math
import subprocess
import sys
from pathlib import Path

import pytest
import rclpy
from rclpy.parameter import Parameter

from conftest import REPO
from mvsim_ros.tracking.nodes.dynamic_controller_node import DynamicControllerNode
from mvsim_ros.tracking.nodes.kinematic_controller_node import KinematicControllerNode
from mvsim_ros.tracking.nodes.tracker_node import PARAMETERS, TrackerNode
from mvsim_ros.tracking.shapes import Circle, Cycloid, FigureEight

SEED_WORLD = str(REPO / "worlds" / "seed002_car.world.xml")


@pytest.fixture
def context():
    ctx = rclpy.Context()
    rclpy.init(context=ctx)
    yield ctx
    rclpy.shutdown(context=ctx)


def set_one(node, name, value):
    (result,) = node.set_parameters([Parameter(name, value=value)])
    return result


def test_tracker_declares_the_seeds_parameters_with_descriptions_and_defaults(context):
    tracker = TrackerNode(context=context)
    try:
        node = tracker.node
        for name in PARAMETERS:
            assert node.describe_parameter(name).description, name
        assert [node.get_parameter(n).value for n in ("Kp", "Ki", "Kd", "FFWD")] == [5.0, 0.0, 0.0, True]
        assert node.get_parameter("active").value is False and not tracker.tracker.active
        assert tracker.tracker.shape == Circle(2.0, 0.5)
        topics = {tracker.virtual_velocities.topic_name, tracker.reference_trajectory.topic_name,
                  tracker.tracking_error.topic_name, tracker.odom_subscription.topic_name}
        assert topics == {"/virtual_velocities", "/reference_trajectory", "/tracking_error", "/odom"}
    finally:
        tracker.node.destroy_node()


def test_tracker_parameters_change_at_run_time_and_bad_values_are_refused(context):
    tracker = TrackerNode(context=context)
    node = tracker.node
    try:
        assert set_one(node, "trajectory_type", 3).successful  # the seed's code for the figure eight
        assert isinstance(tracker.tracker.shape, FigureEight) and tracker.tracker.shape.W == 0.5
        assert set_one(node, "W", 0.3).successful and tracker.tracker.shape == FigureEight(3.0, 0.3)
        assert set_one(node, "Kp", 2).successful and tracker.tracker.gains.kp == 2.0  # an int for a double
        for name, value, reason in (("R", -1.0, "'R' = -1.0: must be > 0"), ("Kp", math.nan, "must be finite"),
                                    ("trajectory_type", "square", "unknown trajectory type 'square'"),
                                    ("FFWD", "yes", "expected a boolean"),
                                    ("reference_heading", "north", "must be one of trajectory, vehicle"),
                                    ("control_rate", 0.0, "must be in (0, 1000]")):
            result = set_one(node, name, value)
            assert not result.successful and reason in result.reason, (name, result.reason)
        assert set_one(node, "cycloid_distance", 2.0).successful  # not checked while the shape is another
        result = set_one(node, "trajectory_type", "cycloid")  # ... but it is when the cycloid is chosen
        assert not result.successful and "curtate" in result.reason
        assert node.get_parameter("trajectory_type").value == 3 and tracker.tracker.gains.kp == 2.0
        assert set_one(node, "cycloid_distance", 0.25).successful and set_one(node, "trajectory_type", 4).successful
        assert tracker.tracker.shape == Cycloid(1.5, 0.25)
        assert set_one(node, "active", True).successful and node.get_parameter("active").value is True
    finally:
        node.destroy_node()


def test_kinematic_controller_reads_l_and_the_steering_limit_from_a_world(context, tmp_path):
    controller = KinematicControllerNode(context=context)
    node = controller.node
    try:
        assert (controller.controller.wheelbase, controller.controller.epsilon) == (0.325, 0.1)
        car = (REPO / "worlds" / "definitions" / "car.vehicle.xml").read_text()
        world = tmp_path / "car.world.xml"
        world.write_text(f'<mvsim_world version="1.0">{car}<vehicle name="c" class="car"/></mvsim_world>')
        assert set_one(node, "world_file", str(world)).successful
        assert controller.controller.wheelbase == 2.5
        assert controller.controller.max_steering_angle == pytest.approx(math.radians(35.0))
        for name, value, reason in (("epsilon", 0.0, "must be > 0"), ("epsilon", -1, "must be > 0"),
                                    ("world_file", str(tmp_path / "none.xml"), "world file not found"),
                                    ("vehicle", "bus", "no vehicle named 'bus'")):
            result = set_one(node, name, value)
            assert not result.successful and reason in result.reason, (name, result.reason)
        assert controller.controller.wheelbase == 2.5 and controller.controller.epsilon == 0.1
    finally:
        node.destroy_node()


def test_dynamic_controller_reads_its_model_from_the_seed_world(context):
    controller = DynamicControllerNode(context=context)
    node = controller.node
    try:
        assert set_one(node, "world_file", SEED_WORLD).successful
        p = controller.controller.params
        assert (p.mass, p.b, controller.cog_offset) == pytest.approx((5.36, 0.1477, 0.1477), abs=1e-4)
        assert p.cf == pytest.approx(2 * (1.0 + 0.34) * 9.81 * 19.0)
        result = set_one(node, "C_f", -5.0)
        assert not result.successful and "must be > 0" in result.reason
    finally:
        node.destroy_node()


@pytest.mark.parametrize("module, args, text", [
    ("tracker_node", ["-p", "R:=-1.0"], "parameter 'R' = -1.0: must be > 0"),
    ("tracker_node", ["-p", "trajectory_type:=hexagon"], "unknown trajectory type 'hexagon'"),
    ("kinematic_controller_node", ["-p", "epsilon:=0.0"], "parameter 'epsilon' = 0.0: must be > 0"),
    ("dynamic_controller_node", ["-p", "world_file:=/nonexistent.world.xml"], "world file not found"),
])
def test_a_bad_parameter_at_start_is_one_line_and_exit_status_2(module, args, text):
    result = subprocess.run([sys.executable, "-m", f"mvsim_ros.tracking.nodes.{module}", "--ros-args", *args],
                            capture_output=True, text=True, timeout=60, cwd=Path(REPO))
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and text in lines[0], result.stderr


def test_odometry_reading_and_float32_commands():
    import numpy as np
    from nav_msgs.msg import Odometry

    from mvsim_ros.tracking.nodes.node_common import OdometrySample, float32_within

    msg = Odometry()
    msg.header.stamp.sec, msg.header.stamp.nanosec = 12, 500_000_000
    msg.pose.pose.position.x, msg.pose.pose.position.y = 1.5, -2.0
    msg.pose.pose.orientation.z, msg.pose.pose.orientation.w = math.sin(1.1), math.cos(1.1)  # yaw 2.2 rad
    msg.twist.twist.linear.x, msg.twist.twist.linear.y, msg.twist.twist.angular.z = 1.0, 0.1, 0.3
    sample = OdometrySample.from_message(msg)
    assert (sample.x, sample.y, sample.t, sample.vx, sample.vy, sample.r) == (1.5, -2.0, 12.5, 1.0, 0.1, 0.3)
    assert sample.yaw == pytest.approx(2.2, abs=1e-12) and sample.finite()
    # AckermannDrive's fields are float32: a command at the limit must not round past it
    limit = math.radians(25.0)
    for value in (limit, -limit, 0.1, -1e-8):
        single = float32_within(value)
        assert abs(single) <= abs(value) and float(np.float32(single)) == single
        assert single == pytest.approx(value, rel=1e-6)
