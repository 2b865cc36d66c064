"""Simulation state and sensor readings as ROS messages on topics (and the compiled publish path)."""
