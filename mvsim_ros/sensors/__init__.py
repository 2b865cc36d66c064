"""Sensors: readings computed from the simulation state (no ROS). This version: the 2D lidar ("laser")."""
