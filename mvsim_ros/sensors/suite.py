"""The sensors of a world's vehicles that this version simulates, built from their specs."""

from __future__ import annotations

import numpy as np

from mvsim_ros.sensors.lidar2d import Lidar2D
from mvsim_ros.world.specs import WorldSpec

SIMULATED_SENSORS = ("laser",)


def build_lidars(world: WorldSpec, seed: int = 0) -> tuple[list[Lidar2D], list[str]]:
    """2D lidars of all vehicles (in world order) and warnings for the sensors not simulated yet.

    Each lidar gets its own generator, seeded from `seed` and its position in the world (reproducible noise).
    """
    lidars, warnings = [], []
    for index, vehicle in enumerate(world.vehicles):
        for sensor in vehicle.sensors:
            if sensor.kind == "laser":
                if sensor.params.get("raytrace_3d", "false").strip().lower() in ("true", "1", "yes"):
                    warnings.append(f"vehicle '{vehicle.name}' sensor '{sensor.name}': raytrace_3d is not "
                                    "available in this version; ray casting in 2D")
                rng = np.random.default_rng([seed, index, len(lidars)])
                lidars.append(Lidar2D(sensor, index, world, rng))
            else:
                warnings.append(f"vehicle '{vehicle.name}' sensor '{sensor.name}' ({sensor.kind}) is not "
                                "simulated by this version")
    if world.sensors:
        warnings.append(f"{len(world.sensors)} standalone sensor(s) are not simulated by this version")
    return lidars, warnings
