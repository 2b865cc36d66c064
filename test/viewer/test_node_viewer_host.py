"""The node's viewer host learns of a replaced simulation from the node's notice only: reading `sim` changes
nothing, and a reset (the node's replace_simulation) makes one new scene version for the pages."""

from __future__ import annotations

import rclpy
from rclpy.parameter import Parameter

from conftest import DEMO_WORLD


def test_a_reset_is_one_new_scene_and_reading_the_simulation_changes_nothing():
    from mvsim_ros.ros.node.simulator_node import MvsimNode

    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        node = MvsimNode(context=context, parameter_overrides=[
            Parameter("world_file", value=str(DEMO_WORLD)), Parameter("headless", value=False),
            Parameter("viewer_port", value=0), Parameter("status_period", value=0.0)])
        try:
            host = node.viewer.host
            first = node.sim
            for _ in range(3):
                assert host.sim is first and host.scene_version == 0
            node.reset_to_start()
            assert node.sim is not first and host.sim is node.sim and host.scene_version == 1
            assert host.sim is node.sim and host.scene_version == 1
        finally:
            node.destroy_node()
    finally:
        rclpy.shutdown(context=context)
