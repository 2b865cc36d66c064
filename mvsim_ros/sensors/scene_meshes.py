"""The world as CPU triangle meshes: what the GL scene (scene.py) uploads and the browser viewer sends.

Every mesh is a float32 array of rows ``x y z nx ny nz r g b`` (three rows per triangle; the terrain is indexed),
[m] and colours in [0, 1]. Static geometry (ground, occupancy-grid walls, `<walls>`, vertical planes, terrain) is
in world coordinates; every horizontal plane, block, vehicle (and articulated front unit) and actor has its own
mesh in its own frame, placed by a pose: the initial ones are here, the current ones come from the simulation.

A block, vehicle or actor whose `<visual>` names a model that loads is drawn with that model's triangles
(model_scale, then yaw/pitch/roll, then the offset: the same placement as `load_model_footprint`; block or
chassis colour); otherwise (no model, unavailable remote model, unreadable file) a block or vehicle is the prism
of its outline from zmin to zmax and an actor MVSim's stand-in body. Each model that does not load is said once
(`warnings`, and `warn` when given); an unavailable remote model once per URI, and not at all when loading the
world said it already.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from mvsim_ros.physics.polygons import merge_occupied_cells
from mvsim_ros.sensors.meshes import (actor_placeholder_mesh, bump_mesh, double_sided_rectangle, parse_rgb, prism,
                                      ramp_mesh, vertical_plane_mesh)
from mvsim_ros.world.specs import ElevationMapSpec, HorizontalPlaneSpec, Pose3, VerticalPlaneSpec, WorldSpec
from mvsim_ros.world.files.visual_models import posed_model, unavailable_remote_model
from mvsim_ros.world.warning_summary import unavailable_remote_models

#: Height of occupancy-grid walls [m].
WALL_HEIGHT = 2.0
WALL_COLOR = (0.62, 0.62, 0.66)
GROUND_COLOR = (0.45, 0.47, 0.42)
#: Colour of an actor's visual model (r, g, b in [0, 1]).
ACTOR_MODEL_COLOR = parse_rgb("#6496c8")
#: Half-size of the ground square around the world's content [m].
GROUND_MARGIN = 200.0
_EMPTY = np.zeros((0, 9), dtype="f4")


def terrain_mesh(emap: ElevationMapSpec, color=None) -> tuple[np.ndarray, np.ndarray]:
    """Indexed triangle mesh of an elevation map: vertices (rows of x y z nx ny nz r g b, one per height sample,
    smooth normals) and uint32 indices, two counter-clockwise (seen from above) triangles per cell, split along
    the (0,0)-(1,1) diagonal like `ElevationMapSpec.elevation_at`. Cells with a non-finite corner are left out."""
    heights = np.asarray(emap.heights, dtype=float)
    nx, ny = heights.shape
    if nx < 2 or ny < 2:
        return np.zeros((0, 9), dtype="f4"), np.zeros(0, dtype="u4")
    step = float(emap.resolution)
    xs = emap.corner_min_x + step * np.arange(nx)
    ys = emap.corner_min_y + step * np.arange(ny)
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    finite = np.isfinite(heights)
    z = np.where(finite, heights, 0.0)
    dzdx, dzdy = np.gradient(z, step, step)
    normals = np.stack([-dzdx, -dzdy, np.ones_like(z)], axis=-1)
    normals /= np.linalg.norm(normals, axis=-1, keepdims=True)
    rgb = np.broadcast_to(np.asarray(color if color is not None else parse_rgb(emap.mesh_color), dtype=float),
                          (nx, ny, 3))
    vertices = np.concatenate([np.stack([gx, gy, z], axis=-1), normals, rgb], axis=-1).reshape(-1, 9)
    index = np.arange(nx * ny, dtype=np.uint32).reshape(nx, ny)
    i00, i10, i01, i11 = index[:-1, :-1], index[1:, :-1], index[:-1, 1:], index[1:, 1:]
    ok = finite[:-1, :-1] & finite[1:, :-1] & finite[:-1, 1:] & finite[1:, 1:]
    lower = np.stack([i00, i10, i11], axis=-1)[ok]  # (0,0)-(1,0)-(1,1): below the diagonal
    upper = np.stack([i00, i11, i01], axis=-1)[ok]  # (0,0)-(1,1)-(0,1): above it
    indices = np.concatenate([lower, upper]).reshape(-1)
    return vertices.astype("f4"), indices.astype("u4")


def model_mesh(visual, base_dir: Path, color, warn: Callable[[str], None]) -> np.ndarray | None:
    """Triangles (rows of x y z nx ny nz r g b, flat normals) of a `<visual>` group's local model in the object's
    frame: vertex p lands at R(yaw, pitch, roll) (model_scale * p) + offset, as in `load_model_footprint`.
    None (with `warn`) for an unavailable remote model or one that does not load; None silently without a model."""
    model = posed_model(visual, base_dir, warn, "drawing the declared shape")
    if model is None or len(model[1]) == 0:
        return None
    pts, faces = model
    tri = pts[np.asarray(faces, dtype=np.int64)]  # (M, 3, 3)
    normals = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    length = np.linalg.norm(normals, axis=1, keepdims=True)
    normals = np.divide(normals, length, out=np.zeros_like(normals), where=length > 0)
    rows = np.concatenate([tri, np.repeat(normals[:, None, :], 3, axis=1),
                           np.broadcast_to(np.asarray(color, dtype=float), tri.shape)], axis=-1)
    return rows.reshape(-1, 9).astype("f4")


def base_dir(spec, world: WorldSpec) -> Path:
    """Folder that relative model paths of a block / vehicle resolve against (its XML file's, as the loader)."""
    source = getattr(spec, "source", None)
    return Path(source.file if source is not None and source.file else world.source_file or ".").parent


def ground_mesh(world: WorldSpec) -> np.ndarray:
    """The ground: two triangles at z = 0 facing up, GROUND_MARGIN beyond the world's content on every side."""
    xs = [0.0] + [v.init_pose.x for v in world.vehicles] + [b.init_pose.x for b in world.blocks]
    ys = [0.0] + [v.init_pose.y for v in world.vehicles] + [b.init_pose.y for b in world.blocks]
    for grid in world.occupancy_grids:
        xs += [grid.x_min, grid.x_min + grid.occupied.shape[1] * grid.resolution]
        ys += [grid.y_min, grid.y_min + grid.occupied.shape[0] * grid.resolution]
    x0, x1 = min(xs) - GROUND_MARGIN, max(xs) + GROUND_MARGIN
    y0, y1 = min(ys) - GROUND_MARGIN, max(ys) + GROUND_MARGIN
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    rows = [(*corners[i], 0.0, 0.0, 0.0, 1.0, *GROUND_COLOR) for i in (0, 1, 2, 0, 2, 3)]
    return np.array(rows, dtype="f4")


def wall_mesh(world: WorldSpec) -> np.ndarray:
    """Occupancy-grid walls (merged rectangles of occupied cells, WALL_HEIGHT tall), `<walls>` boxes and
    vertical planes, world coordinates."""
    static = []
    for grid in world.occupancy_grids:
        res = grid.resolution
        for r0, c0, r1, c1 in merge_occupied_cells(grid.occupied):
            x0, x1 = grid.x_min + c0 * res, grid.x_min + c1 * res
            y0, y1 = grid.y_min + r0 * res, grid.y_min + r1 * res
            static.append(prism([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], 0.0, WALL_HEIGHT, WALL_COLOR))
    static += [prism(segment.polygon(), 0.0, segment.height, WALL_COLOR)
               for walls in world.walls for segment in walls.segments]
    static += [vertical_plane_mesh(e) for e in world.elements if isinstance(e, VerticalPlaneSpec)]
    return np.vstack(static) if static else _EMPTY


def horizontal_planes(world: WorldSpec) -> list[HorizontalPlaneSpec]:
    """The world's horizontal planes, in element order (the rows of the plane pose tables)."""
    return [e for e in world.elements if isinstance(e, HorizontalPlaneSpec)]


def plane_tracks(world: WorldSpec) -> list:
    """Per horizontal plane: its keyframe track (`.pose(t)` -> x, y, z, yaw, pitch, roll) or None when fixed."""
    return [e.animation.track(e.init_pose or Pose3()) if e.animation is not None else None
            for e in horizontal_planes(world)]


def plane_poses(world: WorldSpec) -> np.ndarray:
    """(P, 6) initial poses (x, y, z, yaw, pitch, roll) [m, rad] of the horizontal planes."""
    return np.array([pose_row(e.init_pose or Pose3()) for e in horizontal_planes(world)], dtype=float).reshape(-1, 6)


def pose_row(pose: Pose3) -> tuple[float, float, float, float, float, float]:
    """(x, y, z, yaw, pitch, roll) of a Pose3 [m, rad]."""
    return pose.x, pose.y, pose.z, pose.yaw, pose.pitch, pose.roll


@dataclass
class SceneMeshes:
    """CPU meshes of a world and the initial poses that place the moving ones.

    ground, static: world-frame triangles (static: walls, vertical planes; possibly empty); terrain: one
    (vertices, uint32 indices) per elevation map with at least one triangle. planes / blocks / vehicles /
    actors: one mesh per object in its own frame (an empty array: nothing to draw), with `*_models` saying
    which are visual models (drawn without back-face culling: their windings are not reliable).
    vehicles: every vehicle, then the front unit of every articulated vehicle (the order of Simulation.body_pose).
    Poses: plane_poses, block_poses (x, y, z, yaw, pitch, roll), vehicle_poses (x, y, yaw), actor_poses
    (x, y, z, yaw) [m, rad]. triangles: how many in all; terrain_triangles: those of the terrain.
    """

    ground: np.ndarray
    static: np.ndarray
    terrain: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    planes: list[np.ndarray] = field(default_factory=list)
    plane_tracks: list = field(default_factory=list)
    plane_poses: np.ndarray = field(default_factory=lambda: np.zeros((0, 6)))
    blocks: list[np.ndarray] = field(default_factory=list)
    block_models: list[bool] = field(default_factory=list)
    block_poses: np.ndarray = field(default_factory=lambda: np.zeros((0, 6)))
    vehicles: list[np.ndarray] = field(default_factory=list)
    vehicle_models: list[bool] = field(default_factory=list)
    vehicle_poses: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    actors: list[np.ndarray] = field(default_factory=list)
    actor_models: list[bool] = field(default_factory=list)
    actor_poses: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    warnings: list[str] = field(default_factory=list)
    triangles: int = 0
    terrain_triangles: int = 0

    @classmethod
    def build(cls, world: WorldSpec, warn: Callable[[str], None] | None = None) -> "SceneMeshes":
        """The meshes of `world`; messages about visual models drawn as stand-ins go to `warnings` and `warn`."""
        warnings: list[str] = []
        told = unavailable_remote_models(world.warnings)

        def note(message: str) -> None:
            uri = unavailable_remote_model(message)
            if uri is not None:
                if uri in told:
                    return
                told.add(uri)
            warnings.append(message)
            if warn is not None:
                warn(message)

        ground, walls = ground_mesh(world), wall_mesh(world)
        terrain = [mesh for mesh in (terrain_mesh(e) for e in world.elements if isinstance(e, ElevationMapSpec))
                   if len(mesh[1])]
        planes = [double_sided_rectangle(e.x_min, e.x_max, e.y_min, e.y_max, e.z, parse_rgb(e.color))
                  for e in horizontal_planes(world)]
        actors = [_actor(actor, world, note) for actor in world.actors]
        blocks = [_body(block.visual, base_dir(block, world), block.shape, block.zmin, block.zmax, block.color,
                        f"block '{block.name}'", note, block.geometry) for block in world.blocks]
        vehicles = [_body(v.visual, base_dir(v, world), v.chassis.shape, v.chassis.zmin, v.chassis.zmax,
                          v.chassis.color, f"vehicle '{v.name}'", note) for v in world.vehicles]
        units = [v for v in world.vehicles if v.articulation is not None]
        vehicles += [_body(None, base_dir(v, world), v.articulation.front_chassis.shape,
                           v.articulation.front_chassis.zmin, v.articulation.front_chassis.zmax,
                           v.articulation.front_chassis.color, f"vehicle '{v.name}' front unit", note)
                     for v in units]
        poses = [(v.init_pose.x, v.init_pose.y, v.init_pose.yaw) for v in world.vehicles]
        poses += [v.articulation.front_unit_pose(v.init_pose.x, v.init_pose.y, v.init_pose.yaw) for v in units]
        terrain_triangles = sum(len(indices) // 3 for _, indices in terrain)
        out = cls(
            ground=ground, static=walls, terrain=terrain, planes=planes, plane_tracks=plane_tracks(world),
            plane_poses=plane_poses(world),
            blocks=[m for m, _ in blocks], block_models=[is_model for _, is_model in blocks],
            block_poses=np.array([pose_row(b.init_pose) for b in world.blocks], dtype=float).reshape(-1, 6),
            vehicles=[m for m, _ in vehicles], vehicle_models=[is_model for _, is_model in vehicles],
            vehicle_poses=np.array(poses, dtype=float).reshape(-1, 3),
            actors=[m for m, _ in actors], actor_models=[is_model for _, is_model in actors],
            actor_poses=np.array([(a.init_pose.x, a.init_pose.y, a.init_pose.z, a.init_pose.yaw)
                                  for a in world.actors], dtype=float).reshape(-1, 4),
            warnings=warnings, terrain_triangles=terrain_triangles)
        out.triangles = (len(ground) // 3 + len(walls) // 3 + terrain_triangles
                         + sum(len(m) // 3 for m in planes + out.blocks + out.vehicles + out.actors))
        return out


def _body(visual, folder: Path, shape, zmin: float, zmax: float, color: str, what: str,
          note, geometry=None) -> tuple[np.ndarray, bool]:
    """A block's or vehicle's mesh (its visual model, else its shape: a ramp's wedge, a bump's half cylinder — the
    surfaces the terrain physics drives on — or the prism of its outline) and whether it is a model."""
    rgb = parse_rgb(color)
    mesh = model_mesh(visual, folder, rgb, lambda message: note(f"{what}: {message}"))
    if mesh is not None:
        return mesh, True
    kind = getattr(geometry, "kind", "")
    if kind == "ramp":
        return ramp_mesh(geometry.params["lx"], geometry.params["ly"], geometry.params["lz"], rgb), False
    if kind == "semi_cylinder_bump":
        return bump_mesh(geometry.params["lx"], geometry.params["ly"], geometry.params["lz"], rgb), False
    return prism(shape, zmin, zmax, rgb), False


def _actor(actor, world: WorldSpec, note) -> tuple[np.ndarray, bool]:
    """An actor's mesh: its visual model (placed as for blocks) or the cylinder-and-head stand-in."""
    mesh = model_mesh(actor.visual, base_dir(actor, world), ACTOR_MODEL_COLOR,
                      lambda message: note(f"actor '{actor.name}': {message}"))
    if mesh is not None:
        return mesh, True
    return actor_placeholder_mesh(actor.collision_radius, actor.collision_height), False
