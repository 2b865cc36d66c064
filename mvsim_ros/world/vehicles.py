"""<vehicle:class> and <vehicle> elements -> VehicleSpec (every MVSim tag kept, whatever the physics uses now)."""

from __future__ import annotations

import dataclasses
import math
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from mvsim_ros.world.body_checks import check_inertia, check_outline, outline_part
from mvsim_ros.world.sensors import group_text, parse_sensor
from mvsim_ros.world.specs import (
    ARTICULATION_CORNERS,
    ArticulationSpec,
    ChassisSpec,
    ControllerSpec,
    DrivetrainSpec,
    FrictionSpec,
    Pose2,
    SourceRef,
    Twist2,
    VehicleSpec,
    WheelSpec,
)
from mvsim_ros.world.values import (
    POSE2D_QUANTITIES,
    bounded,
    fail,
    parse_bounded,
    parse_bounded_floats,
    parse_color,
    parse_float,
    positive,
    range_note,
)
from mvsim_ros.world.visual_models import load_model_footprint, parse_visual
from mvsim_ros.world.xml_tree import XmlNode

Warn = Callable[[XmlNode, str], None]
Rename = Callable[[XmlNode, dict[str, str]], XmlNode]

#: Longest vehicle or sensor name [characters, once made a ROS name: a leading '_' added to each '/'-separated part
#: starting with a digit]. These names become parts of topic names, and a ROS topic name holds at most 247
#: characters in all (rmw's limit): a vehicle namespace and a sensor name of this length leave room for the rest.
MAX_TOPIC_NAME_CHARS = 100
#: Most characters of a name quoted in an error message.
MAX_SHOWN_NAME = 40


@dataclass(frozen=True)
class WheelSlot:
    """A wheel tag of a dynamics class: default position [m], side (+1 left, -1 right, 0 centre), driven."""

    x: float
    y: float
    side: int
    driven: bool = True
    unit: int = 0  # 1: on the front unit of an articulated vehicle


@dataclass(frozen=True)
class DynamicsClass:
    """What a <dynamics class=...> brings: wheel tags, chassis defaults, controllers, extra parameters."""

    wheels: dict[str, WheelSlot]
    chassis_mass: float
    chassis_zmin: float
    chassis_zmax: float
    chassis_shape: tuple[tuple[float, float], ...]
    chassis_color: str
    controllers: tuple[str, ...]
    params: dict[str, float]
    wheel_aliases: dict[str, str] | None = None


_DIFFERENTIAL_SHAPE = ((-0.4, -0.5), (-0.4, 0.5), (0.4, 0.5), (0.6, 0.3), (0.6, -0.3), (0.4, -0.5))
_ACKERMANN_SHAPE = ((-0.8, -1.0), (-0.8, 1.0), (1.5, 0.9), (1.8, 0.8), (1.8, -0.8), (1.5, -0.9))
_DIFFERENTIAL_CONTROLLERS = ("raw", "twist_pid", "twist_ideal")
_ACKERMANN_CONTROLLERS = ("raw", "front_steer_pid", "twist_front_steer_pid", "twist_ideal")
_ACKERMANN_WHEELS = {
    "rl_wheel": WheelSlot(0.0, 0.9, +1), "rr_wheel": WheelSlot(0.0, -0.9, -1),
    "fl_wheel": WheelSlot(1.3, 0.9, +1), "fr_wheel": WheelSlot(1.3, -0.9, -1),
}
#: max_steer_rate_deg [deg/s]: how fast the steering can turn (0: instantly, as MVSim); not an MVSim tag.
_ACKERMANN_PARAMS = {"f_wheels_x": 1.3, "f_wheels_d": 2.0, "max_steer_ang_deg": 30.0, "max_steer_rate_deg": 0.0}

