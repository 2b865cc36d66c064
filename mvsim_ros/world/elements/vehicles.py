"""<vehicle:class> and <vehicle> elements -> VehicleSpec, read through the vehicle parameter tables
(world/params/vehicle_tables.py; friction, controller and drivetrain in vehicle_dynamics.py)."""

from __future__ import annotations

import functools
import math
import string
import zlib
from pathlib import Path
from typing import Callable

import numpy as np

from mvsim_ros.world.elements.body_checks import check_inertia, check_outline, outline_part
from mvsim_ros.world.params.table import ParamTable, Values
from mvsim_ros.world.params.vehicle_tables import (CHASSIS, DYNAMICS, DYNAMICS_ALIASES, DYNAMICS_TABLES, ODOMETRY,
                                                   PACEJKA_SURFACES, SHAPE, VEHICLE, VEHICLE_ANIMATION, VEHICLE_PUBLISH,
                                                   WHEEL)
from mvsim_ros.world.elements.sensors import group_text, parse_sensor, unnamed_sensor_name
from mvsim_ros.world.specs import (ARTICULATION_CORNERS, ArticulationSpec, ChassisSpec, DynamicsClass, Pose2, Pose3,
                                   SourceRef, Twist2, VehicleSpec, WheelSlot, WheelSpec)
from mvsim_ros.world.xml.values import POSE2D_QUANTITIES, bounded, fail, parse_bounded_floats, positive
from mvsim_ros.world.elements.vehicle_dynamics import (FRICTION_CLASSES, merged_table, read_controller, read_drivetrain,
                                                       read_friction)
from mvsim_ros.world.files.visual_models import load_model_footprint, parse_visual
from mvsim_ros.world.xml.xml_tree import XmlNode

Warn = Callable[[XmlNode, str], None]
Rename = Callable[[XmlNode, dict[str, str]], XmlNode]

#: Longest vehicle or sensor name [characters, once made a ROS name: a leading '_' added to each '/'-separated part
#: starting with a digit]. These names become parts of topic names, and a ROS topic name holds at most 247
#: characters in all (rmw's limit): a vehicle namespace and a sensor name of this length leave room for the rest.
MAX_TOPIC_NAME_CHARS = 100
#: Most characters of a name quoted in an error message.
MAX_SHOWN_NAME = 40


_DIFFERENTIAL_SHAPE = ((-0.4, -0.5), (-0.4, 0.5), (0.4, 0.5), (0.6, 0.3), (0.6, -0.3), (0.4, -0.5))
_ACKERMANN_SHAPE = ((-0.8, -1.0), (-0.8, 1.0), (1.5, 0.9), (1.8, 0.8), (1.8, -0.8), (1.5, -0.9))
_ACKERMANN_WHEELS = {
    "rl_wheel": WheelSlot(0.0, 0.9, +1), "rr_wheel": WheelSlot(0.0, -0.9, -1),
    "fl_wheel": WheelSlot(1.3, 0.9, +1), "fr_wheel": WheelSlot(1.3, -0.9, -1),
}

