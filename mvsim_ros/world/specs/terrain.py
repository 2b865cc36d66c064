"""Specs of the world elements that vehicles drive on or collide with: elevation maps, horizontal planes,
vertical planes (walls with doors and windows) and property regions.

Conventions: SI units; angles MVSim reads in degrees are stored in radians in fields ending in ``_rad``;
colours are ``'#rrggbb[aa]'``; local files are absolute paths, remote ones URL strings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mvsim_ros.world.specs.animation import KeyframeAnimation
from mvsim_ros.world.specs.common import KeptTag, Point2, Point3, Pose3, SourceRef


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
    animation: KeyframeAnimation | None = None  # a lift, a moving platform
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


__all__ = ["ElevationMapSpec", "HorizontalPlaneSpec", "WallOpening", "VerticalPlaneSpec", "PropertyRegionSpec"]
