"""mvsim_ros: a ROS 2 multi-vehicle simulator (MVSim world format, Box2D + wheel-ground physics)."""

__version__ = "0.1.0"
