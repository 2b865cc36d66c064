"""The checks a sensor's parameters pass at load, after its table read, so that the sensor code receives values it
can use as they are: a 3D lidar's `<model>` preset resolved, sampling periods, beam counts, ranges and camera
intrinsics within what each sensor can simulate. Errors name the file, line and tag of the `<sensor>` element (a
spec built in code: its SourceRef). Units: SI (radians, metres, seconds); image sizes and focal lengths in pixels.
"""

from __future__ import annotations

import math

from mvsim_ros.world.params.table import Values
from mvsim_ros.world.xml.values import fail
from mvsim_ros.world.xml.xml_tree import XmlNode

#: Parameters a 3D lidar preset sets, in the order of the LIDAR3D_PRESETS rows.
LIDAR3D_PRESET_KEYS = ("vert_fov_degrees", "vert_nrays", "horz_nrays", "min_range", "max_range", "range_std_noise")
#: 3D lidar presets (`<model>`, not in MVSim; the tags a file gives override them): name -> (vert_fov_degrees
#: [deg], vert_nrays, horz_nrays, min_range [m], max_range [m], range_std_noise [m]).
LIDAR3D_PRESETS = {
    "vlp-16": (30.0, 16, 1800, 0.5, 100.0, 0.01),
    "os1-64": (45.0, 64, 1024, 0.5, 120.0, 0.025),
    "helios-32": (31.0, 32, 1800, 0.3, 150.0, 0.01),
}
#: A 3D lidar's vertical field of view stays below this [rad] (its depth faces cannot render a wider one).
LIDAR3D_MAX_VERT_FOV = math.radians(170.0)


def check_sensor(kind: str, values: Values, node: XmlNode, name: str) -> None:
    """Resolve what the sensor class leaves to presets and check what its simulation needs; WorldFileError at
    `node` (the `<sensor>` element) otherwise. `values` (the table read, SI units) is completed in place."""
    if kind == "laser":
        _check_laser(values, node, name)
    elif kind == "lidar3d":
        _apply_lidar3d_preset(values, node, name)
        _check_period(values, node, name)
        _check_lidar3d(values, node, name)
    elif kind == "camera":
        _check_period(values, node, name)
        _check_intrinsics(values, node, name, "")
    elif kind == "rgbd_camera":
        _check_period(values, node, name)
        if values["sense_rgb"]:
            _check_intrinsics(values, node, name, "rgb_")
        if values["sense_depth"]:
            _check_intrinsics(values, node, name, "depth_")
    else:
        _check_period(values, node, name)


def lidar3d_model(values: Values, node: XmlNode, name: str) -> str:
    """The lidar's `<model>` as a LIDAR3D_PRESETS name ("" when none is given)."""
    model = str(values.get("model") or "").strip().lower().replace("_", "-")
    if model and model not in LIDAR3D_PRESETS:
        raise fail(node, f"sensor '{name}': unknown lidar3d model '{model}' (known: {', '.join(LIDAR3D_PRESETS)})")
    return model


def _apply_lidar3d_preset(values: Values, node: XmlNode, name: str) -> None:
    """The preset's values for the parameters the file does not give (vert_fov_degrees in radians)."""
    model = lidar3d_model(values, node, name)
    if not model:
        return
    for key, value in zip(LIDAR3D_PRESET_KEYS, LIDAR3D_PRESETS[model]):
        if key not in values.given:
            values[key] = math.radians(value) if key == "vert_fov_degrees" else value


def _check_period(values: Values, node: XmlNode, name: str) -> None:
    if values["sensor_period"] <= 0:
        raise fail(node, f"sensor '{name}': sensor_period must be > 0")


def _check_laser(values: Values, node: XmlNode, name: str) -> None:
    """A 2D lidar: at least 2 rays over a field of view in (0, 2 pi] rad, max_range beyond range_min [m]."""
    if (values["nrays"] < 2 or not 0 < values["fov_degrees"] <= 2 * math.pi
            or values["max_range"] <= values["range_min"]):
        raise fail(node, f"sensor '{name}': needs nrays >= 2, 0 < fov_degrees <= 360, max_range > range_min")
    _check_period(values, node, name)


def _check_lidar3d(values: Values, node: XmlNode, name: str) -> None:
    """A 3D lidar: rings and columns >= 1, a vertical field of view in [0, 170 deg), 0 <= min_range < max_range
    [m], and one vertical_ray_angles entry per ring when they are given."""
    rings, columns = values["vert_nrays"], values["horz_nrays"]
    angles = values["vertical_ray_angles"]
    if (rings < 1 or columns < 1 or not 0 <= values["vert_fov_degrees"] < LIDAR3D_MAX_VERT_FOV
            or not 0 <= values["min_range"] < values["max_range"] or (angles and len(angles) != rings)):
        raise fail(node, f"sensor '{name}': needs vert_nrays, horz_nrays >= 1, 0 <= vert_fov_degrees < 170, "
                         "0 <= min_range < max_range and vert_nrays vertical_ray_angles (when given)")


def _check_intrinsics(values: Values, node: XmlNode, name: str, prefix: str) -> None:
    """A camera image named by `prefix` (``""``, ``"rgb_"``, ``"depth_"``): a size >= 1 px, focal lengths > 0 px
    and 0 < clip_min < clip_max [m]."""
    ncols, nrows = values[prefix + "ncols"], values[prefix + "nrows"]
    fx, fy = values[prefix + "fx"], values[prefix + "fy"]
    clip_min, clip_max = values[prefix + "clip_min"], values[prefix + "clip_max"]
    if ncols < 1 or nrows < 1 or fx <= 0 or fy <= 0 or not 0 < clip_min < clip_max:
        raise fail(node, f"sensor '{name}': needs {prefix}ncols, {prefix}nrows >= 1, {prefix}fx, {prefix}fy > 0 "
                         f"and 0 < {prefix}clip_min < {prefix}clip_max")


__all__ = ["LIDAR3D_MAX_VERT_FOV", "LIDAR3D_PRESETS", "LIDAR3D_PRESET_KEYS", "check_sensor", "lidar3d_model"]
