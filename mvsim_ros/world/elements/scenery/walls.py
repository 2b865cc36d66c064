"""``<walls>``: static wall boxes from ``<shape>`` point pairs (after a 4x4 ``<transformation>``), or a model file
named by ``<model_uri>``; the boxes are built as MVSim's World::process_load_walls() builds them."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from mvsim_ros.world.elements.scenery.common import Warn, resource_path, source_of, zip_resource_problem
from mvsim_ros.world.elements.world_options import warner
from mvsim_ros.world.files.number_text import matlab_matrix
from mvsim_ros.world.params.world_tables import WALLS
from mvsim_ros.world.specs import Point2, WallSegment, WallsSpec
from mvsim_ros.world.xml.param_reading import read_params
from mvsim_ros.world.xml.values import bounded, fail, parse_floats
from mvsim_ros.world.xml.xml_tree import XmlNode


def parse_walls(node: XmlNode, warn: Warn | None = None) -> WallsSpec:
    """Parse ``<walls>`` and build its wall boxes the way MVSim's World::process_load_walls() does."""
    warn = warner(warn)
    values = read_params(WALLS, node, warn, label="<walls>")
    walls = WallsSpec(source=source_of(node), wall_thickness=values["wallThickness"], wall_height=values["wallHeight"],
                      scale=values["scale"], color=values["color"])
    if values["transformation"]:
        walls.transformation = _matrix4(values.nodes["transformation"])
    shapes = [child for child in node.children if child.tag == "shape"]
    for extra in shapes[1:]:
        warn(extra, "second <shape> in <walls>: MVSim uses only the first; skipped")
    shape_node = shapes[0] if shapes else None
    model_node = values.nodes.get("model_uri")
    if model_node is not None:
        walls.model_uri = resource_path(model_node)
    if shape_node is not None:
        walls.shape = _shape_points(shape_node)
        if len(walls.shape) % 2:
            raise fail(shape_node, f"<walls> <shape> needs an even number of <pt> (point pairs), got "
                                   f"{len(walls.shape)}")
        walls.segments = _wall_segments(walls, shape_node)
    elif model_node is not None:
        if isinstance(walls.model_uri, Path) and not walls.model_uri.is_file():
            raise fail(model_node, f"walls model file not found: {walls.model_uri}")
        problem = zip_resource_problem(walls.model_uri)
        if problem:
            raise fail(model_node, f"walls model: {problem}")
    else:
        raise fail(node, "<walls> needs a <shape> with <pt> point pairs, or a <model_uri>")
    return walls


def _wall_segments(walls: WallsSpec, shape_node: XmlNode) -> list[WallSegment]:
    """MVSim's wall boxes: a segment end that lies within 1.01 * thickness of an end of an earlier segment is
    pushed outwards by thickness / 2, so that walls meeting at a corner overlap instead of leaving a notch."""
    rot, trans = walls.transformation[:3, :3], walls.transformation[:3, 3]
    points = [rot @ np.array([x, y, 0.0]) + trans for x, y in walls.shape]
    half = 0.5 * walls.wall_thickness
    snap2 = (1.01 * walls.wall_thickness) ** 2
    earlier: list[np.ndarray] = []
    segments = []
    for a, b in zip(points[0::2], points[1::2]):
        a2, b2 = a[:2], b[:2]
        for value in (*a2, *b2):  # after <transformation>: Box2D boxes in world coordinates
            bounded(float(value), shape_node, "position", "<walls> segment end point [m]")
        vec = b2 - a2
        norm = float(np.hypot(*vec))
        if norm <= 0.0:
            raise fail(shape_node, f"<walls> segment from ({a2[0]:g}, {a2[1]:g}) to itself has zero length")
        unit = vec / norm

        def near(p: np.ndarray) -> bool:
            return any(float(np.sum((p - q) ** 2)) < snap2 for q in earlier)

        end1 = a2 - unit * half if near(a2) else a2
        end2 = b2 + unit * half if near(b2) else b2
        earlier.extend((a2, b2))
        centre = 0.5 * (end1 + end2)
        segments.append(WallSegment(
            x0=float(a2[0]), y0=float(a2[1]), x1=float(b2[0]), y1=float(b2[1]),
            center_x=float(centre[0]), center_y=float(centre[1]), yaw=math.atan2(vec[1], vec[0]),
            length=float(np.hypot(*(end2 - end1))), thickness=walls.wall_thickness, height=walls.wall_height,
        ))
    return segments


def _shape_points(node: XmlNode) -> list[Point2]:
    points = []
    for pt in node.findall("pt"):
        x, y = parse_floats(pt.text, pt, "shape point 'x y'", 2)
        points.append((bounded(x, pt, "position", "shape point x [m]"),
                       bounded(y, pt, "position", "shape point y [m]")))
    if len(points) < 3:
        raise fail(node, f"<shape> needs 3 or more <pt>x y</pt> entries, got {len(points)}")
    for child in node.children:
        if child.tag != "pt":
            raise fail(child, "only <pt>x y</pt> entries are allowed inside <shape>")
    return points


def _matrix4(node: XmlNode) -> np.ndarray:
    matrix = matlab_matrix(node.text, node, "transformation")
    if matrix.shape != (4, 4):
        raise fail(node, f"transformation must be a 4x4 matrix, got {matrix.shape[0]}x{matrix.shape[1]}")
    return matrix


__all__ = ["parse_walls"]
