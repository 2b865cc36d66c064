"""The benchmark command line, `python -m mvsim_ros.bench`: parses the options and runs the case they pick.

    python -m mvsim_ros.bench                 # the physics table, dt = 5 ms (physics.py)
    python -m mvsim_ros.bench --kind differential --robots 1 5 --seconds 5 --no-ros
    python -m mvsim_ros.bench --viewer         # what the browser viewer costs one robot (a page connected)
    python -m mvsim_ros.bench --terrain        # what the terrain under the wheels costs 50 robots on hills
    python -m mvsim_ros.bench --sensors        # lidar scans, camera frames and 3D lidar points per second
    python -m mvsim_ros.bench --node           # the node on the speed bar's worlds beside MVSim's figures, then ours
    python -m mvsim_ros.bench --node --mvsim ~/mvsim --against /tmp/old   # with MVSim's demos, beside another tree
    python -m mvsim_ros.bench --node --world FILE [--vehicles N]   # the node on any world file
    python -m mvsim_ros.bench --rendered --mvsim ~/mvsim   # MVSim's camera / 3D lidar worlds beside the renderer
    python -m mvsim_ros.bench --scan-cost      # one 181-ray 70 m 2D scan on maps of 50^2, 200^2, 800^2 cells
    python -m mvsim_ros.bench --edits          # spawning and deleting an entity in a node with 1000 blocks
    python -m mvsim_ros.bench --foxglove       # the node alone and with one Foxglove client on every channel

The cases are imported only when picked (the node, viewer and edit cases need ROS or a browser).
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

from mvsim_ros.bench.node_process import default_domain_id
from mvsim_ros.bench.vehicles import KINDS

#: Print a line at once (a table's rows appear as they are measured).
_out = functools.partial(print, flush=True)


def parser() -> argparse.ArgumentParser:
    """The command line's options."""
    p = argparse.ArgumentParser(prog="python -m mvsim_ros.bench",
                                description="Benchmark: real-time factor (simulated s / wall s) of the physics "
                                            "step, with and without ROS publishing, and the other cases below.")
    p.add_argument("--kind", choices=sorted(KINDS), help="only this vehicle kind")
    p.add_argument("--robots", type=int, nargs="+", help="vehicle counts (with --kind)")
    p.add_argument("--seconds", type=float, default=3.0, help="wall-clock seconds per run")
    p.add_argument("--dt", type=float, default=0.005, help="time step [s]")
    p.add_argument("--no-ros", action="store_true", help="skip the cases with ROS publishing")
    p.add_argument("--sensors", action="store_true", help="only the sensor figures")
    p.add_argument("--viewer", action="store_true",
                   help="only the viewer case: one robot with one connected browser page, cost in %% of the "
                        "real-time factor")
    p.add_argument("--browser-nice", type=int, default=10, choices=range(0, 20), metavar="0..19",
                   help="viewer case: the page's scheduling niceness (default 10; 0: the simulation's priority). "
                        "Without a GPU the browser draws WebGL in software, which otherwise takes cores from the "
                        "simulation like any busy program")
    p.add_argument("--terrain", action="store_true",
                   help="only the terrain case: vehicles (--robots, default 50) on hills and on flat ground side "
                        "by side, cost in %% of the flat real-time factor")
    p.add_argument("--node", action="store_true",
                   help="only the node benchmark: the node's real-time factor from /clock on worlds/bench/ "
                        "(median of --repeat runs of --seconds) beside the physics alone")
    p.add_argument("--world", type=Path, help="--node: only this world file (any MVSim world)")
    p.add_argument("--mvsim", type=Path, metavar="DIR",
                   help="a checkout of MRPT/mvsim (default: $MVSIM_DIR): --node adds its demo_1robot and "
                        "demo_many_robots rows, --rendered takes its camera and 3D lidar worlds")
    p.add_argument("--against", type=Path, metavar="TREE",
                   help="--node: also run another source tree of mvsim_ros (e.g. a git worktree of an older commit) "
                        "on every row, alternating with this one, and print both")
    p.add_argument("--rendered", action="store_true",
                   help="only the rendered-sensor case: MVSim's demo_warehouse, demo_jackal, demo_2robots and "
                        "demo_elevation_map through the node beside the renderer alone (needs --mvsim)")
    p.add_argument("--vehicles", type=int, help="--node --world: command this many of its vehicles (default: all)")
    p.add_argument("--record", action="store_true",
                   help="what recording (record:=FILE.mcap) costs the node: 1 and 10 robots with lidars, or --world")
    p.add_argument("--foxglove", action="store_true",
                   help="what serving Foxglove (foxglove:=true) costs the node with one client subscribed to every "
                        "channel: 1 and 10 robots with lidars, or --world")
    p.add_argument("--compression", choices=("lz4", "zstd", "none"), default="lz4",
                   help="--record: chunk compression of the recording")
    p.add_argument("--gym", action="store_true",
                   help="Gymnasium environments: env steps per second of one env and a vector of 8, then batched "
                        "copies (MvsimBatchEnv, --copies of them) beside MvsimVectorEnv (needs gymnasium)")
    p.add_argument("--copies", type=int, nargs="+", default=None,
                   help="--gym: numbers of batched copies (default: 1 16 64 256 1024)")
    p.add_argument("--sweep", action="store_true",
                   help="scenario sweeps on Ray: 40 runs with 1 and 2 local workers (needs ray and pyarrow)")
    p.add_argument("--scan-cost", action="store_true",
                   help="only the cost of one 181-ray 70 m 2D lidar scan on maps of 50^2, 200^2 and 800^2 cells, "
                        "and in a walled yard whose walls are 4, 40 or 400 pieces on the ground or static blocks")
    p.add_argument("--edits", action="store_true",
                   help="only the world-edit case: spawn and delete round trips over DDS in a node with --blocks "
                        "spawned blocks, and the longest /clock gap meanwhile")
    p.add_argument("--blocks", type=int, default=1000, help="--edits: blocks spawned first")
    p.add_argument("--rounds", type=int, default=20, help="--edits: spawn/delete pairs measured")
    p.add_argument("--repeat", type=int, default=3,
                   help="runs per case; the best is reported (least disturbed by other load)")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the case the options pick (the physics table by default) and print its figures; the exit status."""
    args = parser().parse_args(argv)
    default_domain_id()
    if args.edits:
        from mvsim_ros.bench import edits

        edits.report(edits.measure_edits(args.blocks, args.rounds), args.blocks, out=_out)
    elif args.sweep:
        from mvsim_ros.bench.sweep_throughput import sweep_table

        sweep_table(args.repeat, out=_out)
    elif args.gym:
        from mvsim_ros.bench.gym_steps import BATCH_COPIES, batch_table, gym_table

        gym_table(args.seconds, args.repeat, out=_out)
        batch_table(args.seconds, args.repeat, tuple(args.copies or BATCH_COPIES), out=_out)
    elif args.record:
        from mvsim_ros.bench.node import world_row
        from mvsim_ros.bench.recording import DEFAULT_ROWS, record_table

        rows = [world_row(args.world, args.vehicles)] if args.world is not None else DEFAULT_ROWS
        record_table(args.seconds, args.repeat, rows, args.compression, out=_out)
    elif args.foxglove:
        from mvsim_ros.bench.node import world_row
        from mvsim_ros.bench.recording import DEFAULT_ROWS, foxglove_table

        rows = [world_row(args.world, args.vehicles)] if args.world is not None else DEFAULT_ROWS
        try:
            foxglove_table(args.seconds, args.repeat, rows, out=_out)
        except RuntimeError as exc:
            return _fail(str(exc))
    elif args.node:
        return _node(args)
    elif args.rendered:
        return _rendered(args)
    elif args.scan_cost:
        from mvsim_ros.bench.sensors import scan_cost_table

        scan_cost_table(args.seconds, args.repeat, out=_out)
    elif args.viewer:
        from mvsim_ros.bench import viewer

        kind = args.kind or "differential"
        runs = [viewer.measure_viewer(args.seconds, kind, browser_nice=args.browser_nice) for _ in range(args.repeat)]
        viewer.report(runs, kind, args.browser_nice, args.dt, out=_out)
    elif args.terrain:
        from mvsim_ros.bench.physics import terrain_table

        terrain_table(args.kind or "differential", args.robots or (50,), args.seconds, args.repeat, args.dt, out=_out)
    elif args.sensors:
        from mvsim_ros.bench.sensors import sensors_report

        sensors_report(args.seconds, args.repeat, out=_out)
    else:
        _physics(args)
    return 0


def _fail(message: str) -> int:
    """One line on stderr and exit status 2."""
    import sys

    print(f"python -m mvsim_ros.bench: {message}", file=sys.stderr)
    return 2


def _node(args: argparse.Namespace) -> int:
    """The node benchmark: --world alone, or the speed bar's worlds beside MVSim's figures and then our own; with
    --against, the other tree's native libraries built into a temporary folder removed afterwards."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="mvsim_bench_native_") as native:
        return _node_tables(args, Path(native))