#: MVSim's dynamics classes with their wheel slots and chassis defaults (VehicleDifferential.h/.cpp,
#: VehicleAckermann*.cpp), and our "articulated" (not in MVSim): wheels rl/rr on the chassis (rear
#: unit), fl/fr on the front unit. Their parameters are in world/params/vehicle_tables.py.
DYNAMICS_CLASSES: dict[str, DynamicsClass] = {
    "differential": DynamicsClass(
        {"l_wheel": WheelSlot(0.0, 0.5, +1), "r_wheel": WheelSlot(0.0, -0.5, -1)},
        15.0, 0.05, 0.6, _DIFFERENTIAL_SHAPE, "#ff0000"),
    "differential_3_wheels": DynamicsClass(
        {"l_wheel": WheelSlot(0.0, 0.5, +1), "r_wheel": WheelSlot(0.0, -0.5, -1),
         "caster_wheel": WheelSlot(0.5, 0.0, 0, driven=False)},
        15.0, 0.05, 0.6, _DIFFERENTIAL_SHAPE, "#ff0000"),
    "differential_4_wheels": DynamicsClass(
        {"lr_wheel": WheelSlot(0.0, 0.5, +1), "rr_wheel": WheelSlot(0.0, -0.5, -1),
         "lf_wheel": WheelSlot(0.5, 0.5, +1), "rf_wheel": WheelSlot(0.5, -0.5, -1)},
        15.0, 0.05, 0.6, _DIFFERENTIAL_SHAPE, "#ff0000"),
    "ackermann": DynamicsClass(_ACKERMANN_WHEELS, 500.0, 0.20, 1.40, _ACKERMANN_SHAPE, "#e83000"),
    "ackermann_drivetrain": DynamicsClass(_ACKERMANN_WHEELS, 500.0, 0.20, 1.40, _ACKERMANN_SHAPE, "#e83000"),
    "articulated": DynamicsClass(
        {"rl_wheel": WheelSlot(0.0, 0.6, +1), "rr_wheel": WheelSlot(0.0, -0.6, -1),
         "fl_wheel": WheelSlot(0.0, 0.6, +1, unit=1), "fr_wheel": WheelSlot(0.0, -0.6, -1, unit=1)},
        400.0, 0.15, 1.2, ((-0.6, -0.7), (0.75, -0.7), (0.75, 0.7), (-0.6, 0.7)), "#f0b000"),
}
#: Default outline of an articulated vehicle's front unit, in its own frame (origin at the front axle) [m].
_ARTICULATED_FRONT_SHAPE = ((-0.75, -0.7), (0.6, -0.7), (0.6, 0.7), (-0.75, 0.7))
#: Spread of the odometry multipliers MVSim draws for a vehicle whose <odometry> does not give them (mean 1).
ODOMETRY_MULTIPLIER_SIGMA = 0.02
ODOMETRY_KEYS = ("x_multiplier", "y_multiplier", "yaw_multiplier")


def build_vehicle(node: XmlNode, classes: dict[str, XmlNode], warn: Warn, rename: Rename) -> VehicleSpec:
    """A <vehicle name=... class=...> instance, merged with its <vehicle:class> (instance tags win), read through
    the vehicle tables: every tag or attribute they do not know is warned about with its file and line."""
    name = node.attrib.get("name", "").strip()
    if not name:
        raise fail(node, "expected attribute name=\"...\"")
    class_name = node.attrib.get("class", "").strip()
    items = _merged_items(node, classes, class_name)
    items = _rename_children(items, name, rename)
    values = VEHICLE.read(node, warn, children=items, handled_tags=("sensor", "visual"),
                          label=f"vehicle '{name}'")

    dynamics_node = values["dynamics"]
    if dynamics_node is None:
        raise fail(node, f"vehicle '{name}' has no <dynamics> (in its class or instance)")
    dynamics = dynamics_node.attrib.get("class", "").strip()
    dynamics = DYNAMICS_ALIASES.get(dynamics, dynamics)
    if dynamics not in DYNAMICS_CLASSES:
        valid = ", ".join([*DYNAMICS_CLASSES, *DYNAMICS_ALIASES])
        raise fail(dynamics_node, f"unknown dynamics class '{dynamics}'; valid: {valid}")
    info = DYNAMICS_CLASSES[dynamics]
    dynamics_values = _dynamics_table(dynamics).read(dynamics_node, warn, label=f"<dynamics class=\"{dynamics}\">")

    spec = VehicleSpec(
        name=name,
        class_name=class_name,
        dynamics=dynamics,
        chassis=_chassis(dynamics_values["chassis"], info, warn),
        wheels=_wheels(dynamics_values, info, warn),
        friction=read_friction(values["friction"], warn),
        controller=read_controller(dynamics_values["controller"], dynamics, warn),
        source=SourceRef(node.file, node.line, node.tag),
    )
    _dynamics_params(dynamics_node, dynamics_values, spec, warn)
    _poses(values, spec)
    spec.odometry = _odometry(values["odometry"], name, warn)
    if values["publish"] is not None:
        publish = values["publish"]
        spec.publish = group_text(publish)
        VEHICLE_PUBLISH.read(publish, warn, label=f"<publish> of vehicle '{name}'")
    if values["animation"] is not None:
        VEHICLE_ANIMATION.read(values["animation"], warn, label=f"<animation> of vehicle '{name}'")
    for child in items:
        if child.tag == "sensor":
            spec.sensors.append(parse_sensor(child, warn, parse_visual))
        elif child.tag == "visual":
            spec.visual = parse_visual(child, warn)
    if spec.chassis.shape_from_visual:
        _chassis_from_visual(spec, node, warn)
    check_vehicle_inertia(spec, node)
    names = [s.name for s in spec.sensors]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise fail(node, f"vehicle '{name}' has several sensors named {', '.join(repeated)}")
    return spec


