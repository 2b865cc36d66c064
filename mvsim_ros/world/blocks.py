"""<block:class> and <block> elements -> BlockSpec (obstacles: shape, mass, friction, pose, visual)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable

from mvsim_ros.world.block_geometry import parse_geometry
from mvsim_ros.world.sensors import group_text
from mvsim_ros.world.animation import parse_animation
from mvsim_ros.world.specs import BlockSpec, Pose3, SourceRef
from mvsim_ros.world.values import (
    bounded,
    fail,
    parse_bool,
    parse_bounded,
    parse_color,
    parse_float,
    parse_init_pose,
    positive,
    range_note,
)
from mvsim_ros.world.body_checks import check_inertia, check_outline, outline_part
from mvsim_ros.world.vehicles import polygon
from mvsim_ros.world.visual_models import load_model_footprint, parse_visual
from mvsim_ros.world.xml_tree import XmlNode

Warn = Callable[[XmlNode, str], None]
Rename = Callable[[XmlNode, dict[str, str]], XmlNode]

#: MVSim's default block outline: a 1 m square centred on the block's origin.
DEFAULT_BLOCK_SHAPE = [(-0.5, -0.5), (-0.5, 0.5), (0.5, 0.5), (0.5, -0.5)]
_IGNORED_FOR_NOW = frozenset({"init_vel", "lateral_friction", "restitution"})


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

    block = BlockSpec(name=name, shape=list(DEFAULT_BLOCK_SHAPE), source=SourceRef(node.file, node.line, node.tag))
    z_given = False
    shape_node = geometry_node = None
    from_visual = False
    visual_scale = None
    poses: dict[str, Pose3] = {}
    for child in items:
        tag = child.tag
        if tag == "mass":
            mass = positive(parse_float(child.text, child, "block mass [kg]"), child, "block mass", "mass")
            block.mass = bounded(mass, child, "mass", "block mass [kg]")
        elif tag in ("zmin", "zmax"):
            setattr(block, tag, parse_bounded(child.text, child, "position", f"{tag} [m]"))
            z_given = True
        elif tag == "ground_friction":
            block.ground_friction = parse_float(child.text, child, "ground friction")
            if block.ground_friction < 0:
                raise fail(child, f"ground friction must be >= 0{range_note('friction_coefficient')}")
            bounded(block.ground_friction, child, "friction_coefficient", "ground friction")
        elif tag == "color":
            block.color = parse_color(child.text, child, "colour")
        elif tag == "shape":
            shape_node = child
        elif tag == "geometry":
            geometry_node = child
        elif tag == "shape_from_visual":
            from_visual = True
        elif tag in ("static", "is_static"):
            block.static = parse_bool(child.text, child, "static")
        elif tag == "intangible":
            block.intangible = parse_bool(child.text, child, "intangible")
        elif tag in ("init_pose", "init_pose3d"):
            poses[tag] = parse_init_pose(child)
        elif tag == "skip_elevation_adjust":  # MVSim skips whenever the tag is present; "false" adjusts here
            block.skip_elevation_adjust = parse_bool(child.text or "true", child, "skip_elevation_adjust")
        elif tag == "animation":
            block.animation = parse_animation(child)
        elif tag == "visual":
            block.visual = parse_visual(child)
        elif tag == "publish":
            block.publish = group_text(child)
        elif tag == "visual_scale":  # MVSim: an instance's scale for its class's visual model
            visual_scale = positive(parse_float(child.text, child, "visual_scale"), child, "visual_scale",
                                    "model_scale")
            bounded(visual_scale, child, "model_scale", "visual_scale")
        elif tag in _IGNORED_FOR_NOW:
            warn(child, "not used by this version; kept default")
        else:
            warn(child, f"unknown tag inside block '{name}'; skipped")

    if poses:  # the instance's tags follow the class's, so they win; MVSim prefers <init_pose> to <init_pose3d>
        block.init_pose = poses.get("init_pose", poses.get("init_pose3d"))
    # Outline: <shape> first, else <geometry> (as MVSim); <shape_from_visual/> replaces it when the model loads.
    if shape_node is not None:
        block.shape = polygon(shape_node)
    elif geometry_node is not None:
        geometry = parse_geometry(geometry_node)
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


def _check_outline(block: BlockSpec, node: XmlNode) -> None:
    """The block's final outline (from <shape>, <geometry> or its visual model) as Box2D needs it: within the
    'body_coordinate' and 'outline_area' bounds, and an inertia Box2D can compute (vehicles.check_inertia)."""
    check_outline(block.shape, node, f"block '{block.name}'")
    if not (block.static or block.animation is not None):  # a Box2D body with a mass
        check_inertia([outline_part(block.shape, block.mass)], node, f"block '{block.name}'")
