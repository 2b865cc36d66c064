"""The ROS side of the compiled fast path (runtime/fast_path/): the session's /clock and vehicle streams and its
lidars' scans, written and published through rcl from inside the compiled steps."""
