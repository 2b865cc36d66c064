"""The one runner (no ROS): pacing, run state, the schedule of what is due, sensor measurement."""
