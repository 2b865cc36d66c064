"""World elements and world-level option blocks of MVSim world files, parsed into plain dataclasses.

Handled here: ``<element class="...">`` for every class in :data:`ELEMENT_CLASSES` (occupancy grids are loaded
elsewhere), plus the top-level ``<gui>``, ``<georeference>``, ``<lights>``, ``<walls>`` and ``<marker>`` tags.

Conventions (as in :mod:`mvsim_ros.world.specs`): SI units; values MVSim reads in degrees are stored in radians
in fields whose names end in ``_rad``; colours are ``'#rrggbb'`` strings (``'#rrggbbaa'`` when the file gives an
alpha); local file paths are absolute :class:`~pathlib.Path` objects, resolved against the directory of the
XML file that names them. Where MVSim resolves a file through its remote-resources manager (textures, skybox
faces, ``<walls><model_uri>``), remote resources (``http://``, ``https://``) are kept as URL strings and files
inside a local zip as absolute ``/dir/models.zip/inner/file`` strings: not fetched or extracted while parsing
(this version does not draw textures); :func:`mvsim_ros.world.files.resources.resolve_uri` turns either into a local
file when it is used. Tags MVSim reads only locally (elevation images, DEM and point-cloud files) refuse URLs.

Tag names, defaults and semantics follow MVSim's own sources (``modules/simulator/src/WorldElements/*.cpp``,
``World.h``, ``World_gui.cpp``, ``World_walls.cpp``, ``World_load_xml.cpp``). Child tags that MVSim accepts but
this version does not model are reported through ``warn(node, "... not used by this version; kept")`` and kept
verbatim in the spec's ``kept`` list; tags MVSim does not know either are reported as
``"unknown parameter for <...>; skipped"``. Bad values raise :class:`~mvsim_ros.world.errors.WorldFileError`
naming file, line and tag.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Union

import numpy as np
from PIL import Image, UnidentifiedImageError

from mvsim_ros.world.elements.animation import parse_animation
from mvsim_ros.world.xml.bounded_io import open_image, read_data_file
from mvsim_ros.world.xml.bounds import BOUNDS
from mvsim_ros.world.xml.param_reading import read_params
from mvsim_ros.world.params.table import SIMULATED, ParamTable, Values
from mvsim_ros.world.params.world_tables import (ELEMENT_ELEVATION_MAP, ELEMENT_GROUND_GRID, ELEMENT_HORIZONTAL_PLANE,
                                                 ELEMENT_POINTCLOUD, ELEMENT_PROPERTY_REGION, ELEMENT_SKYBOX,
                                                 ELEMENT_VERTICAL_PLANE, ELEMENT_VERTICAL_PLANE_OPENING, MARKER, WALLS)
from mvsim_ros.world.files.resources import is_remote_uri, local_zip_parts, zip_member_problem
from mvsim_ros.world.specs import Pose3, SourceRef
from mvsim_ros.world.xml.values import bounded, fail, parse_bounded, parse_floats, parse_init_pose, parse_pose3d
from mvsim_ros.world.elements.world_options import (  # noqa: F401 (re-exported: the world-level option blocks)
    Georeference,
    GuiOptions,
    LightOptions,
    WorldFileWarning,
    parse_georeference,
    parse_gui,
    parse_lights,
    warner,
)
from mvsim_ros.world.xml.xml_tree import XmlNode

Warn = Callable[[XmlNode, str], None]
Point2 = tuple[float, float]
Point3 = tuple[float, float, float]

#: Element classes parsed by :func:`parse_element` (``occupancy_grid`` has its own loader).
ELEMENT_CLASSES: tuple[str, ...] = (
    "ground_grid",
    "elevation_map",
    "horizontal_plane",
    "vertical_plane",
    "property_region",
    "skybox",
    "pointcloud",
)
#: Most data rows read from a DEM text file (parsing and resampling are bounded by it).
MAX_DEM_POINTS = 200_000
#: Most point-to-cell distances the DEM's nearest-point resampling computes (points x cells): about 1 s.
MAX_DEM_DISTANCES = 100_000_000
#: Every element class MVSim registers, for error messages.
ALL_ELEMENT_CLASSES: tuple[str, ...] = tuple(sorted(ELEMENT_CLASSES + ("occupancy_grid",)))

#: Face names MVSim substitutes for ``%s`` in a skybox texture pattern.
SKYBOX_FACES: tuple[str, ...] = ("Up", "Right", "Left", "Front", "Down", "Back")
#: Face-culling modes accepted by mrpt-opengl (``TCullFace``).
CULL_FACES: tuple[str, ...] = ("NONE", "BACK", "FRONT")
#: Texture rotations MVSim accepts for an elevation map's ``texture_image_rotate`` [deg].
TEXTURE_ROTATIONS_DEG: tuple[int, ...] = (0, 90, -90, 180, -180)
#: Property names the simulator gives a meaning to, with the value type each needs.
KNOWN_PROPERTIES: dict[str, type] = {"friction_mu": float, "friction_C_rr": float, "gps_no_coverage": bool}

# Tags that MVSim's Simulable base class reads for planes; this version keeps them without using them.
_SIMULABLE_KEPT = frozenset({"init_vel", "publish", "animation", "skip_elevation_adjust"})


# ----------------------------------------------------------------------------------------------------------
# Shared small types
# ----------------------------------------------------------------------------------------------------------


@dataclass
class KeptTag:
    """A tag MVSim accepts but this version does not use, kept verbatim (text stripped) with its location."""

    tag: str
    attrib: dict[str, str]
    text: str
    children: list["KeptTag"]
    source: SourceRef


# ----------------------------------------------------------------------------------------------------------
# Element specs
# ----------------------------------------------------------------------------------------------------------


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
class ElevationMapSpec:
    """``elevation_map``: a terrain height field (a triangle mesh that vehicles drive over).

    heights[i, j] [m] is the terrain height at x = corner_min_x + i * resolution, y = corner_min_y + j * resolution:
    the first array index runs along +x and the second along +y, exactly as MVSim stores the mesh. For an
    ``elevation_image`` that means image row i (row 0 = top of the picture) lies at x = corner_min_x + i * res
    and image column j (column 0 = left) at y = corner_min_y + j * res.
    resolution [m]: spacing between neighbouring samples, so the mesh spans (rows - 1) * resolution along x.
    corner_min_x, corner_min_y [m]: position of sample [0, 0]; MVSim centres the mesh on the origin when they
    are not given (and uses the DEM's minimum corner for ``dem_xyzrgb_file``).
    elevation_image_min_z / _max_z [m]: heights given to the darkest / brightest grey level present in the
    image (MVSim stretches the image's own grey range onto [min_z, max_z]).
    texture_image: texture path or URL (not loaded here); texture_image_rotate_rad: its rotation;
    texture_extension_x/y [m]: size one texture copy covers (0 = stretch over the whole mesh).
    mesh_color: colour used when there is no texture. model_split_size [m]: render-chunk size (0 = one mesh).
    apply_kernel: the smoothing kernel applied to the heights (already applied), or None.
    elevation_data_matrix_scale: factor applied to an inline elevation_data_matrix (already applied);
    dem_offset: (x, y, z) [m] added to the points of a DEM file before resampling (already applied).
    """

    source: SourceRef
    heights: np.ndarray
    name: str = ""
    resolution: float = 1.0
    corner_min_x: float = 0.0
    corner_min_y: float = 0.0
    elevation_image: Path | None = None
    elevation_image_min_z: float = 0.0
    elevation_image_max_z: float = 5.0
    dem_xyzrgb_file: Path | None = None
    texture_image: Path | str | None = None
    texture_image_rotate_rad: float = 0.0
    texture_extension_x: float = 0.0
    texture_extension_y: float = 0.0
    mesh_color: str = "#a0e0a0"
    model_split_size: float = 0.0
    apply_kernel: np.ndarray | None = None
    elevation_data_matrix_scale: float = 1.0
    dem_offset: Point3 = (0.0, 0.0, 0.0)
    kept: list[KeptTag] = field(default_factory=list)

    @property
    def corner_max_x(self) -> float:
        """x of the last sample row [m]."""
        return self.corner_min_x + (self.heights.shape[0] - 1) * self.resolution

    @property
    def corner_max_y(self) -> float:
        """y of the last sample column [m]."""
        return self.corner_min_y + (self.heights.shape[1] - 1) * self.resolution

    def elevation_at(self, x: float, y: float) -> float | None:
        """Terrain height [m] at world (x, y) [m], or None outside the mesh.

        Same rule as MVSim's ElevationMap::getElevationAt(): each cell is split into two triangles along its
        (0,0)-(1,1) diagonal and the height is interpolated linearly on the triangle holding the point; points
        on or beyond the last sample row/column count as outside.
        """
        nx, ny = self.heights.shape
        step = self.resolution
        cx = math.floor((x - self.corner_min_x) / step)
        cy = math.floor((y - self.corner_min_y) / step)
        if cx < 0 or cx >= nx - 1 or cy < 0 or cy >= ny - 1:
            return None
        z00 = float(self.heights[cx, cy])
        z01 = float(self.heights[cx, cy + 1])
        z10 = float(self.heights[cx + 1, cy])
        z11 = float(self.heights[cx + 1, cy + 1])
        u = (x - (self.corner_min_x + cx * step)) / step
        v = (y - (self.corner_min_y + cy * step)) / step
        if v >= u:  # upper-left triangle (0,0)-(0,1)-(1,1)
            return z00 + u * (z11 - z01) + v * (z01 - z00)
        return z00 + u * (z10 - z00) + v * (z11 - z10)  # lower-right triangle (0,0)-(1,0)-(1,1)


@dataclass
class HorizontalPlaneSpec:
    """``horizontal_plane``: a flat rectangle at height z, e.g. a floor, a ceiling or a table top.

    x_min..x_max, y_min..y_max [m]: extent in the plane's own frame; z [m]: its height in that frame.
    init_pose: the plane's frame in the world (None = world frame); animation: keyframes moving that frame (drawn
    for the rendered sensors; the ground it offers is the initial one). MVSim reports the plane as ground under
    every point inside it (see :meth:`elevation_at`). color / texture (path or URL, not loaded) with
    texture_size_x/y [m] per texture copy; cull_face: NONE, BACK or FRONT; enable_shadows: lighting on/off.
    """

    source: SourceRef
    name: str = ""
    x_min: float = -10.0
    x_max: float = 10.0
    y_min: float = -10.0
    y_max: float = 10.0
    z: float = 0.0
    color: str = "#a0a0a0"
    enable_shadows: bool = True
    texture: Path | str | None = None
    texture_size_x: float = 1.0
    texture_size_y: float = 1.0
    cull_face: str = "NONE"
    init_pose: Pose3 | None = None
    animation: object | None = None  # KeyframeAnimation (world/animation.py): a lift, a moving platform
    kept: list[KeptTag] = field(default_factory=list)

    def elevation_at(self, x: float, y: float) -> float | None:
        """Height [m] of the plane above world (x, y), or None when the point is outside it (edges inside)."""
        pose = self.init_pose or Pose3()
        rot = pose.rotation()
        local = rot.T @ (np.array([x, y, 0.0]) - np.array([pose.x, pose.y, pose.z]))
        if local[0] < self.x_min or local[0] > self.x_max or local[1] < self.y_min or local[1] > self.y_max:
            return None
        return pose.z + float(rot[2, 2]) * self.z


@dataclass
class WallOpening:
    """A door or window cut into a vertical plane.

    kind: 'door' (no collision across its width, at any height) or 'window' (drawn as a hole, still solid).
    position: centre of the opening as a fraction of the wall length from (x0, y0) (0..1);
    width [m]; z_min..z_max [m]: bottom and top of the hole; name: optional label.
    """

    kind: str
    position: float = 0.5
    width: float = 1.0
    z_min: float = 0.0
    z_max: float = 2.1
    name: str = ""


@dataclass
class VerticalPlaneSpec:
    """``vertical_plane``: a straight wall from (x0, y0) to (x1, y1) [m], z..z+height [m] tall, that collides.

    thickness [m]: the collision box extends thickness/2 to each side of the segment. Doors remove collision
    along their width; windows do not. init_pose moves only the drawing in MVSim: the collision wall stays at
    (x0, y0)-(x1, y1) in world coordinates. Other fields as in :class:`HorizontalPlaneSpec`.
    """

    source: SourceRef
    name: str = ""
    x0: float = -10.0
    y0: float = -10.0
    x1: float = -10.0
    y1: float = 10.0
    z: float = 0.0
    height: float = 3.0
    thickness: float = 0.02
    color: str = "#a0a0a0"
    enable_shadows: bool = True
    texture: Path | str | None = None
    texture_size_x: float = 1.0
    texture_size_y: float = 1.0
    cull_face: str = "NONE"
    openings: list[WallOpening] = field(default_factory=list)
    init_pose: Pose3 | None = None
    restitution: float = 0.01
    kept: list[KeptTag] = field(default_factory=list)

    @property
    def length(self) -> float:
        """Wall length [m]."""
        return math.hypot(self.x1 - self.x0, self.y1 - self.y0)

    def solid_spans(self) -> list[tuple[float, float]]:
        """Stretches [start, end] [m] along the wall (from x0, y0) that collide, after removing the doors.

        Door ranges are sorted and merged where they overlap, then the solid pieces between them are kept,
        exactly as MVSim builds its Box2D fixtures.
        """
        length = self.length
        doors = sorted(
            (o.position * length - 0.5 * o.width, o.position * length + 0.5 * o.width)
            for o in self.openings if o.kind == "door"
        )
        merged: list[list[float]] = []
        for start, end in doors:
            if not merged or merged[-1][1] < start:
                merged.append([start, end])
            else:
                merged[-1][1] = max(merged[-1][1], end)
        spans = []
        current = 0.0
        for start, end in merged:
            if current < start:
                spans.append((current, start))
            current = end
        if current < length:
            spans.append((current, length))
        return spans

    def collision_polygons(self) -> list[list[Point2]]:
        """World-frame corners [m] of each solid collision box (4 points each)."""
        length = self.length
        dx, dy = (self.x1 - self.x0) / length, (self.y1 - self.y0) / length
        nx, ny = -dy * 0.5 * self.thickness, dx * 0.5 * self.thickness
        polys = []
        for start, end in self.solid_spans():
            ax, ay = self.x0 + dx * start, self.y0 + dy * start
            bx, by = self.x0 + dx * end, self.y0 + dy * end
            polys.append([(ax + nx, ay + ny), (ax - nx, ay - ny), (bx - nx, by - ny), (bx + nx, by + ny)])
        return polys


@dataclass
class PropertyRegionSpec:
    """``property_region``: a named value that holds inside an axis-aligned box (bounds inclusive) [m].

    value: float (``value_double``), bool (``value_bool``), str (``value_string``) or None when none is given;
    when several are given MVSim uses value_double, then value_bool, then value_string.
    Names the simulator uses: ``friction_mu`` and ``friction_C_rr`` (float, override the wheel friction
    model's mu / rolling-resistance coefficient for wheels inside), ``gps_no_coverage`` (bool, GNSS silent).
    """

    source: SourceRef
    name: str = ""
    property_name: str = ""
    value: float | bool | str | None = None
    x_min: float = -1.0
    y_min: float = -1.0
    z_min: float = -1000.0
    x_max: float = 1.0
    y_max: float = 1.0
    z_max: float = 1000.0
    kept: list[KeptTag] = field(default_factory=list)

    def contains(self, x: float, y: float, z: float = 0.0) -> bool:
        """Whether the world point (x, y, z) [m] is inside the box (faces included)."""
        return (self.x_min <= x <= self.x_max and self.y_min <= y <= self.y_max
                and self.z_min <= z <= self.z_max)


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
        return {face: _as_resource(self.textures.replace("%s", face)) for face in SKYBOX_FACES}


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


# ----------------------------------------------------------------------------------------------------------
# World-level option blocks
# ----------------------------------------------------------------------------------------------------------


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
    model_uri: model file path or URL (used by MVSim only without a shape; not loaded by this version).
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


# ----------------------------------------------------------------------------------------------------------
# Public parsers
# ----------------------------------------------------------------------------------------------------------


def parse_element(node: XmlNode, warn: Warn | None = None) -> ElementSpec:
    """Parse one ``<element class="...">`` (any class in :data:`ELEMENT_CLASSES`)."""
    warn = warner(warn)
    kind = node.attrib.get("class", "").strip()
    valid = ", ".join(ALL_ELEMENT_CLASSES)
    if not kind:
        raise fail(node, f'<element> needs a class="..." attribute; valid classes: {valid}')
    if kind == "occupancy_grid":
        raise fail(node, "element class 'occupancy_grid' is parsed by the occupancy-grid loader, not here")
    parser = _ELEMENT_PARSERS.get(kind)
    if parser is None:
        raise fail(node, f"unknown element class '{kind}'; valid classes: {valid}")
    return parser(node, warn, f'<element class="{kind}">')


def parse_walls(node: XmlNode, warn: Warn | None = None) -> WallsSpec:
    """Parse ``<walls>`` and build its wall boxes the way MVSim's World::process_load_walls() does."""
    warn = warner(warn)
    values = read_params(WALLS, node, warn, label="<walls>")
    walls = WallsSpec(source=_src(node), wall_thickness=values["wallThickness"], wall_height=values["wallHeight"],
                      scale=values["scale"], color=values["color"])
    if values["transformation"]:
        walls.transformation = _matrix4(values.nodes["transformation"])
    shapes = [child for child in node.children if child.tag == "shape"]
    for extra in shapes[1:]:
        warn(extra, "second <shape> in <walls>: MVSim uses only the first; skipped")
    shape_node = shapes[0] if shapes else None
    model_node = values.nodes.get("model_uri")
    if model_node is not None:
        walls.model_uri = _resource(model_node)
    if shape_node is not None:
        walls.shape = _shape_points(shape_node)
        if len(walls.shape) % 2:
            raise fail(shape_node, f"<walls> <shape> needs an even number of <pt> (point pairs), got "
                                   f"{len(walls.shape)}")
        walls.segments = _wall_segments(walls, shape_node)
    elif model_node is not None:
        if isinstance(walls.model_uri, Path) and not walls.model_uri.is_file():
            raise fail(model_node, f"walls model file not found: {walls.model_uri}")
        problem = _zip_resource_problem(walls.model_uri)
        if problem:
            raise fail(model_node, f"walls model: {problem}")
    else:
        raise fail(node, "<walls> needs a <shape> with <pt> point pairs, or a <model_uri>")
    return walls


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
    marker = MarkerSpec(source=_src(node), type=kind, color=values["color"],
                        translation=_xyz(values["translation"], values.node("translation", node)))
    marker.points = [tuple(row[:3]) for row in _text_rows(points_node.text, points_node, "marker points", 3)]
    return marker


# ----------------------------------------------------------------------------------------------------------
# Element parsers
# ----------------------------------------------------------------------------------------------------------


def _ground_grid(node: XmlNode, warn: Warn, context: str) -> GroundGridSpec:
    values = read_params(ELEMENT_GROUND_GRID, node, warn, label=context)
    spec = GroundGridSpec(source=_src(node), name=_name(node), **values)
    if spec.floating_focus:
        spec.floating = True
    _check_range(node, spec.x_min, spec.x_max, "x")
    _check_range(node, spec.y_min, spec.y_max, "y")
    return spec


def _elevation_map(node: XmlNode, warn: Warn, context: str) -> ElevationMapSpec:
    values = read_params(ELEMENT_ELEVATION_MAP, node, warn, label=context)
    nodes = values.nodes
    for key in ("texture_extension_x", "texture_extension_y", "model_split_size"):
        _not_negative(values, key, node)
    resolution = values["resolution"]
    min_z, max_z = values["elevation_image_min_z"], values["elevation_image_max_z"]
    sources = [key for key in ("elevation_image", "elevation_data_matrix", "dem_xyzrgb_file") if values[key]]
    if not sources:
        raise fail(node, "elevation_map needs <elevation_image>, <elevation_data_matrix> or <dem_xyzrgb_file>")
    used = sources[0]
    for other in sources[1:]:
        warn(nodes[other], f"<{other}> ignored: MVSim uses <{used}> when both are given")
    for key in ("elevation_data_matrix_scale", "dem_offset_x", "dem_offset_y", "dem_offset_z"):
        source = "elevation_data_matrix" if key.endswith("scale") else "dem_xyzrgb_file"
        if key in values.given and used != source:
            warn(nodes[key], f"<{key}> ignored: it applies to <{source}> only")
    texture = _resource(nodes["texture_image"]) if values["texture_image"] else None
    image_path = _local_path(nodes[used]) if used != "elevation_data_matrix" else None
    dem_corner: Point2 | None = None
    if used == "elevation_image":
        if min_z == max_z:
            raise fail(node, f"elevation_image_min_z and elevation_image_max_z must differ (both {min_z:g})")
        heights = load_elevation_image(image_path, min_z, max_z, nodes[used])
    elif used == "elevation_data_matrix":
        heights = _matlab_matrix(values[used], nodes[used], "elevation_data_matrix")
        heights = heights * values["elevation_data_matrix_scale"]
    else:
        offset = (values["dem_offset_x"], values["dem_offset_y"], values["dem_offset_z"])
        heights, dem_corner = load_dem_xyzrgb(image_path, resolution, nodes[used], offset)
        if texture is not None:
            warn(nodes["texture_image"], "<texture_image> ignored: MVSim colours the mesh from the DEM file")
    if heights.shape[0] < 2 or heights.shape[1] < 2:
        raise fail(nodes[used], f"an elevation map needs at least 2x2 samples, got {heights.shape[0]}x"
                                f"{heights.shape[1]}")
    rotate_deg = values["texture_image_rotate"]
    if rotate_deg not in TEXTURE_ROTATIONS_DEG:
        raise fail(nodes["texture_image_rotate"],
                   f"texture_image_rotate can only be 0, 90, -90, 180 or -180, got {rotate_deg:g}")
    kernel = None
    if values["apply_kernel"]:
        kernel = _kernel(values["apply_kernel"], nodes["apply_kernel"])
        heights = _convolve_zero_padded(heights, kernel)
    spec = ElevationMapSpec(
        source=_src(node), heights=heights, name=_name(node), resolution=resolution,
        elevation_image=image_path if used == "elevation_image" else None,
        elevation_image_min_z=min_z, elevation_image_max_z=max_z,
        dem_xyzrgb_file=image_path if used == "dem_xyzrgb_file" else None,
        texture_image=texture, texture_image_rotate_rad=math.radians(rotate_deg),
        texture_extension_x=values["texture_extension_x"], texture_extension_y=values["texture_extension_y"],
        mesh_color=values["mesh_color"], model_split_size=values["model_split_size"], apply_kernel=kernel,
        elevation_data_matrix_scale=values["elevation_data_matrix_scale"],
        kept=_kept(ELEMENT_ELEVATION_MAP, values),
        dem_offset=(values["dem_offset_x"], values["dem_offset_y"], values["dem_offset_z"]),
    )
    if dem_corner is not None:
        for key in ("corner_min_x", "corner_min_y"):
            if key in values.given:
                warn(nodes[key], f"<{key}> ignored: MVSim places a DEM at its own minimum corner")
        spec.corner_min_x, spec.corner_min_y = dem_corner
    else:  # MVSim centres the mesh on the origin unless a corner is given
        corner_x, corner_y = values["corner_min_x"], values["corner_min_y"]
        spec.corner_min_x = -0.5 * (heights.shape[0] - 1) * resolution if corner_x is None else corner_x
        spec.corner_min_y = -0.5 * (heights.shape[1] - 1) * resolution if corner_y is None else corner_y
    if texture is not None:
        _warn_missing_texture(nodes["texture_image"], spec.texture_image, warn)
    return spec


def _plane_common(values: Values, node: XmlNode, warn: Warn) -> dict[str, Any]:
    """The fields both plane kinds read alike: colour, shadows, culling, texture and its tile sizes, pose."""
    _cull_face(values, node)
    texture = _resource(values.nodes["texture"]) if values["texture"] else None
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


def _horizontal_plane(node: XmlNode, warn: Warn, context: str) -> HorizontalPlaneSpec:
    values = read_params(ELEMENT_HORIZONTAL_PLANE, node, warn, label=context)
    spec = HorizontalPlaneSpec(source=_src(node), name=_name(node), x_min=values["x_min"], x_max=values["x_max"],
                               y_min=values["y_min"], y_max=values["y_max"], z=values["z"],
                               **_plane_common(values, node, warn))
    if values["animation"] is not None:
        spec.animation = parse_animation(values["animation"], warn)
    spec.kept = _kept(ELEMENT_HORIZONTAL_PLANE, values)
    _check_range(node, spec.x_min, spec.x_max, "x")
    _check_range(node, spec.y_min, spec.y_max, "y")
    _warn_missing_texture(node, spec.texture, warn)
    return spec


def _vertical_plane(node: XmlNode, warn: Warn, context: str) -> VerticalPlaneSpec:
    values = read_params(ELEMENT_VERTICAL_PLANE, node, warn, label=context, handled_tags=("door", "window"))
    _not_negative(values, "height", node)
    spec = VerticalPlaneSpec(source=_src(node), name=_name(node), x0=values["x0"], y0=values["y0"],
                             x1=values["x1"], y1=values["y1"], z=values["z"], height=values["height"],
                             thickness=values["thickness"], **_plane_common(values, node, warn))
    for child in node.children:
        if child.tag in ("door", "window"):
            opening = _opening(child, warn)
            if opening is not None:
                spec.openings.append(opening)
    spec.kept = _kept(ELEMENT_VERTICAL_PLANE, values)
    if spec.x0 == spec.x1 and spec.y0 == spec.y1:
        raise fail(node, f"vertical_plane end points (x0, y0) and (x1, y1) are the same: ({spec.x0:g}, {spec.y0:g})")
    _warn_missing_texture(node, spec.texture, warn)
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


def _property_region(node: XmlNode, warn: Warn, context: str) -> PropertyRegionSpec:
    values = read_params(ELEMENT_PROPERTY_REGION, node, warn, label=context)
    spec = PropertyRegionSpec(source=_src(node), name=_name(node), property_name=values["property_name"],
                              **{f"{axis}_{end}": values[f"{axis}_{end}"] for axis in "xyz" for end in ("min", "max")})
    for axis in "xyz":
        _check_range(node, getattr(spec, f"{axis}_min"), getattr(spec, f"{axis}_max"), axis)
    # MVSim's priority: a value_double anywhere wins over value_bool, which wins over value_string.
    given = [tag for tag in ("value_double", "value_bool", "value_string") if tag in values.given]
    chosen = given[0] if given else None
    if chosen is not None:
        spec.value = values[chosen]
        for tag in given[1:]:
            warn(values.nodes[tag], f"<{tag}> ignored: MVSim uses <{chosen}> when both are given")
    if not spec.property_name:
        warn(node, "property_region has no <property_name>; it will never match any query")
    elif spec.value is None:
        warn(node, f"property_region '{spec.property_name}' has no <value_double>, <value_bool> or <value_string>")
    expected = KNOWN_PROPERTIES.get(spec.property_name)
    if expected is not None and spec.value is not None:
        if type(spec.value) is not expected:
            tag = "value_double" if expected is float else "value_bool"
            raise fail(values.nodes[chosen], f"property '{spec.property_name}' needs a <{tag}>, got <{chosen}>")
        if expected is float and spec.value < 0:
            raise fail(values.nodes[chosen], f"property '{spec.property_name}' must be >= 0, got {spec.value:g}")
    return spec


def _skybox(node: XmlNode, warn: Warn, context: str) -> SkyBoxSpec:
    values = read_params(ELEMENT_SKYBOX, node, warn, label=context)
    pattern_node = values.nodes.get("textures")
    if pattern_node is None or not values["textures"]:
        raise fail(node, "skybox needs <textures>pattern</textures> with one '%s' for the face name")
    raw = values["textures"]
    if raw.count("%s") != 1:
        raise fail(pattern_node, f"the skybox texture pattern must contain exactly one '%s', got {raw!r}")
    spec = SkyBoxSpec(source=_src(node), textures=str(_resource(pattern_node)), name=_name(node))
    for face, where in spec.faces().items():
        if isinstance(where, Path) and not where.is_file():
            raise fail(pattern_node, f"skybox texture for face '{face}' not found: {where}")
        problem = _zip_resource_problem(where)
        if problem:
            raise fail(pattern_node, f"skybox texture for face '{face}': {problem}")
    return spec


def _pointcloud(node: XmlNode, warn: Warn, context: str) -> PointCloudSpec:
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
    path = _local_path(first[chosen])
    if not path.is_file():
        raise fail(first[chosen], f"point cloud file not found: {path}")
    pose = parse_pose3d(values.nodes["pose_3d"]) if "pose_3d" in values.given else Pose3()
    return PointCloudSpec(source=_src(node), file=path, dimensions=2 if chosen == "file_txt_2d" else 3,
                          name=_name(node), points_size=values["points_size"], pose=pose)


_ELEMENT_PARSERS: dict[str, Callable[[XmlNode, Warn, str], ElementSpec]] = {
    "ground_grid": _ground_grid,
    "elevation_map": _elevation_map,
    "horizontal_plane": _horizontal_plane,
    "vertical_plane": _vertical_plane,
    "property_region": _property_region,
    "skybox": _skybox,
    "pointcloud": _pointcloud,
}


# ----------------------------------------------------------------------------------------------------------
# Elevation data
# ----------------------------------------------------------------------------------------------------------


def load_elevation_image(path: Path, min_z: float, max_z: float, node: XmlNode) -> np.ndarray:
    """Heights [m] from a grey-level image, as MVSim's ElevationMap does.

    The image is read as 8-bit grey (colour images: ITU-R 601 luma; 16-bit images: the high byte, as OpenCV's
    grey loading does), then its own darkest level maps to ``min_z`` and its brightest to ``max_z`` linearly.
    Result [i, j] = pixel at image row i (0 = top), column j (0 = left): see :class:`ElevationMapSpec`.
    """
    if not path.is_file():
        raise fail(node, f"elevation image not found: {path}")
    try:
        with open_image(path, (node.file, node.line, node.tag), "elevation image") as img:
            grey = _grey8(img)
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise fail(node, f"cannot read elevation image {path}: {exc}") from None
    low, high = float(grey.min()), float(grey.max())
    if low == high:
        raise fail(node, f"elevation image {path} has a single grey level ({low:g}); MVSim cannot scale it "
                         "(it needs at least two different levels)")
    return min_z + (grey - low) * ((max_z - min_z) / (high - low))


def _grey8(img: Image.Image) -> np.ndarray:
    """An image as float64 grey levels 0..255."""
    if img.mode in ("I;16", "I;16B", "I;16L", "I;16N", "I"):
        values = np.asarray(img, dtype=np.int64)
        if img.mode != "I" or values.max() > 255:
            values = values >> 8  # 16-bit samples -> their high byte, as an 8-bit grey load does
        return np.clip(values, 0, 255).astype(np.float64)
    if img.mode == "F":
        return np.clip(np.rint(np.asarray(img, dtype=np.float64)), 0, 255)
    if img.mode not in ("L", "RGB"):
        img = img.convert("RGB") if img.mode not in ("LA", "1") else img.convert("L")
    return np.asarray(img.convert("L"), dtype=np.float64)


def load_dem_xyzrgb(path: Path, resolution: float, node: XmlNode,
                    offset: Point3 = (0.0, 0.0, 0.0)) -> tuple[np.ndarray, Point2]:
    """Resample a DEM text file of "x y z r g b" rows into a height grid, as MVSim does.

    The grid starts at the points' minimum (x, y), has ceil(extent / resolution) samples per axis, and sample
    [i, j] takes the z of the point nearest (2D) to ((i + 0.5) * res, (j + 0.5) * res) from that corner.
    `offset` (x, y, z) [m] is added to every point first (MVSim's dem_offset_x/y/z).
    Returns (heights, (corner_min_x, corner_min_y)). Colours are not kept.
    """
    if not path.is_file():
        raise fail(node, f"DEM file not found: {path}")
    text = read_data_file(path, (node.file, node.line, node.tag), "DEM file").decode("utf-8", errors="replace")
    data = _dem_rows(text, node, f"DEM file {path.name}") + np.array([*offset, 0.0, 0.0, 0.0])
    xy = data[:, :2]
    min_x, min_y = xy.min(axis=0)
    nx = int(math.ceil((xy[:, 0].max() - min_x) / resolution))
    ny = int(math.ceil((xy[:, 1].max() - min_y) / resolution))
    if nx < 2 or ny < 2:
        raise fail(node, f"DEM file {path} spans fewer than 2x2 cells at resolution {resolution:g}")
    bounded(nx * ny, node, "elevation_samples",
            f"DEM file {path.name}: {nx}x{ny} cells at resolution {resolution:g} m")
    if nx * ny * len(data) > MAX_DEM_DISTANCES:
        raise fail(node, f"DEM file {path} is too large for this version ({len(data)} points, {nx}x{ny} cells; "
                         "the nearest-point search here has no spatial index)")
    local = xy - (min_x, min_y)
    ix, iy = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")
    centres = (np.stack([ix.ravel(), iy.ravel()], axis=1) + 0.5) * resolution
    nearest = np.empty(len(centres), dtype=np.int64)
    chunk = max(1, 4_000_000 // len(data))  # cells per batch: at most ~4e6 distances in memory
    for start in range(0, len(centres), chunk):
        part = centres[start:start + chunk]
        d2 = (part[:, None, 0] - local[None, :, 0]) ** 2 + (part[:, None, 1] - local[None, :, 1]) ** 2
        nearest[start:start + len(part)] = np.argmin(d2, axis=1)
    return data[nearest, 2].reshape(nx, ny), (float(min_x), float(min_y))


def _dem_rows(text: str, node: XmlNode, what: str) -> np.ndarray:
    """The (N, 6) numbers of a DEM text file: counted (at most MAX_DEM_POINTS rows) before they are parsed, parsed
    in one numpy call; any row that is not 6 numbers within the position bounds is reported by `_text_rows`, which
    names it."""
    lines = [line for line in text.splitlines() if line.strip() and line.strip()[0] not in "#%"]
    if len(lines) > MAX_DEM_POINTS:
        raise fail(node, f"{what} holds {len(lines)} points; at most {MAX_DEM_POINTS} are read (the nearest-point "
                         "resampling here has no spatial index)")
    try:
        numbers = np.array(re.split(r"[\s,]+", " ".join(lines).strip()), dtype=float)
    except ValueError:
        numbers = np.zeros(0)
    low, high = BOUNDS["position"].low, BOUNDS["position"].high
    if lines and numbers.size == 6 * len(lines) and np.all((numbers >= low) & (numbers <= high)):
        return numbers.reshape(-1, 6)
    return np.array(_text_rows(text, node, what, 6, exact=True))


def _kernel(text: str, node: XmlNode) -> np.ndarray:
    rows = _text_rows(text, node, "apply_kernel", 1)
    kernel = np.array(rows) if rows and all(len(r) == len(rows[0]) for r in rows) else None
    if kernel is None or kernel.shape[0] != kernel.shape[1] or kernel.shape[0] < 3 or kernel.shape[0] % 2 == 0:
        raise fail(node, "apply_kernel must be a square matrix of odd size >= 3, one row per line")
    if abs(kernel.sum() - 1.0) >= 5e-3:
        raise fail(node, f"apply_kernel must be normalised (sum to 1), its sum is {kernel.sum():g}")
    return kernel


def _convolve_zero_padded(data: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """out[i, j] = sum_k,l kernel[k, l] * data[i + k - r, j + l - r], samples outside the grid counting as 0."""
    r = kernel.shape[0] // 2
    padded = np.pad(data, r)
    out = np.zeros_like(data, dtype=np.float64)
    rows, cols = data.shape
    for k in range(kernel.shape[0]):
        for m in range(kernel.shape[1]):
            out += kernel[k, m] * padded[k:k + rows, m:m + cols]
    return out


def _matlab_matrix(text: str, node: XmlNode, what: str) -> np.ndarray:
    """A matrix written as "[a b c; d e f]" (rows split by ';', values by spaces or commas)."""
    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")):
        raise fail(node, f"{what}: expected a matrix like [1 2 3; 4 5 6], got {text!r}")
    rows = [r for r in body[1:-1].split(";") if r.strip()]
    values = [[parse_bounded(v, node, "position", what) for v in re.split(r"[\s,]+", r.strip()) if v] for r in rows]
    if not values or any(len(r) != len(values[0]) for r in values):
        raise fail(node, f"{what}: all rows must have the same number of values")
    return np.array(values, dtype=np.float64)


def _text_rows(text: str, node: XmlNode, what: str, min_cols: int, exact: bool = False) -> list[list[float]]:
    """Numbers per line (spaces, tabs or commas between them); empty lines and lines starting '#'/'%' skipped."""
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#%":
            continue
        row = [parse_bounded(v, node, "position", what) for v in re.split(r"[\s,]+", line) if v]
        if len(row) < min_cols or (exact and len(row) != min_cols):
            need = f"exactly {min_cols}" if exact else f"at least {min_cols}"
            raise fail(node, f"{what}: each line needs {need} numbers, got {line!r}")
        rows.append(row)
    if not rows:
        raise fail(node, f"{what}: no data")
    return rows


# ----------------------------------------------------------------------------------------------------------
# Walls
# ----------------------------------------------------------------------------------------------------------


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
    matrix = _matlab_matrix(node.text, node, "transformation")
    if matrix.shape != (4, 4):
        raise fail(node, f"transformation must be a 4x4 matrix, got {matrix.shape[0]}x{matrix.shape[1]}")
    return matrix


# ----------------------------------------------------------------------------------------------------------
# Child dispatch and value converters
# ----------------------------------------------------------------------------------------------------------


def _not_negative(values: Values, name: str, node: XmlNode) -> None:
    if values[name] < 0.0:
        raise fail(values.node(name, node), f"{name}: must be >= 0, got {values[name]:g}")


def _xyz(values: list[float], node: XmlNode) -> Point3:
    """'x y [z]' numbers as a point [m] (z = 0 when absent)."""
    if len(values) not in (2, 3):
        raise fail(node, f"{node.tag}: expected 'x y [z]', got {len(values)} numbers")
    return (values[0], values[1], values[2] if len(values) == 3 else 0.0)


def _cull_face(values: Values, node: XmlNode) -> None:
    if values["cull_face"] not in CULL_FACES:
        raise fail(values.node("cull_face", node), f"cull_face must be one of {', '.join(CULL_FACES)}, got "
                                                   f"{values['cull_face']!r}")


def _kept(table: ParamTable, values: Values) -> list[KeptTag]:
    """The given tags this simulator accepts without using, kept verbatim (file order)."""
    names = [name for name in values.given if table[name].support != SIMULATED]
    nodes = sorted((values.nodes[name] for name in names), key=lambda n: (n.line or 0))
    return [_keep(n) for n in nodes]


def _local_path(node: XmlNode) -> Path:
    """A file named by a tag, absolute (relative names resolve against the XML file's directory)."""
    text = node.text.strip()
    if not text:
        raise fail(node, f"{node.tag}: expected a file name")
    if is_remote_uri(text):
        raise fail(node, f"{node.tag}: MVSim reads this file locally; a URL is not accepted here, got {text!r}")
    if text.startswith("file://"):
        text = text[len("file://"):]
    path = Path(text).expanduser()
    if not path.is_absolute():
        path = Path(node.file).parent / path
    return path.resolve()


def _resource(node: XmlNode) -> Path | str:
    """A file named where MVSim accepts a resource URI (its ``xmlPathToActualPath``): a local file (absolute Path),
    a remote resource (URL string, kept as written) or a file inside an existing local zip (the string
    ``/abs/dir/models.zip/inner/file``). Nothing is downloaded or extracted here (see resources.resolve_uri)."""
    text = node.text.strip()
    if not text:
        raise fail(node, f"{node.tag}: expected a file name or URL")
    if is_remote_uri(text):
        return text
    zipped = local_zip_parts(text, Path(node.file).parent)
    if zipped is not None:
        return f"{zipped[0].resolve()}/{zipped[1]}"
    return _local_path(node)


def _as_resource(text: str) -> Path | str:
    """An absolute path or URL as `_resource` keeps it: URL and local-zip members stay strings, others are Paths."""
    return text if is_remote_uri(text) or local_zip_parts(text) is not None else Path(text)


def _zip_resource_problem(resource: Path | str | None) -> str:
    """Why a local-zip member string (from `_resource`) cannot be read (its zip's listing only), or ""."""
    if not isinstance(resource, str) or is_remote_uri(resource):
        return ""
    zipped = local_zip_parts(resource)
    return f"not found: {resource}" if zipped is None else zip_member_problem(*zipped)


def _warn_missing_texture(node: XmlNode, texture: Path | str | None, warn: Warn) -> None:
    where = node if node.tag in ("texture", "texture_image") else (node.find("texture") or node)
    if isinstance(texture, Path) and not texture.is_file():
        warn(where, f"texture file not found: {texture}")
    problem = _zip_resource_problem(texture)
    if problem:
        warn(where, f"texture unavailable: {problem}")


def _check_range(node: XmlNode, low: float, high: float, axis: str) -> None:
    if high < low:
        raise fail(node, f"{axis}_max ({high:g}) is smaller than {axis}_min ({low:g})")


def _keep(node: XmlNode) -> KeptTag:
    return KeptTag(node.tag, dict(node.attrib), node.text, [_keep(c) for c in node.children], _src(node))


def _src(node: XmlNode) -> SourceRef:
    return SourceRef(node.file, node.line, node.tag)


def _name(node: XmlNode) -> str:
    return node.attrib.get("name", "").strip()
