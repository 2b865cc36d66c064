"""The sensors of a world's vehicles that this version simulates, built from their specs."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mvsim_ros.sensors.camera import Camera
from mvsim_ros.sensors.gnss import GeoReference, Gnss
from mvsim_ros.sensors.imu import Imu
from mvsim_ros.sensors.lidar2d import Lidar2D
from mvsim_ros.sensors.lidar3d import Lidar3D
from mvsim_ros.world.specs import WorldSpec

SIMULATED_SENSORS = ("laser", "imu", "gnss", "camera", "rgbd_camera", "lidar3d")


@dataclass
class Sensors:
    """All simulated sensors, and warnings for the declared ones that are not simulated."""

    lidars: list[Lidar2D] = field(default_factory=list)
    imus: list[Imu] = field(default_factory=list)
    gnss: list[Gnss] = field(default_factory=list)
    cameras: list[Camera] = field(default_factory=list)
    lidars3d: list[Lidar3D] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def build_sensors(world: WorldSpec, seed: int = 0) -> Sensors:
    """Sensors of all vehicles, in world order. Each gets its own generator, seeded from `seed`, its vehicle and
    its place on it, so the same world and seed give the same noise."""
    out = Sensors()
    geo = world.georeference
    reference = (GeoReference(geo.latitude_deg, geo.longitude_deg, geo.height, geo.world_to_enu_rotation_rad)
                 if geo is not None and not geo.world_is_utm else None)
    no_coverage = [e for e in world.elements if getattr(e, "property_name", None) == "gps_no_coverage"
                   and getattr(e, "value", False) is True]
    for index, vehicle in enumerate(world.vehicles):
        for k, sensor in enumerate(vehicle.sensors):
            rng = np.random.default_rng([seed, index, k])
            where = f"vehicle '{vehicle.name}' sensor '{sensor.name}'"
            if sensor.kind == "laser":
                out.lidars.append(Lidar2D(sensor, index, world, rng))
            elif sensor.kind == "imu":
                out.imus.append(Imu(sensor, index, world.gravity, rng))
            elif sensor.kind == "gnss" and reference is not None:
                out.gnss.append(Gnss(sensor, index, reference, no_coverage, rng))
            elif sensor.kind in ("camera", "rgbd_camera"):
                out.cameras.append(Camera(sensor, index, rng))
            elif sensor.kind == "lidar3d":
                out.lidars3d.append(Lidar3D(sensor, index, rng))
            elif sensor.kind == "gnss":
                out.warnings.append(f"{where}: GNSS needs a <georeference> (latitude/longitude) in the world; "
                                    "not simulated")
            else:
                out.warnings.append(f"{where} ({sensor.kind}) is not simulated by this version")
    if world.sensors:
        out.warnings.append(f"{len(world.sensors)} standalone sensor(s) are not simulated by this version")
    return out
