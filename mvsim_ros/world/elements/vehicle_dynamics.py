"""The model parts of a <vehicle>: its <friction>, <controller> and <drivetrain>, each read through its parameter
table (world/params/vehicle_tables.py) into a typed spec, with the rules a table cannot state (class names,
values that must be > 0, Pacejka's precedence of presets)."""

from __future__ import annotations

from typing import Callable

from mvsim_ros.world.params.table import ParamTable, Values
from mvsim_ros.world.params.vehicle_tables import (CONTROLLER_TABLES, DRIVETRAIN, FRICTION_ALIASES, FRICTION_TABLES,
                                                   PACEJKA_SURFACES)
from mvsim_ros.world.specs import ControllerSpec, DrivetrainSpec, FrictionSpec
from mvsim_ros.world.xml.values import fail
from mvsim_ros.world.xml.xml_tree import XmlNode

Warn = Callable[[XmlNode, str], None]

#: Friction model -> its parameters' defaults [SI], the numeric columns the physics takes (derived from the tables,
#: so names and defaults are written once).
FRICTION_CLASSES: dict[str, dict[str, float]] = {
    model: {p.name: p.default_value for p in table if p.type == "float" and p.default_value is not None}
    for model, table in FRICTION_TABLES.items()
}

DRIVETRAIN_TYPES = ("open_front", "open_rear", "open_4wd", "torsen_front", "torsen_rear", "torsen_4wd")
#: twist_pid gains a twist_ideal controller may carry (MVSim's jackal and turtlebot definitions do): not read.
IDEAL_IGNORED_GAINS = frozenset({"KP", "KI", "KD", "I_MAX", "max_torque"})


def read_friction(node: XmlNode | None, warn: Warn) -> FrictionSpec:
    """<friction class=...> -> FrictionSpec (absent: the default model at MVSim's defaults). The ellipse method's
    saturations must be > 0; Pacejka's <surface> preset, shared <B>..<E> and per-direction <Bx>.. combine with the
    most specific winning, whatever their order."""
    if node is None:
        return FrictionSpec(model="default", params=dict(FRICTION_CLASSES["default"]))
    model = node.attrib.get("class", "").strip()
    model = FRICTION_ALIASES.get(model, model)
    if model not in FRICTION_TABLES:
        valid = ", ".join([*FRICTION_TABLES, *FRICTION_ALIASES])
        raise fail(node, f"unknown friction class '{model}'; valid: {valid}")
    values = FRICTION_TABLES[model].read(node, warn, label=f"friction '{model}'")
    if model == "pacejka":
        return FrictionSpec(model=model, params=_pacejka_params(values, node))
    if model == "ellipse":
        for key in ("slip_angle_saturation", "slip_ratio_saturation"):
            if values[key] <= 0:
                raise fail(values.node(key, node), f"friction parameter {key} must be > 0, got {values[key]:g}")
    return FrictionSpec(model=model, params={k: float(values[k]) for k in FRICTION_CLASSES[model]})


def _pacejka_params(values: Values, node: XmlNode) -> dict[str, float]:
    surface = values["surface"]
    if surface.lower() not in PACEJKA_SURFACES:
        raise fail(values.node("surface", node), f"unknown surface {surface!r}; valid: {', '.join(PACEJKA_SURFACES)}")
    preset = dict(zip("BCDE", PACEJKA_SURFACES[surface.lower()]))
    params = {}
    for name in FRICTION_CLASSES["pacejka"]:
        if name in values.given or name in ("C_damping", "C_rr"):
            params[name] = float(values[name])
        elif name[0] in values.given:
            params[name] = float(values[name[0]])
        else:
            params[name] = preset[name[0]]
    return params


def read_controller(node: XmlNode | None, dynamics: str, warn: Warn) -> ControllerSpec:
    """<controller class=...> of a `dynamics` class -> ControllerSpec (absent: raw, as MVSim). params: every
    parameter of the class's table at its value [SI; W rad/s, angles rad], I_MAX only when given."""
    kind = "raw" if node is None else node.attrib.get("class", "").strip()
    table = CONTROLLER_TABLES.get((dynamics, kind))
    if table is None:
        valid = ", ".join(k for d, k in CONTROLLER_TABLES if d == dynamics)
        raise fail(node, f"unknown controller class '{kind}' for this dynamics; valid: {valid}")
    if node is None:
        values = table.defaults()
    else:
        ignored = IDEAL_IGNORED_GAINS if kind == "twist_ideal" else ()
        values = table.read(node, warn, handled_tags=ignored, label=f"controller '{kind}'")
    params = {k: v for k, v in values.items() if v is not None}
    if params.get("reference_filter_order", 1) not in (1, 2):
        raise fail(values.node("reference_filter_order", node),
                   f"reference_filter_order must be 1 or 2, got {params['reference_filter_order']}")
    return ControllerSpec(kind=kind, params=params)


def read_drivetrain(node: XmlNode | None, warn: Warn) -> DrivetrainSpec:
    """<drivetrain type=...> -> DrivetrainSpec (absent: MVSim's torsen_4wd with its defaults)."""
    kind = DRIVETRAIN["type"].default if node is None else node.attrib.get("type", DRIVETRAIN["type"].default)
    kind = kind.strip()
    if kind not in DRIVETRAIN_TYPES:
        raise fail(node, f"unknown drivetrain type '{kind}'; valid: {', '.join(DRIVETRAIN_TYPES)}")
    values = DRIVETRAIN.defaults() if node is None else DRIVETRAIN.read(node, warn, label=f"drivetrain '{kind}'")
    return DrivetrainSpec(type=kind, params={k: float(v) for k, v in values.items() if k != "type"})


def merged_table(context: str, *tables: ParamTable) -> ParamTable:
    """One table reading the parameters of several (e.g. what every dynamics class reads plus one class's own)."""
    return ParamTable(context, [p for t in tables for p in t])