#: MVSim's dynamics classes with their defaults (VehicleDifferential.h/.cpp, VehicleAckermann*.cpp), and our
#: "articulated" (seed 004; not in MVSim): wheels rl/rr on the chassis (rear unit), fl/fr on the front unit.
DYNAMICS_CLASSES: dict[str, DynamicsClass] = {
    "differential": DynamicsClass(
        {"l_wheel": WheelSlot(0.0, 0.5, +1), "r_wheel": WheelSlot(0.0, -0.5, -1)},
        15.0, 0.05, 0.6, _DIFFERENTIAL_SHAPE, "#ff0000", _DIFFERENTIAL_CONTROLLERS, {}),
    "differential_3_wheels": DynamicsClass(
        {"l_wheel": WheelSlot(0.0, 0.5, +1), "r_wheel": WheelSlot(0.0, -0.5, -1),
         "caster_wheel": WheelSlot(0.5, 0.0, 0, driven=False)},
        15.0, 0.05, 0.6, _DIFFERENTIAL_SHAPE, "#ff0000", _DIFFERENTIAL_CONTROLLERS, {}),
    "differential_4_wheels": DynamicsClass(
        {"lr_wheel": WheelSlot(0.0, 0.5, +1), "rr_wheel": WheelSlot(0.0, -0.5, -1),
         "lf_wheel": WheelSlot(0.5, 0.5, +1), "rf_wheel": WheelSlot(0.5, -0.5, -1)},
        15.0, 0.05, 0.6, _DIFFERENTIAL_SHAPE, "#ff0000", _DIFFERENTIAL_CONTROLLERS, {},
        wheel_aliases={"l_wheel": "lr_wheel", "r_wheel": "rr_wheel", "l_caster_wheel": "lf_wheel",
                       "r_caster_wheel": "rf_wheel"}),
    "ackermann": DynamicsClass(
        _ACKERMANN_WHEELS, 500.0, 0.20, 1.40, _ACKERMANN_SHAPE, "#e83000", _ACKERMANN_CONTROLLERS, _ACKERMANN_PARAMS),
    "ackermann_drivetrain": DynamicsClass(
        _ACKERMANN_WHEELS, 500.0, 0.20, 1.40, _ACKERMANN_SHAPE, "#e83000", _ACKERMANN_CONTROLLERS, _ACKERMANN_PARAMS),
    "articulated": DynamicsClass(
        {"rl_wheel": WheelSlot(0.0, 0.6, +1), "rr_wheel": WheelSlot(0.0, -0.6, -1),
         "fl_wheel": WheelSlot(0.0, 0.6, +1, unit=1), "fr_wheel": WheelSlot(0.0, -0.6, -1, unit=1)},
        400.0, 0.15, 1.2, ((-0.6, -0.7), (0.75, -0.7), (0.75, 0.7), (-0.6, 0.7)), "#f0b000",
        ("raw", "twist_pid", "front_steer_pid"), {
            "wheel_separation_front": 1.0, "wheel_separation_rear": 1.0, "max_articulation_deg": 40.0,
            "max_articulation_rate_deg": 30.0, "pivot_max_torque": 0.0, "pivot_gain": 5.0}),
}
DYNAMICS_ALIASES = {"car_ackermann": "ackermann"}
#: Default outline of an articulated vehicle's front unit, in its own frame (origin at the front axle) [m].
_ARTICULATED_FRONT_SHAPE = ((-0.75, -0.7), (0.6, -0.7), (0.6, 0.7), (-0.75, 0.7))

#: Pacejka magic-formula coefficients (B, C, D, E) per surface, the same longitudinally and laterally: physics
#: seed 002 (Colli, Pagani, Panelli, "A Gazebo car simulator ...", package CarCommndsFr, "Compute surface type":
#: Dry Bx = By = 10, Cx = Cy = 1.9, D = 1, E = 0.97; Wet 12, 2.3, 0.82, 1; Snow 5, 2, 0.3, 1; Ice 4, 2, 0.1, 1).
PACEJKA_SURFACES: dict[str, tuple[float, float, float, float]] = {
    "dry": (10.0, 1.9, 1.0, 0.97),
    "wet": (12.0, 2.3, 0.82, 1.0),
    "snow": (5.0, 2.0, 0.3, 1.0),
    "ice": (4.0, 2.0, 0.1, 1.0),
}


