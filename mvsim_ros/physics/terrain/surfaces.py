"""The world's walkable surfaces packed into arrays, and one vectorised query: the ground height under points.

Surfaces (MVSim's ``getElevationAt`` of each kind, see the package docstring):
  * elevation maps: the height grid, each cell split into two triangles along its (0,0)-(1,1) diagonal (the same
    triangles the rendered terrain mesh uses); nothing outside the grid or on a cell with a non-finite corner (the
    mesh leaves such cells out; MVSim would interpolate NaN);
  * horizontal planes: the plane's height inside its x/y extent (edges included), at the plane's current pose
    (keyframe-animated planes move: lifts);
  * blocks: inside the block's outline, a ramp rises ``lz * x / lx`` along its local x, a semi-cylinder bump is
    ``lz * sqrt(1 - (2 y / ly)^2)`` high, any other block is flat at its top ``z + zmax``.
The ground under a point (x, y) seen from height z_ref is the highest surface height there that is not above
z_ref; 0 (the flat ground) when none is (MVSim's ``World::getHighestElevationUnder``).

Only blocks whose top a wheel can ever reach are kept (ramps and bumps always; a flat-topped block when its top is
within one step of the highest other surface): a warehouse's shelves cost nothing per step.
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np

from mvsim_ros.core.jit import kernel
from mvsim_ros.world.specs import BlockSpec, ElevationMapSpec, HorizontalPlaneSpec, Pose3, WorldSpec

#: Block surface kinds (column KIND of the block table).
FLAT_TOP, RAMP, BUMP = 0, 1, 2
_KINDS = {"ramp": RAMP, "semi_cylinder_bump": BUMP}

#: Columns of the elevation-map table: first sample in the flat height array, samples along x and y, position of
#: sample [0, 0] [m], spacing [m] and its inverse [1/m].
MAP_COLUMNS = ("offset", "nx", "ny", "x0", "y0", "resolution", "inverse_resolution")
#: Columns of the plane table: the plane frame's origin in the world [m], the world-to-plane rows for local x and y
#: (the first two columns of its rotation matrix), its extent [m] and its surface height in the world [m].
PLANE_COLUMNS = ("tx", "ty", "tz", "r00", "r10", "r20", "r01", "r11", "r21", "x_min", "x_max", "y_min", "y_max",
                 "height")
#: Columns of the block table: first vertex and vertex count of its outline, surface kind, lx, ly, lz (ramp and
#: bump sizes) [m], top above its base zmax [m], the outline's radius around the block origin [m], then its current
#: pose x, y [m], yaw [rad], z [m].
BLOCK_COLUMNS = ("first", "count", "kind", "lx", "ly", "lz", "zmax", "radius", "x", "y", "yaw", "z")
_BX, _BY, _BYAW, _BZ = 8, 9, 10, 11

#: The surface arrays the compiled query takes (TerrainSurfaces.arrays): map_heights (every elevation map's samples,
#: row-major, one after the other [m]), map_table (MAP_COLUMNS), plane_table (PLANE_COLUMNS), block_vertices (the
#: block outlines, each in its block's frame [m]), block_table (BLOCK_COLUMNS).
SurfaceArrays = namedtuple("SurfaceArrays", "map_heights map_table plane_table block_vertices block_table")


@dataclass
class TerrainSurfaces:
    """Every surface of a world as arrays for the numba query (see the module docstring and the *_COLUMNS).

    map_heights: every elevation map's samples, row-major, one after the other [m]. plane_tracks: per plane, its
    keyframe track (`.pose(t)`) or None. blocks: the world index of each block surface (rows of block_table);
    block_vertices: their outlines in their own frames [m].
    """

    map_heights: np.ndarray
    map_table: np.ndarray
    plane_table: np.ndarray
    plane_specs: list[HorizontalPlaneSpec] = field(default_factory=list)
    plane_tracks: list = field(default_factory=list)
    blocks: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    block_vertices: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    block_table: np.ndarray = field(default_factory=lambda: np.zeros((0, len(BLOCK_COLUMNS))))

    @classmethod
    def from_world(cls, world: WorldSpec, max_step: float) -> "TerrainSurfaces":
        """The surfaces of `world`; max_step [m]: the largest step any wheel takes up (see `reachable_blocks`)."""
        maps = [e for e in world.elements if isinstance(e, ElevationMapSpec)]
        planes = [e for e in world.elements if isinstance(e, HorizontalPlaneSpec)]
        heights, rows, offset = [], [], 0
        for emap in maps:
            grid = np.asarray(emap.heights, dtype=float)
            heights.append(grid.reshape(-1))
            rows.append((offset, grid.shape[0], grid.shape[1], emap.corner_min_x, emap.corner_min_y,
                         emap.resolution, 1.0 / emap.resolution))
            offset += grid.size
        map_heights = np.concatenate(heights) if heights else np.zeros(0)
        map_table = np.array(rows, dtype=float).reshape(-1, len(MAP_COLUMNS))
        tracks = [p.animation.track(p.init_pose or Pose3()) if p.animation is not None else None for p in planes]
        plane_table = np.array([plane_row(p, p.init_pose or Pose3()) for p in planes],
                               dtype=float).reshape(-1, len(PLANE_COLUMNS))
        surfaces = cls(map_heights, map_table, plane_table, planes, tracks)
        surfaces.move_planes(0.0)
        surfaces.set_blocks(world, reachable_blocks(world, surfaces, max_step))
        return surfaces

    def set_blocks(self, world: WorldSpec, chosen: list[int]) -> None:
        """The block surfaces: blocks `chosen` (indices into world.blocks) at their initial poses."""
        vertices, rows = [], []
        for b in chosen:
            block = world.blocks[b]
            geometry = block.geometry
            kind = _KINDS.get(getattr(geometry, "kind", ""), FLAT_TOP)
            params = geometry.params if kind != FLAT_TOP else {}
            outline = np.asarray(block.shape, dtype=float).reshape(-1, 2)
            radius = float(np.hypot(outline[:, 0], outline[:, 1]).max()) if len(outline) else 0.0
            pose = block.init_pose
            rows.append((sum(len(v) for v in vertices), len(outline), kind, params.get("lx", 1.0),
                         params.get("ly", 1.0), params.get("lz", 0.0), block.zmax, radius, pose.x, pose.y, pose.yaw,
                         pose.z))
            vertices.append(outline)
        self.blocks = np.array(chosen, dtype=np.intp)
        self.block_vertices = np.concatenate(vertices) if vertices else np.zeros((0, 2))
        self.block_table = np.array(rows, dtype=float).reshape(-1, len(BLOCK_COLUMNS))

    @property
    def count(self) -> int:
        """Number of surfaces (maps, planes and blocks)."""
        return len(self.map_table) + len(self.plane_table) + len(self.block_table)

    @property
    def animated_planes(self) -> list[int]:
        """Rows of the keyframe-animated planes."""
        return self._animated_planes

    def __post_init__(self) -> None:
        self._animated_planes = [k for k, track in enumerate(self.plane_tracks) if track is not None]

    def is_flat(self) -> bool:
        """True when every surface is the flat ground itself: no maps, no blocks, only fixed, level planes at z = 0
        (then the ground is 0 everywhere and the terrain phase can be skipped)."""
        if len(self.map_table) or len(self.block_table) or self.animated_planes:
            return False
        table = self.plane_table
        return bool(np.all(table[:, 13] == 0.0) and np.all(table[:, 5] == 0.0) and np.all(table[:, 8] == 0.0))

    def move_planes(self, t: float) -> None:
        """Put the animated planes where their keyframes say at simulated time t [s]."""
        for k in self.animated_planes:
            self.plane_table[k] = plane_row(self.plane_specs[k], Pose3(*self.plane_tracks[k].pose(t)))

    def move_blocks(self, rows: np.ndarray, poses: np.ndarray) -> None:
        """Block surfaces `rows` (rows of block_table) now at poses (x, y, yaw, z) [m, rad]."""
        self.block_table[rows, _BX:_BZ + 1] = poses

    def ground_height(self, x, y, z_ref) -> np.ndarray:
        """Ground height [m] under world points (x, y) [m] seen from height z_ref [m]: the highest surface there
        not above z_ref, else 0 (see the module docstring). Arguments broadcast together; the result has their
        shape. Never NaN for finite inputs."""
        x, y, z_ref = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float),
                                          np.asarray(z_ref, dtype=float))
        out = ground_heights(np.ascontiguousarray(x).reshape(-1), np.ascontiguousarray(y).reshape(-1),
                             np.ascontiguousarray(z_ref).reshape(-1), self.arrays())
        return out.reshape(x.shape)

    def terrain_base(self, x, y) -> np.ndarray:
        """Height [m] of the highest elevation map at world points (x, y) [m] (0 where there is none): where a body
        starts looking for its ground (world/elements/ground_placement.py's rule)."""
        x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
        top = np.full(x.size, math.inf)
        maps_only = SurfaceArrays(self.map_heights, self.map_table, np.zeros((0, len(PLANE_COLUMNS))),
                                  self.block_vertices, np.zeros((0, len(BLOCK_COLUMNS))))
        out = ground_heights(np.ascontiguousarray(x).reshape(-1), np.ascontiguousarray(y).reshape(-1), top, maps_only)
        return out.reshape(x.shape)

    def arrays(self) -> SurfaceArrays:
        """The arrays the compiled query takes (the same arrays)."""
        return SurfaceArrays(self.map_heights, self.map_table, self.plane_table, self.block_vertices, self.block_table)


def plane_row(plane: HorizontalPlaneSpec, pose: Pose3) -> tuple[float, ...]:
    """A plane's row of the plane table with its frame at `pose` (PLANE_COLUMNS)."""
    rot = pose.rotation()
    return (pose.x, pose.y, pose.z, rot[0, 0], rot[1, 0], rot[2, 0], rot[0, 1], rot[1, 1], rot[2, 1], plane.x_min,
            plane.x_max, plane.y_min, plane.y_max, pose.z + rot[2, 2] * plane.z)


def reachable_blocks(world: WorldSpec, surfaces: TerrainSurfaces, max_step: float) -> list[int]:
    """Indices of the blocks whose surface a wheel may stand on: every ramp and bump, and every other block whose
    top is at most `max_step` [m] above the highest surface reachable without it (grown block by block: a low box
    makes a slightly higher one reachable). A block's top is its z + zmax; a block moved by Box2D may end on any
    surface, an animated one anywhere along its keyframes."""
    finite = surfaces.map_heights[np.isfinite(surfaces.map_heights)]
    level = max([0.0, float(finite.max()) if finite.size else 0.0]
                + [float(h) for h in surfaces.plane_table[:, 13]]
                + [_plane_peak(p, track) for p, track in zip(surfaces.plane_specs, surfaces.plane_tracks)
                   if track is not None])
    chosen, others = [], []
    for b, block in enumerate(world.blocks):
        if getattr(block.geometry, "kind", "") in _KINDS:
            chosen.append(b)
            level = max(level, block.init_pose.z + max(block.zmax, block.geometry.params["lz"]))
        else:
            others.append(b)
    tops = {b: _top_bound(world.blocks[b], level) for b in others}
    for b in sorted(others, key=tops.get):
        if tops[b] <= level + max_step:
            chosen.append(b)
            level = max(level, tops[b])
    return sorted(chosen)


def _top_bound(block: BlockSpec, terrain_level: float) -> float:
    """Highest top [m] a flat-topped block can have during the simulation."""
    if block.animation is not None:
        track = block.animation.track(block.init_pose)
        return max(p[2] for p in track.positions) + block.zmax
    if not block.static and not block.skip_elevation_adjust:  # follows the terrain under it
        return max(block.init_pose.z, terrain_level) + block.zmax
    return block.init_pose.z + block.zmax


def _plane_peak(plane: HorizontalPlaneSpec, track) -> float:
    """Highest surface height [m] an animated plane reaches (at a keyframe: heights move linearly between)."""
    return max(abs(plane.z) + p[2] for p in track.positions)


@kernel
def map_height(x, y, heights, table, m):
    """Height [m] of elevation map m at (x, y), or NaN outside it or on a cell with a non-finite corner.

    Cell (i, j) = floor of the position in samples; (u, v) in [0, 1) the position within the cell; triangles as
    MVSim's ElevationMap::getElevationAt (equal to ElevationMapSpec.elevation_at up to rounding)."""
    fx = (x - table[m, 3]) * table[m, 6]
    fy = (y - table[m, 4]) * table[m, 6]
    nx, ny = table[m, 1], table[m, 2]
    if not (fx >= 0.0 and fx < nx - 1.0 and fy >= 0.0 and fy < ny - 1.0):  # also false for NaN
        return math.nan
    i, j = int(fx), int(fy)  # truncation = floor here (non-negative)
    row = int(table[m, 0]) + i * int(ny) + j
    z00 = heights[row]
    z01 = heights[row + 1]
    z10 = heights[row + int(ny)]
    z11 = heights[row + int(ny) + 1]
    if not math.isfinite(z00 + z01 + z10 + z11):  # a hole in the DEM: the rendered mesh leaves the cell out too
        return math.nan
    u = fx - i
    v = fy - j
    if v >= u:  # triangle (0,0)-(0,1)-(1,1)
        return z00 + u * (z11 - z01) + v * (z01 - z00)
    return z00 + u * (z10 - z00) + v * (z11 - z10)  # triangle (0,0)-(1,0)-(1,1)


@kernel
def polygon_contains(vertices, first, count, x, y):
    """Whether local point (x, y) lies inside the polygon vertices[first:first + count] (crossing number; any
    simple polygon)."""
    inside = False
    j = first + count - 1
    for i in range(first, first + count):
        xi, yi = vertices[i, 0], vertices[i, 1]
        xj, yj = vertices[j, 0], vertices[j, 1]
        if (yi > y) != (yj > y):
            if x < xi + (y - yi) * (xj - xi) / (yj - yi):
                inside = not inside
        j = i
    return inside


@kernel
def ground_heights(x, y, z_ref, surfaces):
    """Ground height [m] under each point (x[i], y[i]) [m] seen from z_ref[i] [m]: the highest surface of
    `surfaces` (SurfaceArrays) there not above z_ref[i], else 0 (1-D arrays in, a new array out). Surface kinds are
    the outer loops, so a kind the world does not have costs nothing."""
    map_heights, map_table, plane_table = surfaces.map_heights, surfaces.map_table, surfaces.plane_table
    block_vertices, block_table = surfaces.block_vertices, surfaces.block_table
    count = x.size
    best = np.full(count, -math.inf)
    for m in range(map_table.shape[0]):
        for i in range(count):
            h = map_height(x[i], y[i], map_heights, map_table, m)
            if h <= z_ref[i] and h > best[i]:  # NaN (outside) compares false
                best[i] = h
    for p in range(plane_table.shape[0]):
        tx, ty, tz = plane_table[p, 0], plane_table[p, 1], plane_table[p, 2]
        r00, r10, r20, r01, r11, r21 = (plane_table[p, 3], plane_table[p, 4], plane_table[p, 5], plane_table[p, 6],
                                        plane_table[p, 7], plane_table[p, 8])
        x_min, x_max, y_min, y_max, h = (plane_table[p, 9], plane_table[p, 10], plane_table[p, 11],
                                         plane_table[p, 12], plane_table[p, 13])
        for i in range(count):
            if h <= z_ref[i] and h > best[i]:
                dx, dy = x[i] - tx, y[i] - ty
                lx = r00 * dx + r10 * dy - r20 * tz
                ly = r01 * dx + r11 * dy - r21 * tz
                if x_min <= lx <= x_max and y_min <= ly <= y_max:
                    best[i] = h
    for k in range(block_table.shape[0]):
        bx, by, radius = block_table[k, _BX], block_table[k, _BY], block_table[k, 7]
        c, s = math.cos(block_table[k, _BYAW]), math.sin(block_table[k, _BYAW])
        first, corners, kind = int(block_table[k, 0]), int(block_table[k, 1]), int(block_table[k, 2])
        lx_ramp, ly_bump, lz, top, base = (block_table[k, 3], block_table[k, 4], block_table[k, 5],
                                           block_table[k, 6], block_table[k, _BZ])
        for i in range(count):
            dx, dy = x[i] - bx, y[i] - by
            if abs(dx) > radius or abs(dy) > radius:
                continue
            lx, ly = c * dx + s * dy, -s * dx + c * dy
            if not polygon_contains(block_vertices, first, corners, lx, ly):
                continue
            if kind == RAMP:
                h = base + lz * lx / lx_ramp
            elif kind == BUMP:
                h = base + lz * math.sqrt(max(0.0, 1.0 - (2.0 * ly / ly_bump) ** 2))
            else:
                h = base + top
            if h <= z_ref[i] and h > best[i]:
                best[i] = h
    for i in range(count):
        if best[i] == -math.inf:
            best[i] = 0.0
    return best


__all__ = ["BLOCK_COLUMNS", "MAP_COLUMNS", "PLANE_COLUMNS", "SurfaceArrays", "TerrainSurfaces", "ground_heights",
           "map_height", "plane_row", "reachable_blocks"]
