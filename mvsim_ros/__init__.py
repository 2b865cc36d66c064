"""mvsim_ros: a ROS 2 multi-vehicle simulator (MVSim world format, Box2D + wheel-ground physics)."""

from mvsim_ros.core import quiet_box2d_timer as _quiet_box2d_timer

# Before anything imports Box2D: its step profiler's clock reads are left out (core/quiet_box2d_timer.py).
_quiet_box2d_timer.install()

__version__ = "0.1.0"
