"""ROS 2 edge of the simulator: the node, its publishers, services and input subscriptions around the runtime.

With the tracking nodes (tracking/nodes/) and the command-line tools built on them (cli/teleop, bench/), the only
code that imports rclpy and message types (test/test_architecture.py checks it).
"""
