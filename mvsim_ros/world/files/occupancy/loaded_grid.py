"""An occupancy grid as a grid file holds it, whatever its format (ROS map_server YAML + image: ros_map.py;
MRPT binary ``.gridmap`` / ``.gridmap.gz``: mrpt_gridmap.py).

Both loaders return a :class:`LoadedGrid` holding

* ``occupancy``: int8 ``[rows, cols]`` in the ROS ``nav_msgs/OccupancyGrid`` convention (0..100 = occupancy
  probability in percent, -1 = unknown), row 0 at the grid's minimum y (south), column 0 at its minimum x;
* ``occupied``: bool, same shape: the cells the simulator treats as walls (each loader documents its rule);
* ``resolution`` [m/cell] and ``x_min``, ``y_min`` [m]: the world coordinates of the lower-left corner of cell
  (0, 0). Cell (row, col) covers x in [x_min + col*res, x_min + (col+1)*res] and likewise in y.

Each loader documents the format it reads and its rule for ``occupied``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from mvsim_ros.world.errors import WorldFileError

#: Where a grid file is named: (world file, line, tag), for error messages.
Where = tuple[str, Optional[int], str]


@dataclass
class LoadedGrid:
    """An occupancy grid as loaded from a file (see the module docstring for the conventions)."""

    occupancy: np.ndarray  # int8 [rows, cols], 0..100 or -1 unknown, row 0 = minimum y (south), col 0 = minimum x
    occupied: np.ndarray  # bool, same shape: cells to treat as walls
    resolution: float  # m/cell
    x_min: float  # world x of the grid's lower-left corner [m]
    y_min: float  # world y of the grid's lower-left corner [m]


def grid_error(message: str, where: Where) -> WorldFileError:
    """A WorldFileError for a grid file, located at `where` = (file, line, tag) of the element naming it."""
    file, line, tag = where
    return WorldFileError(message, file=file, line=line, tag=tag)


__all__ = ["LoadedGrid", "Where", "grid_error"]
