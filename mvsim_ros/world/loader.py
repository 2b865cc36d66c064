"""Turn an MVSim world file into a WorldSpec.

Supported now: <mvsim_world>, <simul_timestep>, <b2d_vel_iters>, <b2d_pos_iters>, <gravity>, <include>,
<variable>, <element class="occupancy_grid"> (from an image), <vehicle:class>/<vehicle> with
<dynamics class="differential">, <friction class="default">, <controller class="twist_pid"|"raw">, and
<block:class>/<block> obstacles. Other tags are reported as warnings (with file:line) and skipped.
Any error raises one WorldFileError naming file, line and tag; nothing half-built escapes.
"""

from __future__ import annotations

import math
from pathlib import Path

from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.occupancy_image import load_occupancy_image
from mvsim_ros.world.preprocess import expand, load_file_tree, substitute
from mvsim_ros.world.specs import (
    BlockSpec,
    ChassisSpec,
    ControllerSpec,
    FrictionSpec,
    OccupancyGridSpec,
    Pose2,
    SourceRef,
    Twist2,
    VehicleSpec,
    WheelSpec,
    WorldSpec,
)
from mvsim_ros.world.values import fail, parse_bool, parse_color, parse_float, parse_floats, positive
from mvsim_ros.world.xml_tree import XmlNode, parse_xml_bytes

DEFAULT_TIMESTEP_S = 0.005

#: Wheel tags of each dynamics class: tag -> (default x, default y, side +1 left / -1 right).
DYNAMICS_WHEELS: dict[str, dict[str, tuple[float, float, int]]] = {
    "differential": {"l_wheel": (0.0, 0.5, +1), "r_wheel": (0.0, -0.5, -1)},
}
FRICTION_PARAMS: dict[str, dict[str, float]] = {
    "default": {"mu": 0.8, "C_damping": 1.0, "C_rr": 0.0},
}
CONTROLLER_PARAMS: dict[str, dict[str, float]] = {
    "twist_pid": {"KP": 10.0, "KI": 0.0, "KD": 0.0, "I_MAX": 10.0, "max_torque": 100.0, "V": 0.0, "W": 0.0},
    "raw": {"torque_left": 0.0, "torque_right": 0.0},
}
#: Controller parameters given in degrees in the XML (as MVSim reads them), converted to radians.
CONTROLLER_DEGREE_PARAMS = frozenset({"W"})
#: MVSim's default chassis outline for a differential robot [m].
DEFAULT_DIFFERENTIAL_CHASSIS = [(-0.4, -0.5), (-0.4, 0.5), (0.4, 0.5), (0.6, 0.3), (0.6, -0.3), (0.4, -0.5)]
#: Tags that are valid MVSim but not simulated by this version: warned about once each, then skipped.
NOT_YET_SIMULATED = frozenset(
    {"gui", "georeference", "lights", "walls", "marker", "sensor", "publish", "visual", "joint", "init_vel_deg"}
)
ELEMENTS_NOT_YET_SIMULATED = frozenset(
    {
        "ground_grid",
        "elevation_map",
        "horizontal_plane",
        "vertical_plane",
        "property_region",
        "skybox",
        "pointcloud",
    }
)


def load_world(path: str | Path) -> WorldSpec:
    """Load a world file from disk. Raises WorldFileError (naming file, line, tag) on any problem."""
    path = Path(path).resolve()
    if not path.is_file():
        raise WorldFileError("world file not found", file=str(path))
    return _build(load_file_tree(path), str(path))


def load_world_string(text: str, file: str = "<string>") -> WorldSpec:
    """Load a world from XML text. `file` names it in errors and anchors relative paths (its directory)."""
    return _build(parse_xml_bytes(text.encode("utf-8"), file), file)


