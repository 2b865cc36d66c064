"""ROS 2 edge of the simulator: the only package that imports rclpy and message types."""
