"""``<element class="horizontal_plane">`` and ``<element class="vertical_plane">`` (walls with ``<door>`` and
``<window>`` openings): colour, texture, culling and pose read alike for both."""

from __future__ import annotations

from typing import Any

from mvsim_ros.world.elements.animation import parse_animation
from mvsim_ros.world.elements.scenery.common import (Warn, check_cull_face, check_range, element_name, kept_tags,
                                                     not_negative, resource_path, source_of,
                                                     warn_missing_texture)
from mvsim_ros.world.params.table import Values
from mvsim_ros.world.params.world_tables import (ELEMENT_HORIZONTAL_PLANE, ELEMENT_VERTICAL_PLANE,
                                                 ELEMENT_VERTICAL_PLANE_OPENING)
from mvsim_ros.world.specs import HorizontalPlaneSpec, VerticalPlaneSpec, WallOpening
from mvsim_ros.world.xml.param_reading import read_params
from mvsim_ros.world.xml.values import fail, parse_init_pose
from mvsim_ros.world.xml.xml_tree import XmlNode


def _plane_common(values: Values, node: XmlNode, warn: Warn) -> dict[str, Any]:
    """The fields both plane kinds read alike: colour, shadows, culling, texture and its tile sizes, pose."""
    check_cull_face(values, node)
    texture = resource_path(values.nodes["texture"]) if values["texture"] else None
    pose = None
    if "init_pose" in values.given:
        pose = parse_init_pose(values.nodes["init_pose"])
        if "init_pose3d" in values.given:
            warn(values.nodes["init_pose3d"], "<init_pose3d> ignored: MVSim uses <init_pose> when both are given")
    elif "init_pose3d" in values.given:
        pose = parse_init_pose(values.nodes["init_pose3d"])
    return dict(color=values["color"], enable_shadows=values["enable_shadows"], cull_face=values["cull_face"],
                texture=texture, texture_size_x=values["texture_size_x"], texture_size_y=values["texture_size_y"],
                init_pose=pose)


def parse_horizontal_plane(node: XmlNode, warn: Warn, context: str) -> HorizontalPlaneSpec:
    """A ``horizontal_plane`` element, with its optional keyframe animation."""
    values = read_params(ELEMENT_HORIZONTAL_PLANE, node, warn, label=context)
    spec = HorizontalPlaneSpec(source=source_of(node), name=element_name(node), x_min=values["x_min"],
                               x_max=values["x_max"], y_min=values["y_min"], y_max=values["y_max"], z=values["z"],
                               **_plane_common(values, node, warn))
    if values["animation"] is not None:
        spec.animation = parse_animation(values["animation"], warn)
    spec.kept = kept_tags(ELEMENT_HORIZONTAL_PLANE, values)
    check_range(node, spec.x_min, spec.x_max, "x")
    check_range(node, spec.y_min, spec.y_max, "y")
    warn_missing_texture(node, spec.texture, warn)
    return spec


def parse_vertical_plane(node: XmlNode, warn: Warn, context: str) -> VerticalPlaneSpec:
    """A ``vertical_plane`` element with its ``<door>`` and ``<window>`` openings."""
    values = read_params(ELEMENT_VERTICAL_PLANE, node, warn, label=context, handled_tags=("door", "window"))
    not_negative(values, "height", node)
    spec = VerticalPlaneSpec(source=source_of(node), name=element_name(node), x0=values["x0"], y0=values["y0"],
                             x1=values["x1"], y1=values["y1"], z=values["z"], height=values["height"],
                             thickness=values["thickness"], **_plane_common(values, node, warn))
    for child in node.children:
        if child.tag in ("door", "window"):
            opening = _opening(child, warn)
            if opening is not None:
                spec.openings.append(opening)
    spec.kept = kept_tags(ELEMENT_VERTICAL_PLANE, values)
    if spec.x0 == spec.x1 and spec.y0 == spec.y1:
        raise fail(node, f"vertical_plane end points (x0, y0) and (x1, y1) are the same: ({spec.x0:g}, {spec.y0:g})")
    warn_missing_texture(node, spec.texture, warn)
    return spec


def _opening(node: XmlNode, warn: Warn) -> WallOpening | None:
    """A <door> or <window>: each value as an attribute or a child tag (a child tag wins, read later)."""
    values = read_params(ELEMENT_VERTICAL_PLANE_OPENING, node, warn, label=f"<{node.tag}> in a vertical_plane")
    name = values["name"]
    if "name" in node.attrib and "name" not in values.given:
        name = node.attrib["name"].strip()
    item = WallOpening(kind=node.tag, position=values["position"], width=values["width"], z_min=values["z_min"],
                       z_max=values["z_max"], name=name)
    if not 0.0 <= item.position <= 1.0:
        clamped = min(max(item.position, 0.0), 1.0)
        warn(node, f"{node.tag} position must be within [0, 1] (a fraction of the wall length), got "
                   f"{item.position:g}; clamped to {clamped:g} as MVSim does")
        item.position = clamped
    if item.width <= 0.0:
        warn(node, f"{node.tag} width must be > 0, got {item.width:g}; opening ignored as MVSim does")
        return None
    if item.z_max < item.z_min:
        raise fail(node, f"{node.tag} z_max ({item.z_max:g}) is below z_min ({item.z_min:g})")
    return item


__all__ = ["parse_horizontal_plane", "parse_vertical_plane"]