def _build(raw_root: XmlNode, file: str) -> WorldSpec:
    if raw_root.tag != "mvsim_world":
        raise fail(raw_root, f"the root element must be <mvsim_world>, found <{raw_root.tag}>")
    root = expand(raw_root, {}, (file,))
    world = WorldSpec(source_file=file)
    vehicle_classes: dict[str, XmlNode] = {}
    block_classes: dict[str, XmlNode] = {}
    warned: set[str] = set()

    def warn(node: XmlNode, message: str) -> None:
        key = f"{node.file}:{node.tag}:{message}"
        if key not in warned:
            warned.add(key)
            world.warnings.append(f"{node.file}:{node.line}: <{node.tag}>: {message}")

    for node in _flatten_class_files(root):
        tag = node.tag
        if tag == "simul_timestep":
            step = parse_float(node.text, node, "simulation timestep [s]")
            if step < 0:
                raise fail(node, f"simulation timestep must be >= 0, got {step:g}")
            world.timestep = step if step > 0 else DEFAULT_TIMESTEP_S
        elif tag == "b2d_vel_iters":
            world.b2d_vel_iters = _positive_int(node)
        elif tag == "b2d_pos_iters":
            world.b2d_pos_iters = _positive_int(node)
        elif tag == "gravity":
            world.gravity = positive(parse_float(node.text, node, "gravity [m/s^2]"), node, "gravity")
        elif tag == "vehicle:class":
            vehicle_classes[_required_attr(node, "name")] = node
        elif tag == "block:class":
            block_classes[_required_attr(node, "name")] = node
        elif tag == "vehicle":
            world.vehicles.append(_vehicle(node, vehicle_classes, warn))
        elif tag == "block":
            world.blocks.append(_block(node, block_classes, len(world.blocks), warn))
        elif tag == "element":
            grid = _element(node, warn)
            if grid is not None:
                world.occupancy_grids.append(grid)
        elif tag in NOT_YET_SIMULATED:
            warn(node, "not simulated by this version; skipped")
        else:
            warn(node, "unknown tag; skipped")
    names = [v.name for v in world.vehicles]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise WorldFileError(f"duplicate vehicle names: {', '.join(duplicates)}", file=file, tag="vehicle")
    return world


def _flatten_class_files(root: XmlNode) -> list[XmlNode]:
    """Top-level world items in order; an included file whose root is itself <mvsim_world> is spliced in."""
    items: list[XmlNode] = []
    for child in root.children:
        if child.tag == "mvsim_world":
            items.extend(_flatten_class_files(child))
        else:
            items.append(child)
    return items


def _required_attr(node: XmlNode, name: str) -> str:
    value = node.attrib.get(name, "").strip()
    if not value:
        raise fail(node, f"expected attribute {name}=\"...\"")
    return value


def _positive_int(node: XmlNode) -> int:
    value = parse_float(node.text, node, "iteration count")
    if value < 1 or value != int(value):
        raise fail(node, f"expected a positive integer, got {node.text!r}")
    return int(value)


def _pose(node: XmlNode) -> Pose2:
    x, y, yaw_deg = parse_floats(node.text, node, "pose 'x y yaw_deg'", 3)
    return Pose2(x, y, math.radians(yaw_deg))


def _polygon(node: XmlNode) -> list[tuple[float, float]]:
    points = []
    for pt in node.findall("pt"):
        x, y = parse_floats(pt.text, pt, "polygon point 'x y'", 2)
        points.append((x, y))
    if len(points) < 3:
        raise fail(node, f"a shape needs at least 3 <pt> points, got {len(points)}")
    area2 = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1]))
    if abs(area2) < 1e-9:
        raise fail(node, "the shape has zero area")
    return points


def _merge_class(instance: XmlNode, classes: dict[str, XmlNode], kind: str) -> list[XmlNode]:
    """Class children followed by the instance's own children (the instance's later tags override)."""
    class_name = instance.attrib.get("class", "").strip()
    if not class_name:
        return list(instance.children)
    if class_name not in classes:
        valid = ", ".join(sorted(classes)) or "none defined"
        raise fail(instance, f"unknown {kind} class '{class_name}' (defined {kind} classes: {valid})")
    return list(classes[class_name].children) + list(instance.children)


def _last(nodes: list[XmlNode], tag: str) -> XmlNode | None:
    found = None
    for node in nodes:
        if node.tag == tag:
            found = node
    return found


def _rename(node: XmlNode, names: dict[str, str]) -> XmlNode:
    """Substitute ${NAME} and the like (names known only at instance time) throughout a subtree."""
    out = XmlNode(
        tag=node.tag,
        attrib={k: substitute(v, names, node, frozenset()) for k, v in node.attrib.items()},
        file=node.file,
        line=node.line,
        text=substitute(node.text, names, node, frozenset()),
    )
    out.children = [_rename(c, names) for c in node.children]
    return out


