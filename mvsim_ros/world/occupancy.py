"""<element class="occupancy_grid">: walls from an image, a ROS map_server YAML map or an MRPT .gridmap(.gz)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from mvsim_ros.world.occupancy_formats import load_mrpt_gridmap, load_ros_map_yaml
from mvsim_ros.world.occupancy_image import load_occupancy_image
from mvsim_ros.world.specs import OccupancyGridSpec
from mvsim_ros.world.values import fail, parse_bool, parse_float, positive
from mvsim_ros.world.xml_tree import XmlNode

OCCUPANCY_CLASS = "occupancy_grid"
#: Image-map parameters (MVSim's OccupancyGridMap.cpp) and the physical ones every format takes.
_IMAGE_PARAMS = {"resolution": 0.1, "centerpixel_x": -1.0, "centerpixel_y": -1.0, "occupancy_threshold": 0.5}
_COMMON_PARAMS = {"restitution": 0.01, "lateral_friction": 0.5}


def parse_occupancy_grid(node: XmlNode, warn: Callable[[XmlNode, str], None]) -> OccupancyGridSpec:
    """The grid named by <file>: by extension, .yaml/.yml (map_server), .gridmap[.gz] (MRPT), else an image."""
    file_node = node.find("file")
    if file_node is None or not file_node.text:
        raise fail(node, "occupancy_grid needs <file>map.png|map.yaml|map.gridmap.gz</file>")
    path = (Path(file_node.file).parent / file_node.text).resolve()
    where = (file_node.file, file_node.line, file_node.tag)
    name = path.name.lower()
    is_yaml = name.endswith((".yaml", ".yml"))
    is_gridmap = name.endswith((".gridmap", ".gridmap.gz"))
    params = dict(_COMMON_PARAMS, **({} if is_yaml or is_gridmap else _IMAGE_PARAMS))
    for child in node.children:
        if child.tag in params:
            params[child.tag] = parse_float(child.text, child, child.tag)
        elif child.tag == "show_collisions":
            parse_bool(child.text, child, "show_collisions")  # a viewer option: validated, not used headless
        elif child.tag != "file":
            warn(child, "unknown occupancy_grid parameter for this map format; skipped")
    if is_yaml or is_gridmap:
        loaded = (load_ros_map_yaml if is_yaml else load_mrpt_gridmap)(path, where)
        grid = OccupancyGridSpec(occupied=loaded.occupied, resolution=loaded.resolution, x_min=loaded.x_min,
                                 y_min=loaded.y_min, source_file=str(path), occupancy=loaded.occupancy)
    else:
        positive(params["resolution"], node, "resolution")
        grid = load_occupancy_image(path, params["resolution"], (params["centerpixel_x"], params["centerpixel_y"]),
                                    params["occupancy_threshold"], where=where)
    grid.restitution = params["restitution"]
    grid.lateral_friction = params["lateral_friction"]
    return grid
