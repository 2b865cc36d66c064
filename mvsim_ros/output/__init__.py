"""Files written from a running simulation: CSV logs and ground-truth trajectories (no ROS)."""
