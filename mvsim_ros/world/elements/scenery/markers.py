"""``<marker type="line_strip">``: a drawn polyline (visual only), MVSim's only marker type."""

from __future__ import annotations

from mvsim_ros.world.elements.scenery.common import Warn, source_of, xyz_point
from mvsim_ros.world.elements.world_options import warner
from mvsim_ros.world.files.number_text import text_rows
from mvsim_ros.world.params.world_tables import MARKER
from mvsim_ros.world.specs import MarkerSpec
from mvsim_ros.world.xml.param_reading import read_params
from mvsim_ros.world.xml.values import fail
from mvsim_ros.world.xml.xml_tree import XmlNode


def parse_marker(node: XmlNode, warn: Warn | None = None) -> MarkerSpec:
    """Parse a top-level ``<marker type="line_strip">`` (MVSim's only marker type)."""
    warn = warner(warn)
    kind = node.attrib.get("type", "").strip()
    if not kind:
        raise fail(node, '<marker> needs a type="..." attribute (MVSim knows type="line_strip")')
    if kind != "line_strip":
        raise fail(node, f"unknown <marker> type '{kind}'; valid: line_strip")
    values = read_params(MARKER, node, warn, label='<marker type="line_strip">')
    points_node = values.nodes.get("points")
    if points_node is None:
        raise fail(node, "<marker type='line_strip'> needs <points>x y z ...</points>")
    marker = MarkerSpec(source=source_of(node), type=kind, color=values["color"],
                        translation=xyz_point(values["translation"], values.node("translation", node)))
    marker.points = [tuple(row[:3]) for row in text_rows(points_node.text, points_node, "marker points", 3)]
    return marker


__all__ = ["parse_marker"]