@functools.lru_cache(maxsize=None)
def _dynamics_table(dynamics: str) -> ParamTable:
    """What every dynamics class reads plus what `dynamics` adds, as one table."""
    return merged_table(f"dynamics.{dynamics}", DYNAMICS, DYNAMICS_TABLES[dynamics])


def _poses(values: Values, spec: VehicleSpec) -> None:
    """init_pose 'x y yaw_deg', else init_pose3d 'x y z yaw pitch roll' (degrees), and init_vel, into the spec."""
    if "init_pose" in values.given:
        where = values.nodes["init_pose"]
        x, y, yaw_deg = parse_bounded_floats(where.text, where, "init_pose 'x y yaw_deg'", POSE2D_QUANTITIES)
        spec.init_pose = Pose2(x, y, math.radians(yaw_deg))
    elif "init_pose3d" in values.given:
        where = values.nodes["init_pose3d"]
        x, y, z, yaw, pitch, roll = parse_bounded_floats(
            where.text, where, "init_pose3d 'x y z yaw_deg pitch_deg roll_deg'",
            ("position", "position", "position", "angle", "angle", "angle"))
        spec.init_pose = Pose2(x, y, math.radians(yaw))
        spec.init_pose3 = Pose3(x, y, z, math.radians(yaw), math.radians(pitch), math.radians(roll))
    if "init_vel" in values.given:
        where = values.nodes["init_vel"]
        vx, vy, omega_deg = parse_bounded_floats(where.text, where, "init_vel 'vx vy omega_deg_per_s'",
                                                 ("velocity", "velocity", "angular_velocity"))
        spec.init_vel = Twist2(vx, vy, math.radians(omega_deg))


def _odometry(node: XmlNode | None, vehicle_name: str, warn: Warn) -> dict[str, float]:
    """The odometry multipliers: those the <odometry> element gives; the others drawn from N(1, 0.02^2) as MVSim
    does, by a generator seeded with the vehicle's name (the same world gives the same values)."""
    rng = np.random.default_rng(zlib.crc32(vehicle_name.encode("utf-8")))
    drawn = dict(zip(ODOMETRY_KEYS, rng.normal(1.0, ODOMETRY_MULTIPLIER_SIGMA, len(ODOMETRY_KEYS)).tolist()))
    if node is None:
        return drawn
    values = ODOMETRY.read(node, warn, label=f"<odometry> of vehicle '{vehicle_name}'")
    return {key: float(values[key]) if key in values.given else drawn[key] for key in ODOMETRY_KEYS}


def _merged_items(node: XmlNode, classes: dict[str, XmlNode], class_name: str) -> list[XmlNode]:
    if not class_name:
        return list(node.children)
    if class_name not in classes:
        valid = ", ".join(sorted(classes)) or "none defined"
        raise fail(node, f"unknown vehicle class '{class_name}' (defined vehicle classes: {valid})")
    return list(classes[class_name].children) + list(node.children)


