"""The recording read as per-vehicle series: paths, commands, collisions, the occupancy grid, vehicle names."""

from __future__ import annotations

import math

import numpy as np
import pytest
from report_fixtures import CircleRun, RunWriter, circle_recording, grid_message, odometry, twist

from mvsim_ros.report.reading import Series, collision_spans, nearest_index, read_run, split_topic, vehicle_name


@pytest.fixture(scope="module")
def circle(tmp_path_factory):
    path = tmp_path_factory.mktemp("circle") / "run.mcap"
    spec = circle_recording(path, CircleRun(vehicles={"veh1/": (1.0, 0.5, 0.0), "robot_b/": (0.6, -0.3, 5.0)}))
    return spec, read_run(path)


def test_true_path_is_a_circle_of_radius_v_over_w(circle):
    spec, run = circle
    for prefix, (v, w, dx) in spec.vehicles.items():
        truth = run.vehicles[prefix.rstrip("/")].truth
        radius = v / w  # signed: the centre is at (dx, v / w)
        distances = np.hypot(truth["x"] - dx, truth["y"] - radius)
        assert len(truth) == round(spec.seconds * spec.truth_hz) + 1
        np.testing.assert_allclose(distances, abs(radius), atol=1e-9)
        np.testing.assert_allclose(truth.t, np.arange(len(truth)) / spec.truth_hz, atol=1e-9)
        np.testing.assert_allclose(truth["v"], v)
        np.testing.assert_allclose(truth["w"], w)
        expected_yaw = np.arctan2(np.sin(w * truth.t), np.cos(w * truth.t))
        np.testing.assert_allclose(truth["yaw"], expected_yaw, atol=1e-9)


def test_wheel_odometry_path_keeps_its_own_scale(circle):
    spec, run = circle
    odom = run.vehicles["veh1"].odom
    radius = spec.odom_scale * 1.0 / 0.5
    np.testing.assert_allclose(np.hypot(odom["x"], odom["y"] - radius), radius, atol=1e-9)
    assert len(odom) == round(spec.seconds * spec.odom_hz) + 1


def test_commands_are_read_as_steps(circle):
    _, run = circle
    cmd = run.vehicles["veh1"].cmd_vel
    assert len(cmd) == 101
    held = cmd.t > 0.5 + 1e-9
    np.testing.assert_allclose(cmd["v"][held], 1.0)
    np.testing.assert_allclose(cmd["w"][held], 0.5)
    np.testing.assert_allclose(cmd["v"][~held], 0.0)
    assert run.vehicles["veh1"].ackermann is None


def test_collision_gives_one_span_marked_at_the_true_pose(circle):
    spec, run = circle
    spans = run.vehicles["veh1"].collisions
    assert len(spans) == 1
    span = spans[0]
    assert (span.start, span.end, span.open) == (pytest.approx(3.0), pytest.approx(4.5), False)
    x, y, _ = CircleRun.pose(1.0, 0.5, 3.0)
    assert (span.x, span.y) == (pytest.approx(x, abs=1e-9), pytest.approx(y, abs=1e-9))


def test_collision_without_a_false_lasts_to_the_end(tmp_path):
    path = tmp_path / "open.mcap"
    circle_recording(path, CircleRun(seconds=6.0, collision=(2.5, None), with_map=False))
    run = read_run(path)
    (span,) = run.vehicles["veh1"].collisions
    assert span.start == pytest.approx(2.5)
    assert span.end == pytest.approx(run.duration_s) == pytest.approx(6.0)
    assert span.open


def test_collision_spans_pair_each_true_with_the_next_false():
    flags = Series(np.array([0.0, 1.0, 1.2, 2.0, 3.0, 3.5, 4.0]),
                   {"data": np.array([0, 1, 1, 0, 1, 0, 0], dtype=float)})
    truth = Series(np.linspace(0.0, 5.0, 51), {"x": np.linspace(0.0, 5.0, 51), "y": np.zeros(51)})
    spans = collision_spans(flags, end_s=5.0, truth=truth)
    assert [(s.start, s.end, s.open) for s in spans] == [(1.0, 2.0, False), (3.0, 3.5, False)]
    assert [s.x for s in spans] == [pytest.approx(1.0), pytest.approx(3.0)]


