"""``<element class="pointcloud">``: a static point cloud file drawn in the scene (its file is checked, not read)."""

from __future__ import annotations

from mvsim_ros.world.elements.scenery.common import Warn, element_name, local_path, source_of
from mvsim_ros.world.params.world_tables import ELEMENT_POINTCLOUD
from mvsim_ros.world.specs import PointCloudSpec, Pose3
from mvsim_ros.world.xml.param_reading import read_params
from mvsim_ros.world.xml.values import fail, parse_pose3d
from mvsim_ros.world.xml.xml_tree import XmlNode


def parse_pointcloud(node: XmlNode, warn: Warn, context: str) -> PointCloudSpec:
    """A ``pointcloud`` element: the first ``file_txt_2d`` (else ``file_txt_3d``) file, which must exist."""
    first = {}
    for child in node.children:  # MVSim reads the first of each file tag
        if child.tag in ("file_txt_2d", "file_txt_3d"):
            first.setdefault(child.tag, child)
    values = read_params(ELEMENT_POINTCLOUD, node, warn, label=context)
    chosen = next((tag for tag in ("file_txt_2d", "file_txt_3d") if tag in first and first[tag].text.strip()), None)
    if chosen is None:
        raise fail(node, "pointcloud needs a <file_txt_2d> or <file_txt_3d> file")
    if chosen == "file_txt_2d" and "file_txt_3d" in first:
        warn(first["file_txt_3d"], "<file_txt_3d> ignored: MVSim uses <file_txt_2d> when both are given")
    path = local_path(first[chosen])
    if not path.is_file():
        raise fail(first[chosen], f"point cloud file not found: {path}")
    pose = parse_pose3d(values.nodes["pose_3d"]) if "pose_3d" in values.given else Pose3()
    return PointCloudSpec(source=source_of(node), file=path, dimensions=2 if chosen == "file_txt_2d" else 3,
                          name=element_name(node), points_size=values["points_size"], pose=pose)


__all__ = ["parse_pointcloud"]
