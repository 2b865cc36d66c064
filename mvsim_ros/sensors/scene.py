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
axis [m] (R32F, exact, no depth-buffer inversion). The triangles themselves are built on the CPU by
scene_meshes.SceneMeshes (shared with the browser viewer); this module uploads and draws them.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from mvsim_ros.sensors.gl_context import gl_context
from mvsim_ros.sensors.scene_meshes import (  # noqa: F401 (re-exported: part of this module's interface)
    GROUND_COLOR,
    GROUND_MARGIN,
    WALL_COLOR,
    WALL_HEIGHT,
    SceneMeshes,
    model_mesh,
    terrain_mesh,
)
from mvsim_ros.world.specs import Pose3, WorldSpec

SKY_COLOR = (0.70, 0.80, 0.95)

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
uniform float max_depth;
in vec3 v_color;
in float v_depth;
layout(location = 0) out vec4 f_color;
layout(location = 1) out float f_depth;
void main() {
    f_color = vec4(v_color, 1.0);
    // Beyond max_depth reads +inf (the bit pattern of IEEE 754 +infinity), as pixels where nothing was drawn.
    f_depth = v_depth <= max_depth ? v_depth : uintBitsToFloat(0x7F800000u);
}
"""


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
        meshes = SceneMeshes.build(world, warn)
        #: Messages about visual models drawn as prisms instead (also passed to `warn` when given). An unavailable
        #: remote model is said once per URI, and not at all when loading the world said it already.
        self.warnings: list[str] = meshes.warnings
        self.triangles = meshes.triangles
        self.ground = self._vao(meshes.ground)
        self.static = self._vao(meshes.static) if len(meshes.static) else None
        #: Indexed terrain meshes, one per elevation map.
        self.terrain = [self._vao(vertices, indices) for vertices, indices in meshes.terrain]
        self.terrain_triangles = meshes.terrain_triangles
        #: Horizontal planes (floors, table tops, lifts): vertex arrays in each plane's frame, their initial poses
        #: and their keyframe animations (None: fixed).
        self.planes = [self._vao(mesh) for mesh in meshes.planes]
        self._plane_tracks = meshes.plane_tracks
        self.plane_poses = meshes.plane_poses
        #: Actors: their visual model when it loads, else MVSim's stand-in body; poses (x, y, z, yaw).
        self.actors = [self._vao(mesh) for mesh in meshes.actors]
        self.actor_models = meshes.actor_models
        self.actor_poses = meshes.actor_poses
        #: Per block / vehicle (then articulated front unit): its vertex array (None: nothing to draw), and whether
        #: it is a visual model (drawn without back-face culling).
        self.blocks = [self._vao(mesh) if len(mesh) else None for mesh in meshes.blocks]
        self.block_models = meshes.block_models
        self.vehicles = [self._vao(mesh) if len(mesh) else None for mesh in meshes.vehicles]
        self.vehicle_models = meshes.vehicle_models
        #: Block poses: rows (x, y, z, yaw, pitch, roll) [m, rad] (or planar rows (x, y, yaw)).
        self.block_poses = meshes.block_poses
        self.vehicle_poses = meshes.vehicle_poses
        #: Per kind of moving object: (poses' bytes, their shape, placements) of the latest draw.
        self._placement_cache: dict[str, tuple[bytes, tuple, np.ndarray]] = {}

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
        terrain = getattr(sim, "terrain", None)
        on_terrain = terrain is not None and terrain.active
        self.vehicle_poses = sim.body_pose3 if on_terrain else np.asarray(sim.body_pose, dtype=float)
        self.block_poses = sim.block_poses3()
        self.actor_poses = np.asarray(sim.actor_poses, dtype=float)
        for k, track in enumerate(self._plane_tracks):
            if track is not None:
                self.plane_poses[k] = track.pose(sim.time)

    def draw(self, view: np.ndarray, proj: np.ndarray, max_depth: float = math.inf) -> None:
        """Draw everything into the currently bound framebuffer (world -> GL eye `view`, projection `proj`); eye
        depths beyond `max_depth` [m] are written as +inf to the depth target."""
        import moderngl

        ctx, prog = self.ctx, self.program
        ctx.enable(moderngl.DEPTH_TEST | moderngl.CULL_FACE)
        prog["view"].write(np.ascontiguousarray(view.T, dtype="f4"))
        prog["proj"].write(np.ascontiguousarray(proj.T, dtype="f4"))
        prog["max_depth"].value = min(float(max_depth), _FLOAT32_MAX)
        model = prog["model"]
        model.write(_IDENTITY)
        self.ground.render()
        if self.static is not None:
            self.static.render()
        if self.terrain:
            # Terrain pulled slightly forward in the depth-buffer test only (the eye depth written to the depth
            # target is unchanged): where it lies at z = 0 it wins over the ground plane instead of z-fighting.
            ctx.polygon_offset = (-1.0, -2.0)
            for vao in self.terrain:
                vao.render()
            ctx.polygon_offset = (0.0, 0.0)
        for key, vaos, models, poses in (("planes", self.planes, None, self.plane_poses),
                                         ("blocks", self.blocks, self.block_models, self.block_poses),
                                         ("vehicles", self.vehicles, self.vehicle_models, self.vehicle_poses),
                                         ("actors", self.actors, self.actor_models, self.actor_poses)):
            if not vaos:
                continue
            placements = self._placements(key, poses)
            for k, vao in enumerate(vaos):
                if vao is None:
                    continue
                model.write(placements[k])
                if models is not None and models[k]:
                    ctx.disable(moderngl.CULL_FACE)
                    vao.render()
                    ctx.enable(moderngl.CULL_FACE)
                else:
                    vao.render()

    def _placements(self, key: str, poses) -> np.ndarray:
        """(N, 4, 4) float32 transposed (column-major, as GL reads them) placements of the rows of `poses`,
        computed again only when the poses change (several sensors render each instant)."""
        poses = np.asarray(poses, dtype=float)
        raw = poses.tobytes()
        cached = self._placement_cache.get(key)
        if cached is not None and cached[0] == raw and cached[1] == poses.shape:
            return cached[2]
        out = np.ascontiguousarray(placements(poses).transpose(0, 2, 1), dtype="f4")
        self._placement_cache[key] = (raw, poses.shape, out)
        return out


#: 4x4 identity as GL reads a mat4 uniform (float32).
_IDENTITY = np.eye(4, dtype="f4").tobytes()
#: Largest finite float32: max_depth's value for "no limit".
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def placements(poses: np.ndarray) -> np.ndarray:
    """(N, 4, 4) world placements of pose rows [m, rad]: (x, y, yaw) (planar, z = 0), (x, y, z, yaw) (actors) or
    (x, y, z, yaw, pitch, roll) with R = Rz(yaw) Ry(pitch) Rx(roll), as pose_matrix and pose3_placement."""
    poses = np.asarray(poses, dtype=float).reshape(len(poses), -1)
    n, width = poses.shape
    zero = np.zeros(n)
    if width == 3:
        x, y, z, yaw, pitch, roll = poses[:, 0], poses[:, 1], zero, poses[:, 2], zero, zero
    elif width == 4:
        x, y, z, yaw, pitch, roll = poses[:, 0], poses[:, 1], poses[:, 2], poses[:, 3], zero, zero
    else:
        x, y, z, yaw, pitch, roll = poses[:, :6].T
    cy, sy, cp, sp, cr, sr = np.cos(yaw), np.sin(yaw), np.cos(pitch), np.sin(pitch), np.cos(roll), np.sin(roll)
    m = np.zeros((n, 4, 4))
    m[:, 0, 0], m[:, 0, 1], m[:, 0, 2] = cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr
    m[:, 1, 0], m[:, 1, 1], m[:, 1, 2] = sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr
    m[:, 2, 0], m[:, 2, 1], m[:, 2, 2] = -sp, cp * sr, cp * cr
    m[:, 0, 3], m[:, 1, 3], m[:, 2, 3], m[:, 3, 3] = x, y, z, 1.0
    return m
