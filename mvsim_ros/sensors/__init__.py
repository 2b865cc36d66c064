"""Sensors: readings computed from the simulation state (no ROS): 2D and 3D lidars, cameras, IMU, GNSS."""
