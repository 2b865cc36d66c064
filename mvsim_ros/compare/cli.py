"""Command line of the comparison tool (console script mvsim_compare, or python -m mvsim_ros.compare).

    python -m mvsim_ros.compare --out docs/compare          # the full report (a few minutes)
    python -m mvsim_ros.compare --out /tmp/report --quick   # dry and ice, two shapes, short runs (seconds)

Runs headless (matplotlib's Agg backend) and writes into --out: PNG figures, metrics.csv, constant_radius.csv and
report.md linking them. Exit status 0 when written, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from mvsim_ros.compare.scenarios import FULL, QUICK
from mvsim_ros.tracking.seed_car import SURFACES


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="mvsim_compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="compare_report", help="output directory (created; files overwritten)")
    parser.add_argument("--quick", action="store_true", help="a short run: dry and ice, circle and figure eight")
    parser.add_argument("--surfaces", default="", help=f"comma-separated surfaces to run ({', '.join(SURFACES)})")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Build the report; see the module docstring."""
    args = parse_args(argv)
    plan = QUICK if args.quick else FULL
    if args.surfaces:
        chosen = tuple(s.strip() for s in args.surfaces.split(",") if s.strip())
        unknown = [s for s in chosen if s not in SURFACES]
        if unknown or not chosen:
            print(f"mvsim_compare: unknown surface(s) {', '.join(unknown) or '(none given)'}; valid: "
                  f"{', '.join(SURFACES)}", file=sys.stderr)
            return 2
        plan = dataclasses.replace(plan, surfaces=chosen)
    from mvsim_ros.compare.report import build_report

    def log(text: str) -> None:
        if not args.quiet:
            print(f"mvsim_compare: {text}", file=sys.stderr, flush=True)

    build_report(args.out, plan, log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