def _pacejka_surface(name: str) -> dict[str, float]:
    """Per-direction Pacejka parameters (Bx..Ey) of a surface preset."""
    return {f"{key}{axis}": value for axis in "xy" for key, value in zip("BCDE", PACEJKA_SURFACES[name])}


#: Friction classes and their parameters with defaults. default / wardiagnemma keep seed 001's example values;
#: ellipse takes MVSim's EllipseCurveMethod.h defaults (it has no Coulomb mu); pacejka (not in MVSim) defaults to
#: the dry surface, MVSim's current C_damping default (0.01) and no rolling-resistance torque.
FRICTION_CLASSES: dict[str, dict[str, float]] = {
    "default": {"mu": 0.8, "C_damping": 1.0, "C_rr": 0.0},
    "wardiagnemma": {"mu": 0.8, "C_damping": 1.0, "A_roll": 50.0, "R1": 0.0075, "R2": 0.02, "C_rr": 0.0},
    "ellipse": {"C_damping": 0.01, "C_rr": 0.0, "C_alpha": 8.5, "slip_angle_saturation": 0.1, "C_alpha_s": 0.5,
                "C_s": 7.5, "slip_ratio_saturation": 0.1, "C_s_alpha": 0.5},
    "pacejka": {**_pacejka_surface("dry"), "C_damping": 0.01, "C_rr": 0.0},
}
FRICTION_ALIASES = {"ward_iagnemma": "wardiagnemma", "ellipse_curve": "ellipse"}

_PID = {"KP": 10.0, "KI": 0.0, "KD": 0.0, "I_MAX": 10.0, "max_torque": 100.0}
CONTROLLER_PARAMS: dict[str, dict[str, float]] = {
    "raw": {"torque_left": 0.0, "torque_right": 0.0},
    "twist_pid": {**_PID, "V": 0.0, "W": 0.0},
    "twist_ideal": {"V": 0.0, "W": 0.0},
    "front_steer_pid": {**_PID, "V": 0.0, "STEER_ANG": 0.0},
    "twist_front_steer_pid": {**_PID, "V": 0.0, "W": 0.0},
}
#: Controller setpoints MVSim reads in degrees (W in deg/s, STEER_ANG in deg); stored in radians.
CONTROLLER_DEGREE_PARAMS = frozenset({"W", "STEER_ANG"})

DRIVETRAIN_TYPES = ("open_front", "open_rear", "open_4wd", "torsen_front", "torsen_rear", "torsen_4wd")
DRIVETRAIN_PARAMS = {
    "front_rear_split": 0.5, "front_rear_bias": 1.5,
    "front_left_right_split": 0.5, "front_left_right_bias": 1.5,
    "rear_left_right_split": 0.5, "rear_left_right_bias": 1.5,
}
#: Bounds quantity (world/bounds.py) of each numeric controller, friction, drivetrain and dynamics parameter.
PARAM_QUANTITIES: dict[str, str] = {
    "KP": "controller_gain", "KI": "controller_gain", "KD": "controller_gain", "I_MAX": "integral_limit",
    "max_torque": "torque", "torque_left": "raw_torque", "torque_right": "raw_torque", "V": "velocity",
    "W": "angular_velocity", "STEER_ANG": "angle",
    "mu": "friction_coefficient", "Ex": "pacejka_curvature", "Ey": "pacejka_curvature",
    "front_rear_split": "fraction", "front_left_right_split": "fraction", "rear_left_right_split": "fraction",
    "front_rear_bias": "drivetrain_bias", "front_left_right_bias": "drivetrain_bias",
    "rear_left_right_bias": "drivetrain_bias",
    "f_wheels_x": "body_coordinate", "f_wheels_d": "body_length", "max_steer_ang_deg": "steer_angle",
    "max_steer_rate_deg": "angular_velocity", "wheel_separation_front": "body_length",
    "wheel_separation_rear": "body_length", "max_articulation_deg": "steer_angle",
    "max_articulation_rate_deg": "angular_velocity", "pivot_max_torque": "torque", "pivot_gain": "pivot_gain",
}
#: Parameters not in PARAM_QUANTITIES are friction-model coefficients.
_DEFAULT_PARAM_QUANTITY = "friction_parameter"

