"""The simulated car against the single-track (bicycle) model, without ROS: the 1/10-scale racecar driven by
the same inputs (steering steps, speed ramps, the five tracked shapes, the constant-radius test) in the simulator
and in the kinematic and linear-tyre single-track models, per Pacejka surface; a report of PNG figures, CSV numbers
and a Markdown page (report.py). Command line: cli.py (`python -m mvsim_ros.compare --out DIR [--quick]`).

    scenarios     what is run (full and quick plans)
    experiments   the car, the plants and the runs
    plots         the figures (matplotlib, Agg)
    report        runs a plan, writes the files
"""
