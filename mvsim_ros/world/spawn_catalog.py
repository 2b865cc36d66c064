"""Building new vehicles and blocks for a loaded world, for spawning them while it runs.

A world file's <vehicle:class> and <block:class> definitions stay available after the load in a SpawnCatalog
(WorldSpec.catalog). An instance is built exactly as the loader builds a <vehicle> or <block> element of the
world file: from a class name and a pose, or from one element in MVSim world syntax given as text. The text is
untrusted (it may come from a ROS service call): it is parsed by the safe XML path and expanded and built within
a fresh load budget with the default limits, never running shell commands.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

import numpy as np

from mvsim_ros.world.xml.budget import LoadBudget, budget_scope, stack_headroom
from mvsim_ros.world.xml.bounds import BOUNDS
from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.xml.limits import DEFAULT_LIMITS
from mvsim_ros.world.xml.preprocess import Preprocessor
from mvsim_ros.world.specs import BlockSpec, VehicleSpec
from mvsim_ros.world.warning_summary import summarize_warnings
from mvsim_ros.world.elements.vehicles import shown_name, topic_name_problem
from mvsim_ros.world.xml.xml_tree import XmlNode, parse_xml_document

#: How spawn sources are named in errors and warnings.
SPAWN_SOURCE = "<spawn>"
#: Elements a spawn text may hold.
SPAWNABLE_TAGS = ("vehicle", "block")
#: Most extra top-level elements named one by one in the error for a spawn text holding several.
MAX_NAMED_EXTRAS = 5


class SpawnCatalog:
    """The vehicle and block classes of one loaded world, and what building an instance needs.

    `builder_type(file, preprocessor)` makes the loader's element builder (loader._WorldBuilder): its `add(node)`
    appends the built vehicle or block to `builder.world`, given `vehicle_classes` / `block_classes` set on it.
    `rng`: the world's seeded generator behind rand()/randn() in $f{} expressions (spawns continue its sequence).
    """

    def __init__(self, file: str, vehicle_classes: dict[str, XmlNode], block_classes: dict[str, XmlNode],
                 builder_type: Callable, rng: np.random.Generator):
        self.file = file
        self._vehicle_classes = dict(vehicle_classes)
        self._block_classes = dict(block_classes)
        self._builder_type = builder_type
        self._rng = rng

    def vehicle_classes(self) -> list[str]:
        """Names of the world's vehicle classes, in definition order."""
        return list(self._vehicle_classes)

    def block_classes(self) -> list[str]:
        """Names of the world's block classes, in definition order."""
        return list(self._block_classes)

    def from_class(self, class_name: str, name: str, x: float, y: float, yaw: float,
                   warnings: list[str] | None = None) -> VehicleSpec | BlockSpec:
        """An instance named `name` of vehicle class `class_name` (or, if no vehicle class has that name, of the
        block class) at (x, y) [m], heading yaw [rad], as the loader builds
        ``<vehicle name=".." class=".."><init_pose>x y yaw_deg</init_pose></vehicle>``.

        Raises ValueError for an unknown class (listing the valid ones), an empty name or a pose that is not
        finite or beyond the world bounds; WorldFileError if the class cannot be built. Build warnings are appended
        to `warnings` when given (summed up per kind, as the loader's)."""
        x, y, yaw = _checked_pose(x, y, yaw)
        if class_name in self._vehicle_classes:
            tag = "vehicle"
        elif class_name in self._block_classes:
            tag = "block"
        else:
            raise ValueError(f"no vehicle or block class named {class_name!r}; vehicle classes: "
                             f"{', '.join(self._vehicle_classes) or 'none'}; block classes: "
                             f"{', '.join(self._block_classes) or 'none'}")
        pose = XmlNode("init_pose", {}, SPAWN_SOURCE, 1, text=f"{x!r} {y!r} {math.degrees(yaw)!r}")
        node = XmlNode(tag, {"name": _checked_name(name), "class": class_name}, SPAWN_SOURCE, 1, [pose])
        return _posed(self._build(node, warnings), x, y, yaw)

    def from_xml(self, text: str, name: str | None = None, x: float | None = None, y: float | None = None,
                 yaw: float | None = None, warnings: list[str] | None = None) -> VehicleSpec | BlockSpec:
        """The vehicle or block described by `text`: one ``<vehicle ...>`` or ``<block ...>`` element in MVSim
        world syntax (it may use the world's classes and carry its own init_pose). `name`, and each of x, y [m]
        and yaw [rad], override the element's when not None.

        Raises WorldFileError (with the line) for text that is not exactly one such element (a second top-level
        element is refused, naming the extra ones) or does not build, ValueError for an override that is empty,
        not finite or beyond the world bounds."""
        overrides = {key: value for key, value in (("x", x), ("y", y), ("yaw", yaw)) if value is not None}
        if overrides:
            _checked_pose(overrides.get("x", 0.0), overrides.get("y", 0.0), overrides.get("yaw", 0.0))
        if name is not None:
            name = _checked_name(name)
        if not isinstance(text, str):
            raise ValueError(f"the spawn description must be text, got {type(text).__name__}")
        data = text.encode("utf-8")
        with budget_scope(LoadBudget(DEFAULT_LIMITS)) as budget, stack_headroom(DEFAULT_LIMITS):
            budget.add_file(len(data), (SPAWN_SOURCE, None, None))
            root = _single_root(data)
            if warnings is not None:
                warnings.extend(summarize_warnings(root.parse_warnings))
            if root.tag not in SPAWNABLE_TAGS:
                raise WorldFileError(f"expected one <vehicle> or <block> element, found <{root.tag}>",
                                     file=SPAWN_SOURCE, line=root.line, tag=root.tag)
            if name is not None:
                root = dataclasses.replace(root, attrib={**root.attrib, "name": name})
            if not root.attrib.get("name", "").strip():
                raise WorldFileError("expected attribute name=\"...\" (or a name given with the request)",
                                     file=SPAWN_SOURCE, line=root.line, tag=root.tag)
            spec = self._build_in_scope(root, budget, warnings)
        return _posed(spec, overrides.get("x"), overrides.get("y"), overrides.get("yaw"))

    def _build(self, node: XmlNode, warnings: list[str] | None) -> VehicleSpec | BlockSpec:
        with budget_scope(LoadBudget(DEFAULT_LIMITS)) as budget, stack_headroom(DEFAULT_LIMITS):
            return self._build_in_scope(node, budget, warnings)

    def _build_in_scope(self, node: XmlNode, budget: LoadBudget,
                        warnings: list[str] | None) -> VehicleSpec | BlockSpec:
        """Expand `node` (variables, expressions, loops; no shell) and build it with the world's classes."""
        preprocessor = Preprocessor(rng=self._rng, allow_shell=False, budget=budget)
        expanded = preprocessor.expand(node, {}, (SPAWN_SOURCE,))
        builder = self._builder_type(self.file, preprocessor)
        builder.vehicle_classes = self._vehicle_classes
        builder.block_classes = self._block_classes
        builder.add(expanded)
        built = builder.world.vehicles + builder.world.blocks
        if len(built) != 1:
            raise WorldFileError(f"expected one <vehicle> or <block> element, found <{expanded.tag}>",
                                 file=SPAWN_SOURCE, line=expanded.line, tag=expanded.tag)
        if warnings is not None:
            warnings.extend(summarize_warnings(preprocessor.warnings + builder.world.warnings))
        if isinstance(built[0], VehicleSpec):
            _check_sensor_names(built[0])
        return built[0]


