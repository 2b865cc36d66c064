"""``<element class="skybox">``: six background textures named by one pattern with ``%s`` for the face."""

from __future__ import annotations

from pathlib import Path

from mvsim_ros.world.elements.scenery.common import (Warn, element_name, resource_path, source_of,
                                                     zip_resource_problem)
from mvsim_ros.world.params.world_tables import ELEMENT_SKYBOX
from mvsim_ros.world.specs import SkyBoxSpec
from mvsim_ros.world.xml.param_reading import read_params
from mvsim_ros.world.xml.values import fail
from mvsim_ros.world.xml.xml_tree import XmlNode


def parse_skybox(node: XmlNode, warn: Warn, context: str) -> SkyBoxSpec:
    """A ``skybox`` element: the texture pattern, with every face's file checked (local files and zip members)."""
    values = read_params(ELEMENT_SKYBOX, node, warn, label=context)
    pattern_node = values.nodes.get("textures")
    if pattern_node is None or not values["textures"]:
        raise fail(node, "skybox needs <textures>pattern</textures> with one '%s' for the face name")
    raw = values["textures"]
    if raw.count("%s") != 1:
        raise fail(pattern_node, f"the skybox texture pattern must contain exactly one '%s', got {raw!r}")
    spec = SkyBoxSpec(source=source_of(node), textures=str(resource_path(pattern_node)), name=element_name(node))
    for face, where in spec.faces().items():
        if isinstance(where, Path) and not where.is_file():
            raise fail(pattern_node, f"skybox texture for face '{face}' not found: {where}")
        problem = zip_resource_problem(where)
        if problem:
            raise fail(pattern_node, f"skybox texture for face '{face}': {problem}")
    return spec


__all__ = ["parse_skybox"]
