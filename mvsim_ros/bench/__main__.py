"""`python -m mvsim_ros.bench`: the benchmark command line (see mvsim_ros.bench.physics)."""

import sys

from mvsim_ros.bench.physics import main

sys.exit(main())
