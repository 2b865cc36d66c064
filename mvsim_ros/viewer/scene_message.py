"""The viewer's "scene" message (see protocol.py): what to draw and how the frame's pose tables place it.

Meshes come from sensors.scene_meshes (the same triangles the rendered sensors see): the ground (two triangles),
walls and vertical planes and the terrain of elevation maps (indexed) in group "static"; horizontal planes,
blocks, vehicle bodies (then articulated front units) and actors in their own groups, indexed by their row in the
frame's pose table. Visual models are double-sided (their windings are not reliable). Horizontal planes lose the
face their `cull_face` culls, as MVSim draws them (a ceiling with FRONT is not seen from above), and those at
ROOF_MIN_HEIGHT or higher are marked roofs. Walls and vertical planes keep every face whatever their `cull_face`:
MVSim draws each vertical plane as two faces of opposite windings, so culling one winding hides neither side.
Each vehicle gets an accent colour no other vehicle has.
"""

from __future__ import annotations

import base64
import math
from pathlib import Path
from typing import Callable

import numpy as np

from mvsim_ros.physics.footprint import towed_vehicles
from mvsim_ros.sensors.meshes import parse_rgb
from mvsim_ros.sensors.scene_meshes import SceneMeshes, horizontal_planes
from mvsim_ros.sensors.suite import is_world
from mvsim_ros.world.specs import GuiOptions, HorizontalPlaneSpec, VerticalPlaneSpec
from mvsim_ros.world.warning_summary import said_once

#: Height [m] from which a horizontal plane is a roof or a ceiling (the page's "roofs" toggle hides it).
ROOF_MIN_HEIGHT = 2.0

#: Accent colours given to vehicles whose chassis colour another vehicle already has (distinct hues, readable on
#: the dark page and on a grey floor).
ACCENT_PALETTE = ("#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6",
                  "#bfef45", "#fabed4", "#469990", "#dcbeff", "#9a6324", "#fffac8", "#800000", "#aaffc3")

#: Colour of the wheels (MVSim's default wheel colour, dark grey); world files do not set it here.
WHEEL_COLOR = "#323232"


def b64_floats(array: np.ndarray) -> str:
    """Base64 of an array as little-endian float32, row-major."""
    return base64.b64encode(np.ascontiguousarray(array, dtype="<f4").tobytes()).decode("ascii")


def b64_indices(array: np.ndarray) -> str:
    """Base64 of an index array as little-endian uint32."""
    return base64.b64encode(np.ascontiguousarray(array, dtype="<u4").tobytes()).decode("ascii")


def hex_color(color: str) -> str:
    """'#rrggbb' (lower case) of a world-file colour ('#rrggbb' or '#rrggbbaa'; grey when unreadable)."""
    r, g, b = parse_rgb(color)
    return "#%02x%02x%02x" % (round(r * 255), round(g * 255), round(b * 255))


def mesh_entry(name: str, group: str, index: int, vertices: np.ndarray, indices: np.ndarray | None = None,
               double_sided: bool = False, cull_face: str = "NONE", roof: bool = False) -> dict:
    """One entry of the scene's `meshes` list (cull_face: the world file's NONE, FRONT or BACK; roof: a
    horizontal plane at or above ROOF_MIN_HEIGHT)."""
    return {"name": name, "group": group, "index": int(index), "vertices": b64_floats(vertices),
            "indices": None if indices is None else b64_indices(indices), "double_sided": bool(double_sided),
            "cull_face": str(cull_face).upper(), "roof": bool(roof)}


def plane_height(plane) -> float:
    """Height [m] of a horizontal plane in the world: its z plus its frame's initial z."""
    return float(plane.z) + (float(plane.init_pose.z) if plane.init_pose is not None else 0.0)


def culled_plane(vertices: np.ndarray, cull_face: str) -> np.ndarray:
    """A horizontal plane's triangles (rows of 9, consecutive triples, facing up and down) less those MVSim culls:
    FRONT drops the upper face (a ceiling is not seen from above), BACK the lower one, NONE nothing."""
    mode = str(cull_face).upper()
    if mode not in ("FRONT", "BACK") or len(vertices) % 3:
        return vertices
    normal_z = vertices[0::3, 5]
    keep = normal_z < 0 if mode == "FRONT" else normal_z > 0
    return vertices.reshape(-1, 3, vertices.shape[1])[keep].reshape(-1, vertices.shape[1])


