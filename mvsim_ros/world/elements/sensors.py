"""<sensor> elements: class, name, pose on the parent, and every parameter of the class read through its table
(world/params/sensor_tables.py): typed, in SI units, with MVSim's defaults for what the file leaves out.

Poses: `pose_3d`, `pose` (x y yaw; z, pitch and roll 0) and a laser's `height` (z) write one pose, so the one
given last in the element wins, as in MVSim; with none, the class's default pose (a laser 0.05 m up, a camera
0.5 m up looking forward). `<publish>` (MVSim's own publishing) is read through the sensor.publish table;
`<visual>` is handed to the visual-model reader.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Callable, Mapping

from mvsim_ros.world.xml.bounds import BOUNDS
from mvsim_ros.world.elements.sensor_checks import check_sensor
from mvsim_ros.world.params.sensor_tables import SENSOR_PUBLISH, reader
from mvsim_ros.world.params.table import Values, convert
from mvsim_ros.world.specs import Lidar3DParams, Pose3, SensorParams, SensorSpec, SourceRef, params_class
from mvsim_ros.world.xml.values import (POSE2D_QUANTITIES, POSE3D_QUANTITIES, bounded, fail, parse_bounded,
                                        parse_bounded_floats, parse_float)
from mvsim_ros.world.xml.xml_tree import XmlNode

#: Sensor classes MVSim defines (the sensors issue simulates them).
SENSOR_CLASSES = ("laser", "lidar3d", "camera", "rgbd_camera", "imu", "gnss")
#: The name prefix of an unnamed sensor of each class, as MVSim names them: the prefix, then the number of sensors
#: its vehicle carries with it (so the first one is 1; 0 for a world sensor). MVSim gives GNSS receivers the
#: "imu" prefix too.
UNNAMED_PREFIX = {"laser": "laser", "lidar3d": "laser", "camera": "camera", "rgbd_camera": "camera", "imu": "imu",
                  "gnss": "imu"}


def unnamed_sensor_name(kind: str, number: int) -> str:
    """The name MVSim gives an unnamed sensor of class `kind` that is sensor `number` of its vehicle (from 1; 0 on
    the world)."""
    return f"{UNNAMED_PREFIX.get(kind, 'sensor')}{number}"


#: Beam counts, read as numbers and kept as their integer part (MVSim's %i reading).
_COUNTS = {"nrays": "lidar_rays", "vert_nrays": "lidar3d_rings", "horz_nrays": "lidar3d_columns"}
#: Tags that write the sensor's pose (read here in file order, not through the table).
_POSE_TAGS = ("pose", "pose_3d", "height")
#: Rings and azimuths assumed for a 3D lidar that leaves one of them to its preset (the largest preset's,
#: sensor_checks.py LIDAR3D_PRESETS) when bounding its beam count.
LIDAR3D_DEFAULT_RINGS, LIDAR3D_DEFAULT_COLUMNS = 64, 1800

Warn = Callable[[XmlNode, str], None]


def parse_pose_3d(node: XmlNode) -> Pose3:
    """'x y z yaw pitch roll' with angles in degrees (MVSim's <pose_3d>)."""
    x, y, z, yaw, pitch, roll = parse_bounded_floats(node.text, node, f"{node.tag} 'x y z yaw_deg pitch_deg roll_deg'",
                                                     POSE3D_QUANTITIES)
    return Pose3(x, y, z, math.radians(yaw), math.radians(pitch), math.radians(roll))


def parse_pose_2d(node: XmlNode) -> Pose3:
    """'x y yaw' with yaw in degrees (MVSim's <pose>), on the ground plane."""
    x, y, yaw = parse_bounded_floats(node.text, node, "pose 'x y yaw_deg'", POSE2D_QUANTITIES)
    return Pose3(x, y, 0.0, math.radians(yaw))


def pose_from_degrees(values) -> Pose3:
    """A Pose3 from (x, y, z, yaw_deg, pitch_deg, roll_deg)."""
    x, y, z, yaw, pitch, roll = values
    return Pose3(x, y, z, math.radians(yaw), math.radians(pitch), math.radians(roll))


def group_text(node: XmlNode) -> dict[str, str]:
    """A flat group such as <publish enabled="true"><publish_topic>/a</publish_topic></publish> as text."""
    values = dict(node.attrib)
    for child in node.children:
        values[child.tag] = child.text
    return values


def default_pose(kind: str) -> Pose3:
    """The pose a sensor of this class has on its parent when its element gives none."""
    return pose_from_degrees(reader(kind)["pose_3d"].default)


def parse_sensor(node: XmlNode, warn: Warn, parse_visual=None) -> SensorSpec:
    """A <sensor class="..." name="..."> element (names already substituted)."""
    kind = (node.attrib.get("class") or node.attrib.get("type") or "").strip()
    if kind not in SENSOR_CLASSES:
        raise fail(node, f"unknown sensor class '{kind}'; valid: {', '.join(SENSOR_CLASSES)}")
    name = node.attrib.get("name", "").strip() or unnamed_sensor_name(kind, 0)
    table = reader(kind)
    pose_tags = [tag for tag in _POSE_TAGS if table.lookup(tag, attribute=False) is not None]
    label = f"{table.context} '{name}'"
    values = table.read(node, warn, handled_tags=(*pose_tags, "publish", "visual"), label=label)
    sensor = SensorSpec(kind=kind, name=name, pose=default_pose(kind),
                        source=SourceRef(node.file, node.line, node.tag))
    for child in node.children:
        if child.tag in pose_tags:
            sensor.pose = _pose_tag(child, sensor.pose)
            values.given.add(child.tag)
            values.nodes[child.tag] = child
        elif child.tag == "publish":
            sensor.publish = _publish(child, warn, name)
        elif child.tag == "visual":
            sensor.visual = parse_visual(child) if parse_visual else None
    sensor.params = typed_params(kind, finish_values(kind, values, node, name))
    return sensor


def _pose_tag(child: XmlNode, pose: Pose3) -> Pose3:
    if child.tag == "pose_3d":
        return parse_pose_3d(child)
    if child.tag == "pose":
        return parse_pose_2d(child)
    return replace(pose, z=parse_bounded(child.text, child, "position", "height"))


def _publish(node: XmlNode, warn: Warn, name: str) -> dict:
    """MVSim's <publish> block, read through its table: unknown tags warned about; one warning that it is not
    used when it is on (enabled, with a topic), none when it is off, as it then does nothing in MVSim either."""
    def located(where: XmlNode, message: str) -> None:
        if "accepted but not used" not in message:
            warn(where, message)

    values = SENSOR_PUBLISH.read(node, located, label=f"sensor '{name}' <publish>")
    if values["enabled"] and values["publish_topic"]:
        warn(node, f"<publish> of sensor '{name}' is accepted but not used: {SENSOR_PUBLISH['publish_topic'].note}")
    return {key: values[key] for key in ("publish_topic", "enabled")}


def finish_values(kind: str, values: Values, node: XmlNode, name: str) -> Values:
    """Checks and conversions that span parameters, after a table read: beam counts to whole numbers, a 3D
    lidar's ring angles, render size and preset, an RGB-D camera's RGB pose, then what the sensor's simulation
    needs (sensor_checks.py). The pose tags leave `values` (the sensor's pose is SensorSpec.pose)."""
    for key in _POSE_TAGS:
        values.pop(key, None)
    for key, quantity in _COUNTS.items():
        if key in values:
            values[key] = int(bounded(float(int(values[key])), values.node(key, node), quantity,
                                      f"sensor '{name}' {key}"))
    if kind == "lidar3d":
        _lidar3d(values, node, name)
    if kind == "rgbd_camera":
        rel = values["relativePoseIntensityWRTDepth"]
        if not isinstance(rel, Pose3):
            where = values.node("relativePoseIntensityWRTDepth", node)
            if len(rel) != 6:
                raise fail(where, f"sensor '{name}' relativePoseIntensityWRTDepth: expected 6 numbers "
                                  "'x y z yaw_deg pitch_deg roll_deg'")
            values["relativePoseIntensityWRTDepth"] = pose_from_degrees(rel)
    check_sensor(kind, values, node, name)
    return values


def _lidar3d(values: Values, node: XmlNode, name: str) -> None:
    """Ring elevations [rad] (ascending) from vertical_ray_angles, or evenly over vert_fov_degrees; resolution
    factors; the beam count and the render width within their bounds."""
    rings = values["vert_nrays"]
    text = values["vertical_ray_angles"]
    where = values.node("vertical_ray_angles", node)
    if isinstance(text, str) and text.strip():
        parts = [p for p in re.split(r"[\s,]+", text.strip()) if p]
        angles = [parse_float(p, where, f"sensor '{name}' vertical_ray_angles") for p in parts]
        if len(angles) != rings or len(set(angles)) != rings:
            raise fail(where, f"sensor '{name}' vertical_ray_angles: expected {rings} different angles (vert_nrays),"
                              f" got {len(angles)} ({len(set(angles))} different)")
        limit = BOUNDS["lidar3d_vert_fov"].high / 2
        if max(abs(a) for a in angles) > limit:
            raise fail(where, f"sensor '{name}' vertical_ray_angles: every angle must lie within +-{limit:g} deg")
        values["vertical_ray_angles"] = tuple(math.radians(a) for a in sorted(angles))
    elif isinstance(text, str):
        values["vertical_ray_angles"] = ()
    for key in ("horz_resolution_factor", "vert_resolution_factor"):
        if not 0 < values[key] <= 16:
            raise fail(values.node(key, node), f"sensor '{name}' {key}: must lie in (0, 16], got {values[key]:g}")
    preset = bool(values.get("model"))
    rings = values["vert_nrays"] if "vert_nrays" in values.given or not preset else LIDAR3D_DEFAULT_RINGS
    columns = values["horz_nrays"] if "horz_nrays" in values.given or not preset else LIDAR3D_DEFAULT_COLUMNS
    bounded(rings * columns, node, "lidar3d_beams", f"sensor '{name}' vert_nrays x horz_nrays")
    if not values.get("fbo_ncols"):
        faces = Lidar3DParams(horz_nrays=columns, horz_resolution_factor=values["horz_resolution_factor"])
        width = faces.face_width_px()
        bounded(width, values.node("horz_resolution_factor", node), "render_width",
                f"sensor '{name}' render face width (horz_resolution_factor x horz_nrays / 4)")


def typed_params(kind: str, values: Values) -> SensorParams:
    """The parameter record of sensor class `kind` (world/specs/sensor_params.py) holding `values`, a table read
    that finish_values completed and checked; `given` is what the file set."""
    record = params_class(kind)
    return record(**{name: values[name] for name in record.names()}, given=frozenset(values.given))


def _source_node(spec: SensorSpec) -> XmlNode:
    """Where errors about a spec report: an element named `<sensor>` at the spec's SourceRef (file and line), which
    the table reader and the checks take as the sensor element."""
    src = spec.source
    return XmlNode(tag="sensor", attrib={}, file=src.file if src else "", line=src.line if src else 0)


def with_sensor_params(spec: SensorSpec, changes: Mapping[str, object]) -> SensorSpec:
    """A copy of `spec` with the parameters `changes` names (MVSim's names or their aliases) set, read and checked
    as the loader reads a file's: text is converted as the table reads it (degrees to radians, counts to whole
    numbers), a typed value is taken as it is (in SI units); the checks across parameters run again. Errors name
    the spec's file and line (WorldFileError)."""
    table = reader(spec.kind)
    node = _source_node(spec)
    values = table.defaults()
    values.update(spec.params)
    values.given = set(spec.params.given)
    for key, value in changes.items():
        param = table.lookup(key, attribute=False) or table.lookup(key, attribute=True)
        if param is None or param.name not in spec.params:
            raise fail(node, f"sensor '{spec.name}': {table.context} has no parameter {key!r}")
        if isinstance(value, str) and param.type != "str":
            value = convert(param, value, node, f"sensor '{spec.name}'")
        values[param.name] = value
        values.given.add(param.name)
    return replace(spec, params=typed_params(spec.kind, finish_values(spec.kind, values, node, spec.name)))