def _vehicle(node: XmlNode, classes: dict[str, XmlNode], warn) -> VehicleSpec:
    name = _required_attr(node, "name")
    items = [_rename(c, {"NAME": name}) for c in _merge_class(node, classes, "vehicle")]
    dynamics_node = _last(items, "dynamics")
    if dynamics_node is None:
        raise fail(node, f"vehicle '{name}' has no <dynamics> (in its class or instance)")
    dynamics = dynamics_node.attrib.get("class", "").strip()
    if dynamics not in DYNAMICS_WHEELS:
        raise fail(
            dynamics_node,
            f"unknown dynamics class '{dynamics}'; valid: {', '.join(sorted(DYNAMICS_WHEELS))}",
        )
    wheels = []
    for tag, (x0, y0, side) in DYNAMICS_WHEELS[dynamics].items():
        wheel_node = dynamics_node.find(tag)
        wheels.append(_wheel(wheel_node, tag, x0, y0, side))
    chassis_node = dynamics_node.find("chassis") or _last(items, "chassis")
    chassis = _chassis(chassis_node)
    controller = _controller(dynamics_node.find("controller"))
    friction = _friction(_last(items, "friction"))
    spec = VehicleSpec(
        name=name,
        class_name=node.attrib.get("class", ""),
        dynamics=dynamics,
        chassis=chassis,
        wheels=wheels,
        friction=friction,
        controller=controller,
        source=SourceRef(node.file, node.line, node.tag),
    )
    for child in items:
        if child.tag == "init_pose":
            spec.init_pose = _pose(child)
        elif child.tag == "init_vel":
            vx, vy, omega_deg = parse_floats(child.text, child, "init_vel 'vx vy omega_deg_per_s'", 3)
            spec.init_vel = Twist2(vx, vy, math.radians(omega_deg))
        elif child.tag in ("dynamics", "friction", "chassis"):
            pass
        elif child.tag in NOT_YET_SIMULATED:
            warn(child, "not simulated by this version; skipped")
        else:
            warn(child, f"unknown tag inside vehicle '{name}'; skipped")
    if not spec.chassis.shape:
        spec.chassis.shape = list(DEFAULT_DIFFERENTIAL_CHASSIS)
    return spec


def _wheel(node: XmlNode | None, tag: str, x0: float, y0: float, side: int) -> WheelSpec:
    wheel = WheelSpec(name=tag, x=x0, y=y0, side=side)
    if node is None:
        return wheel
    if "pos" in node.attrib:
        wheel.x, wheel.y = parse_floats(node.attrib["pos"], node, "wheel pos 'x y'", 2)
    if "mass" in node.attrib:
        wheel.mass = positive(parse_float(node.attrib["mass"], node, "wheel mass [kg]"), node, "wheel mass")
    if "width" in node.attrib:
        wheel.width = positive(parse_float(node.attrib["width"], node, "wheel width [m]"), node, "wheel width")
    if "diameter" in node.attrib:
        wheel.diameter = positive(
            parse_float(node.attrib["diameter"], node, "wheel diameter [m]"), node, "wheel diameter"
        )
    return wheel


def _chassis(node: XmlNode | None) -> ChassisSpec:
    chassis = ChassisSpec()
    if node is None:
        return chassis
    if "mass" in node.attrib:
        chassis.mass = positive(parse_float(node.attrib["mass"], node, "chassis mass [kg]"), node, "chassis mass")
    if "zmin" in node.attrib:
        chassis.zmin = parse_float(node.attrib["zmin"], node, "chassis zmin [m]")
    if "zmax" in node.attrib:
        chassis.zmax = parse_float(node.attrib["zmax"], node, "chassis zmax [m]")
    shape = node.find("shape")
    if shape is not None:
        chassis.shape = _polygon(shape)
    return chassis


def _params(node: XmlNode, defaults: dict[str, float], kind: str) -> dict[str, float]:
    params = dict(defaults)
    for child in node.children:
        if child.tag not in defaults:
            valid = ", ".join(defaults)
            raise fail(child, f"unknown parameter for {kind} '{node.attrib.get('class')}'; valid: {valid}")
        params[child.tag] = parse_float(child.text, child, child.tag)
    return params


def _controller(node: XmlNode | None) -> ControllerSpec:
    if node is None:
        return ControllerSpec(kind="twist_pid", params=dict(CONTROLLER_PARAMS["twist_pid"]))
    kind = node.attrib.get("class", "").strip()
    if kind not in CONTROLLER_PARAMS:
        raise fail(node, f"unknown controller class '{kind}'; valid: {', '.join(sorted(CONTROLLER_PARAMS))}")
    params = _params(node, CONTROLLER_PARAMS[kind], "controller")
    for key in CONTROLLER_DEGREE_PARAMS & params.keys():
        params[key] = math.radians(params[key])
    for key in ("max_torque", "I_MAX"):
        if key in params and params[key] < 0:
            raise fail(node, f"{key} must be >= 0, got {params[key]:g}")
    return ControllerSpec(kind=kind, params=params)


def _friction(node: XmlNode | None) -> FrictionSpec:
    if node is None:
        return FrictionSpec(model="default", params=dict(FRICTION_PARAMS["default"]))
    model = node.attrib.get("class", "").strip()
    if model not in FRICTION_PARAMS:
        raise fail(node, f"unknown friction class '{model}'; valid: {', '.join(sorted(FRICTION_PARAMS))}")
    params = _params(node, FRICTION_PARAMS[model], "friction")
    for key, value in params.items():
        if value < 0:
            raise fail(node, f"friction parameter {key} must be >= 0, got {value:g}")
    return FrictionSpec(model=model, params=params)


