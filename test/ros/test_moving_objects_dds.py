"""Animated blocks and actors over real DDS: their poses on `simul_objects` (visualization_msgs/MarkerArray, frame
`map`) are where their keyframes / paths say at the markers' stamp, and a robot driving into an actor reports
`collision`."""

import math

import pytest
from geometry_msgs.msg import Twist
from rclpy.qos import DurabilityPolicy, QoSProfile
from std_msgs.msg import Bool
from visualization_msgs.msg import Marker, MarkerArray

from conftest import robot_world_xml
from dds_probe import node_and_probe, stamp_s

MOVING = """
  <block name="shuttle"><shape><pt>-0.5 -0.5</pt><pt>0.5 -0.5</pt><pt>0.5 0.5</pt><pt>-0.5 0.5</pt></shape>
    <zmax>0.8</zmax><init_pose>0 10 90</init_pose>
    <animation type="keyframes"><time_pose>0 0 0 0</time_pose><time_pose>4 4 0 0</time_pose></animation>
  </block>
  <actor name="bystander"><collision_radius>0.3</collision_radius><collision_height>1.7</collision_height>
    <init_pose>2.5 0 180</init_pose><path><waypoint pause="1000">2.5 0 180</waypoint></path></actor>
"""


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    world = tmp_path_factory.mktemp("moving") / "moving.world.xml"
    world.write_text(robot_world_xml(extra=MOVING))
    with node_and_probe("moving_probe", f"world_file:={world}", "realtime_factor:=2.0",
                        "base_watchdog_timeout:=1.0") as probe:
        yield probe


def test_markers_follow_keyframes_and_paths(running):
    arrays = []
    running.node.create_subscription(MarkerArray, "/simul_objects", arrays.append, 10)
    assert running.wait_for(lambda: len(arrays) >= 5, timeout=60.0), "no simul_objects markers"
    for array in arrays[-3:]:
        by_ns = {(m.ns, m.id): m for m in array.markers}
        assert set(by_ns) == {("animated_blocks", 0), ("actors", 0), ("actor_names", 0)}
        block, actor, label = by_ns["animated_blocks", 0], by_ns["actors", 0], by_ns["actor_names", 0]
        assert {m.header.frame_id for m in array.markers} == {"map"}
        t = stamp_s(block)
        # Keyframes: x from 0 to 4 in 4 s, in the block's frame turned 90 deg at (0, 10): world y = 10 + x(t).
        along = 4.0 * math.fmod(t, 4.0) / 4.0
        assert (block.pose.position.x, block.pose.position.y) == pytest.approx((0.0, 10.0 + along), abs=1e-6)
        assert block.type == Marker.TRIANGLE_LIST and len(block.points) == 36  # a box: 12 triangles
        assert block.pose.orientation.z == pytest.approx(math.sin(math.pi / 4), abs=1e-9)
        assert (actor.pose.position.x, actor.pose.position.y, actor.pose.position.z) == \
            pytest.approx((2.5, 0.0, 0.85))
        assert (actor.scale.x, actor.scale.z) == pytest.approx((0.6, 1.7))
        assert label.text == "bystander"


def test_robot_driving_into_the_actor_reports_collision(running):
    flags = []
    running.node.create_subscription(Bool, "/collision", lambda m: flags.append(m.data),
                                     QoSProfile(depth=10, durability=DurabilityPolicy.TRANSIENT_LOCAL))
    assert running.wait_for(lambda: flags == [False], timeout=30.0)
    cmd = running.node.create_publisher(Twist, "/cmd_vel", 10)
    forward = Twist()
    forward.linear.x = 1.0
    # The actor's near side is 2.5 - 0.3 m ahead, the robot's front 0.25 m: about 2 s of driving at 1 m/s.
    deadline_steps = 300  # 15 s of wall time at 20 Hz, at most
    for _ in range(deadline_steps):
        cmd.publish(forward)
        running.spin_for(0.05)
        if True in flags:
            break
    assert flags[:2] == [False, True], f"no collision reported: {flags}"
