"""Scenario sweeps: many runs of worlds x parameter values x seeds x a driving program, on Ray (no ROS).

Modules: `spec` (the sweep file, its runs), `safe_yaml` (reading YAML within size and alias budgets), `program`
(what drives the vehicle), `run` (one run and its metrics), `results` (the output folder, one Parquet row per run,
resuming, the summary), `cluster` (a local Ray cluster on 127.0.0.1, or a running one), `engine` (the runs on Ray,
with a time limit per run and progress), `errors` (the one-line error of a sweep that cannot run).
The command line is `mvsim_sweep` (mvsim_ros/cli/sweep.py); docs/sweeps.md explains the file.
"""
