"""The simulated sensors, built from their specs: those on vehicles and the world-level ones.

Every sensor has a host: the index of the vehicle it rides on, or WORLD_HOST for a `<sensor>` placed directly
under `<mvsim_world>`. The world is a fixed, motionless frame (`map`), so a world sensor's pose is absolute. Code
that needs a sensor's host goes through `host_pose`, `host_pose3`, `host_motion`, `topic_prefix` and `host_frame`:
never index a per-vehicle list with a host directly (WORLD_HOST = -1 would silently pick the last vehicle).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from mvsim_ros.sensors.camera import Camera
from mvsim_ros.sensors.gnss import GeoReference, Gnss
from mvsim_ros.sensors.imu import Imu
from mvsim_ros.sensors.lidar2d import Lidar2D
from mvsim_ros.sensors.lidar3d import Lidar3D
from mvsim_ros.world.specs import SensorSpec, WorldSpec

SIMULATED_SENSORS = ("laser", "imu", "gnss", "camera", "rgbd_camera", "lidar3d")

#: Host of a world-level sensor: the world itself (frame `map`), in place of a vehicle index.
WORLD_HOST = -1
#: Spawn key that sets the noise generators of world sensors apart from every vehicle sensor's.
_WORLD_NOISE_KEY = (1,)


def is_world(host: int) -> bool:
    """True when `host` is the world (WORLD_HOST), false for a vehicle index."""
    return host == WORLD_HOST


def _vehicle_index(host: int) -> int:
    if host < 0:
        raise ValueError(f"sensor host {host} is neither a vehicle index nor WORLD_HOST")
    return host


def host_pose(sim, host: int) -> np.ndarray:
    """Planar pose (x [m], y [m], yaw [rad]) of a sensor's host in the world: the vehicle's current pose in
    `sim` (a physics Simulation), or zeros for the world."""
    if is_world(host):
        return np.zeros(3)
    return sim.pose[_vehicle_index(host)]


def host_pose3(sim, host: int) -> np.ndarray:
    """3D pose (x, y, z [m], yaw, pitch, roll [rad]) of a sensor's host in the world: the vehicle's current pose in
    `sim` on the terrain under its wheels (z = pitch = roll = 0 on flat ground), or zeros for the world."""
    if is_world(host):
        return np.zeros(6)
    k = _vehicle_index(host)
    x, y, yaw = sim.pose[k]
    return np.array([x, y, sim.vehicle_z[k], yaw, sim.vehicle_pitch[k], sim.vehicle_roll[k]])


def host_motion(sim, host: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pose (x, y, yaw), velocity (vx, vy, omega), acceleration (ax, ay, alpha)) of a sensor's host, world
    frame [m, rad, s]: the vehicle's reference point, or all zeros for the (motionless) world."""
    if is_world(host):
        return np.zeros(3), np.zeros(3), np.zeros(3)
    k = _vehicle_index(host)
    return sim.pose[k], sim.velocity[k], sim.acceleration[k]


def topic_prefix(prefixes: Sequence[str], host: int) -> str:
    """Topic prefix of a sensor's host: the vehicle's ('<veh>/' or ''), or '' for the world (its sensors
    publish at the node's root namespace)."""
    return "" if is_world(host) else prefixes[_vehicle_index(host)]


def host_frame(host: int, base_frame: str = "base_link", world_frame: str = "map") -> str:
    """The frame a sensor's `<pose>` is given in: the vehicle's base frame, or the world frame."""
    return world_frame if is_world(host) else base_frame


def noise_generator(seed: int, host: int, k: int) -> np.random.Generator:
    """The noise generator of the k-th sensor of a host: deterministic in (seed, host, k), and distinct for
    every vehicle and for the world."""
    if is_world(host):
        return np.random.default_rng(np.random.SeedSequence([seed, k], spawn_key=_WORLD_NOISE_KEY))
    return np.random.default_rng([seed, _vehicle_index(host), k])


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
    """Sensors of all vehicles, in world order, then the world-level sensors. Each gets its own generator
    (`noise_generator`), so the same world and seed give the same noise."""
    out = Sensors()
    geo = world.georeference
    reference = None
    if geo is not None:
        offset = tuple(geo.world_to_local(0.0, 0.0, 0.0))  # minus the UTM reference point in a UTM world
        reference = GeoReference(geo.latitude_deg, geo.longitude_deg, geo.height, geo.world_to_enu_rotation_rad,
                                 offset=(-offset[0], -offset[1], -offset[2]))
    no_coverage = [e for e in world.elements if getattr(e, "property_name", None) == "gps_no_coverage"
                   and getattr(e, "value", False) is True]
    hosts = [(index, vehicle.sensors, f"vehicle '{vehicle.name}' sensor")
             for index, vehicle in enumerate(world.vehicles)]
    hosts.append((WORLD_HOST, world.sensors, "world sensor"))
    for host, specs, label in hosts:
        for k, sensor in enumerate(specs):
            _add(out, sensor, host, noise_generator(seed, host, k), world, reference, no_coverage,
                 f"{label} '{sensor.name}'")
    on_vehicles = {sensor.name for vehicle in world.vehicles for sensor in vehicle.sensors}
    for sensor in world.sensors:
        if sensor.name in on_vehicles:
            out.warnings.append(f"world sensor '{sensor.name}' has the name of a vehicle sensor: frame ids (and, "
                                "with one vehicle, topics) are sensor names, so they clash; rename one of them")
    return out


def _add(out: Sensors, sensor: SensorSpec, host: int, rng: np.random.Generator, world: WorldSpec,
         reference: GeoReference | None, no_coverage: list, where: str) -> None:
    """Build one sensor on `host` into `out`, or add a warning naming it when it is not simulated."""
    if sensor.kind == "laser":
        out.lidars.append(Lidar2D(sensor, host, world, rng))
    elif sensor.kind == "imu":
        geo = world.georeference
        out.imus.append(Imu(sensor, host, world.gravity, rng,
                            geo.world_to_enu_rotation_rad if geo is not None else 0.0))
    elif sensor.kind == "gnss" and reference is not None:
        out.gnss.append(Gnss(sensor, host, reference, no_coverage, rng))
    elif sensor.kind in ("camera", "rgbd_camera"):
        out.cameras.append(Camera(sensor, host, rng))
    elif sensor.kind == "lidar3d":
        out.lidars3d.append(Lidar3D(sensor, host, rng))
    elif sensor.kind == "gnss":
        out.warnings.append(f"{where}: GNSS needs a <georeference> (latitude/longitude) in the world; "
                            "not simulated")
    else:
        out.warnings.append(f"{where} (class '{sensor.kind}') is not simulated by this version")
