"""A GL mirror of the world for the rendered sensors (cameras, 3D lidars, raytrace_3d lasers).

Meshes: a ground plane (z = 0), occupancy-grid walls (merged rectangles of occupied cells, extruded to
WALL_HEIGHT), `<walls>` boxes, vertical planes (with their doors and windows cut out), horizontal planes (both
faces; keyframe-animated ones moved to where their keyframes are at the simulation's time), elevation maps (two
triangles per grid cell, split along the cell's (0,0)-(1,1) diagonal as `ElevationMapSpec.elevation_at`
interpolates, coloured by mesh_color; the ground plane stays, and the terrain is drawn with a depth-test polygon
offset so that where it lies at z = 0 it wins instead of z-fighting), blocks (at their 3D pose), vehicles and
actors. A block, vehicle or actor whose `<visual>` names a model that loads is drawn with that model's triangles
(model_scale, then yaw/pitch/roll, then the offset: the same placement as `load_model_footprint`; block or
chassis colour; no back-face culling, model windings are not reliable); otherwise (no model, unavailable remote
model, unreadable file) a block or vehicle is the prism of its outline from zmin to zmax and an actor MVSim's
stand-in body (a cylinder of its collision radius and height with a head on top). Static geometry lives in one
buffer; every plane, block, vehicle and actor has its own, placed at render time from the simulation's poses
(`update`). Each render writes two targets: the shaded colour (RGBA8) and the eye-space depth along the optical
axis [m] (R32F, exact, no depth-buffer inversion).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Callable

import numpy as np

from mvsim_ros.physics.polygons import merge_occupied_cells
from mvsim_ros.sensors.gl_context import gl_context
from mvsim_ros.sensors.meshes import (
    actor_placeholder_mesh,
    double_sided_rectangle,
    parse_rgb,
    prism,
    vertical_plane_mesh,
)
from mvsim_ros.world.elements import ElevationMapSpec, HorizontalPlaneSpec, VerticalPlaneSpec
from mvsim_ros.world.specs import Pose3, WorldSpec
from mvsim_ros.world.visual_models import posed_model, unavailable_remote_model

#: Height of occupancy-grid walls [m].
WALL_HEIGHT = 2.0
WALL_COLOR = (0.62, 0.62, 0.66)
GROUND_COLOR = (0.45, 0.47, 0.42)
SKY_COLOR = (0.70, 0.80, 0.95)
#: Half-size of the ground square around the world's content [m].
GROUND_MARGIN = 200.0

_VERTEX = """
#version 330
uniform mat4 model;
uniform mat4 view;
uniform mat4 proj;
in vec3 in_pos;
in vec3 in_normal;
in vec3 in_color;
out vec3 v_color;
out float v_depth;
void main() {
    vec4 eye = view * (model * vec4(in_pos, 1.0));
    vec3 n = mat3(model) * in_normal;
    float shade = 0.6 + 0.4 * abs(dot(n, vec3(0.48, 0.32, 0.82)));
    v_color = in_color * shade;
    v_depth = -eye.z;
    gl_Position = proj * eye;
}
"""

_FRAGMENT = """
#version 330
in vec3 v_color;
in float v_depth;
layout(location = 0) out vec4 f_color;
layout(location = 1) out float f_depth;
void main() {
    f_color = vec4(v_color, 1.0);
    f_depth = v_depth;
}
"""


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


def _base_dir(spec, world: WorldSpec) -> Path:
    """Folder that relative model paths of a block / vehicle resolve against (its XML file's, as the loader)."""
    source = getattr(spec, "source", None)
    return Path(source.file if source is not None and source.file else world.source_file or ".").parent


def pose_matrix(x: float, y: float, yaw: float) -> np.ndarray:
    """4x4 world placement of a planar pose."""
    c, s = math.cos(yaw), math.sin(yaw)
    m = np.eye(4)
    m[:2, :2] = [[c, -s], [s, c]]
    m[:2, 3] = (x, y)
    return m


def pose3_placement(x: float, y: float, z: float, yaw: float, pitch: float = 0.0, roll: float = 0.0) -> np.ndarray:
    """4x4 world placement of a 3D pose [m, rad] (R = Rz(yaw) Ry(pitch) Rx(roll))."""
    m = np.eye(4)
    m[:3, :3] = Pose3(x, y, z, yaw, pitch, roll).rotation()
    m[:3, 3] = (x, y, z)
    return m


class Scene:
    """GL buffers of a world; `update(sim)` moves the bodies, `draw(view, proj)` renders into the bound target."""

    def __init__(self, world: WorldSpec, ctx=None, warn: Callable[[str], None] | None = None):
        self.ctx = ctx if ctx is not None else gl_context()
        self.program = self.ctx.program(vertex_shader=_VERTEX, fragment_shader=_FRAGMENT)
        #: Messages about visual models drawn as prisms instead (also passed to `warn` when given). An unavailable
        #: remote model is said once per URI, and not at all when loading the world said it already.
        self.warnings: list[str] = []
        told = {uri for uri in map(unavailable_remote_model, world.warnings) if uri}

        def note(message: str) -> None:
            uri = unavailable_remote_model(message)
            if uri is not None:
                if uri in told:
                    return
                told.add(uri)
            self.warnings.append(message)
            if warn is not None:
                warn(message)

        ground = self._ground(world)
        self.ground = self._vao(ground)
        self.triangles = len(ground) // 3
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
        walls = np.vstack(static) if static else np.zeros((0, 9), dtype="f4")
        self.static = self._vao(walls) if len(walls) else None
        self.triangles += len(walls) // 3
        #: Indexed terrain meshes, one per elevation map.
        self.terrain = []
        self.terrain_triangles = 0
        for element in world.elements:
            if isinstance(element, ElevationMapSpec):
                vertices, indices = terrain_mesh(element)
                if len(indices):
                    self.terrain.append(self._vao(vertices, indices))
                    self.terrain_triangles += len(indices) // 3
        self.triangles += self.terrain_triangles
        #: Horizontal planes (floors, table tops, lifts): vertex arrays in each plane's frame, their initial poses
        #: and their keyframe animations (None: fixed).
        planes = [e for e in world.elements if isinstance(e, HorizontalPlaneSpec)]
        self.planes = [self._vao(double_sided_rectangle(e.x_min, e.x_max, e.y_min, e.y_max, e.z, parse_rgb(e.color)))
                       for e in planes]
        self._plane_tracks = [e.animation.track(e.init_pose or Pose3()) if e.animation is not None else None
                              for e in planes]
        self.plane_poses = np.array([_pose_row(e.init_pose or Pose3()) for e in planes], dtype=float).reshape(-1, 6)
        self.triangles += 4 * len(planes)
        #: Actors: their visual model when it loads, else MVSim's stand-in body; poses (x, y, z, yaw).
        actors = [self._actor(actor, world, note) for actor in world.actors]
        self.actors = [vao for vao, _ in actors]
        self.actor_models = [is_model for _, is_model in actors]
        self.actor_poses = np.array([(a.init_pose.x, a.init_pose.y, a.init_pose.z, a.init_pose.yaw)
                                     for a in world.actors], dtype=float).reshape(-1, 4)
        #: Per block / vehicle: its vertex array (None: nothing to draw), and whether it is a visual model (drawn
        #: without back-face culling).
        bodies = [self._body(block.visual, _base_dir(block, world), block.shape, block.zmin, block.zmax,
                             block.color, f"block '{block.name}'", note) for block in world.blocks]
        self.blocks = [vao for vao, _ in bodies]
        self.block_models = [is_model for _, is_model in bodies]
        bodies = [self._body(vehicle.visual, _base_dir(vehicle, world), vehicle.chassis.shape,
                             vehicle.chassis.zmin, vehicle.chassis.zmax, vehicle.chassis.color,
                             f"vehicle '{vehicle.name}'", note) for vehicle in world.vehicles]
        # Front units of articulated vehicles, after all vehicles (the order of Simulation.body_pose).
        units = [v for v in world.vehicles if v.articulation is not None]
        bodies += [self._body(None, _base_dir(v, world), v.articulation.front_chassis.shape,
                              v.articulation.front_chassis.zmin, v.articulation.front_chassis.zmax,
                              v.articulation.front_chassis.color, f"vehicle '{v.name}' front unit", note)
                   for v in units]
        self.vehicles = [vao for vao, _ in bodies]
        self.vehicle_models = [is_model for _, is_model in bodies]
        #: Block poses: rows (x, y, z, yaw, pitch, roll) [m, rad] (or planar rows (x, y, yaw)).
        self.block_poses = np.array([_pose_row(b.init_pose) for b in world.blocks], dtype=float).reshape(-1, 6)
        poses = [(v.init_pose.x, v.init_pose.y, v.init_pose.yaw) for v in world.vehicles]
        poses += [v.articulation.front_unit_pose(v.init_pose.x, v.init_pose.y, v.init_pose.yaw) for v in units]
        self.vehicle_poses = np.array(poses, dtype=float).reshape(-1, 3)

    @staticmethod
    def _ground(world: WorldSpec) -> np.ndarray:
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

    def _body(self, visual, base_dir: Path, shape, zmin: float, zmax: float, color: str, what: str, note):
        rgb = parse_rgb(color)
        mesh = model_mesh(visual, base_dir, rgb, lambda message: note(f"{what}: {message}"))
        is_model = mesh is not None
        if mesh is None:
            mesh = prism(shape, zmin, zmax, rgb)
        self.triangles += len(mesh) // 3
        return (self._vao(mesh) if len(mesh) else None), is_model

    def _actor(self, actor, world: WorldSpec, note):
        """An actor's vertex array: its visual model (placed as for blocks) or the cylinder-and-head stand-in."""
        mesh = model_mesh(actor.visual, _base_dir(actor, world), parse_rgb("#6496c8"),
                          lambda message: note(f"actor '{actor.name}': {message}"))
        is_model = mesh is not None
        if mesh is None:
            mesh = actor_placeholder_mesh(actor.collision_radius, actor.collision_height)
        self.triangles += len(mesh) // 3
        return self._vao(mesh), is_model

    def _vao(self, mesh: np.ndarray, indices: np.ndarray | None = None):
        buffer = self.ctx.buffer(np.ascontiguousarray(mesh, dtype="f4").tobytes())
        content = [(buffer, "3f 3f 3f", "in_pos", "in_normal", "in_color")]
        if indices is None:
            return self.ctx.vertex_array(self.program, content)
        index_buffer = self.ctx.buffer(np.ascontiguousarray(indices, dtype="u4").tobytes())
        return self.ctx.vertex_array(self.program, content, index_buffer=index_buffer, index_element_size=4)

    def update(self, sim) -> None:
        """Take the current poses of vehicles (articulated front units too), blocks and actors from a Simulation,
        and move animated planes to where their keyframes are at its time."""
        self.vehicle_poses = np.asarray(sim.body_pose, dtype=float)
        self.block_poses = sim.block_poses3()
        self.actor_poses = np.asarray(sim.actor_poses, dtype=float)
        for k, track in enumerate(self._plane_tracks):
            if track is not None:
                self.plane_poses[k] = track.pose(sim.time)

    def draw(self, view: np.ndarray, proj: np.ndarray) -> None:
        """Draw everything into the currently bound framebuffer (world -> GL eye `view`, projection `proj`)."""
        import moderngl

        self.ctx.enable(moderngl.DEPTH_TEST | moderngl.CULL_FACE)
        prog = self.program
        prog["view"].write(np.ascontiguousarray(view.T, dtype="f4").tobytes())
        prog["proj"].write(np.ascontiguousarray(proj.T, dtype="f4").tobytes())
        model = prog["model"]
        model.write(np.eye(4, dtype="f4").tobytes())
        self.ground.render()
        if self.static is not None:
            self.static.render()
        if self.terrain:
            # Terrain pulled slightly forward in the depth-buffer test only (the eye depth written to the depth
            # target is unchanged): where it lies at z = 0 it wins over the ground plane instead of z-fighting.
            self.ctx.polygon_offset = (-1.0, -2.0)
            for vao in self.terrain:
                vao.render()
            self.ctx.polygon_offset = (0.0, 0.0)
        actor_rows = [(x, y, z, yaw, 0.0, 0.0) for x, y, z, yaw in self.actor_poses.tolist()]
        for vaos, models, poses in ((self.planes, [False] * len(self.planes), self.plane_poses),
                                    (self.blocks, self.block_models, self.block_poses),
                                    (self.vehicles, self.vehicle_models, self.vehicle_poses),
                                    (self.actors, self.actor_models, actor_rows)):
            for vao, is_model, pose in zip(vaos, models, poses):
                if vao is None:
                    continue
                placement = pose_matrix(*pose) if len(pose) == 3 else pose3_placement(*pose)
                model.write(np.ascontiguousarray(placement.T, dtype="f4").tobytes())
                if is_model:
                    self.ctx.disable(moderngl.CULL_FACE)
                    vao.render()
                    self.ctx.enable(moderngl.CULL_FACE)
                else:
                    vao.render()


def _pose_row(pose: Pose3) -> tuple[float, float, float, float, float, float]:
    """(x, y, z, yaw, pitch, roll) of a Pose3 [m, rad]."""
    return pose.x, pose.y, pose.z, pose.yaw, pose.pitch, pose.roll
