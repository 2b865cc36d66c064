"""A goal set in the viewer for a vehicle goes out on that vehicle's `<veh>/goal_pose` over real DDS: `/goal_pose`
in a one-vehicle world, `/r2/goal_pose` for r2 of two, and the topics follow the vehicles when the simulation is
replaced (a vehicle spawned or deleted). The node side alone (NodeViewerHost on an rclpy node standing for the
simulator's); test_viewer_node_dds.py drives the whole path from a browser page."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
import rclpy
from geometry_msgs.msg import PoseStamped
from rclpy.node import Node

from dds_probe import ProbeNode
from mvsim_ros.ros.node.node_viewer import NodeViewerHost, goal_topic
from mvsim_ros.ros.topics import vehicle_prefix

TOPICS = ("/goal_pose", "/r1/goal_pose", "/r2/goal_pose")


@dataclass
class FakeSim:
    vehicle_names: list[str]
    time: float = 12.5


@dataclass
class FakeSession:
    prefixes: list[str] = field(default_factory=list)
    context: None = None  # no publishing context: goals stamped with simulated time


class HostNode(Node):
    """An rclpy node with what NodeViewerHost reads of the simulator node: its simulation, session and outlets
    (none: plain publishers, no recording)."""

    def __init__(self, context, names: list[str]):
        super().__init__("mvsim_goal_host", context=context)
        self.outlets = None
        self.use(names)

    def use(self, names: list[str]) -> None:
        """A new simulation of the vehicles `names`, topics prefixed as the node prefixes them."""
        self.sim = FakeSim(list(names))
        self.session = FakeSession([vehicle_prefix(name, len(names), False) for name in names])


@pytest.fixture
def probe_and_host():
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "mvsim_goal_probe")
    received: dict[str, list[PoseStamped]] = {topic: [] for topic in TOPICS}
    for topic in TOPICS:
        probe.node.create_subscription(PoseStamped, topic, received[topic].append, 10)
    host_node = HostNode(context, ["r1"])
    probe.executor.add_node(host_node)
    try:
        yield probe, host_node, received
    finally:
        host_node.destroy_node()
        probe.node.destroy_node()
        rclpy.shutdown(context=context)


def _send(probe, host: NodeViewerHost, received, index: int, pose: tuple[float, float, float], topic: str) -> None:
    """Publish a goal for vehicle `index` until it arrives on `topic` (discovery takes a moment)."""
    for values in received.values():
        values.clear()
    assert probe.wait_for(lambda: probe.node.count_publishers(topic) > 0, timeout=10.0), topic
    host.goal(index, *pose)
    assert probe.wait_for(lambda: received[topic], timeout=10.0), f"nothing on {topic}"
    probe.spin_for(0.3)


def test_goal_topic_has_the_vehicles_cmd_vel_prefix():
    assert goal_topic(vehicle_prefix("r1", 1, False)) == "goal_pose"
    assert goal_topic(vehicle_prefix("r1", 1, True)) == "r1/goal_pose"
    assert goal_topic(vehicle_prefix("r2", 2, False)) == "r2/goal_pose"


def test_goals_go_to_the_vehicles_own_topic_and_follow_a_replaced_simulation(probe_and_host):
    probe, node, received = probe_and_host
    host = NodeViewerHost(node)

    _send(probe, host, received, 0, (1.0, 2.0, 0.5), "/goal_pose")
    assert [len(received[t]) for t in TOPICS] == [1, 0, 0]
    msg = received["/goal_pose"][0]
    assert (msg.pose.position.x, msg.pose.position.y, msg.header.frame_id) == (1.0, 2.0, "map")
    assert msg.header.stamp.sec == 12 and msg.header.stamp.nanosec == 500_000_000

    node.use(["r1", "r2"])  # a vehicle spawned: every topic gets the vehicle's prefix
    host.simulation_replaced()  # the node's notice to its viewer host once the new session is built
    assert host.sim is node.sim
    assert probe.wait_for(lambda: node.count_publishers("/goal_pose") == 0, timeout=10.0), "r1's old topic stays"
    _send(probe, host, received, 1, (-3.0, 4.0, -1.0), "/r2/goal_pose")
    assert [len(received[t]) for t in TOPICS] == [0, 0, 1]
    assert (received["/r2/goal_pose"][0].pose.position.x, received["/r2/goal_pose"][0].pose.position.y) == (-3.0, 4.0)
    _send(probe, host, received, 0, (0.0, 0.0, 0.0), "/r1/goal_pose")
    assert [len(received[t]) for t in TOPICS] == [0, 1, 0]
