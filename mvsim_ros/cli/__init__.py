"""Command-line tools at the edge: mvsim_view, mvsim_teleop, mvsim_fetch_models, rviz configurations."""
