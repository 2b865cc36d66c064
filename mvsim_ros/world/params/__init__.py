"""MVSim's world-file parameters, one table per XML context (table.py: how a table reads an element).

Contexts are grouped by what they describe: the world and its objects (world_tables.py: world, includes and
loops, walls, markers, blocks, elements, actors, joints, visuals), vehicles (vehicle_tables.py: vehicle, chassis,
wheels, dynamics, controllers, friction, odometry) and sensors (sensor_tables.py). `all_tables()` lists them in
that order; docs/parameters.md is generated from them (`python -m mvsim_ros.world.params.doc`).
"""

from __future__ import annotations

from mvsim_ros.world.params.table import (GUI_ONLY, NOT_SIMULATED, SAME, SIMULATED, Param, ParamTable, Values, convert)


def all_tables() -> list[ParamTable]:
    """Every context's table: world and objects, vehicles, sensors."""
    from mvsim_ros.world.params.sensor_tables import TABLES as sensors
    from mvsim_ros.world.params.vehicle_tables import TABLES as vehicles
    from mvsim_ros.world.params.world_tables import TABLES as world

    return [*world, *vehicles, *sensors]


def table(context: str) -> ParamTable:
    """The table of `context` (e.g. "friction.default"); KeyError listing the contexts otherwise."""
    tables = {t.context: t for t in all_tables()}
    if context not in tables:
        raise KeyError(f"no parameter table {context!r}; contexts: {', '.join(tables)}")
    return tables[context]


__all__ = ["GUI_ONLY", "NOT_SIMULATED", "Param", "ParamTable", "SAME", "SIMULATED", "Values", "all_tables",
           "convert", "table"]