def test_nearest_index_picks_the_closest_sample():
    times = np.array([0.0, 1.0, 2.0])
    assert [nearest_index(times, t) for t in (-1.0, 0.4, 0.6, 1.5, 2.0, 9.0)] == [0, 0, 1, 1, 2, 2]


def test_occupancy_grid_keeps_origin_resolution_and_cells(circle):
    _, run = circle
    grid = run.grid
    assert grid.cells.shape == (60, 80)
    assert (grid.resolution, grid.origin_x, grid.origin_y, grid.origin_yaw) == (0.25, -10.0, -5.0, 0.0)
    assert grid.cells[2, 3] == 100 and grid.cells[5, 5] == 0
    assert (grid.cells[-1] == -1).all() and (grid.cells[0] == 100).all()
    np.testing.assert_allclose(grid.corners(), [[-10.0, -5.0], [10.0, -5.0], [10.0, 10.0], [-10.0, 10.0]])


def test_vehicle_names_come_from_topic_prefixes(tmp_path):
    assert split_topic("/veh1/odom") == ("veh1/", "odom")
    assert split_topic("/odom") == ("", "odom")
    assert split_topic("ns/r2/base_pose_ground_truth") == ("ns/r2/", "base_pose_ground_truth")
    assert vehicle_name("") == "vehicle" and vehicle_name("ns/r2/") == "ns/r2"
    path = tmp_path / "single.mcap"
    with open(path, "wb") as handle:
        writer = RunWriter(handle)
        for k in range(5):
            writer.write("/odom", odometry(0.1 * k, 0.1 * k, 0.0, 0.0, 1.0, 0.0, "odom"), 0.1 * k)
            writer.write("/cmd_vel", twist(1.0, 0.0), 0.1 * k)
            writer.write("/r2/cmd_vel", twist(1.0, 0.0), 0.1 * k)  # commands alone make no vehicle
        writer.finish()
    run = read_run(path)
    assert list(run.vehicles) == ["vehicle"]
    vehicle = run.vehicles["vehicle"]
    assert vehicle.truth is None and len(vehicle.odom) == 5 and len(vehicle.cmd_vel) == 5
    assert run.grid is None


def test_stamped_twist_and_ackermann_commands(tmp_path):
    from ackermann_msgs.msg import AckermannDriveStamped
    from geometry_msgs.msg import TwistStamped

    path = tmp_path / "car.mcap"
    with open(path, "wb") as handle:
        writer = RunWriter(handle)
        writer.write("simul_map", grid_message(), 0.0)
        for k in range(10):
            t = 0.2 * k
            writer.write("/car/base_pose_ground_truth", odometry(t, t, 0.0, 0.0, 1.0, 0.0, "map"), t)
            stamped = TwistStamped()
            stamped.twist.linear.x, stamped.twist.angular.z = 0.1 * k, -0.05 * k
            writer.write("/car/cmd_vel", stamped, t)
            drive = AckermannDriveStamped()
            drive.drive.speed, drive.drive.steering_angle = 2.0, math.radians(k)
            writer.write("/car/ackermann_cmd", drive, t)
        writer.finish()
    run = read_run(path)
    car = run.vehicles["car"]
    np.testing.assert_allclose(car.cmd_vel["v"], 0.1 * np.arange(10))
    np.testing.assert_allclose(car.cmd_vel["w"], -0.05 * np.arange(10))
    np.testing.assert_allclose(car.ackermann["speed"], 2.0)
    np.testing.assert_allclose(car.ackermann["steering"], np.radians(np.arange(10)))
    assert run.grid is not None and run.grid.resolution == 0.25  # 'simul_map' without a leading '/'
    assert car.path_length() == pytest.approx(1.8)