def _rename_children(items: list[XmlNode], vehicle_name: str, rename: Rename) -> list[XmlNode]:
    """${NAME} is the vehicle's name. In a <sensor>'s own attributes too; inside the sensor, ${NAME} is the
    sensor's name and ${PARENT_NAME} the vehicle's. An unnamed sensor gets MVSim's name for it: its class's
    prefix and its number on the vehicle (laser1, camera2, ...)."""
    out, sensors = [], 0
    for child in items:
        if child.tag != "sensor":
            out.append(rename(child, {"NAME": vehicle_name}))
            continue
        sensors += 1
        names = {"NAME": vehicle_name, "PARENT_NAME": vehicle_name}
        head = rename(XmlNode(tag=child.tag, attrib=child.attrib, file=child.file, line=child.line), names)
        sensor_name = head.attrib.get("name", "").strip()
        if not sensor_name:
            kind = (head.attrib.get("class") or head.attrib.get("type") or "").strip()
            sensor_name = unnamed_sensor_name(kind, sensors)
            head.attrib = {**head.attrib, "name": sensor_name}
        body = rename(child, {"NAME": sensor_name, "PARENT_NAME": vehicle_name})
        body.attrib = head.attrib
        out.append(body)
    return out


def _wheels(dynamics_values: Values, info: DynamicsClass, warn: Warn) -> list[WheelSpec]:
    """The class's wheels, each at its slot unless its tag (read through `wheel`) says otherwise."""
    wheels = []
    for tag, slot in info.wheels.items():
        wheel = WheelSpec(name=tag, x=slot.x, y=slot.y, side=slot.side, driven=slot.driven, unit=slot.unit)
        node = dynamics_values.get(tag)
        if node is not None:
            _wheel_attributes(wheel, node, warn)
        wheels.append(wheel)
    return wheels


def _wheel_attributes(wheel: WheelSpec, node: XmlNode, warn: Warn) -> None:
    values = WHEEL.read(node, warn, label=f"<{node.tag}>")
    if "pos" in values.given:  # "x y [yaw_deg]", the optional third value the mounting angle
        numbers = parse_bounded_floats(node.attrib["pos"], node, "wheel pos 'x y [yaw_deg]'",
                                       ("body_coordinate", "body_coordinate", "angle"), (2, 3))
        wheel.x, wheel.y = numbers[0], numbers[1]
        if len(numbers) == 3:
            wheel.yaw = math.radians(numbers[2])
    for key, quantity in (("mass", "mass"), ("width", "wheel_width"), ("diameter", "wheel_diameter")):
        if key in values.given:  # > 0 first (the clearer message), then within the bounds
            positive(values[key], node, f"wheel {key}", quantity)
            setattr(wheel, key, bounded(values[key], node, quantity, f"wheel {key}"))
    if "yaw" in values.given:
        wheel.yaw = values["yaw"]
    if "inertia" in values.given:
        wheel.inertia = positive(values["inertia"], node, "wheel inertia")
    wheel.color = values["color"]
    if values["visual"] is not None:
        wheel.visual = parse_visual(values["visual"], warn)


def _chassis(node: XmlNode | None, info: DynamicsClass, warn: Warn) -> ChassisSpec:
    """<chassis> through its table, from the dynamics class's defaults."""
    base = CHASSIS.defaults()
    base.update(mass=info.chassis_mass, zmin=info.chassis_zmin, zmax=info.chassis_zmax, color=info.chassis_color)
    values = base if node is None else CHASSIS.read(node, warn, base=base, label="<chassis>")
    chassis = ChassisSpec(mass=values["mass"], zmin=values["zmin"], zmax=values["zmax"],
                          shape=list(info.chassis_shape), color=values["color"],
                          linear_damping=values["linear_damping"], angular_damping=values["angular_damping"])
    if node is None:
        return chassis
    positive(chassis.mass, node, "chassis mass", "mass")
    if chassis.zmax <= chassis.zmin:
        raise fail(node, f"chassis zmax ({chassis.zmax:g}) must be above zmin ({chassis.zmin:g})")
    if values["shape"] is not None:
        chassis.shape = polygon(values["shape"], warn)
    chassis.shape_from_visual = values["shape_from_visual"] is not False
    return chassis


