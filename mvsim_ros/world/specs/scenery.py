"""Specs of the world elements that are drawn or bound the world: the ground grid, skybox, point clouds,
markers and ``<walls>``; and ElementSpec, the union of every ``<element>`` spec.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

import numpy as np

from mvsim_ros.world.files.resource_uris import is_remote_uri, local_zip_parts
from mvsim_ros.world.specs.common import KeptTag, Point2, Point3, Pose3, SourceRef
from mvsim_ros.world.specs.terrain import (ElevationMapSpec, HorizontalPlaneSpec, PropertyRegionSpec,
                                           VerticalPlaneSpec)

#: Face names MVSim substitutes for ``%s`` in a skybox texture pattern.
SKYBOX_FACES: tuple[str, ...] = ("Up", "Right", "Left", "Front", "Down", "Back")


@dataclass
class GroundGridSpec:
    """``ground_grid``: a visual reference grid of lines on the ground plane (no physical effect).

    x_min..x_max, y_min..y_max: grid extent [m]; interval: line spacing [m]; line_width [px]; color.
    floating: the grid follows a vehicle (``floating_focus`` names it; empty = the first vehicle), its offset
    rounded to whole intervals. MVSim sets ``floating`` to true whenever ``floating_focus`` is given.
    """

    source: SourceRef
    name: str = ""
    floating: bool = True
    floating_focus: str = ""
    color: str = "#e0e0e0"
    line_width: float = 1.0
    x_min: float = -25.0
    x_max: float = 25.0
    y_min: float = -25.0
    y_max: float = 25.0
    interval: float = 5.0
    kept: list[KeptTag] = field(default_factory=list)


@dataclass
class SkyBoxSpec:
    """``skybox``: six background textures. textures: the pattern (absolute path, URL or local-zip string) with
    one ``%s``."""

    source: SourceRef
    textures: str
    name: str = ""
    kept: list[KeptTag] = field(default_factory=list)

    def faces(self) -> dict[str, Path | str]:
        """Each face name (Up, Right, Left, Front, Down, Back) -> its texture path, URL or local-zip string."""
        return {face: as_resource(self.textures.replace("%s", face)) for face in SKYBOX_FACES}


@dataclass
class PointCloudSpec:
    """``pointcloud``: a static point cloud drawn in the scene (not loaded here; no physical effect).

    file: text file of "x y" (dimensions=2, from ``file_txt_2d``) or "x y z" (dimensions=3, ``file_txt_3d``)
    lines [m]; points_size [px]; pose: where the cloud's frame sits in the world.
    """

    source: SourceRef
    file: Path
    dimensions: int
    name: str = ""
    points_size: float = 3.0
    pose: Pose3 = field(default_factory=Pose3)
    kept: list[KeptTag] = field(default_factory=list)


ElementSpec = Union[
    GroundGridSpec, ElevationMapSpec, HorizontalPlaneSpec, VerticalPlaneSpec, PropertyRegionSpec, SkyBoxSpec,
    PointCloudSpec,
]


@dataclass
class WallSegment:
    """One static wall box built by ``<walls>``, in world coordinates.

    (x0, y0)-(x1, y1) [m]: the segment as given (after the ``transformation``); center_x, center_y [m],
    yaw [rad] (direction of the given segment), length [m] (the given length, plus thickness/2 at each end
    that touches an earlier segment's end, so corners close), thickness [m], height [m] (z from 0).
    MVSim makes each a static block named ``wall_NNNN`` with mass 1e5 kg and ground friction 1e5.
    """

    x0: float
    y0: float
    x1: float
    y1: float
    center_x: float
    center_y: float
    yaw: float
    length: float
    thickness: float
    height: float

    def polygon(self) -> list[Point2]:
        """The box outline in world coordinates [m] (4 corners, counter-clockwise)."""
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        hl, ht = 0.5 * self.length, 0.5 * self.thickness
        return [(self.center_x + c * px - s * py, self.center_y + s * px + c * py)
                for px, py in ((-hl, -ht), (hl, -ht), (hl, ht), (-hl, ht))]


@dataclass
class WallsSpec:
    """``<walls>``: wall segments from a ``<shape>`` (point pairs) or from a 3D model file's edges.

    shape: the ``<pt>`` points as written (consecutive pairs are segments); transformation: the 4x4
    homogeneous matrix applied to them; wall_thickness, wall_height [m]; color.
    model_uri: model file path or URL (used by MVSim only without a shape; not loaded here).
    scale: read by MVSim but never applied. segments: the resulting wall boxes (empty for a model file).
    """

    source: SourceRef
    model_uri: Path | str | None = None
    transformation: np.ndarray = field(default_factory=lambda: np.eye(4))
    wall_thickness: float = 0.10
    wall_height: float = 2.0
    scale: float = 1.0
    color: str = "#323232"
    shape: list[Point2] = field(default_factory=list)
    segments: list[WallSegment] = field(default_factory=list)
    kept: list[KeptTag] = field(default_factory=list)


@dataclass
class MarkerSpec:
    """``<marker type="line_strip">``: a drawn polyline (visual only).

    points: the polyline vertices (x, y, z) [m]; translation: offset added to all of them [m]; color.
    """

    source: SourceRef
    type: str
    points: list[Point3] = field(default_factory=list)
    translation: Point3 = (0.0, 0.0, 0.0)
    color: str = "#ffffff"


def as_resource(text: str) -> Path | str:
    """An absolute path or URL as the element readers keep it (elements/scenery/common.py resource_path): URLs and
    local-zip members stay strings, others are Paths."""
    return text if is_remote_uri(text) or local_zip_parts(text) is not None else Path(text)


__all__ = ["SKYBOX_FACES", "GroundGridSpec", "SkyBoxSpec", "PointCloudSpec", "ElementSpec", "WallSegment", "WallsSpec",
           "MarkerSpec", "as_resource"]