#: Vehicle-level tags handled elsewhere or kept; anything else inside a vehicle is warned about.
_VEHICLE_TAGS = frozenset({"dynamics", "friction", "chassis", "init_pose", "init_vel", "sensor", "publish", "visual",
                           "odometry"})


def build_vehicle(node: XmlNode, classes: dict[str, XmlNode], warn: Warn, rename: Rename) -> VehicleSpec:
    """A <vehicle name=... class=...> instance, merged with its <vehicle:class> (instance tags win)."""
    name = node.attrib.get("name", "").strip()
    if not name:
        raise fail(node, "expected attribute name=\"...\"")
    class_name = node.attrib.get("class", "").strip()
    items = _merged_items(node, classes, class_name)
    items = [_rename_child(child, name, rename) for child in items]

    dynamics_node = _last(items, "dynamics")
    if dynamics_node is None:
        raise fail(node, f"vehicle '{name}' has no <dynamics> (in its class or instance)")
    dynamics = dynamics_node.attrib.get("class", "").strip()
    dynamics = DYNAMICS_ALIASES.get(dynamics, dynamics)
    if dynamics not in DYNAMICS_CLASSES:
        valid = ", ".join([*DYNAMICS_CLASSES, *DYNAMICS_ALIASES])
        raise fail(dynamics_node, f"unknown dynamics class '{dynamics}'; valid: {valid}")
    info = DYNAMICS_CLASSES[dynamics]

    spec = VehicleSpec(
        name=name,
        class_name=class_name,
        dynamics=dynamics,
        chassis=_chassis(dynamics_node.find("chassis") or _last(items, "chassis"), info, warn),
        wheels=_wheels(dynamics_node, info),
        friction=_friction(_last(items, "friction"), warn),
        controller=_controller(dynamics_node.find("controller"), info, warn),
        source=SourceRef(node.file, node.line, node.tag),
    )
    _dynamics_params(dynamics_node, info, spec, warn)
    for child in items:
        tag = child.tag
        if tag == "init_pose":
            x, y, yaw_deg = parse_bounded_floats(child.text, child, "init_pose 'x y yaw_deg'", POSE2D_QUANTITIES)
            spec.init_pose = Pose2(x, y, math.radians(yaw_deg))
        elif tag == "init_vel":
            vx, vy, omega_deg = parse_bounded_floats(child.text, child, "init_vel 'vx vy omega_deg_per_s'",
                                                     ("velocity", "velocity", "angular_velocity"))
            spec.init_vel = Twist2(vx, vy, math.radians(omega_deg))
        elif tag == "sensor":
            spec.sensors.append(parse_sensor(child, warn, parse_visual))
        elif tag == "publish":
            spec.publish = group_text(child)
        elif tag == "visual":
            spec.visual = parse_visual(child)
        elif tag == "odometry":
            spec.odometry = {k: parse_bounded(v, child, "odometry_multiplier", k) for k, v in child.attrib.items()}
        elif tag not in _VEHICLE_TAGS:
            warn(child, f"unknown tag inside vehicle '{name}'; skipped")
    if spec.chassis.shape_from_visual:
        _chassis_from_visual(spec, node, warn)
    check_vehicle_inertia(spec, node)
    names = [s.name for s in spec.sensors]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise fail(node, f"vehicle '{name}' has several sensors named {', '.join(repeated)}")
    return spec


