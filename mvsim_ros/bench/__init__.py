"""Benchmarks: `python -m mvsim_ros.bench` (physics, node, viewer and edit cases)."""