def polygon(node: XmlNode, warn: Warn | None = None) -> list[tuple[float, float]]:
    """The <pt>x y</pt> points of a <shape> (at least 3, non-zero area), each within the 'body_coordinate'
    bounds, consecutive points 'outline_edge' apart and the area within 'outline_area' (Box2D can build it).
    `warn`, if given, hears about anything else inside the shape (skipped)."""
    if warn is not None:
        SHAPE.read(node, warn, handled_tags=("pt",), label="<shape>")
    points = []
    for pt in node.findall("pt"):
        x, y = parse_bounded_floats(pt.text, pt, "polygon point 'x y'", ("body_coordinate", "body_coordinate"))
        points.append((x, y))
    if len(points) < 3:
        raise fail(node, f"a shape needs at least 3 <pt> points, got {len(points)}")
    area2 = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1]))
    if abs(area2) < 1e-12:
        raise fail(node, "the shape has zero area")
    for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1]):
        bounded(math.hypot(x1 - x0, y1 - y0), node, "outline_edge",
                f"distance between consecutive points ({x0:g}, {y0:g}) and ({x1:g}, {y1:g}) [m]")
    bounded(0.5 * abs(area2), node, "outline_area", "shape area [m^2]")
    return points


def check_vehicle_inertia(spec: VehicleSpec, node: XmlNode) -> None:
    """check_inertia on each Box2D body of a vehicle: its chassis with its wheels (and an articulated front unit)."""
    chassis = [spec.chassis] + ([spec.articulation.front_chassis] if spec.articulation is not None else [])
    for unit, outline in enumerate(chassis):
        parts = [outline_part(outline.shape, outline.mass)]
        for w in spec.wheels:
            if w.unit == unit:
                parts.append((w.mass, w.x, w.y, w.mass * (w.diameter ** 2 + w.width ** 2) / 12.0))
        check_inertia(parts, node, f"vehicle '{spec.name}'" + (" front unit" if unit else ""))


def _dynamics_params(node: XmlNode, values: Values, spec: VehicleSpec, warn: Warn) -> None:
    """The class's own numbers: Ackermann steering limits and front axle (which sets the front wheels' x and y, as
    MVSim), the drivetrain, the articulation."""
    if "max_steer_ang_deg" in values:
        spec.dynamics_params["max_steer_ang"] = math.radians(values["max_steer_ang_deg"])
        spec.dynamics_params["max_steer_rate"] = math.radians(values["max_steer_rate_deg"])
    if "f_wheels_x" in values:
        front_x, track = values["f_wheels_x"], values["f_wheels_d"]
        spec.dynamics_params.update(f_wheels_x=front_x, f_wheels_d=track)
        for wheel in spec.wheels:
            if wheel.name in ("fl_wheel", "fr_wheel"):
                wheel.x, wheel.y = front_x, 0.5 * track * (1 if wheel.name == "fl_wheel" else -1)
    if spec.dynamics == "ackermann_drivetrain":
        spec.drivetrain = read_drivetrain(values["drivetrain"], warn)
    if spec.dynamics == "articulated":
        spec.articulation = _articulation(node, values, spec, warn)


