"""<element class="occupancy_grid">: walls from an image, a ROS map_server YAML map or an MRPT .gridmap(.gz)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from mvsim_ros.world.files.occupancy.image import load_occupancy_image
from mvsim_ros.world.files.occupancy.mrpt_gridmap import load_mrpt_gridmap
from mvsim_ros.world.files.occupancy.ros_map import load_ros_map_yaml
from mvsim_ros.world.specs import OccupancyGridSpec
from mvsim_ros.world.xml.param_reading import read_params
from mvsim_ros.world.params.world_tables import ELEMENT_OCCUPANCY_GRID
from mvsim_ros.world.xml.values import fail
from mvsim_ros.world.xml.xml_tree import XmlNode

OCCUPANCY_CLASS = "occupancy_grid"
#: Parameters MVSim reads for image maps only (a .yaml or .gridmap carries its own resolution and origin).
IMAGE_ONLY_PARAMS = ("resolution", "centerpixel_x", "centerpixel_y", "occupancy_threshold")


def parse_occupancy_grid(node: XmlNode, warn: Callable[[XmlNode, str], None]) -> OccupancyGridSpec:
    """The grid named by <file>: by extension, .yaml/.yml (map_server), .gridmap[.gz] (MRPT), else an image."""
    values = read_params(ELEMENT_OCCUPANCY_GRID, node, warn, label=f'<element class="{OCCUPANCY_CLASS}">')
    file_node = values.nodes.get("file")
    if file_node is None or not values["file"]:
        raise fail(node, "occupancy_grid needs <file>map.png|map.yaml|map.gridmap.gz</file>")
    path = (Path(file_node.file).parent / values["file"]).resolve()
    where = (file_node.file, file_node.line, file_node.tag)
    name = path.name.lower()
    is_yaml = name.endswith((".yaml", ".yml"))
    is_gridmap = name.endswith((".gridmap", ".gridmap.gz"))
    if is_yaml or is_gridmap:
        for key in IMAGE_ONLY_PARAMS:
            if key in values.given:
                warn(values.nodes[key], f"<{key}> applies to image maps only; this map file sets its own")
        loaded = (load_ros_map_yaml if is_yaml else load_mrpt_gridmap)(path, where)
        grid = OccupancyGridSpec(occupied=loaded.occupied, resolution=loaded.resolution, x_min=loaded.x_min,
                                 y_min=loaded.y_min, source_file=str(path), occupancy=loaded.occupancy)
    else:
        grid = load_occupancy_image(path, values["resolution"], (values["centerpixel_x"], values["centerpixel_y"]),
                                    values["occupancy_threshold"], where=where)
    grid.restitution = values["restitution"]
    grid.lateral_friction = values["lateral_friction"]
    return grid