def _merged_items(node: XmlNode, classes: dict[str, XmlNode], class_name: str) -> list[XmlNode]:
    if not class_name:
        return list(node.children)
    if class_name not in classes:
        valid = ", ".join(sorted(classes)) or "none defined"
        raise fail(node, f"unknown vehicle class '{class_name}' (defined vehicle classes: {valid})")
    return list(classes[class_name].children) + list(node.children)


def _rename_child(child: XmlNode, vehicle_name: str, rename: Rename) -> XmlNode:
    """${NAME} is the vehicle's name. In a <sensor>'s own attributes too; inside the sensor, ${NAME} is the
    sensor's name and ${PARENT_NAME} the vehicle's."""
    if child.tag != "sensor":
        return rename(child, {"NAME": vehicle_name})
    names = {"NAME": vehicle_name, "PARENT_NAME": vehicle_name}
    head = rename(XmlNode(tag=child.tag, attrib=child.attrib, file=child.file, line=child.line), names)
    sensor_name = head.attrib.get("name", "").strip() or head.attrib.get("class", "sensor")
    body = rename(child, {"NAME": sensor_name, "PARENT_NAME": vehicle_name})
    body.attrib = head.attrib
    return body


def _last(nodes: list[XmlNode], tag: str) -> XmlNode | None:
    found = None
    for node in nodes:
        if node.tag == tag:
            found = node
    return found


def _wheels(dynamics_node: XmlNode, info: DynamicsClass) -> list[WheelSpec]:
    aliases = info.wheel_aliases or {}
    by_tag: dict[str, XmlNode] = {}
    for child in dynamics_node.children:
        tag = aliases.get(child.tag, child.tag)
        if tag in info.wheels:
            by_tag[tag] = child
    wheels = []
    for tag, slot in info.wheels.items():
        wheel = WheelSpec(name=tag, x=slot.x, y=slot.y, side=slot.side, driven=slot.driven, unit=slot.unit)
        node = by_tag.get(tag)
        if node is not None:
            _wheel_attributes(wheel, node)
        wheels.append(wheel)
    return wheels


def _wheel_attributes(wheel: WheelSpec, node: XmlNode) -> None:
    if "pos" in node.attrib:  # MVSim: "x y [yaw_deg]", the optional third value the mounting angle
        values = parse_bounded_floats(node.attrib["pos"], node, "wheel pos 'x y [yaw_deg]'",
                                      ("body_coordinate", "body_coordinate", "angle"), (2, 3))
        wheel.x, wheel.y = values[0], values[1]
        if len(values) == 3:
            wheel.yaw = math.radians(values[2])
    for key in ("mass", "width", "diameter"):
        if key in node.attrib:
            quantity = "mass" if key == "mass" else f"wheel_{key}"
            value = positive(parse_float(node.attrib[key], node, f"wheel {key}"), node, f"wheel {key}", quantity)
            setattr(wheel, key, bounded(value, node, quantity, f"wheel {key}"))
    if "yaw" in node.attrib:  # MVSim: fixed mounting angle in degrees
        wheel.yaw = math.radians(parse_bounded(node.attrib["yaw"], node, "angle", "wheel yaw [deg]"))
    visual = node.find("visual")
    if visual is not None:
        wheel.visual = parse_visual(visual)


