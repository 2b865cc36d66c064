"""Scenario sweeps: many runs of worlds x parameter values x seeds x a driving program, on Ray (no ROS).

Modules: `spec` (the sweep file, its runs), `program` (what drives the vehicle), `run` (one run and its metrics),
`results` (one Parquet row per run, resuming, the summary), `engine` (the runs on a Ray cluster, with progress).
The command line is `mvsim_sweep` (mvsim_ros/cli/sweep.py); docs/sweeps.md explains the file.
"""
