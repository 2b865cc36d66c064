"""Parameter tables of the world contexts (see table.py)."""

from __future__ import annotations

from mvsim_ros.world.params.table import ParamTable

#: The tables of this group, in the order docs/parameters.md lists them.
TABLES: list[ParamTable] = []
