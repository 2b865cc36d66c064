"""The collision flag over DDS: latched, published when it changes (a bump gives true, then false when clear)."""

import rclpy
from rclpy.qos import DurabilityPolicy, QoSProfile
from std_msgs.msg import Bool

from conftest import robot_world_xml
from dds_probe import ProbeNode
from mvsim_ros.physics import Simulation
from mvsim_ros.ros.publishing.state_publishers import SimPublishers
from mvsim_ros.world import load_world


def test_collision_flag_follows_contacts(write_world, wall_image):
    sim = Simulation(load_world(write_world(robot_world_xml(grid_file=str(wall_image(1.5))))))
    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        node = rclpy.create_node("mvsim_under_test", context=context)
        publishers = SimPublishers(node, sim)
        probe = ProbeNode(context, "collision_probe")
        flags = []
        probe.node.create_subscription(Bool, "/collision", lambda m: flags.append(m.data),
                                       QoSProfile(depth=10, durability=DurabilityPolicy.TRANSIENT_LOCAL))
        assert probe.wait_for(lambda: flags == [False], timeout=10.0)  # latched initial state

        def drive(v: float, seconds: float) -> None:
            sim.set_twist(0, v, 0.0)
            for _ in range(int(seconds / sim.dt)):
                sim.step()
                publishers.publish_due()
            probe.spin_for(0.3)

        drive(1.0, 3.0)  # into the wall at x = 1.5 m: stays pressed against it
        assert flags == [False, True]
        drive(-1.0, 1.0)  # back off
        assert flags == [False, True, False]
        node.destroy_node()
        probe.node.destroy_node()
    finally:
        rclpy.shutdown(context=context)