def _articulation(node: XmlNode, values: Values, spec: VehicleSpec, warn: Warn) -> ArticulationSpec:
    """The articulated-steering part of <dynamics class="articulated">: pivot geometry and limits, the front
    unit's <front_chassis> (as <chassis>), and the optional footprint corners as "x y" tags."""
    for key in ("wheel_separation_front", "wheel_separation_rear", "max_articulation_deg", "pivot_gain"):
        if values[key] <= 0:
            raise fail(values.node(key, node), f"{key} must be > 0, got {values[key]:g}")
    if values["max_articulation_deg"] >= 90:
        raise fail(values.node("max_articulation_deg", node),
                   f"max_articulation_deg must be below 90, got {values['max_articulation_deg']:g}")
    for key, quantity in (("wheel_separation_front", "body_length"), ("wheel_separation_rear", "body_length"),
                          ("max_articulation_deg", "steer_angle"), ("pivot_gain", "pivot_gain")):
        bounded(values[key], values.node(key, node), quantity, key)  # after the rules above (clearer messages)
    front_info = DynamicsClass({}, spec.chassis.mass, spec.chassis.zmin, spec.chassis.zmax,
                               _ARTICULATED_FRONT_SHAPE, spec.chassis.color)
    front = _chassis(values["front_chassis"], front_info, warn)
    corners = {}
    for tag in ARTICULATION_CORNERS:
        if tag in values.given:
            where = values.nodes[tag]
            corners[tag] = tuple(parse_bounded_floats(where.text, where, f"{tag} 'x y'",
                                                      ("body_coordinate", "body_coordinate")))
    if corners and len(corners) != len(ARTICULATION_CORNERS):
        missing = ", ".join(tag for tag in ARTICULATION_CORNERS if tag not in corners)
        raise fail(node, f"footprint corners: give all four or none (missing: {missing})")
    front_length, rear_length = values["wheel_separation_front"], values["wheel_separation_rear"]
    max_torque = values["pivot_max_torque"]
    if max_torque == 0:  # enough to swing both units about the pivot against full tyre grip (mu ~ 1)
        max_torque = (spec.chassis.mass + front.mass) * 9.81 * max(front_length, rear_length)
    return ArticulationSpec(
        front_length=front_length, rear_length=rear_length,
        max_angle=math.radians(values["max_articulation_deg"]),
        max_rate=math.radians(values["max_articulation_rate_deg"]), max_torque=max_torque,
        gain=values["pivot_gain"], front_chassis=front, corners=corners or None)


def _chassis_from_visual(spec: VehicleSpec, node: XmlNode, warn: Warn) -> None:
    """<shape_from_visual/>: outline and height from the visual model; kept as declared when it can't load."""
    if spec.visual is None:
        warn(node, f"vehicle '{spec.name}': <shape_from_visual/> without a <visual> model; using the declared shape")
        return
    geometry = load_model_footprint(spec.visual, Path(node.file).parent, lambda message: warn(node, message))
    if geometry is not None:
        check_outline(list(geometry.footprint), node, f"vehicle '{spec.name}' model footprint")
        spec.chassis.shape = list(geometry.footprint)
        spec.chassis.zmin, spec.chassis.zmax = geometry.zmin, geometry.zmax


def topic_name_problem(name: str) -> str | None:
    """Why `name` (a vehicle or sensor name) cannot be part of a ROS topic name even once made a ROS name
    (characters other than letters, digits and '_' become '_'), or None when it can."""
    tokens = name.split("/")
    if not all(tokens):
        return "it has an empty part between '/' (a leading, trailing or doubled '/'): no ROS name can be made of it"
    length = len(name) + sum(1 for token in tokens if token[0] in string.digits)
    if length > MAX_TOPIC_NAME_CHARS:
        return (f"it is {length} characters long as a ROS name, more than the {MAX_TOPIC_NAME_CHARS} a name that goes "
                "into topic names may have")
    return None


def shown_name(name: str, quoted: bool = True) -> str:
    """`name` for an error message ('name', or name unquoted), cut to MAX_SHOWN_NAME characters (then quoted, with
    its length)."""
    if len(name) <= MAX_SHOWN_NAME:
        return f"'{name}'" if quoted else name
    return f"'{name[:MAX_SHOWN_NAME]}...' ({len(name)} characters)"


__all__ = ["DYNAMICS_CLASSES", "FRICTION_CLASSES", "MAX_TOPIC_NAME_CHARS", "PACEJKA_SURFACES", "build_vehicle",
           "check_vehicle_inertia", "polygon", "shown_name", "topic_name_problem"]
