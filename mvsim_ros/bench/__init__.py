"""Benchmarks: `python -m mvsim_ros.bench` (cli.py) runs one case module: physics.py (real-time factors, terrain),
sensors.py, node_rtf.py (the node), viewer.py, edits.py. The case modules share vehicles.py (benchmark vehicles
and worlds), node.py (the node rows and their worlds), node_process.py and paths.py, and import nothing else of
each other."""