def _chassis(node: XmlNode | None, info: DynamicsClass, warn: Warn) -> ChassisSpec:
    chassis = ChassisSpec(mass=info.chassis_mass, zmin=info.chassis_zmin, zmax=info.chassis_zmax,
                          shape=list(info.chassis_shape), color=info.chassis_color)
    if node is None:
        return chassis
    for key in ("mass", "zmin", "zmax"):
        if key in node.attrib:
            setattr(chassis, key, parse_float(node.attrib[key], node, f"chassis {key}"))
    positive(chassis.mass, node, "chassis mass", "mass")
    bounded(chassis.mass, node, "mass", "chassis mass [kg]")
    bounded(chassis.zmin, node, "body_coordinate", "chassis zmin [m]")
    bounded(chassis.zmax, node, "body_coordinate", "chassis zmax [m]")
    if chassis.zmax <= chassis.zmin:
        raise fail(node, f"chassis zmax ({chassis.zmax:g}) must be above zmin ({chassis.zmin:g})")
    if "color" in node.attrib:
        chassis.color = parse_color(node.attrib["color"], node, "chassis color")
    for child in node.children:
        if child.tag == "shape":
            chassis.shape = polygon(child)
        elif child.tag == "shape_from_visual":
            chassis.shape_from_visual = True
        else:
            warn(child, "unknown tag inside <chassis>; skipped")
    return chassis


def polygon(node: XmlNode) -> list[tuple[float, float]]:
    """The <pt>x y</pt> points of a <shape> (at least 3, non-zero area), each within the 'body_coordinate'
    bounds, consecutive points 'outline_edge' apart and the area within 'outline_area' (Box2D can build it)."""
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


def param_quantity(key: str) -> str:
    """The bounds quantity (world/bounds.py) of a controller, friction, drivetrain or dynamics parameter."""
    return PARAM_QUANTITIES.get(key, _DEFAULT_PARAM_QUANTITY)


def _numeric_params(node: XmlNode, defaults: dict[str, float], what: str, warn: Warn) -> dict[str, float]:
    params = dict(defaults)
    for child in node.children:
        if child.tag in defaults:
            params[child.tag] = _param(child)
        else:
            warn(child, f"unknown parameter for {what}; skipped (known: {', '.join(defaults)})")
    return params


#: twist_pid gains a twist_ideal controller may carry (MVSim's jackal and turtlebot definitions do): not used.
IDEAL_IGNORED_GAINS = frozenset({"KP", "KI", "KD", "I_MAX", "max_torque"})


def _param(child: XmlNode) -> float:
    """A parameter tag's number (finite; its bounds are checked by _check_params, after the parameter's own rules)."""
    return parse_float(child.text, child, child.tag)


def _check_params(params: dict[str, float], node: XmlNode) -> None:
    """Every parameter within its quantity's bounds: the last check, after the parameters' own rules. An error
    names the parameter's tag (the last one, as it is the one that counts; Pacejka's shared B, C, D, E for Bx, By,
    ...) or else `node`, where the value is a default."""
    for key, value in params.items():
        tags = [c for c in node.children if c.tag in (key, key[:-1])]
        direct = [c for c in tags if c.tag == key]
        where = (direct or tags or [node])[-1]
        bounded(value, where, param_quantity(key), key)


def _controller(node: XmlNode | None, info: DynamicsClass, warn: Warn) -> ControllerSpec:
    if node is None:  # MVSim's default controller
        return ControllerSpec(kind="raw", params=dict(CONTROLLER_PARAMS["raw"]))
    kind = node.attrib.get("class", "").strip()
    if kind not in info.controllers:
        raise fail(node, f"unknown controller class '{kind}' for this dynamics; valid: {', '.join(info.controllers)}")
    if kind == "twist_ideal":  # MVSim's own definitions keep their PID gains here; it ignores them, as we do
        node = dataclasses.replace(node, children=[c for c in node.children if c.tag not in IDEAL_IGNORED_GAINS])
    params = _numeric_params(node, CONTROLLER_PARAMS[kind], f"controller '{kind}'", warn)
    for key in ("max_torque", "I_MAX"):
        if key in params and params[key] < 0:
            raise fail(node, f"{key} must be >= 0, got {params[key]:g}{range_note(param_quantity(key))}")
    _check_params(params, node)
    for key in CONTROLLER_DEGREE_PARAMS & params.keys():
        params[key] = math.radians(params[key])
    return ControllerSpec(kind=kind, params=params)


