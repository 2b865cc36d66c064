"""<sensor> elements: class, name, pose on the parent, and the parameters kept for the sensor models."""

from __future__ import annotations

import math
from typing import Callable

from mvsim_ros.world.specs import Pose3, SensorSpec, SourceRef
from mvsim_ros.world.values import (
    POSE2D_QUANTITIES,
    POSE3D_QUANTITIES,
    bounded,
    fail,
    parse_bounded,
    parse_bounded_floats,
)
from mvsim_ros.world.xml_tree import XmlNode

#: Sensor classes MVSim defines (the sensors issue simulates them).
SENSOR_CLASSES = ("laser", "lidar3d", "camera", "rgbd_camera", "imu", "gnss")

_RANGES = dict.fromkeys(("range_min", "minRange", "range_max", "maxRange", "min_range", "max_range"), "sensor_range")
_CAMERA = {"ncols": "image_size", "nrows": "image_size", "cx": "principal_point", "cy": "principal_point",
           "fx": "focal_length", "fy": "focal_length", "clip_min": "clip_distance", "clip_max": "clip_distance"}
#: Bounds quantity (world/bounds.py) of each numeric parameter a sensor class reads (the sensors package's names).
SENSOR_PARAM_QUANTITIES: dict[str, dict[str, str]] = {
    "laser": {"fov_degrees": "lidar_fov", "nrays": "lidar_rays", **_RANGES, "range_std_noise": "noise_std",
              "angle_std_noise_deg": "noise_std", "sensor_period": "sensor_period"},
    "lidar3d": {"vert_fov_degrees": "lidar3d_vert_fov", "vert_nrays": "lidar3d_rings",
                "horz_nrays": "lidar3d_columns", **_RANGES, "range_std_noise": "noise_std",
                "sensor_period": "sensor_period", "fbo_ncols": "render_width"},
    "camera": {**_CAMERA, "sensor_period": "sensor_period"},
    "rgbd_camera": {**{f"{prefix}{k}": q for prefix in ("rgb_", "depth_") for k, q in _CAMERA.items()},
                    "depth_noise_sigma": "noise_std", "sensor_period": "sensor_period"},
    "imu": {"angular_velocity_std_noise": "noise_std", "linear_acceleration_std_noise": "noise_std",
            "angular_velocity_bias_random_walk": "noise_std", "linear_acceleration_bias_random_walk": "noise_std",
            "sensor_period": "sensor_period"},
    "gnss": {"horizontal_std_noise": "noise_std", "vertical_std_noise": "noise_std",
             "sensor_period": "sensor_period"},
}
#: Rings and azimuths assumed for a 3D lidar that leaves one of them to its defaults or preset (the largest
#: preset's, sensors/lidar3d.py PRESETS) when bounding its beam count.
LIDAR3D_DEFAULT_RINGS, LIDAR3D_DEFAULT_COLUMNS = 64, 1800


def parse_pose_3d(node: XmlNode) -> Pose3:
    """'x y z yaw pitch roll' with angles in degrees (MVSim's <pose_3d>)."""
    x, y, z, yaw, pitch, roll = parse_bounded_floats(node.text, node, "pose_3d 'x y z yaw_deg pitch_deg roll_deg'",
                                                     POSE3D_QUANTITIES)
    return Pose3(x, y, z, math.radians(yaw), math.radians(pitch), math.radians(roll))


def parse_pose_2d(node: XmlNode) -> Pose3:
    """'x y yaw' with yaw in degrees (MVSim's <pose>), on the ground plane."""
    x, y, yaw = parse_bounded_floats(node.text, node, "pose 'x y yaw_deg'", POSE2D_QUANTITIES)
    return Pose3(x, y, 0.0, math.radians(yaw))


def group_text(node: XmlNode) -> dict[str, str]:
    """A flat group such as <publish enabled="true"><publish_topic>/a</publish_topic></publish> as text."""
    values = dict(node.attrib)
    for child in node.children:
        values[child.tag] = child.text
    return values


def parse_sensor(node: XmlNode, warn: Callable[[XmlNode, str], None], parse_visual=None) -> SensorSpec:
    """A <sensor class="..." name="..."> element (names already substituted)."""
    kind = (node.attrib.get("class") or node.attrib.get("type") or "").strip()
    if kind not in SENSOR_CLASSES:
        raise fail(node, f"unknown sensor class '{kind}'; valid: {', '.join(SENSOR_CLASSES)}")
    name = node.attrib.get("name", "").strip() or kind
    sensor = SensorSpec(kind=kind, name=name, source=SourceRef(node.file, node.line, node.tag))
    for child in node.children:
        if child.tag == "pose_3d":
            sensor.pose = parse_pose_3d(child)
        elif child.tag == "pose":
            sensor.pose = parse_pose_2d(child)
        elif child.tag == "publish":
            sensor.publish = group_text(child)
        elif child.tag == "visual":
            sensor.visual = parse_visual(child) if parse_visual else None
        elif child.children:
            warn(child, f"nested group inside sensor '{name}' is not used by this version; kept as text")
            sensor.params[child.tag] = child.text
        else:
            sensor.params[child.tag] = child.text
            check_sensor_param(sensor, child)
    check_lidar3d_beams(sensor, node)
    return sensor


def check_sensor_param(sensor: SensorSpec, child: XmlNode) -> None:
    """A numeric parameter the sensor's class reads (SENSOR_PARAM_QUANTITIES) is a number within its bounds."""
    quantity = SENSOR_PARAM_QUANTITIES.get(sensor.kind, {}).get(child.tag)
    if quantity is not None:
        parse_bounded(child.text, child, quantity, f"sensor '{sensor.name}' {child.tag}")


def check_lidar3d_beams(sensor: SensorSpec, node: XmlNode) -> None:
    """A 3D lidar's rings x azimuths (beams per scan) within the 'lidar3d_beams' bounds."""
    if sensor.kind != "lidar3d":
        return
    rings = int(float(sensor.params.get("vert_nrays", LIDAR3D_DEFAULT_RINGS)))
    columns = int(float(sensor.params.get("horz_nrays", LIDAR3D_DEFAULT_COLUMNS)))
    bounded(rings * columns, node, "lidar3d_beams", f"sensor '{sensor.name}' vert_nrays x horz_nrays")