def _block(node: XmlNode, classes: dict[str, XmlNode], index: int, warn) -> BlockSpec:
    name = node.attrib.get("name", "").strip() or f"block{index + 1}"
    items = [_rename(c, {"NAME": name}) for c in _merge_class(node, classes, "block")]
    block = BlockSpec(name=name, shape=[], source=SourceRef(node.file, node.line, node.tag))
    for child in items:
        tag = child.tag
        if tag == "mass":
            block.mass = positive(parse_float(child.text, child, "block mass [kg]"), child, "block mass")
        elif tag == "zmin":
            block.zmin = parse_float(child.text, child, "zmin [m]")
        elif tag == "zmax":
            block.zmax = parse_float(child.text, child, "zmax [m]")
        elif tag == "ground_friction":
            block.ground_friction = parse_float(child.text, child, "ground friction")
        elif tag == "color":
            block.color = parse_color(child.text, child, "colour")
        elif tag == "shape":
            block.shape = _polygon(child)
        elif tag == "geometry":
            block.shape = _geometry(child)
        elif tag == "static":
            block.static = parse_bool(child.text, child, "static")
        elif tag == "intangible":
            block.intangible = parse_bool(child.text, child, "intangible")
        elif tag == "init_pose":
            block.init_pose = _pose(child)
        elif tag in NOT_YET_SIMULATED or tag == "shape_from_visual":
            warn(child, "not simulated by this version; skipped")
        else:
            warn(child, f"unknown tag inside block '{name}'; skipped")
    if not block.shape:
        raise fail(node, f"block '{name}' has no <shape> or <geometry>")
    return block


def _geometry(node: XmlNode) -> list[tuple[float, float]]:
    kind = node.attrib.get("type", "").strip()
    if kind == "box":
        lx = positive(parse_float(node.attrib.get("lx", ""), node, "box lx [m]"), node, "lx")
        ly = positive(parse_float(node.attrib.get("ly", ""), node, "box ly [m]"), node, "ly")
        return [(-lx / 2, -ly / 2), (lx / 2, -ly / 2), (lx / 2, ly / 2), (-lx / 2, ly / 2)]
    if kind == "cylinder":
        radius = positive(parse_float(node.attrib.get("radius", ""), node, "cylinder radius [m]"), node, "radius")
        count = int(parse_float(node.attrib.get("vertex_count", "8"), node, "vertex_count"))
        if not 3 <= count <= 64:
            raise fail(node, f"vertex_count must be in 3..64, got {count}")
        return [(radius * math.cos(2 * math.pi * k / count), radius * math.sin(2 * math.pi * k / count))
                for k in range(count)]
    raise fail(node, f"unknown geometry type '{kind}'; valid: box, cylinder")


def _element(node: XmlNode, warn) -> OccupancyGridSpec | None:
    kind = node.attrib.get("class", "").strip()
    if kind in ELEMENTS_NOT_YET_SIMULATED:
        warn(node, f"element class '{kind}' is not simulated by this version; skipped")
        return None
    if kind != "occupancy_grid":
        valid = ", ".join(sorted({"occupancy_grid", *ELEMENTS_NOT_YET_SIMULATED}))
        raise fail(node, f"unknown element class '{kind}'; valid: {valid}")
    file_node = node.find("file")
    if file_node is None or not file_node.text:
        raise fail(node, "occupancy_grid needs <file>image.png</file>")
    path = (Path(file_node.file).parent / file_node.text).resolve()
    if path.suffix.lower() in (".yaml", ".yml", ".gridmap", ".gz"):
        raise fail(file_node, f"map format '{path.suffix}' is not supported by this version; use an image")
    params = {"resolution": 0.1, "centerpixel_x": -1.0, "centerpixel_y": -1.0, "occupancy_threshold": 0.5,
              "restitution": 0.01, "lateral_friction": 0.5}
    for child in node.children:
        if child.tag in params:
            params[child.tag] = parse_float(child.text, child, child.tag)
        elif child.tag not in ("file", "show_collisions"):
            warn(child, "unknown occupancy_grid parameter; skipped")
    positive(params["resolution"], node, "resolution")
    grid = load_occupancy_image(
        path,
        params["resolution"],
        (params["centerpixel_x"], params["centerpixel_y"]),
        params["occupancy_threshold"],
        where=(file_node.file, file_node.line, file_node.tag),
    )
    grid.restitution = params["restitution"]
    grid.lateral_friction = params["lateral_friction"]
    return grid