def _check_sensor_names(vehicle: VehicleSpec) -> None:
    """WorldFileError at the first sensor of `vehicle` whose name cannot go into topic names (the vehicle's own
    name is the request's to check: it may be replaced)."""
    for sensor in vehicle.sensors:
        problem = topic_name_problem(sensor.name)
        if problem is not None:
            src = sensor.source
            raise WorldFileError(f"sensor name {shown_name(sensor.name)} cannot be used: {problem}; rename it",
                                 file=src.file if src else SPAWN_SOURCE, line=src.line if src else None,
                                 tag=src.tag if src else "sensor")


def _single_root(data: bytes) -> XmlNode:
    """The one top-level element of a spawn text (its reading warnings on `parse_warnings`); WorldFileError
    naming the extra top-level elements when there are several (one request spawns one entity)."""
    document = parse_xml_document(data, SPAWN_SOURCE)
    root, extra = document.roots[0], document.roots[1:]
    if extra:
        named = ", ".join(_describe(node) for node in extra[:MAX_NAMED_EXTRAS])
        more = f" and {len(extra) - MAX_NAMED_EXTRAS} more" if len(extra) > MAX_NAMED_EXTRAS else ""
        raise WorldFileError(f"a spawn description holds one <vehicle> or <block> element, found "
                             f"{len(document.roots)} top-level elements: extra {named}{more} (spawn each with its "
                             "own request)", file=SPAWN_SOURCE, line=extra[0].line, tag=extra[0].tag)
    root.parse_warnings = tuple(document.warnings)
    return root


def _describe(node: XmlNode) -> str:
    """`<tag name="...">` at line N, for naming an element in an error (long names cut)."""
    name = node.attrib.get("name")
    shown = "" if name is None else f' name="{name[:60]}{"..." if len(name) > 60 else ""}"'
    return f"<{node.tag}{shown}> at line {node.line}"


def _checked_name(name: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"a spawned entity needs a non-empty name, got {name!r}")
    return name.strip()


def _checked_pose(x: float, y: float, yaw: float) -> tuple[float, float, float]:
    """Floats within the world bounds (positions [m]; yaw [rad] any finite value); ValueError otherwise."""
    try:
        values = float(x), float(y), float(yaw)
    except (TypeError, ValueError):
        raise ValueError(f"spawn pose must be numbers, got x={x!r}, y={y!r}, yaw={yaw!r}") from None
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"spawn pose must be finite, got x={x!r}, y={y!r}, yaw={yaw!r}")
    bound = BOUNDS["position"]
    for key, value in zip("xy", values):
        if not bound.low <= value <= bound.high:
            raise ValueError(f"spawn pose {key}={value:g} is outside the world bounds {bound.text()}")
    return values[0], values[1], (values[2] + math.pi) % (2.0 * math.pi) - math.pi


def _posed(spec: VehicleSpec | BlockSpec, x: float | None, y: float | None,
           yaw: float | None) -> VehicleSpec | BlockSpec:
    """`spec` with the given init_pose fields set exactly (None: kept)."""
    given = {key: value for key, value in (("x", x), ("y", y), ("yaw", yaw)) if value is not None}
    if not given:
        return spec
    if "yaw" in given:
        given["yaw"] = (given["yaw"] + math.pi) % (2.0 * math.pi) - math.pi
    return dataclasses.replace(spec, init_pose=dataclasses.replace(spec.init_pose, **given))


__all__ = ["SPAWN_SOURCE", "SpawnCatalog"]
