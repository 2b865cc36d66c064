"""python -m mvsim_ros.compare: see mvsim_ros/compare/cli.py."""

import sys

from mvsim_ros.compare.cli import main

sys.exit(main())