def _node_tables(args: argparse.Namespace, native_dir: Path) -> int:
    """_node's tables; `native_dir`: an empty folder for --against's native libraries."""
    from mvsim_ros.bench.node import (MAP_ROWS, MVSIM_RTF, RENDERED_ROWS, ROWS, mvsim_checkout, named_rows,
                                      world_row)
    from mvsim_ros.bench.node_process import other_tree_environment
    from mvsim_ros.bench.node_rtf import run_table

    try:
        if args.world is not None:
            rows = [world_row(args.world, args.vehicles)]
        else:
            named = named_rows(mvsim_checkout(args.mvsim))
        against = other_tree_environment(args.against, native_dir) if args.against is not None else None
    except (RuntimeError, FileNotFoundError) as exc:
        return _fail(str(exc))
    if args.world is not None:
        run_table(args.seconds, args.repeat, rows, out=_out, reference=MVSIM_RTF, against=against)
        return 0
    if args.kind is None and args.robots is None:
        _out("the speed bar's worlds (worlds/bench/ copies of the reference worlds; MVSim's demos from --mvsim)")
        run_table(args.seconds, args.repeat, named, out=_out, reference=MVSIM_RTF, against=against)
        _out("\nthe project's own benchmark worlds (not the bar's)")
    own = [r for r in ROWS + MAP_ROWS + RENDERED_ROWS if (args.kind is None or r.kind == args.kind)
           and (args.robots is None or r.robots in args.robots)]
    run_table(args.seconds, args.repeat, own, out=_out, against=against)
    return 0


