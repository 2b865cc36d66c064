"""`python -m mvsim_ros.bench`: the benchmark command line (mvsim_ros.bench.cli)."""

import sys

from mvsim_ros.bench.cli import main

sys.exit(main())
