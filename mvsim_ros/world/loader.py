"""Turn an MVSim world file into a WorldSpec.

Pipeline: safe XML parsing (xml_tree) -> includes, variables, loops, conditions and expressions (preprocess)
-> one builder per element kind (vehicles, blocks, sensors, joints, elements, occupancy). Every problem raises
one WorldFileError naming file, line and tag; nothing half-built escapes. Tags this simulator does not simulate
yet are kept in the spec or reported as warnings with file:line, never ignored silently; an unknown top-level tag
one or two edits from a known element (`<vehicel>`) is an error naming the element meant, other unknown tags warn
with the closest known name. The world's warnings are summed up per kind (warning_summary.py: the first few of
each kind in full, then one line counting the rest; GUI-only parameters and unavailable remote models one line).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable, Mapping

import numpy as np

from mvsim_ros.world.elements.actors import build_actor
from mvsim_ros.world.elements.blocks import build_block
from mvsim_ros.world.elements.ground_placement import place_on_surfaces
from mvsim_ros.world.elements.joints import parse_joint
from mvsim_ros.world.elements.scenery.element_classes import ELEMENT_CLASSES, parse_element
from mvsim_ros.world.elements.scenery.markers import parse_marker
from mvsim_ros.world.elements.scenery.occupancy_grid import OCCUPANCY_CLASS, parse_occupancy_grid
from mvsim_ros.world.elements.scenery.walls import parse_walls
from mvsim_ros.world.elements.sensors import parse_sensor, unnamed_sensor_name
from mvsim_ros.world.elements.vehicles import build_vehicle, shown_name, topic_name_problem
from mvsim_ros.world.elements.world_options import parse_georeference, parse_gui, parse_lights
from mvsim_ros.world.elements.world_params import DEFAULT_TIMESTEP_S, apply_world_params
from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.files.visual_models import check_remote_model, parse_visual, unavailable_remote_model
from mvsim_ros.world.params.world_tables import WORLD, WORLD_CLASS_DEF
from mvsim_ros.world.spawn_catalog import SpawnCatalog
from mvsim_ros.world.specs import SourceRef, WorldSpec
from mvsim_ros.world.warning_summary import summarize_warnings
from mvsim_ros.world.xml.budget import LoadBudget, budget_scope, stack_headroom
from mvsim_ros.world.xml.limits import DEFAULT_LIMITS, LoadLimits
from mvsim_ros.world.xml.param_reading import read_params
from mvsim_ros.world.xml.preprocess import DEFERRED_VARIABLES, Preprocessor, load_file_tree
from mvsim_ros.world.xml.suggestions import did_you_mean, typo_of
from mvsim_ros.world.xml.values import fail
from mvsim_ros.world.xml.xml_tree import XmlNode, parse_xml_bytes


def load_world(path: str | Path, random_seed: int = 0, allow_shell: bool = False,
               limits: LoadLimits = DEFAULT_LIMITS, variables: Mapping[str, str] | None = None) -> WorldSpec:
    """Load a world file. Raises WorldFileError (naming file, line, tag) on any problem.

    random_seed: seed of the generator behind rand()/randn() in $f{} expressions (same seed, same world).
    allow_shell: allow $(command) substitutions (off by default: a world file must not run programs).
    limits: the budgets of this load (limits.py), counted over the world file and everything it includes or names;
    going over one is a WorldFileError naming it.
    variables: values of ${name} variables set from outside (as text): they win over the world's own <variable>
    definitions of the same name (e.g. a parameter sweep setting a world's ${ROBOT_SPEED}).
    """
    try:
        path = Path(path).resolve()
        found = path.is_file()
    except (OSError, ValueError, RuntimeError) as exc:  # a name the OS refuses: too long, NUL character, ...
        raise WorldFileError(f"cannot use the world file name: {getattr(exc, 'strerror', None) or exc}",
                             file=str(path)[:200]) from None
    if not found:
        raise WorldFileError("world file not found", file=str(path))
    with budget_scope(LoadBudget(limits)), stack_headroom(limits):
        return _build(lambda: load_file_tree(path), str(path), random_seed, allow_shell, variables)


def load_world_string(text: str, file: str = "<string>", random_seed: int = 0, allow_shell: bool = False,
                      limits: LoadLimits = DEFAULT_LIMITS) -> WorldSpec:
    """Load a world from XML text. `file` names it in errors and anchors relative paths (its directory).
    `limits` as for `load_world` (the text counts as the world file)."""
    data = text.encode("utf-8")
    with budget_scope(LoadBudget(limits)) as budget, stack_headroom(limits):
        budget.add_file(len(data), (file, None, None))
        return _build(lambda: parse_xml_bytes(data, file), file, random_seed, allow_shell)


#: The elements a world file's top level holds (read by `_WorldBuilder.add` or by the preprocessor): an unknown
#: top-level tag one or two edits away from one of them is an error, not a warning (xml/suggestions.py `typo_of`).
TOP_LEVEL_ELEMENTS = ("vehicle", "block", "actor", "element", "sensor", "joint", "gui", "georeference", "lights",
                      "walls", "marker", "vehicle:class", "block:class", "actor:class", "include", "variable")


class _WorldBuilder:
    """Walks the expanded top-level elements in order and fills a WorldSpec."""

    def __init__(self, file: str, preprocessor: Preprocessor, root: XmlNode | None = None):
        self.world = WorldSpec(source_file=file)
        self.pre = preprocessor
        self.root = root
        self.params: list[XmlNode] = []  # the world's own parameter tags, in file order
        self.vehicle_classes: dict[str, XmlNode] = {}
        self.block_classes: dict[str, XmlNode] = {}
        self.actor_classes: dict[str, XmlNode] = {}
        self._unnamed = {"vehicle": 0, "block": 0, "actor": 0}
        self._unnamed_warning: dict[str, tuple[int, XmlNode]] = {}
        self._warned: set[str] = set()

    def warn(self, node: XmlNode, message: str) -> None:
        """Record a warning with its location; the same one at the same place once, a remote model URI once."""
        key = unavailable_remote_model(message) or f"{node.file}:{node.line}:{node.tag}:{message}"
        if key not in self._warned:
            self._warned.add(key)
            self.world.warnings.append(f"{node.file}:{node.line}: <{node.tag}>: {message}")

    def rename(self, node: XmlNode, names: dict[str, str]) -> XmlNode:
        """Substitute instance-time names (${NAME}, ${PARENT_NAME}) throughout a subtree; others stay for later."""
        keep = DEFERRED_VARIABLES - names.keys()
        out = XmlNode(
            tag=node.tag,
            attrib={k: self.pre.substitute(v, names, node, keep) for k, v in node.attrib.items()},
            file=node.file,
            line=node.line,
            text=self.pre.substitute(node.text, names, node, keep),
        )
        out.children = [self.rename(c, names) for c in node.children]
        return out

    def add(self, node: XmlNode) -> None:
        world, tag = self.world, node.tag
        if tag == "mvsim_world":  # an included file that is itself a world: splice its contents
            for child in node.children:
                self.add(child)
        elif tag in ("vehicle:class", "block:class", "actor:class"):
            self._check_class_attributes(node)
            getattr(self, f"{tag.split(':')[0]}_classes")[_name(node)] = node
        elif tag == "vehicle":
            node = self._named(node, "veh{}")
            world.vehicles.append(build_vehicle(node, self.vehicle_classes, self.warn, self.rename))
        elif tag == "block":
            node = self._named(node, "block{:03d}")
            world.blocks.append(build_block(node, self.block_classes, self.warn, self.rename))
        elif tag == "actor":
            node = self._named(node, "actor{:03d}")
            actor = build_actor(node, self.actor_classes, self.warn)
            world.actors.append(actor)
            check_remote_model(actor.visual, Path(node.file).parent,
                               lambda message: self.warn(node, f"actor '{actor.name}': {message}"),
                               "drawing the declared shape")
        elif tag == "element":
            self._element(node)
        elif tag == "sensor":
            named = self.rename(node, {"PARENT_NAME": "world"})
            kind = (named.attrib.get("class") or named.attrib.get("type") or "").strip()
            sensor_name = named.attrib.get("name", "").strip() or unnamed_sensor_name(kind, 0)
            sensor_node = self.rename(named, {"NAME": sensor_name})
            world.sensors.append(parse_sensor(sensor_node, self.warn, parse_visual))
        elif tag == "joint":
            world.joints.append(parse_joint(node, self.warn))
        elif tag == "gui":
            world.gui = parse_gui(node, self.warn)
        elif tag == "georeference":
            world.georeference = parse_georeference(node, self.warn)
        elif tag == "lights":
            world.lights = parse_lights(node, self.warn)
        elif tag == "walls":
            world.walls.append(parse_walls(node, self.warn))
        elif tag == "marker":
            world.elements.append(parse_marker(node, self.warn))
        elif _is_world_param(tag):
            self.params.append(node)  # read through the world's table by `finish`
        elif (meant := typo_of(tag, TOP_LEVEL_ELEMENTS)) is not None:
            raise fail(node, f"unknown element <{tag}>; did you mean <{meant}>? (a misspelt element would "
                             f"leave the world without it)")
        elif not node.children and node.text:
            world.other_params[tag] = node.text
            self.warn(node, f"unknown world parameter; kept but not used{_top_level_hint(tag)}")
        else:
            self.warn(node, f"unknown tag; skipped{_top_level_hint(tag)}")

    def _check_class_attributes(self, node: XmlNode) -> None:
        """One warning per attribute of a class definition other than its name."""
        for key in node.attrib:
            if WORLD_CLASS_DEF.lookup(key, attribute=True) is None:
                self.warn(node, f"unknown attribute {key}=\"...\" for <{node.tag}>; skipped (known: name)")

    def _named(self, node: XmlNode, pattern: str) -> XmlNode:
        """`node` itself when it has a name; else a copy named as MVSim names them, counting the unnamed ones of
        its kind in creation order (veh1, veh2, ...; block001, ...; actor001, ...). One warning per kind, at the
        first one, completed with the count and the last name by `finish`."""
        if node.attrib.get("name", "").strip():
            return node
        count = self._unnamed[node.tag] = self._unnamed[node.tag] + 1
        name = pattern.format(count)
        if count == 1:
            self._unnamed_warning[node.tag] = (len(self.world.warnings), node)
            self.warn(node, self._unnamed_text(node.tag, name, name))
        else:
            at, first = self._unnamed_warning[node.tag]
            self.world.warnings[at] = f"{first.file}:{first.line}: <{first.tag}>: " \
                                      f"{self._unnamed_text(node.tag, pattern.format(1), name, count)}"
        return dataclasses.replace(node, attrib={**node.attrib, "name": name})

    @staticmethod
    def _unnamed_text(tag: str, first: str, last: str, count: int = 1) -> str:
        names = f"'{first}'" if count == 1 else f"'{first}' to '{last}'"
        what = f"a <{tag}>" if count == 1 else f"{count} <{tag}> elements (the first here)"
        return f"{what} without a name attribute: named {names} in creation order, as MVSim does"

    def _element(self, node: XmlNode) -> None:
        kind = node.attrib.get("class", "").strip()
        if kind == OCCUPANCY_CLASS:
            self.world.occupancy_grids.append(parse_occupancy_grid(node, self.warn))
        else:
            self.world.elements.append(parse_element(node, self.warn))

    def finish(self) -> WorldSpec:
        world = self.world
        if self.root is not None:
            apply_world_params(world, read_params(WORLD, self.root, self.warn, children=self.params,
                                                  label="<mvsim_world>"), self.root, self.warn)
        check_topic_names(world)
        _unique([(v.name, v.source) for v in world.vehicles], "vehicle", world.source_file)
        _unique([(b.name, b.source) for b in world.blocks], "block", world.source_file)
        _unique([(a.name, a.source) for a in world.actors], "actor", world.source_file)
        place_on_surfaces(world)
        bodies = {v.name for v in world.vehicles} | {b.name for b in world.blocks}
        for joint in world.joints:
            for body in (joint.body_a, joint.body_b):
                if body not in bodies:
                    src = joint.source
                    raise WorldFileError(f"joint body '{body}' is not a vehicle or block of this world",
                                         file=src.file, line=src.line, tag=src.tag)
        return world


def _build(read: Callable[[], XmlNode], file: str, random_seed: int, allow_shell: bool,
           variables: Mapping[str, str] | None = None) -> WorldSpec:
    """The world whose root element `read` returns, expanded and built within the active load budget.

    Memory errors and stack exhaustion inside the load (beyond what the budget foresaw) become WorldFileErrors
    too: a load raises nothing else."""
    try:
        return _build_from(read(), file, random_seed, allow_shell, variables)
    except RecursionError:
        raise WorldFileError("the world file nests elements too deeply for the Python stack (lower the "
                             "load_max_nesting_depth parameter)", file=file) from None
    except MemoryError:
        raise WorldFileError("out of memory while loading the world (lower the load_* limits)", file=file) from None


def _build_from(raw_root: XmlNode, file: str, random_seed: int, allow_shell: bool,
                variables: Mapping[str, str] | None = None) -> WorldSpec:
    if raw_root.tag != "mvsim_world":
        raise fail(raw_root, f"the root element must be <mvsim_world>, found <{raw_root.tag}>")
    _check_version(raw_root)
    given = {str(k): str(v) for k, v in (variables or {}).items()}
    preprocessor = Preprocessor(rng=np.random.default_rng(random_seed), allow_shell=allow_shell,
                                fixed=frozenset(given))
    root = preprocessor.expand(raw_root, dict(given), (file,))
    builder = _WorldBuilder(file, preprocessor, root)
    builder.world.warnings.extend(preprocessor.warnings)  # file-reading warnings (MVSim leniencies), first
    for node in root.children:
        builder.add(node)
    world = builder.finish()
    world.warnings = summarize_warnings(world.warnings, world_file=file)
    world.catalog = SpawnCatalog(file, builder.vehicle_classes, builder.block_classes, _WorldBuilder,
                                 preprocessor.rng)
    return world


def _check_version(root: XmlNode) -> None:
    version = root.attrib.get("version")
    if version is None:
        return
    parts = version.strip().split(".")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise fail(root, f"version: expected 'major.minor', got {version!r}")


def _name(node: XmlNode) -> str:
    value = node.attrib.get("name", "").strip()
    if not value:
        raise fail(node, "expected attribute name=\"...\"")
    return value


def _top_level_hint(tag: str) -> str:
    """``; did you mean <simul_timestep>?`` for the world parameter or element closest to an unknown top-level
    tag; empty when none is close."""
    return did_you_mean(tag, (*WORLD.names(), *TOP_LEVEL_ELEMENTS), tag=True)


def _is_world_param(tag: str) -> bool:
    """Whether `tag` is one of the world's own parameter tags (not a section like <vehicle>)."""
    param = WORLD.lookup(tag, attribute=False)
    return param is not None and param.type != "group"


def check_topic_names(world: WorldSpec) -> None:
    """WorldFileError at the element of the first vehicle or sensor whose name cannot go into topic names."""
    named = [("vehicle", v.name, v.source) for v in world.vehicles]
    named += [("sensor", s.name, s.source) for v in world.vehicles for s in v.sensors]
    named += [("sensor", s.name, s.source) for s in world.sensors]
    for kind, name, source in named:
        problem = topic_name_problem(name)
        if problem is not None:
            raise _located(f"{kind} name {shown_name(name)} cannot be used: {problem}; rename it", source,
                           world.source_file, kind)


def _located(message: str, source: SourceRef | None, file: str, tag: str) -> WorldFileError:
    """A WorldFileError at `source` (file, line, tag), or at `file` when the spec has no source."""
    if source is None:
        return WorldFileError(message, file=file, tag=tag)
    return WorldFileError(message, file=source.file, line=source.line, tag=source.tag)


def _unique(named: list[tuple[str, SourceRef | None]], kind: str, file: str) -> None:
    """WorldFileError at the second element of the first name used twice, naming the line of the first."""
    first: dict[str, SourceRef | None] = {}
    for name, source in named:
        if name not in first:
            first[name] = source
            continue
        earlier = first[name]
        at = "another element" if earlier is None else _place(earlier, source)
        shown = shown_name(name, quoted=False)
        raise _located(f"duplicate {kind} names: {shown} names this <{kind}> and {at}", source, file, kind)


def _place(earlier: SourceRef, later: SourceRef | None) -> str:
    """Where `earlier` is, said from `later`'s file: 'the <tag> at line 3' in the same file, 'the <tag> at
    file:3' in another."""
    if later is not None and later.file == earlier.file and earlier.line is not None:
        return f"the <{earlier.tag}> at line {earlier.line}"
    line = "" if earlier.line is None else f":{earlier.line}"
    return f"the <{earlier.tag}> at {earlier.file}{line}"


__all__ = ["load_world", "load_world_string", "check_topic_names", "DEFAULT_TIMESTEP_S", "ELEMENT_CLASSES"]
