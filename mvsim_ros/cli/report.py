"""``mvsim_report RUN.mcap [-o OUT_DIR]``: a page to look at a recorded run (see docs/report.md).

Writes OUT_DIR/index.html (default OUT_DIR: ``RUN_report/`` beside the file) with the vehicles' paths over the
map, speed and yaw rate against the commands, collisions and the topics' rates, and prints its path. Exit status:
0 written; 2 when the file is missing, unreadable, not MCAP or over the reader's memory budget, or the output
folder cannot be written (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point; returns the exit status (0 written, 2 unreadable input or unwritable output)."""
    parser = argparse.ArgumentParser(prog="mvsim_report", description="An HTML report of a recorded run (MCAP).")
    parser.add_argument("recording", help="the run's MCAP file (RUN.mcap)")
    parser.add_argument("-o", "--out", metavar="OUT_DIR", help="folder of the report (default: RUN_report/ beside "
                        "the file)")
    args = parser.parse_args(argv)
    from mvsim_ros.report import RecordingError, write_report

    try:
        report = write_report(args.recording, args.out)
    except RecordingError as error:
        print(f"mvsim_report: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"mvsim_report: cannot write the report: {error.strerror or error}"
              f"{f' ({error.filename})' if error.filename else ''}", file=sys.stderr)
        return 2
    except MemoryError:
        print(f"mvsim_report: {args.recording}: out of memory while making the report", file=sys.stderr)
        return 2
    print(report.index)
    return 0


if __name__ == "__main__":
    sys.exit(main())
