"""The tracking nodes (rclpy): trajectory tracker and the kinematic and dynamic car controllers."""