def _rendered(args: argparse.Namespace) -> int:
    """The rendered-sensor case on MVSim's tutorial worlds (a checkout from --mvsim or $MVSIM_DIR)."""
    from mvsim_ros.bench.node import RENDERED_MVSIM_WORLDS, mvsim_checkout, mvsim_world

    checkout = mvsim_checkout(args.mvsim)
    if checkout is None:
        return _fail("--rendered needs a checkout of MRPT/mvsim: --mvsim DIR or MVSIM_DIR=DIR")
    try:
        worlds = [mvsim_world(checkout, name) for name in RENDERED_MVSIM_WORLDS]
    except FileNotFoundError as exc:
        return _fail(str(exc))
    from mvsim_ros.bench.rendered import rendered_table

    rendered_table(worlds, args.seconds, args.repeat, out=_out)
    return 0


def _physics(args: argparse.Namespace) -> None:
    """The physics table: the default cases, or --kind with --robots; then the ROS context shut down."""
    from mvsim_ros.bench.physics import DEFAULT_CASES, rtf_table

    cases = DEFAULT_CASES
    if args.kind:
        cases = ((args.kind, tuple(args.robots or (1, 10, 50)), args.kind == "differential"),)
    try:
        rtf_table(cases, args.seconds, args.repeat, args.dt, with_ros=not args.no_ros, out=_out)
    finally:
        try:
            import rclpy
        except ImportError:
            return
        rclpy.try_shutdown()


__all__ = ["main", "parser"]
