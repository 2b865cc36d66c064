"""2D lidar scans measured and published from inside the compiled steps (runtime/fast_path/scans.py), read over real
DDS: a wall at a known distance reads that distance, beams beyond range_max read +inf, and while the robot drives
a curve every scan equals the one the Python path (Lidar2D.scan) measures from the same pose, at the stamps of
the ground truth."""

from __future__ import annotations

import math
import subprocess

import numpy as np
import pytest
import rclpy
from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from sensor_msgs.msg import LaserScan

from conftest import robot_world_xml
from dds_probe import ProbeNode, node_command, stamp_s, stop_process
from mvsim_ros.physics import Simulation
from mvsim_ros.sensors.suite import build_sensors, host_pose3
from mvsim_ros.world import load_world

MOUNT_X = 0.2  # [m] lidar ahead of the reference point
WALL_X = 4.0  # [m] near face of the wall
LASER = (f'<sensor class="laser" name="scan"><pose_3d>{MOUNT_X} 0 0.3 0 0 0</pose_3d><fov_degrees>180</fov_degrees>'
         '<nrays>181</nrays><range_min>0.3</range_min><range_max>6.0</range_max><sensor_period>0.05</sensor_period>'
         '<range_std_noise>0</range_std_noise><angle_std_noise_deg>0</angle_std_noise_deg></sensor>')
#: r1 and r2 carry the lidar; a wall's near face is the plane x = WALL_X.
WORLD = robot_world_xml(class_extra=LASER, extra=(
    '<vehicle name="r2" class="bot"><init_pose>2.0 1.5 0</init_pose></vehicle>'
    '<block name="wall"><static>true</static><zmin>0</zmin><zmax>2</zmax>'
    f'<geometry type="box" lx="0.2" ly="20" lz="2"/><init_pose>{WALL_X} -10 0</init_pose></block>'))


def run_and_drive(tmp_path, world_text: str) -> tuple[str, list[LaserScan], list[LaserScan], list[Odometry]]:
    """Run the node on `world_text`; collect r1's scans at rest, then while it drives a curve for 1.5 s, and its
    ground truth. Returns (the node's log, scans at rest, scans while driving, ground truth)."""
    world_file = tmp_path / "lidar_pair.world.xml"
    world_file.write_text(world_text)
    log_path = tmp_path / "node.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(node_command(f"world_file:={world_file}", "realtime_factor:=10.0",
                                             "base_watchdog_timeout:=0.0"), stdout=log, stderr=subprocess.STDOUT)
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "compiled_scans_probe")
    scans: list[LaserScan] = []
    truth: list[Odometry] = []
    n = probe.node
    n.create_subscription(LaserScan, "/r1/scan", scans.append, 1000)
    n.create_subscription(Odometry, "/r1/base_pose_ground_truth", truth.append, 1000)
    drive = n.create_publisher(Twist, "/r1/cmd_vel", 10)
    command = Twist()
    command.linear.x, command.angular.z = 0.4, 0.5
    try:
        assert probe.wait_for(lambda: len(scans) > 5, timeout=60.0), "no scans from the node"
        resting = list(scans)
        probe.spin_for(1.5, publish=lambda: drive.publish(command), rate_hz=5.0)
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_process(proc)
    return log_path.read_text(), resting, scans[len(resting):], truth


def test_scans_from_the_compiled_steps_match_the_python_path(tmp_path):
    log, resting, driving, truth = run_and_drive(tmp_path, WORLD)
    world_file = tmp_path / "lidar_pair.world.xml"
    assert "and 2 lidar(s) are published from the compiled steps" in log

    # At rest: the beam straight ahead meets the wall WALL_X - MOUNT_X away; the right-hand beams see nothing
    # within range_max (+inf); every 50 ms of simulated time.
    first = resting[-1]
    ranges = np.array(first.ranges)
    assert ranges.size == 181 and first.header.frame_id.endswith("scan")
    assert ranges[90] == np.float32(WALL_X - MOUNT_X)
    assert np.all(np.isinf(ranges[:30]))
    # (the sample due at t = 0 is served after the first step, as /clock's)
    assert all(round(stamp_s(m) * 1e9) % 50_000_000 == 0 for m in (resting + driving)[1:])

    # Driving: each scan at a ground-truth stamp equals the Python path's scan from that pose.
    sim = Simulation(load_world(world_file))
    lidar = next(lid for lid in build_sensors(sim.spec).lidars if lid.vehicle == 0)
    poses = {round(stamp_s(m) * 1e9): m.pose.pose for m in truth}
    compared = 0
    for msg in driving:
        pose = poses.get(round(stamp_s(msg) * 1e9))
        if pose is None:
            continue
        yaw = 2.0 * math.atan2(pose.orientation.z, pose.orientation.w)
        sim.set_vehicle_state(0, pose.position.x, pose.position.y, yaw)
        expected = lidar.scan(sim.box2d.world, host_pose3(sim, 0)).astype(np.float32)
        got = np.array(msg.ranges, dtype=np.float32)
        assert np.array_equal(np.isinf(got), np.isinf(expected))
        finite = np.isfinite(got)
        assert np.allclose(got[finite], expected[finite], atol=1e-4, rtol=0.0)
        compared += 1
    assert compared >= 5
    moved = poses[max(poses)]
    assert math.hypot(moved.position.x, moved.position.y) > 0.1  # the robot did drive


