"""A GL mirror of the world for the rendered sensors (cameras, 3D lidars).

Meshes: a ground plane (z = 0), occupancy-grid walls (merged rectangles of occupied cells, extruded to
WALL_HEIGHT), blocks (prisms of their outline from zmin to zmax, their colour) and vehicles (chassis prisms,
zmin..zmax, chassis colour). Static geometry lives in one buffer; every block and vehicle has its own buffer,
placed at render time from the simulation's poses (`update`). Each render writes two targets: the shaded
colour (RGBA8) and the eye-space depth along the optical axis [m] (R32F, exact, no depth-buffer inversion).
"""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.physics.polygons import merge_occupied_cells, signed_area
from mvsim_ros.sensors.gl_context import gl_context
from mvsim_ros.world.specs import WorldSpec

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


def parse_rgb(color: str) -> tuple[float, float, float]:
    """'#rrggbb' (or '#rrggbbaa') as floats in [0, 1]; grey when unreadable."""
    text = (color or "").strip().lstrip("#")
    try:
        return tuple(int(text[i:i + 2], 16) / 255.0 for i in (0, 2, 4))
    except ValueError:
        return (0.5, 0.5, 0.5)


def prism(outline, zmin: float, zmax: float, color) -> np.ndarray:
    """Triangles (rows of x y z nx ny nz r g b) of a vertical prism over a simple polygon outline, outward facing
    (counter-clockwise seen from outside). The caps are fanned from the first vertex (fine for convex outlines,
    an approximation for concave ones)."""
    pts = [tuple(map(float, p)) for p in outline]
    if len(pts) < 3 or zmax <= zmin:
        return np.zeros((0, 9), dtype="f4")
    if signed_area(pts) < 0:
        pts = pts[::-1]
    rows = []
    for i in range(1, len(pts) - 1):  # caps
        a, b, c = pts[0], pts[i], pts[i + 1]
        rows += [(*a, zmax, 0, 0, 1), (*b, zmax, 0, 0, 1), (*c, zmax, 0, 0, 1)]
        rows += [(*a, zmin, 0, 0, -1), (*c, zmin, 0, 0, -1), (*b, zmin, 0, 0, -1)]
    for i, a in enumerate(pts):  # sides
        b = pts[(i + 1) % len(pts)]
        dx, dy = b[0] - a[0], b[1] - a[1]
        length = math.hypot(dx, dy) or 1.0
        n = (dy / length, -dx / length, 0.0)
        rows += [(*a, zmin, *n), (*b, zmin, *n), (*b, zmax, *n), (*a, zmin, *n), (*b, zmax, *n), (*a, zmax, *n)]
    out = np.array(rows, dtype="f4")
    return np.hstack([out, np.tile(np.asarray(color, dtype="f4"), (len(out), 1))])


def pose_matrix(x: float, y: float, yaw: float) -> np.ndarray:
    """4x4 world placement of a planar pose."""
    c, s = math.cos(yaw), math.sin(yaw)
    m = np.eye(4)
    m[:2, :2] = [[c, -s], [s, c]]
    m[:2, 3] = (x, y)
    return m


class Scene:
    """GL buffers of a world; `update(sim)` moves the bodies, `draw(view, proj)` renders into the bound target."""

    def __init__(self, world: WorldSpec, ctx=None):
        self.ctx = ctx if ctx is not None else gl_context()
        self.program = self.ctx.program(vertex_shader=_VERTEX, fragment_shader=_FRAGMENT)
        static = [self._ground(world)]
        for grid in world.occupancy_grids:
            res = grid.resolution
            for r0, c0, r1, c1 in merge_occupied_cells(grid.occupied):
                x0, x1 = grid.x_min + c0 * res, grid.x_min + c1 * res
                y0, y1 = grid.y_min + r0 * res, grid.y_min + r1 * res
                static.append(prism([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], 0.0, WALL_HEIGHT, WALL_COLOR))
        self.static = self._vao(np.vstack(static))
        self.triangles = sum(len(s) for s in static) // 3
        self.blocks = []
        for block in world.blocks:
            mesh = prism(block.shape, block.zmin, block.zmax, parse_rgb(block.color))
            self.triangles += len(mesh) // 3
            self.blocks.append(self._vao(mesh) if len(mesh) else None)
        self.vehicles = []
        for vehicle in world.vehicles:
            ch = vehicle.chassis
            mesh = prism(ch.shape, ch.zmin, ch.zmax, parse_rgb(ch.color))
            self.triangles += len(mesh) // 3
            self.vehicles.append(self._vao(mesh) if len(mesh) else None)
        self.block_poses = np.array([(b.init_pose.x, b.init_pose.y, b.init_pose.yaw) for b in world.blocks],
                                    dtype=float).reshape(-1, 3)
        self.vehicle_poses = np.array([(v.init_pose.x, v.init_pose.y, v.init_pose.yaw) for v in world.vehicles],
                                      dtype=float).reshape(-1, 3)

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

    def _vao(self, mesh: np.ndarray):
        buffer = self.ctx.buffer(np.ascontiguousarray(mesh, dtype="f4").tobytes())
        return self.ctx.vertex_array(self.program, [(buffer, "3f 3f 3f", "in_pos", "in_normal", "in_color")])

    def update(self, sim) -> None:
        """Take the current poses of vehicles and blocks from a Simulation."""
        self.vehicle_poses = np.asarray(sim.pose, dtype=float)
        self.block_poses = np.asarray(sim.block_poses(), dtype=float)

    def draw(self, view: np.ndarray, proj: np.ndarray) -> None:
        """Draw everything into the currently bound framebuffer (world -> GL eye `view`, projection `proj`)."""
        import moderngl

        self.ctx.enable(moderngl.DEPTH_TEST | moderngl.CULL_FACE)
        prog = self.program
        prog["view"].write(np.ascontiguousarray(view.T, dtype="f4").tobytes())
        prog["proj"].write(np.ascontiguousarray(proj.T, dtype="f4").tobytes())
        model = prog["model"]
        model.write(np.eye(4, dtype="f4").tobytes())
        self.static.render()
        for vaos, poses in ((self.blocks, self.block_poses), (self.vehicles, self.vehicle_poses)):
            for vao, pose in zip(vaos, poses):
                if vao is not None:
                    model.write(np.ascontiguousarray(pose_matrix(*pose).T, dtype="f4").tobytes())
                    vao.render()
