"""`mvsim_sweep SWEEP.yaml`: run a scenario sweep (worlds x parameters x seeds x a driving program) on Ray and
write one Parquet row per run, a summary table and plots (see docs/sweeps.md).

    mvsim_sweep sweep.yaml                          # on this machine (a local Ray cluster on 127.0.0.1)
    mvsim_sweep sweep.yaml --workers 2 --out runs/  # two worker processes; results under runs/
    mvsim_sweep sweep.yaml --address 10.0.0.5:6379  # on a running Ray cluster (ray start --head there)
    mvsim_sweep sweep.yaml --run-timeout 120        # a run still going after 120 s fails as timed out

Runs already in the output folder are not run again (an interrupted sweep resumes). Exit status: 0 when every run
has its row (failed runs included), 2 for a bad sweep file, output folder or command line, or a Ray cluster that
cannot be started or reached (one line on stderr), 130 on Ctrl-C (the rows so far kept).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mvsim_sweep", description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep", help="the sweep file (YAML)")
    parser.add_argument("--out", type=Path, help="results folder (default: <sweep file name>_results/ beside it)")
    parser.add_argument("--address", help="Ray cluster address (default: a new local cluster on 127.0.0.1)")
    parser.add_argument("--workers", type=int, help="local cluster: worker processes (default: the CPU count)")
    parser.add_argument("--run-timeout", type=float, metavar="SECONDS",
                        help="wall-time limit of one run [s] (default: the sweep file's run_timeout, else 600)")
    parser.add_argument("--max-runs", type=int, metavar="N",
                        help="refuse a sweep of more than N runs (default: 100000)")
    parser.add_argument("--no-plots", action="store_true", help="skip the plots at the end")
    return parser


def _usage_error(args: argparse.Namespace) -> str | None:
    if args.workers is not None and args.workers < 1:
        return "--workers must be >= 1"
    if args.run_timeout is not None and not (math.isfinite(args.run_timeout) and args.run_timeout > 0):
        return "--run-timeout must be a number of seconds > 0"
    if args.max_runs is not None and args.max_runs < 1:
        return "--max-runs must be >= 1"
    return None


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    problem = _usage_error(args)
    if problem:
        print(f"mvsim_sweep: error: {problem}", file=sys.stderr)
        return 2
    try:
        return _sweep(args)
    except KeyboardInterrupt:
        print("\nmvsim_sweep: interrupted; the rows written so far are kept (run again to resume)", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 (every failure is one line and exit status 2, never a traceback)
        from mvsim_ros.sweep.errors import SweepError

        message = str(exc) if isinstance(exc, SweepError) else f"{type(exc).__name__}: {exc}"
        print(f"mvsim_sweep: error: {' '.join(message.split())}", file=sys.stderr)
        return 2


def _sweep(args: argparse.Namespace) -> int:
    from mvsim_ros.sweep.errors import SweepError
    from mvsim_ros.sweep.spec import MAX_RUNS, load_sweep

    spec = load_sweep(args.sweep, max_runs=args.max_runs or MAX_RUNS)
    out = args.out or Path(args.sweep).with_name(Path(args.sweep).stem + "_results")
    try:
        from mvsim_ros.sweep import results

        results.prepare_out(out)
        import ray  # noqa: F401
    except ImportError:
        raise SweepError("Ray or pyarrow is not installed (pip install 'ray==2.60.0' 'pyarrow==26.0.1')") from None
    from mvsim_ros.sweep.engine import finish, run_sweep

    outcome = run_sweep(spec, out, address=args.address, workers=args.workers, run_timeout=args.run_timeout)
    if args.no_plots:
        path, table = results.combine(out), results.summary_table(results.read_rows(out))
    else:
        path, table, _ = finish(out)
    print(table, end="")
    print(f"mvsim_sweep: {outcome.total} runs ({outcome.skipped} already done, {outcome.ran} run now, "
          f"{outcome.failed} failed) in {outcome.wall_seconds:.1f} s; rows in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