def accent_colors(colors: list[str]) -> list[str]:
    """Per vehicle, a colour no other vehicle has: its own ('#rrggbb') when it is the first with it, otherwise the
    ACCENT_PALETTE colour farthest (RGB distance) from every colour taken so far."""
    def rgb(color: str) -> np.ndarray:
        return np.array([int(color[k:k + 2], 16) for k in (1, 3, 5)], dtype=float)

    used: list[str] = []
    out: list[str] = []
    for color in colors:
        chosen = color
        if color in used:
            spare = [c for c in ACCENT_PALETTE if c not in used and c not in colors] or list(ACCENT_PALETTE)
            chosen = max(spare, key=lambda c: min(float(np.linalg.norm(rgb(c) - rgb(u))) for u in used))
        used.append(chosen)
        out.append(chosen)
    return out


#: The last world's mesh entries, (WorldSpec, entries): a reset that keeps its WorldSpec sends them again without
#: loading its models (and saying their warnings) again. Spawning and deleting make a new WorldSpec.
_last: tuple[object, list[dict]] | None = None


def mesh_entries(world, warn: Callable[[str], None] | None = None) -> list[dict]:
    """Every mesh of a WorldSpec (see the module docstring); objects with nothing to draw are left out. The same
    WorldSpec object as the previous call gives the previous entries (warnings are not repeated). Messages about
    models drawn as stand-ins go to `warn` once per world (warning_summary.said_once): not again when the GL scene
    of the rendered sensors told them through its own `said_once` wrapper."""
    global _last
    if _last is not None and _last[0] is world:
        return _last[1]
    meshes = SceneMeshes.build(world, None if warn is None else said_once(world, warn))
    out = [mesh_entry("ground", "static", -1, meshes.ground)]
    if len(meshes.static):
        out.append(mesh_entry("walls", "static", -1, meshes.static))
    out += [mesh_entry(f"terrain:{k}", "static", -1, vertices, indices)
            for k, (vertices, indices) in enumerate(meshes.terrain)]
    planes = horizontal_planes(world)
    out += [mesh_entry(f"plane:{k}", "plane", k, culled_plane(mesh, plane.cull_face), cull_face=plane.cull_face,
                       roof=plane_height(plane) >= ROOF_MIN_HEIGHT)
            for k, (plane, mesh) in enumerate(zip(planes, meshes.planes))]
    out += [mesh_entry(f"block:{block.name}", "block", k, mesh, double_sided=is_model)
            for k, (block, mesh, is_model) in enumerate(zip(world.blocks, meshes.blocks, meshes.block_models))
            if len(mesh)]
    names = [v.name for v in world.vehicles] + [f"{v.name}:front_unit" for v in world.vehicles
                                                if v.articulation is not None]
    out += [mesh_entry(f"vehicle:{name}", "body", k, mesh, double_sided=is_model)
            for k, (name, mesh, is_model) in enumerate(zip(names, meshes.vehicles, meshes.vehicle_models))
            if len(mesh)]
    out += [mesh_entry(f"actor:{actor.name}", "actor", k, mesh, double_sided=is_model)
            for k, (actor, mesh, is_model) in enumerate(zip(world.actors, meshes.actors, meshes.actor_models))
            if len(mesh)]
    _last = (world, out)
    return out


#: Closest and farthest initial camera distance [m] when the world's `<gui>` sets no camera and the view is fitted
#: to the world.
FIT_DISTANCE_RANGE = (5.0, 400.0)


def gui_hints(gui: GuiOptions | None, spec=None) -> dict:
    """The scene's `gui` object from a world's `<gui>` options. `from_world` says whether the world's `<gui>` sets
    the camera (its place: cam_distance, cam_azimuth, cam_elevation or cam_point_to; or a vehicle to follow): the
    page's first view is then that camera. A world that sets none (and a `spec` given) is framed whole: the camera
    looks at the centre of its content (vehicles, blocks, walls, occupancy grids) from where it fits the view;
    otherwise MVSim's defaults (80 m away, looking at the origin)."""
    g = gui if gui is not None else GuiOptions()
    from_world = gui is not None and bool(gui.camera_given or gui.follow_vehicle)
    distance, target = float(g.cam_distance), [float(v) for v in g.cam_point_to]
    if not from_world and spec is not None:
        (x0, y0), (x1, y1) = content_bounds(spec)
        half_diagonal = 0.5 * math.hypot(x1 - x0, y1 - y0)
        distance = min(max(1.1 * half_diagonal / math.tan(0.5 * g.fov_rad), FIT_DISTANCE_RANGE[0]),
                       FIT_DISTANCE_RANGE[1])
        target = [0.5 * (x0 + x1), 0.5 * (y0 + y1), 0.0]
    return {"cam_distance": distance, "cam_azimuth": float(g.cam_azimuth_rad),
            "cam_elevation": float(g.cam_elevation_rad), "fov": float(g.fov_rad),
            "follow_vehicle": str(g.follow_vehicle or ""), "cam_point_to": target, "from_world": from_world}