def _friction(node: XmlNode | None, warn: Warn) -> FrictionSpec:
    """<friction class=...> -> FrictionSpec. Parameters must be >= 0, except Pacejka's curvature E (<= 1); the
    ellipse method's saturations must be > 0. Pacejka also takes <surface> (a preset of seed 002's table) and the
    shared <B>, <C>, <D>, <E> (both directions); per-direction tags win over shared ones, which win over the
    surface, whatever their order."""
    if node is None:
        return FrictionSpec(model="default", params=dict(FRICTION_CLASSES["default"]))
    model = node.attrib.get("class", "").strip()
    model = FRICTION_ALIASES.get(model, model)
    if model not in FRICTION_CLASSES:
        raise fail(node, f"unknown friction class '{model}'; valid: {', '.join(FRICTION_CLASSES)}")
    if model == "pacejka":
        params = _pacejka_params(node, warn)
    else:
        params = _numeric_params(node, FRICTION_CLASSES[model], f"friction '{model}'", warn)
    for key, value in params.items():
        if model == "pacejka" and key in ("Ex", "Ey"):
            if value > 1:
                raise fail(node, f"friction parameter {key} must be <= 1, got {value:g}"
                                 f"{range_note('pacejka_curvature')}")
        elif value < 0:
            raise fail(node, f"friction parameter {key} must be >= 0, got {value:g}{range_note(param_quantity(key))}")
    if model == "ellipse":
        for key in ("slip_angle_saturation", "slip_ratio_saturation"):
            if params[key] <= 0:
                raise fail(node, f"friction parameter {key} must be > 0, got {params[key]:g}")
    _check_params(params, node)
    return FrictionSpec(model=model, params=params)


def _pacejka_params(node: XmlNode, warn: Warn) -> dict[str, float]:
    params = dict(FRICTION_CLASSES["pacejka"])
    surface: dict[str, float] = {}
    shared: dict[str, float] = {}
    direct: dict[str, float] = {}
    for child in node.children:
        if child.tag == "surface":
            name = child.text.strip().lower()
            if name not in PACEJKA_SURFACES:
                raise fail(child, f"unknown surface {child.text.strip()!r}; valid: {', '.join(PACEJKA_SURFACES)}")
            surface = _pacejka_surface(name)
        elif child.tag in ("B", "C", "D", "E"):
            value = _param(child)
            shared.update({f"{child.tag}x": value, f"{child.tag}y": value})
        elif child.tag in params:
            direct[child.tag] = _param(child)
        else:
            known = ", ".join(["surface", "B", "C", "D", "E", *params])
            warn(child, f"unknown parameter for friction 'pacejka'; skipped (known: {known})")
    params.update(surface)
    params.update(shared)
    params.update(direct)
    return params


def _dynamics_params(node: XmlNode, info: DynamicsClass, spec: VehicleSpec, warn: Warn) -> None:
    known_children = {"chassis", "controller", "drivetrain", *info.wheels, *(info.wheel_aliases or {})}
    if spec.dynamics == "articulated":
        known_children |= {"front_chassis", *ARTICULATION_CORNERS}
    params = dict(info.params)
    for child in node.children:
        if child.tag in params:
            params[child.tag] = _param(child)
        elif child.tag == "drivetrain":
            spec.drivetrain = _drivetrain(child, warn)
        elif child.tag not in known_children:
            warn(child, f"unknown tag inside <dynamics class=\"{spec.dynamics}\">; skipped")
    if spec.dynamics != "articulated":  # articulated: _articulation checks its own rules first
        _check_params(params, node)
    if "max_steer_ang_deg" in params:
        spec.dynamics_params["max_steer_ang"] = math.radians(params["max_steer_ang_deg"])
        spec.dynamics_params["max_steer_rate"] = math.radians(params["max_steer_rate_deg"])
    if "f_wheels_x" in params:  # front axle position and track override the front wheels' pos (as MVSim)
        front_x, track = params["f_wheels_x"], params["f_wheels_d"]
        spec.dynamics_params.update(f_wheels_x=front_x, f_wheels_d=track)
        for wheel in spec.wheels:
            if wheel.name in ("fl_wheel", "fr_wheel"):
                wheel.x, wheel.y = front_x, 0.5 * track * (1 if wheel.name == "fl_wheel" else -1)
    if spec.dynamics == "articulated":
        spec.articulation = _articulation(node, params, spec, warn)
    if spec.dynamics == "ackermann_drivetrain" and spec.drivetrain is None:
        raise fail(node, f"ackermann_drivetrain needs <drivetrain type=\"...\"> ({', '.join(DRIVETRAIN_TYPES)})")


