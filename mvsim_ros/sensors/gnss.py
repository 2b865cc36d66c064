"""GNSS receiver: the sensor's true position as WGS84 latitude, longitude and height, with Gaussian noise.

The world's <georeference> places the world origin at (lat0, lon0, h0) with the world x axis rotated by
world_to_enu_rotation from East. A world point is rotated into local East-North-Up coordinates, converted to
Earth-centred Earth-fixed coordinates through the origin's ENU basis, and then to geodetic coordinates
(WGS84, iterated to below a micrometre). Noise: horizontal_std_noise [m] on East and North,
vertical_std_noise [m] on Up (defaults 2 m and 4 m as MVSim; 0 disables), one sample per sensor_period
(MVSim's default 0.1 s). Inside a `gps_no_coverage` property region there is no fix. Names and defaults:
world/params/sensor_tables.py (sensor.gnss).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mvsim_ros.sensors.host_placement import host_matrix
from mvsim_ros.core.schedule import Periodic
from mvsim_ros.world.specs import SensorSpec

WGS84_A = 6378137.0  #: semi-major axis [m]
WGS84_F = 1.0 / 298.257223563  #: flattening
WGS84_E2 = WGS84_F * (2.0 - WGS84_F)  #: first eccentricity squared


def geodetic_to_ecef(lat: float, lon: float, h: float) -> np.ndarray:
    """ECEF coordinates [m] of a geodetic point (lat, lon [rad], h [m] over the WGS84 ellipsoid)."""
    n = WGS84_A / math.sqrt(1.0 - WGS84_E2 * math.sin(lat) ** 2)
    return np.array([(n + h) * math.cos(lat) * math.cos(lon), (n + h) * math.cos(lat) * math.sin(lon),
                     (n * (1.0 - WGS84_E2) + h) * math.sin(lat)])


def ecef_to_geodetic(p: np.ndarray) -> tuple[float, float, float]:
    """(lat, lon [rad], h [m]) of an ECEF point, by fixed-point iteration on the latitude."""
    x, y, z = p
    lon = math.atan2(y, x)
    r = math.hypot(x, y)
    lat = math.atan2(z, r * (1.0 - WGS84_E2))
    for _ in range(10):
        n = WGS84_A / math.sqrt(1.0 - WGS84_E2 * math.sin(lat) ** 2)
        h = r / math.cos(lat) - n if abs(lat) < math.pi / 4 else z / math.sin(lat) - n * (1.0 - WGS84_E2)
        new_lat = math.atan2(z, r * (1.0 - WGS84_E2 * n / (n + h)))
        if abs(new_lat - lat) < 1e-14:
            lat = new_lat
            break
        lat = new_lat
    n = WGS84_A / math.sqrt(1.0 - WGS84_E2 * math.sin(lat) ** 2)
    h = r / math.cos(lat) - n if abs(lat) < math.pi / 4 else z / math.sin(lat) - n * (1.0 - WGS84_E2)
    return lat, lon, h


class GeoReference:
    """World (x, y, z) [m] -> WGS84 (lat, lon [deg], h [m]) for a world origin and ENU rotation.

    offset [m]: subtracted from world points first: (0, 0, 0), or for a world in UTM coordinates
    (<georeference><world_is_utm>) the reference point's UTM easting, northing and height, as MVSim does."""

    def __init__(self, latitude_deg: float, longitude_deg: float, height: float, world_to_enu_rotation: float,
                 offset: tuple[float, float, float] = (0.0, 0.0, 0.0)):
        self.offset = offset
        self.lat0, self.lon0 = math.radians(latitude_deg), math.radians(longitude_deg)
        self.origin = geodetic_to_ecef(self.lat0, self.lon0, height)
        sl, cl = math.sin(self.lat0), math.cos(self.lat0)
        so, co = math.sin(self.lon0), math.cos(self.lon0)
        self.enu_to_ecef = np.array([[-so, -sl * co, cl * co], [co, -sl * so, cl * so], [0.0, cl, sl]])
        self.rotation = world_to_enu_rotation

    def world_to_enu(self, x: float, y: float, z: float) -> np.ndarray:
        """ENU offsets [m] of a world point from the origin."""
        c, s = math.cos(self.rotation), math.sin(self.rotation)
        x, y, z = x - self.offset[0], y - self.offset[1], z - self.offset[2]
        return np.array([c * x - s * y, s * x + c * y, z])

    def enu_to_geodetic(self, enu: np.ndarray) -> tuple[float, float, float]:
        """(lat [deg], lon [deg], h [m]) of an ENU offset from the origin."""
        lat, lon, h = ecef_to_geodetic(self.origin + self.enu_to_ecef @ enu)
        return math.degrees(lat), math.degrees(lon), h


@dataclass
class GnssFix:
    """A GNSS sample: fix or not, latitude/longitude [deg], height [m], and the ENU position variances [m^2]."""

    has_fix: bool
    latitude: float
    longitude: float
    height: float
    variance_enu: tuple[float, float, float]


class Gnss:
    """A GNSS receiver at `spec.pose` on its host `vehicle`: a vehicle index, or suite.WORLD_HOST for a receiver
    fixed in the world (read at pose zero: `spec.pose` is then its world position)."""

    def __init__(self, spec: SensorSpec, vehicle: int, geo: GeoReference, no_coverage, rng: np.random.Generator):
        self.spec = spec
        self.vehicle = vehicle
        self.geo = geo
        self.no_coverage = no_coverage  # regions with .contains(x, y, z)
        self.rng = rng
        params = spec.params
        self.period = params.sensor_period
        self.horizontal_noise = params.horizontal_std_noise
        self.vertical_noise = params.vertical_std_noise
        self.schedule = Periodic(self.period)

    def due(self, now: float) -> bool:
        """True (and the next sample scheduled) when a sample is due at simulated time `now` [s]."""
        return self.schedule.due(now)

    def read(self, pose: np.ndarray) -> GnssFix:
        """Sample at the host's pose (x, y, yaw) or (x, y, z, yaw, pitch, roll) [m, rad] (zeros for the world):
        the antenna's position, its mount carried with the host's tilt."""
        p = self.spec.pose
        x, y, z = (host_matrix(pose) @ np.array([p.x, p.y, p.z, 1.0]))[:3].tolist()
        variances = (self.horizontal_noise ** 2, self.horizontal_noise ** 2, self.vertical_noise ** 2)
        if any(region.contains(x, y, z) for region in self.no_coverage):
            return GnssFix(False, math.nan, math.nan, math.nan, variances)
        enu = self.geo.world_to_enu(x, y, z)
        noise = np.array([self.horizontal_noise, self.horizontal_noise, self.vertical_noise])
        if noise.any():
            enu = enu + self.rng.normal(0.0, 1.0, 3) * noise
        lat, lon, h = self.geo.enu_to_geodetic(enu)
        return GnssFix(True, lat, lon, h, variances)
