"""<block:class> and <block> elements -> BlockSpec (obstacles: shape, mass, friction, restitution, damping, pose,
velocity, visual), read through the block table (params/world_tables.py) with MVSim's names and defaults."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Callable

from mvsim_ros.world.elements.block_geometry import parse_geometry
from mvsim_ros.world.elements.sensors import group_text
from mvsim_ros.world.elements.animation import parse_animation
from mvsim_ros.world.specs import BlockSpec, SourceRef, Twist2
from mvsim_ros.world.xml.param_reading import read_params
from mvsim_ros.world.params.world_tables import BLOCK
from mvsim_ros.world.xml.values import fail, parse_bool, parse_bounded_floats, parse_init_pose
from mvsim_ros.world.elements.body_checks import check_inertia, check_outline, outline_part
from mvsim_ros.world.elements.vehicles import polygon
from mvsim_ros.world.files.visual_models import load_model_footprint, parse_visual
from mvsim_ros.world.xml.xml_tree import XmlNode

Warn = Callable[[XmlNode, str], None]
Rename = Callable[[XmlNode, dict[str, str]], XmlNode]

#: MVSim's default block outline: a 1 m square centred on the block's origin.
DEFAULT_BLOCK_SHAPE = [(-0.5, -0.5), (-0.5, 0.5), (0.5, 0.5), (0.5, -0.5)]
#: Heights [m] of a block that gives neither zmin nor zmax (nor a geometry or model to take them from).
DEFAULT_ZMIN_M, DEFAULT_ZMAX_M = 0.0, 1.0
#: Tags read here rather than by the table's scalar reading (every <visual> is looked at, the last one kept).
_OWN_TAGS = ("visual",)


def build_block(node: XmlNode, classes: dict[str, XmlNode], warn: Warn, rename: Rename) -> BlockSpec:
    """A <block name=...> instance merged with its <block:class> (instance tags win). The loader names unnamed
    blocks as MVSim does before they get here."""
    name = node.attrib["name"].strip()
    class_name = node.attrib.get("class", "").strip()
    if class_name and class_name not in classes:
        valid = ", ".join(sorted(classes)) or "none defined"
        raise fail(node, f"unknown block class '{class_name}' (defined block classes: {valid})")
    items = (list(classes[class_name].children) if class_name else []) + list(node.children)
    items = [rename(child, {"NAME": name}) for child in items]
    values = read_params(BLOCK, node, warn, children=items, handled_tags=_OWN_TAGS, label=f"block '{name}'")

    block = BlockSpec(name=name, shape=list(DEFAULT_BLOCK_SHAPE), source=SourceRef(node.file, node.line, node.tag),
                      mass=values["mass"], ground_friction=values["ground_friction"],
                      lateral_friction=values["lateral_friction"], restitution=values["restitution"],
                      color=values["color"], static=values["static"], intangible=values["intangible"],
                      linear_damping=values["linear_damping"], angular_damping=values["angular_damping"])
    z_given = values["zmin"] is not None or values["zmax"] is not None
    block.zmin = DEFAULT_ZMIN_M if values["zmin"] is None else values["zmin"]
    block.zmax = DEFAULT_ZMAX_M if values["zmax"] is None else values["zmax"]
    shape_node, geometry_node = values["shape"], values["geometry"]
    from_visual = values["shape_from_visual"] is not None
    visual_scale = values["visual_scale"]
    for child in items:
        if child.tag == "visual":
            block.visual = parse_visual(child, warn)
    if values["skip_elevation_adjust"] is not None:  # MVSim skips whenever the tag is present; "false" adjusts
        flag = values["skip_elevation_adjust"]
        block.skip_elevation_adjust = parse_bool(flag.text or "true", flag, "skip_elevation_adjust")
    if values["animation"] is not None:
        block.animation = parse_animation(values["animation"], warn)
    if values["publish"] is not None:
        block.publish = group_text(values["publish"])
    if "init_vel" in values.given:
        block.init_vel = _init_vel(values.nodes["init_vel"])
    poses = {key: parse_init_pose(values.nodes[key]) for key in ("init_pose", "init_pose3d") if key in values.given}

    if poses:  # the instance's tags follow the class's, so they win; MVSim prefers <init_pose> to <init_pose3d>
        block.init_pose = poses.get("init_pose", poses.get("init_pose3d"))
    # Outline: <shape> first, else <geometry> (as MVSim); <shape_from_visual/> replaces it when the model loads.
    if shape_node is not None:
        block.shape = polygon(shape_node)
    elif geometry_node is not None:
        geometry = parse_geometry(geometry_node, warn=warn)
        block.geometry = geometry
        block.shape = list(geometry.footprint)
        if not z_given:
            block.zmin, block.zmax = geometry.zmin, geometry.zmax
    if visual_scale is not None and block.visual is not None:
        block.visual = dataclasses.replace(block.visual, model_scale=visual_scale)
    if from_visual:
        if block.visual is None and block.geometry is None:
            raise fail(node, f"block '{name}': <shape_from_visual/> needs a <visual> model or a <geometry>")
        if block.visual is not None:
            model = load_model_footprint(block.visual, Path(node.file).parent, lambda msg: warn(node, msg))
            if model is not None:
                block.shape = list(model.footprint)
                block.zmin, block.zmax = model.zmin, model.zmax
    if block.zmax <= block.zmin:
        raise fail(node, f"block '{name}': zmax ({block.zmax:g}) must be above zmin ({block.zmin:g})")
    _check_outline(block, node)
    return block


def _init_vel(node: XmlNode) -> Twist2:
    """<init_vel> "vx vy omega" [m/s, m/s, deg/s] in the block's own frame, as a Twist2 [m/s, rad/s]."""
    vx, vy, omega_deg = parse_bounded_floats(node.text, node, "init_vel 'vx vy omega_deg_per_s'",
                                             ("velocity", "velocity", "angular_velocity"))
    return Twist2(vx, vy, math.radians(omega_deg))


def _check_outline(block: BlockSpec, node: XmlNode) -> None:
    """The block's final outline (from <shape>, <geometry> or its visual model) as Box2D needs it: within the
    'body_coordinate' and 'outline_area' bounds, and an inertia Box2D can compute (vehicles.check_inertia)."""
    check_outline(block.shape, node, f"block '{block.name}'")
    if not (block.static or block.animation is not None):  # a Box2D body with a mass
        check_inertia([outline_part(block.shape, block.mass)], node, f"block '{block.name}'")