def _articulation(node: XmlNode, params: dict[str, float], spec: VehicleSpec, warn: Warn) -> ArticulationSpec:
    """The articulated-steering part of <dynamics class="articulated">: pivot geometry and limits, the front
    unit's <front_chassis> (as <chassis>), and the optional footprint corners (seed 004) as "x y" tags."""
    for key in ("wheel_separation_front", "wheel_separation_rear", "max_articulation_deg", "pivot_gain"):
        if params[key] <= 0:
            raise fail(node, f"{key} must be > 0, got {params[key]:g}{range_note(param_quantity(key))}")
    for key in ("max_articulation_rate_deg", "pivot_max_torque"):
        if params[key] < 0:
            raise fail(node, f"{key} must be >= 0, got {params[key]:g}{range_note(param_quantity(key))}")
    if params["max_articulation_deg"] >= 90:
        raise fail(node, f"max_articulation_deg must be below 90, got {params['max_articulation_deg']:g}")
    _check_params(params, node)
    front_info = DynamicsClass({}, spec.chassis.mass, spec.chassis.zmin, spec.chassis.zmax,
                               _ARTICULATED_FRONT_SHAPE, spec.chassis.color, (), {})
    front = _chassis(node.find("front_chassis"), front_info, warn)
    corners = {}
    for tag in ARTICULATION_CORNERS:
        child = node.find(tag)
        if child is not None:
            corners[tag] = tuple(parse_bounded_floats(child.text, child, f"{tag} 'x y'",
                                                      ("body_coordinate", "body_coordinate")))
    if corners and len(corners) != len(ARTICULATION_CORNERS):
        missing = ", ".join(tag for tag in ARTICULATION_CORNERS if tag not in corners)
        raise fail(node, f"footprint corners: give all four or none (missing: {missing})")
    front_length, rear_length = params["wheel_separation_front"], params["wheel_separation_rear"]
    max_torque = params["pivot_max_torque"]
    if max_torque == 0:  # enough to swing both units about the pivot against full tyre grip (mu ~ 1)
        max_torque = (spec.chassis.mass + front.mass) * 9.81 * max(front_length, rear_length)
    return ArticulationSpec(
        front_length=front_length, rear_length=rear_length,
        max_angle=math.radians(params["max_articulation_deg"]),
        max_rate=math.radians(params["max_articulation_rate_deg"]), max_torque=max_torque,
        gain=params["pivot_gain"], front_chassis=front, corners=corners or None)


def _drivetrain(node: XmlNode, warn: Warn) -> DrivetrainSpec:
    kind = node.attrib.get("type", "").strip()
    if kind not in DRIVETRAIN_TYPES:
        raise fail(node, f"unknown drivetrain type '{kind}'; valid: {', '.join(DRIVETRAIN_TYPES)}")
    params = _numeric_params(node, DRIVETRAIN_PARAMS, f"drivetrain '{kind}'", warn)
    for key, value in params.items():
        if key.endswith("_split") and not 0.0 <= value <= 1.0:
            raise fail(node, f"{key} must be within [0, 1], got {value:g}{range_note('fraction')}")
        if key.endswith("_bias") and value < 1.0:
            raise fail(node, f"{key} must be >= 1, got {value:g}{range_note('drivetrain_bias')}")
    _check_params(params, node)
    return DrivetrainSpec(type=kind, params=params)


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
