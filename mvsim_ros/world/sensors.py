"""<sensor> elements: class, name, pose on the parent, and the parameters kept for the sensor models."""

from __future__ import annotations

import math
from typing import Callable

from mvsim_ros.world.specs import Pose3, SensorSpec, SourceRef
from mvsim_ros.world.values import fail, parse_floats
from mvsim_ros.world.xml_tree import XmlNode

#: Sensor classes MVSim defines (the sensors issue simulates them).
SENSOR_CLASSES = ("laser", "lidar3d", "camera", "rgbd_camera", "imu", "gnss")


def parse_pose_3d(node: XmlNode) -> Pose3:
    """'x y z yaw pitch roll' with angles in degrees (MVSim's <pose_3d>)."""
    x, y, z, yaw, pitch, roll = parse_floats(node.text, node, "pose_3d 'x y z yaw_deg pitch_deg roll_deg'", 6)
    return Pose3(x, y, z, math.radians(yaw), math.radians(pitch), math.radians(roll))


def parse_pose_2d(node: XmlNode) -> Pose3:
    """'x y yaw' with yaw in degrees (MVSim's <pose>), on the ground plane."""
    x, y, yaw = parse_floats(node.text, node, "pose 'x y yaw_deg'", 3)
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
    return sensor
