"""`mvsim_sweep SWEEP.yaml`: run a scenario sweep (worlds x parameters x seeds x a driving program) on Ray and
write one Parquet row per run, a summary table and plots (see docs/sweeps.md).

    mvsim_sweep sweep.yaml                          # on this machine (a local Ray cluster of its CPUs)
    mvsim_sweep sweep.yaml --workers 2 --out runs/  # two worker processes; results under runs/
    mvsim_sweep sweep.yaml --address 10.0.0.5:6379  # on a running Ray cluster (ray start --head there)

Runs already in the output folder are not run again (an interrupted sweep resumes). Exit status: 0 when every run
has its row (failed runs included), 2 for a bad sweep file or command line, 130 on Ctrl-C (the rows so far kept).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mvsim_sweep", description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep", help="the sweep file (YAML)")
    parser.add_argument("--out", type=Path, help="results folder (default: <sweep file name>_results/ beside it)")
    parser.add_argument("--address", help="Ray cluster address (default: a local cluster on this machine)")
    parser.add_argument("--workers", type=int, help="local cluster: worker processes (default: the CPU count)")
    parser.add_argument("--no-plots", action="store_true", help="skip the plots at the end")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.workers is not None and args.workers < 1:
        print("mvsim_sweep: error: --workers must be >= 1", file=sys.stderr)
        return 2
    try:
        import ray  # noqa: F401
    except ImportError:
        print("mvsim_sweep: error: Ray is not installed (pip install 'ray==2.60.0' pyarrow)", file=sys.stderr)
        return 2
    from mvsim_ros.sweep.engine import finish, run_sweep
    from mvsim_ros.sweep.spec import SweepFileError, load_sweep

    try:
        spec = load_sweep(args.sweep)
    except SweepFileError as exc:
        print(f"mvsim_sweep: error: {exc}", file=sys.stderr)
        return 2
    out = args.out or Path(args.sweep).with_name(Path(args.sweep).stem + "_results")
    try:
        outcome = run_sweep(spec, out, address=args.address, workers=args.workers)
    except KeyboardInterrupt:
        print("\nmvsim_sweep: interrupted; the rows written so far are kept (run again to resume)", file=sys.stderr)
        return 130
    path, table, _ = finish(out) if not args.no_plots else (None, None, None)
    if path is None:
        from mvsim_ros.sweep import results

        path, table = results.combine(out), results.summary_table(results.read_rows(out))
    print(table, end="")
    print(f"mvsim_sweep: {outcome.total} runs ({outcome.skipped} already done, {outcome.ran} run now, "
          f"{outcome.failed} failed) in {outcome.wall_seconds:.1f} s; rows in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
