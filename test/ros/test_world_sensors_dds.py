"""Over DDS: a world-level laser publishes at the root namespace in its own frame, fixed to `map` on /tf_static;
with one vehicle, its static frames share the vehicle's latched /tf_static message."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sensor_msgs.msg import LaserScan
from tf2_msgs.msg import TFMessage

from conftest import robot_world_xml
from dds_probe import node_and_probe
from mvsim_ros.ros.qos import TF_STATIC_QOS

#: A wall block whose near face is the plane x = 4.00 m (a box spans [0, lx] x [0, ly] from its pose), y in
#: [-10, 10], 2 m high.
WALL = ('<block name="wall"><static>true</static><zmin>0</zmin><zmax>2</zmax>'
        '<geometry type="box" lx="0.2" ly="20" lz="2"/><init_pose>4.0 -10 0</init_pose></block>')
#: The world laser at (1, 2, 0.4), yawed 30 deg: beams at 0, 15, 30, 45, 60 deg in the world, 3 m from the wall.
PROX = ('<sensor class="laser" name="prox"><pose_3d>1.0 2.0 0.4 30 0 0</pose_3d><fov_degrees>60</fov_degrees>'
        '<nrays>5</nrays><range_max>20</range_max><sensor_period>0.05</sensor_period>'
        '<range_std_noise>0</range_std_noise><angle_std_noise_deg>0</angle_std_noise_deg></sensor>')
PROX_BEARINGS = np.radians([0.0, 15.0, 30.0, 45.0, 60.0])
#: A 2D lidar on r1, for the one-vehicle world.
R1_LASER = ('<sensor class="laser" name="scan"><pose_3d>0.2 0 0.3 0 0 0</pose_3d><fov_degrees>90</fov_degrees>'
            '<nrays>9</nrays></sensor>')


def static_frames(messages: list[TFMessage]) -> dict[tuple[str, str], object]:
    """(parent, child) -> transform, over every received message."""
    return {(t.header.frame_id, t.child_frame_id): t.transform for msg in messages for t in msg.transforms}


def assert_prox_transform(transform) -> None:
    """map -> prox: translation (1, 2, 0.4), a 30 deg yaw."""
    t, q = transform.translation, transform.rotation
    assert (t.x, t.y, t.z) == (pytest.approx(1.0), pytest.approx(2.0), pytest.approx(0.4))
    half = math.radians(15.0)
    assert (q.x, q.y, q.z, q.w) == pytest.approx((0.0, 0.0, math.sin(half), math.cos(half)), abs=1e-12)


@pytest.fixture(scope="module")
def two_vehicle_node(tmp_path_factory):
    r2 = '<vehicle name="r2" class="bot"><init_pose>-3 3 0</init_pose></vehicle>'
    world = tmp_path_factory.mktemp("world_sensors") / "two.world.xml"
    world.write_text(robot_world_xml(init_pose="-3 -3 0", extra=r2 + WALL + PROX))
    with node_and_probe("world_sensor_probe", f"world_file:={world}", "realtime_factor:=2.0") as probe:
        scans: list[LaserScan] = []
        statics: dict[str, list[TFMessage]] = {"/tf_static": [], "/r1/tf_static": []}
        probe.node.create_subscription(LaserScan, "/prox", scans.append, 20)
        for topic, received in statics.items():
            probe.node.create_subscription(TFMessage, topic, received.append, TF_STATIC_QOS)
        assert probe.wait_for(lambda: len(scans) >= 2 and all(statics.values()), timeout=30.0)
        yield probe, scans, statics


def test_world_laser_scans_the_wall_in_its_own_frame(two_vehicle_node):
    _, scans, _ = two_vehicle_node
    scan = scans[-1]
    assert scan.header.frame_id == "prox" and len(scan.ranges) == 5
    assert scan.angle_min == pytest.approx(-math.radians(30)) and scan.angle_max == pytest.approx(math.radians(30))
    ranges = np.array(scan.ranges, dtype=float)
    assert np.all(np.isfinite(ranges))
    assert ranges == pytest.approx(3.0 / np.cos(PROX_BEARINGS), abs=1e-3)


def test_world_laser_frame_is_fixed_to_map_on_the_root_tf_static(two_vehicle_node):
    _, _, statics = two_vehicle_node
    root = static_frames(statics["/tf_static"])
    assert list(root) == [("map", "prox")]
    assert_prox_transform(root[("map", "prox")])
    # r1's own latched tree stays on its namespaced topic, without the world's frames.
    assert ("map", "odom") in static_frames(statics["/r1/tf_static"])
    assert not any(child == "prox" for _, child in static_frames(statics["/r1/tf_static"]))


def test_one_vehicle_world_shares_one_latched_tf_static_message(tmp_path):
    world = tmp_path / "one.world.xml"
    text = robot_world_xml(init_pose="-3 -3 0", extra=WALL + PROX).replace(
        "<init_pose>-3 -3 0</init_pose>", "<init_pose>-3 -3 0</init_pose>" + R1_LASER)
    world.write_text(text)
    with node_and_probe("world_sensor_probe_1", f"world_file:={world}", "realtime_factor:=2.0") as probe:
        scans: list[LaserScan] = []
        probe.node.create_subscription(LaserScan, "/prox", scans.append, 10)
        assert probe.wait_for(lambda: scans, timeout=30.0)  # the node is up: what follows subscribes late
        late: list[TFMessage] = []
        probe.node.create_subscription(TFMessage, "/tf_static", late.append, TF_STATIC_QOS)
        wanted = {("map", "odom"), ("base_link", "base_footprint"), ("base_link", "scan"), ("map", "prox")}

        def together() -> list[TFMessage]:
            # (The module's two-vehicle node may still be running: its own /tf_static message is not this one.)
            return [msg for msg in late if set(static_frames([msg])) == wanted]

        # One latched message on /tf_static carries the vehicle's frames and the world sensor's together.
        assert probe.wait_for(together, timeout=10.0)
        frames = static_frames(together())
        assert_prox_transform(frames[("map", "prox")])
        lidar = frames[("base_link", "scan")].translation
        assert (lidar.x, lidar.y, lidar.z) == (pytest.approx(0.2), pytest.approx(0.0), pytest.approx(0.3))