def test_noisy_scans_from_the_compiled_steps_match_the_python_paths_scan_for_scan(tmp_path):
    """MVSim's default noise (0.01 m, 0.01 deg: no noise tags): still served from the compiled steps, each scan
    with the noise the Python path would give the same scan (the n-th scan of a lidar, n = stamp / period, uses
    the n-th draw of its generator)."""
    noisy_world = WORLD.replace('<range_std_noise>0</range_std_noise><angle_std_noise_deg>0</angle_std_noise_deg>',
                                '')
    assert noisy_world != WORLD
    log, resting, driving, truth = run_and_drive(tmp_path, noisy_world)
    assert "and 2 lidar(s) are published from the compiled steps" in log
    sim = Simulation(load_world(tmp_path / "lidar_pair.world.xml"))
    lidar = next(lid for lid in build_sensors(sim.spec).lidars if lid.vehicle == 0)
    assert lidar.noisy
    poses = {round(stamp_s(m) * 1e9): m.pose.pose for m in truth}
    used, compared = 0, 0
    for msg in sorted(driving, key=stamp_s):
        stamp_ns = round(stamp_s(msg) * 1e9)
        pose = poses.get(stamp_ns)
        if pose is None:
            continue
        index = stamp_ns // 50_000_000  # this lidar's scan number
        lidar.noise_ahead(index - used + 1)
        lidar.skip_noise(index - used)
        used = index + 1
        yaw = 2.0 * math.atan2(pose.orientation.z, pose.orientation.w)
        sim.set_vehicle_state(0, pose.position.x, pose.position.y, yaw)
        expected = lidar.scan(sim.box2d.world, host_pose3(sim, 0)).astype(np.float32)
        got = np.array(msg.ranges, dtype=np.float32)
        assert np.array_equal(np.isinf(got), np.isinf(expected))
        finite = np.isfinite(got)
        assert np.allclose(got[finite], expected[finite], atol=1e-4, rtol=0.0)
        compared += 1
    assert compared >= 5
    resting_centre = np.array([m.ranges[90] for m in resting], dtype=float)
    assert resting_centre.std() > 0.002  # the noise is there (0.01 m)
    # Unbiased: the mean of n readings lies within 4 standard errors (0.01 m / sqrt(n)) of the wall's distance.
    assert resting_centre.mean() == pytest.approx(WALL_X - MOUNT_X, abs=4 * 0.01 / math.sqrt(len(resting_centre)))


#: World-level lidars (fixed in `map`) beside r1's: `tower` ray casts in 2D, `tower3d` renders through OpenGL
#: (raytrace_3d). Both look along +x at the wall's near face (x = WALL_X): `tower` from (0.5, -3), `tower3d` from
#: (1.0, -5).
TOWERS = "".join(
    f'<sensor class="laser" name="{name}"><pose_3d>{x} {y} 0.4 0 0 0</pose_3d><fov_degrees>180</fov_degrees>'
    '<nrays>181</nrays><range_max>6.0</range_max><sensor_period>0.05</sensor_period><range_std_noise>0'
    f'</range_std_noise><angle_std_noise_deg>0</angle_std_noise_deg>{extra}</sensor>'
    for name, x, y, extra in (("tower", 0.5, -3.0, ""), ("tower3d", 1.0, -5.0, "<raytrace_3d>true</raytrace_3d>")))


def test_world_lidars_ray_cast_in_the_compiled_steps_and_gl_lidars_from_python(tmp_path):
    """Of four lidars (r1's and r2's, a world-level one, a world-level raytrace_3d one) the compiled steps take the
    three that ray cast in 2D; Python renders the fourth. The world lidar's scans equal the Python path's from its
    fixed pose."""
    world_file = tmp_path / "towers.world.xml"
    world_file.write_text(WORLD.replace("</mvsim_world>", TOWERS + "</mvsim_world>"))
    log_path = tmp_path / "node.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(node_command(f"world_file:={world_file}", "realtime_factor:=10.0"), stdout=log,
                                stderr=subprocess.STDOUT)
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "tower_scans_probe")
    towers: dict[str, list[LaserScan]] = {"tower": [], "tower3d": []}
    for name, received in towers.items():
        probe.node.create_subscription(LaserScan, f"/{name}", received.append, 100)
    try:
        assert probe.wait_for(lambda: all(len(v) > 3 for v in towers.values()), timeout=60.0), "no tower scans"
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_process(proc)
    assert "and 3 of 4 lidars (the others, rendered through OpenGL, from Python)" in log_path.read_text()

    sim = Simulation(load_world(world_file))
    tower = next(lid for lid in build_sensors(sim.spec).lidars if lid.spec.name == "tower")
    expected = tower.scan(sim.box2d.world, host_pose3(sim, tower.vehicle)).astype(np.float32)
    for msg in towers["tower"]:
        got = np.array(msg.ranges, dtype=np.float32)
        assert got[90] == np.float32(WALL_X - 0.5)
        assert np.array_equal(got, expected)  # nothing moves: every scan is the same, +inf included
    for msg in towers["tower3d"]:
        assert msg.ranges[90] == pytest.approx(WALL_X - 1.0, abs=0.01)  # the GL depth buffer's resolution