def content_bounds(spec) -> tuple[tuple[float, float], tuple[float, float]]:
    """((x_min, y_min), (x_max, y_max)) [m] of the world's vehicles and blocks (initial poses), wall corners,
    vertical and horizontal planes (initial frames, unrotated) and occupancy grids; ((-1, -1), (1, 1)) for an
    empty world."""
    xs = [v.init_pose.x for v in spec.vehicles] + [b.init_pose.x for b in spec.blocks]
    ys = [v.init_pose.y for v in spec.vehicles] + [b.init_pose.y for b in spec.blocks]
    for walls in spec.walls:
        for segment in walls.segments:
            for x, y in segment.polygon():
                xs.append(x)
                ys.append(y)
    for element in spec.elements:
        if isinstance(element, VerticalPlaneSpec):
            xs += [element.x0, element.x1]
            ys += [element.y0, element.y1]
        elif isinstance(element, HorizontalPlaneSpec):
            dx, dy = (element.init_pose.x, element.init_pose.y) if element.init_pose is not None else (0.0, 0.0)
            xs += [element.x_min + dx, element.x_max + dx]
            ys += [element.y_min + dy, element.y_max + dy]
    for grid in spec.occupancy_grids:
        xs += [grid.x_min, grid.x_min + grid.occupied.shape[1] * grid.resolution]
        ys += [grid.y_min, grid.y_min + grid.occupied.shape[0] * grid.resolution]
    finite = [(x, y) for x, y in zip(xs, ys) if math.isfinite(x) and math.isfinite(y)]
    if not finite:
        return (-1.0, -1.0), (1.0, 1.0)
    return ((min(x for x, _ in finite), min(y for _, y in finite)),
            (max(x for x, _ in finite), max(y for _, y in finite)))


def _outline(vehicle) -> list[list[float]]:
    """The chassis polygon of a VehicleSpec in its own frame [m], finite corners only."""
    return [[float(x), float(y)] for x, y in vehicle.chassis.shape if math.isfinite(x) and math.isfinite(y)]


def _sensor_list(sensors, kind: str, vehicle_names: list[str]) -> list[dict]:
    items = getattr(sensors, kind, []) if sensors is not None else []
    return [{"name": s.spec.name, "vehicle": "" if is_world(s.vehicle) else vehicle_names[s.vehicle]} for s in items]


def scene_message(sim, sensors, version: int, warn: Callable[[str], None] | None = None) -> dict:
    """The protocol's "scene" message (json.dumps-able) of a physics Simulation and its Sensors (or None).

    version: the scene version frames refer to; warn: where messages about visual models drawn as stand-ins go.
    """
    spec = sim.spec
    names = list(sim.vehicle_names)
    steerable = {int(k) for k in [*sim.steering.vehicle.tolist(), *sim.articulations.vehicle.tolist()]}
    towing = towed_vehicles(spec)
    accents = accent_colors([hex_color(v.chassis.color) for v in spec.vehicles])
    vehicles = [{"name": v.name, "body": i, "steerable": i in steerable, "articulated": v.articulation is not None,
                 "color": hex_color(v.chassis.color), "accent": accents[i], "footprint": i in towing,
                 "outline": _outline(v),
                 "height": float(v.chassis.zmax) if math.isfinite(v.chassis.zmax) else 0.5}
                for i, v in enumerate(spec.vehicles)]
    w = sim.wheels
    widths = [wheel.width for v in spec.vehicles for wheel in v.wheels]
    wheels = [{"body": int(body), "x": float(x), "y": float(y), "z": float(r), "radius": float(r),
               "width": float(width), "color": WHEEL_COLOR}
              for body, x, y, r, width in zip(w.body.tolist(), w.x.tolist(), w.y.tolist(), w.radius.tolist(), widths)]
    dt = float(sim.dt)
    return {
        "type": "scene",
        "version": int(version),
        "world": Path(spec.source_file).name if spec.source_file else "",
        "dt": dt if math.isfinite(dt) else 0.0,
        "gui": gui_hints(getattr(spec, "gui", None), spec),
        "bounds": [list(corner) for corner in content_bounds(spec)],
        "meshes": mesh_entries(spec, warn),
        "vehicles": vehicles,
        "wheels": wheels,
        "lidars": _sensor_list(sensors, "lidars", names),
        "lidars3d": _sensor_list(sensors, "lidars3d", names),
        "cameras": _sensor_list(sensors, "cameras", names),
    }
