"""The world-level option blocks `<gui>`, `<lights>` and `<georeference>`, read through their parameter tables
(params/world_tables.py): MVSim's names and defaults, SI units (angles in radians), warnings with file:line."""

from __future__ import annotations

import math
import warnings

from mvsim_ros.world.xml.param_reading import read_params
from mvsim_ros.world.params.table import Warn
from mvsim_ros.world.params.world_tables import WORLD_GEOREFERENCE, WORLD_GUI, WORLD_LIGHTS
from mvsim_ros.world.specs import Georeference, GuiOptions, LightOptions, SourceRef
from mvsim_ros.world.xml.values import fail
from mvsim_ros.world.xml.xml_tree import XmlNode

Point3 = tuple[float, float, float]

#: WGS84 ellipsoid: semi-major axis [m] and flattening.
WGS84_A_M = 6378137.0
WGS84_F = 1.0 / 298.257223563
#: UTM scale factor on the central meridian, false easting [m] and false northing south of the equator [m].
UTM_K0 = 0.9996
UTM_FALSE_EASTING_M = 500000.0
UTM_FALSE_NORTHING_SOUTH_M = 10000000.0
#: `<gui>` parameters that place MVSim's initial camera (the viewer's first view follows them when one is set).
CAMERA_PLACE_PARAMS = frozenset({"cam_distance", "cam_azimuth", "cam_elevation", "cam_point_to"})


def parse_gui(node: XmlNode, warn: Warn | None = None) -> GuiOptions:
    """``<gui>`` through its table; the MVSim-GUI-only settings are named in one warning."""
    warn = warner(warn)
    values = read_params(WORLD_GUI, node, warn, label="<gui>")
    opts = GuiOptions(source=_src(node))
    for name, value in values.items():
        key = {"cam_azimuth": "cam_azimuth_rad", "cam_elevation": "cam_elevation_rad", "fov_deg": "fov_rad"}.get(
            name, name)
        if name == "cam_point_to":
            value = _point3(value, values.node(name, node), name)
        setattr(opts, key, value)
    opts.camera_given = bool(CAMERA_PLACE_PARAMS & set(values.given))
    if opts.clip_plane_max <= opts.clip_plane_min:
        raise fail(node, "clip_plane_max must be larger than clip_plane_min")
    return opts


def parse_lights(node: XmlNode, warn: Warn | None = None) -> LightOptions:
    """``<lights>`` through its table (named in one warning: this simulator does not use them). The cascade counts
    are clamped into 1..4."""
    warn = warner(warn)
    values = read_params(WORLD_LIGHTS, node, warn, label="<lights>",
                         handled_tags=("point_light", "spot_light"))
    opts = LightOptions(source=_src(node))
    extra = [child for child in node.children if child.tag in ("point_light", "spot_light")]
    for name, value in values.items():
        key = {"light_azimuth_deg": "light_azimuth_rad", "light_elevation_deg": "light_elevation_rad"}.get(
            name, name)
        if hasattr(opts, key):
            setattr(opts, key, value)
    opts.extra_lights = extra
    if extra:
        warn(extra[0], "<point_light> / <spot_light> in <lights>: not read by MVSim; accepted but not used here")
    opts.shadow_cascades = min(max(opts.shadow_cascades, 1), 4)
    opts.sensor_shadow_cascades = min(max(opts.sensor_shadow_cascades, 1), 4)
    return opts


def parse_georeference(node: XmlNode, warn: Warn | None = None) -> Georeference:
    """``<georeference>`` through its table; with world_is_utm, the reference point's UTM coordinates."""
    warn = warner(warn)
    values = read_params(WORLD_GEOREFERENCE, node, warn, label="<georeference>")
    geo = Georeference(source=_src(node), latitude_deg=values["latitude"], longitude_deg=values["longitude"],
                       height=values["height"], world_to_enu_rotation_rad=values["world_to_enu_rotation_deg"],
                       world_is_utm=values["world_is_utm"])
    if not -90.0 <= geo.latitude_deg <= 90.0:
        raise fail(values.node("latitude", node), f"latitude must be within [-90, 90] degrees, got "
                                                  f"{geo.latitude_deg:g}")
    if not -180.0 <= geo.longitude_deg <= 180.0:
        raise fail(values.node("longitude", node), f"longitude must be within [-180, 180] degrees, got "
                                                   f"{geo.longitude_deg:g}")
    if geo.world_is_utm:
        if geo.world_to_enu_rotation_rad != 0.0:
            raise fail(node, "cannot define both <world_to_enu_rotation_deg> and <world_is_utm>")
        if geo.latitude_deg == 0.0 and geo.longitude_deg == 0.0:
            raise fail(node, "<world_is_utm> needs the reference <latitude> and <longitude> too")
        if abs(geo.latitude_deg) > 84.0:
            raise fail(node, f"<world_is_utm>: UTM covers latitudes within [-80, 84] degrees, got "
                             f"{geo.latitude_deg:g}")
        geo.utm_easting, geo.utm_northing, geo.utm_zone, geo.utm_band = geodetic_to_utm(geo.latitude_deg,
                                                                                        geo.longitude_deg)
    return geo


def utm_zone(lat_deg: float, lon_deg: float) -> int:
    """The UTM zone (1..60) of a point, with the Norway and Svalbard exceptions."""
    zone = int((lon_deg + 180.0) // 6.0) % 60 + 1
    if 56.0 <= lat_deg < 64.0 and 3.0 <= lon_deg < 12.0:
        return 32
    if 72.0 <= lat_deg < 84.0 and lon_deg >= 0.0:
        for low, high, special in ((0.0, 9.0, 31), (9.0, 21.0, 33), (21.0, 33.0, 35), (33.0, 42.0, 37)):
            if low <= lon_deg < high:
                return special
    return zone


def utm_band(lat_deg: float) -> str:
    """The UTM latitude band letter (C..X, 8 degrees each, X 12 degrees)."""
    letters = "CDEFGHJKLMNPQRSTUVWX"
    return letters[min(max(int((lat_deg + 80.0) // 8.0), 0), len(letters) - 1)]


def geodetic_to_utm(lat_deg: float, lon_deg: float) -> tuple[float, float, int, str]:
    """(easting [m], northing [m], zone, band) of a WGS84 point: the transverse Mercator projection of its zone
    (series to the sixth order in the third flattening, sub-millimetre within a zone)."""
    zone = utm_zone(lat_deg, lon_deg)
    lon0 = math.radians(6.0 * zone - 183.0)
    n = WGS84_F / (2.0 - WGS84_F)
    big_a = WGS84_A_M / (1.0 + n) * (1.0 + n ** 2 / 4.0 + n ** 4 / 64.0 + n ** 6 / 256.0)
    alpha = (n / 2 - 2 * n ** 2 / 3 + 5 * n ** 3 / 16 + 41 * n ** 4 / 180 - 127 * n ** 5 / 288
             + 7891 * n ** 6 / 37800,
             13 * n ** 2 / 48 - 3 * n ** 3 / 5 + 557 * n ** 4 / 1440 + 281 * n ** 5 / 630
             - 1983433 * n ** 6 / 1935360,
             61 * n ** 3 / 240 - 103 * n ** 4 / 140 + 15061 * n ** 5 / 26880 + 167603 * n ** 6 / 181440,
             49561 * n ** 4 / 161280 - 179 * n ** 5 / 168 + 6601661 * n ** 6 / 7257600,
             34729 * n ** 5 / 80640 - 3418889 * n ** 6 / 1995840,
             212378941 * n ** 6 / 319334400)
    phi = math.radians(lat_deg)
    e = 2.0 * math.sqrt(n) / (1.0 + n)
    t = math.sinh(math.atanh(math.sin(phi)) - e * math.atanh(e * math.sin(phi)))
    dlon = math.radians(lon_deg) - lon0
    xi = math.atan2(t, math.cos(dlon))
    eta = math.atanh(math.sin(dlon) / math.sqrt(1.0 + t * t))
    x_sum = eta + sum(a * math.cos(2 * j * xi) * math.sinh(2 * j * eta) for j, a in enumerate(alpha, 1))
    y_sum = xi + sum(a * math.sin(2 * j * xi) * math.cosh(2 * j * eta) for j, a in enumerate(alpha, 1))
    easting = UTM_FALSE_EASTING_M + UTM_K0 * big_a * x_sum
    northing = UTM_K0 * big_a * y_sum + (UTM_FALSE_NORTHING_SOUTH_M if lat_deg < 0.0 else 0.0)
    return easting, northing, zone, utm_band(lat_deg)


def _point3(values: list[float], node: XmlNode, name: str) -> Point3:
    if len(values) not in (2, 3):
        raise fail(node, f"{name}: expected 'x y [z]', got {len(values)} numbers")
    return (values[0], values[1], values[2] if len(values) == 3 else 0.0)


class WorldFileWarning(UserWarning):
    """Issued through :mod:`warnings` when a parser is called on its own, without the loader's ``warn``."""


def warner(warn: Warn | None) -> Warn:
    """`warn` itself, or (None) one that issues a WorldFileWarning naming file and line."""
    if warn is not None:
        return warn

    def to_python_warnings(node: XmlNode, message: str) -> None:
        warnings.warn(f"{node.file}:{node.line}: <{node.tag}>: {message}", WorldFileWarning, stacklevel=3)

    return to_python_warnings


def _src(node: XmlNode) -> SourceRef:
    return SourceRef(node.file, node.line, node.tag)


__all__ = ["WorldFileWarning", "geodetic_to_utm", "parse_georeference",
           "parse_gui", "parse_lights", "utm_band", "utm_zone", "warner"]
