"""MVSim ``<visual>`` groups, and the 2.5D footprint of a local 3D model file.

``<visual>`` (MRPT/mvsim ``modules/simulator/src/VisualObject.cpp``, ``implParseVisual``; docs
``world_visual_object.rst``) holds child tags, last one wins, unknown ones are warned about (read through the
``visual`` table, params/world_tables.py):

======================  =========  ==============================================================
tag                     default    meaning
======================  =========  ==============================================================
``model_uri``           ""         model file: local path (relative to the world file), ``file://``,
                                   or ``http(s)://`` (MVSim downloads it; ``.../x.zip/dir/m.dae`` names a
                                   file inside a zip). Empty: no model.
``model_scale``         1.0        one factor applied to the model's vertices first
``model_offset_x|y|z``  0          translation [m], applied last
``model_yaw|pitch|roll`` 0         rotation [deg]: MRPT ``CPose3D``, R = Rz(yaw) Ry(pitch) Rx(roll)
``show_bounding_box``   false      initial visibility of the bounding box in the GUI
``model_color``,        --         appearance only; accepted and ignored here
``model_cull_faces``, ``model_split_size``, ``model_emissive``, ``cast_shadows``, ``name``
======================  =========  ==============================================================

and the attribute ``enabled="false"`` switches the whole group off (``light_group`` is appearance only).
A vertex p of the model lands at ``R (model_scale * p) + offset`` in the object's frame.

The model is read by ASSIMP in MVSim; here by trimesh (imported lazily, on the first local model: it
costs about 0.2 s). Two ASSIMP conventions are reproduced for COLLADA files, because MVSim worlds rely on
them (the tutorial ``.dae`` models all carry ``<model_roll>90</model_roll>``): the ``<unit meter=...>``
scale is applied, and a ``Z_UP`` (or ``X_UP``) file is turned to Y-up, (x, y, z) -> (x, z, -y)
(X_UP: (x, y, z) -> (-y, x, z)). Other formats are taken as they are.

Model URIs go through :mod:`mvsim_ros.world.files.resources` as in MVSim: an ``http(s)://`` model (or a file inside
a remote ``.zip``) is downloaded once into MVSim's cache folder and read from there; a file inside a local
``models.zip/inner/m.dae`` is extracted into the cache. A model that cannot be had (offline, timeout, HTTP
error, refused zip) gives one warning starting with ``REMOTE_MODEL_WARNING`` and naming the reason, and
the caller keeps the declared shape. Missing, unreadable or unsupported local files are warnings too, never
errors: the world still loads.

A model file is weighed before it is parsed (mesh_size.py): its vertex and face counts come from its header
(PLY, OFF, binary STL, glTF/GLB accessors) or from counting its lines in pieces (OBJ, ASCII STL), and the memory
trimesh would need is estimated from those counts and from the file's size (COLLADA: from its size alone). A model
over one of the mesh budgets (ResourceLimits in limits.py: ``max_mesh_vertices``, ``max_mesh_faces``,
``max_mesh_bytes``; those of the load in progress, else the defaults) is not parsed: one warning names the file
and the limit, and the caller keeps the declared shape. The counts are checked again while the parsed geometry is
gathered (a header may lie, and a scene may place one mesh many times), before the vertices are copied.
"""

from __future__ import annotations

import math
import threading
import weakref
from dataclasses import fields
from pathlib import Path
from typing import Callable

import numpy as np

from mvsim_ros.world.elements.block_geometry import MAX_FOOTPRINT_VERTICES, convex_hull_2d, simplify_hull_outer
from mvsim_ros.world.xml.budget import LoadBudget, active_budget, in_load
from mvsim_ros.world.xml.limits import DEFAULT_RESOURCE_LIMITS, ResourceLimits, resource_limits
from mvsim_ros.world.files.mesh_size import MeshOverBudget, MeshSize, check_mesh_size, memory_estimate, mesh_size
from mvsim_ros.world.files.resource_uris import is_remote_uri, split_zip_uri
from mvsim_ros.world.files.resources import resolve_uri
from mvsim_ros.world.xml.param_reading import read_params
from mvsim_ros.world.params.world_tables import VISUAL
from mvsim_ros.world.specs import Geometry, VisualSpec
from mvsim_ros.world.xml.values import bounded, fail, range_note
from mvsim_ros.world.xml.xml_tree import XmlNode

#: Start of the warning for a remote model that cannot be had (given once per URI per world).
REMOTE_MODEL_WARNING = "remote model unavailable"
#: Local model formats read here (trimesh 5; COLLADA through pycollada).
SUPPORTED_MODEL_EXTENSIONS = (".dae", ".obj", ".stl", ".ply", ".glb", ".gltf", ".off")


def parse_visual(node: XmlNode, warn: Callable[[XmlNode, str], None] | None = None) -> VisualSpec:
    """Read a ``<visual>`` element through the visual table (params/world_tables.py: MVSim's names and defaults,
    angles to radians). WorldFileError (file, line, tag) for a malformed value or a scale <= 0.

    ``warn(node, message)``, if given, hears about tags and attributes MVSim does not know (they are skipped) and,
    once, about the GUI-only ones given.
    """
    values = read_params(VISUAL, node, warn or _no_warning, label="<visual>")
    scale_node = values.node("model_scale", node)
    scale = values["model_scale"]
    if scale <= 0.0:
        raise fail(scale_node, f"model_scale must be > 0, got {scale:g}{range_note('model_scale')}")
    return VisualSpec(
        model_uri=values["model_uri"], model_scale=bounded(scale, scale_node, "model_scale", "model_scale"),
        offset=(values["model_offset_x"], values["model_offset_y"], values["model_offset_z"]),
        yaw_pitch_roll_rad=(values["model_yaw"], values["model_pitch"], values["model_roll"]),
        show_bounding_box=values["show_bounding_box"], enabled=values["enabled"], model_color=values["model_color"],
        model_cull_faces=values["model_cull_faces"], name=values["name"],
    )


def _no_warning(node: XmlNode, message: str) -> None:
    """The warn callback of callers that do not collect warnings."""


def rotation_matrix(yaw: float, pitch: float, roll: float) -> np.ndarray:
    """MRPT CPose3D rotation: R = Rz(yaw) @ Ry(pitch) @ Rx(roll) (angles in radians)."""
    cy, sy = math.cos(yaw), math.sin(yaw)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cr, sr = math.cos(roll), math.sin(roll)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def model_path(uri: str, base_dir: Path) -> Path:
    """The local file a (non-remote) model URI names: `file://` stripped, `~` expanded, relative to base_dir."""
    local = uri[len("file://"):] if uri.lower().startswith("file://") else uri
    path = Path(local).expanduser()
    return path if path.is_absolute() else Path(base_dir) / path


def unavailable_remote_model(message: str) -> str | None:
    """The URI a warning of `model_file` about an unavailable remote model names (None for other messages):
    the loader and the GL scene say it once per URI, however many objects use the model."""
    head = message.find(REMOTE_MODEL_WARNING + ": ")
    if head < 0:
        return None
    rest = message[head + len(REMOTE_MODEL_WARNING) + 2:]
    return rest.split(" (", 1)[0]


def model_file(uri: str, base_dir: Path, warn: Callable[[str], None], fallback: str) -> Path | None:
    """The local file of a model URI: remote and zipped models through the resource cache (downloaded /
    extracted when needed), plain local paths as `model_path`. None with ``warn`` (ending in `fallback`) when a
    remote or zipped model is unavailable; a remote one's warning starts with ``REMOTE_MODEL_WARNING``."""
    if not is_remote_uri(uri) and split_zip_uri(uri) is None:
        return model_path(uri, base_dir)
    found = resolve_uri(uri, base_dir)
    if found.path is not None:
        return found.path
    if is_remote_uri(uri):
        warn(f"{REMOTE_MODEL_WARNING}: {uri} ({found.reason}); {fallback}")
    else:
        warn(f"3D model {uri} unavailable ({found.reason}); {fallback}")
    return None


def check_remote_model(visual: VisualSpec | None, base_dir: Path, warn: Callable[[str], None],
                       fallback: str) -> None:
    """Fetch a visual's remote model into the resource cache (model_file) so that the world's load says, once,
    when it is unavailable (`warn`, ending in `fallback`); nothing for local models, no model or a disabled
    group. The GL scene and the viewer then read the model from the cache and do not say it again."""
    uri = (getattr(visual, "model_uri", "") or "").strip()
    if visual is not None and uri and visual.enabled and is_remote_uri(uri):
        model_file(uri, base_dir, warn, fallback)


def posed_model(visual: VisualSpec | None, base_dir: Path, warn: Callable[[str], None],
                fallback: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The visual's model in the object's frame: (vertices (N, 3) at R(yaw, pitch, roll) (model_scale * p)
    + offset [m], triangles (M, 3)); None silently without a model, None with ``warn`` (ending in `fallback`,
    what the caller does instead) for a remote or zipped model that is unavailable (`model_file`), and `warn`
    from the loader for a model that does not load."""
    uri = (getattr(visual, "model_uri", "") or "").strip()
    if visual is None or not uri or not visual.enabled:
        return None
    path = model_file(uri, base_dir, warn, fallback)
    if path is None:
        return None
    mesh = _load_mesh(path, uri, warn)
    if mesh is None:
        return None
    vertices, faces = mesh
    rot = rotation_matrix(*visual.yaw_pitch_roll_rad)
    return (visual.model_scale * np.asarray(vertices, dtype=float)) @ rot.T + np.asarray(visual.offset, dtype=float), \
        faces


def load_model_footprint(
    visual: VisualSpec,
    base_dir: Path,
    warn: Callable[[str], None],
    *,
    z_slice: tuple[float, float] | None = None,
    max_vertices: int = MAX_FOOTPRINT_VERTICES,
) -> Geometry | None:
    """The footprint and height span of the visual's model, in the object's frame, or None.

    Returns Geometry(kind='mesh'): footprint = convex hull of all model vertices (after model_scale,
    rotation and offset) projected on XY, counter-clockwise, exact when it has at most max_vertices
    corners, else the smallest-added-area outer polygon of max_vertices corners (it always contains the
    hull); zmin/zmax of the transformed vertices; params lx, ly, lz = bounding-box extents [m].

    z_slice=(zlo, zhi): keep only triangles with a vertex inside [zlo, zhi] or crossing it, as MVSim does
    for a block that sets both <zmin> and <zmax> (it pads them by 1 mm, ``GeometryEpsilon``; pass the
    padded range for the same result). Kept triangles count whole, for footprint and heights alike.

    None, silently, for an empty model_uri or a disabled group. None with ``warn(message)`` for a remote or
    zipped model that is unavailable (offline, network or HTTP failure, refused zip), and for a missing,
    unreadable, unsupported or empty model file. Relative paths resolve against base_dir; remote models are
    downloaded once into the resource cache (:mod:`mvsim_ros.world.files.resources`).
    """
    model = posed_model(visual, base_dir, warn, "using the declared shape/bounding box")
    if model is None:
        return None
    pts, faces = model
    uri = visual.model_uri.strip()
    if z_slice is not None:
        zlo, zhi = z_slice
        tri_z = pts[faces, 2]
        keep = np.any((tri_z >= zlo) & (tri_z <= zhi), axis=1)
        keep |= np.any(tri_z > zhi, axis=1) & np.any(tri_z < zlo, axis=1)
        pts = pts[np.unique(faces[keep])]
        if len(pts) == 0:
            warn(f"3D model {uri}: nothing of it lies within z [{zlo:g}, {zhi:g}] m; "
                 "using the declared shape/bounding box")
            return None
    hull = convex_hull_2d(pts[:, :2])
    if len(hull) < 3:
        warn(f"3D model {uri}: its vertices have no area seen from above; using the declared shape/bounding box")
        return None
    footprint = simplify_hull_outer(hull, max_vertices)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    params = {"lx": float(hi[0] - lo[0]), "ly": float(hi[1] - lo[1]), "lz": float(hi[2] - lo[2])}
    return Geometry("mesh", footprint, float(lo[2]), float(hi[2]), params)


def clear_model_cache() -> None:
    """Forget loaded and refused models (they are cached per file, keyed by its size and modification time)."""
    with _LOCK:
        _CACHE.clear()
        _REFUSED.clear()
        _WARNED_IN_LOAD.clear()


# --------------------------------------------------------------------------------------------------

_LOCK = threading.Lock()
#: resolved path -> (size, mtime_ns, (vertices (N,3), faces (M,3)) or None when it failed)
_CACHE: dict[str, tuple[int, int, tuple[np.ndarray, np.ndarray] | None]] = {}
#: resolved path -> (size, mtime_ns, {mesh limits: why the file was refused under them})
_REFUSED: dict[str, tuple[int, int, dict[tuple[int, ...], str]]] = {}
#: Load budget -> model files refused (and warned about) during that load.
_WARNED_IN_LOAD: weakref.WeakKeyDictionary[LoadBudget, set[str]] = weakref.WeakKeyDictionary()
_MESH_LIMIT_NAMES = tuple(f.name for f in fields(ResourceLimits) if f.name.startswith("max_mesh_"))


def _limits_in_force() -> ResourceLimits | None:
    """The mesh budgets of the load in progress, or None outside a load."""
    return resource_limits(active_budget().limits) if in_load() else None


def _mesh_key(limits: ResourceLimits) -> tuple[int, ...]:
    return tuple(getattr(limits, name) for name in _MESH_LIMIT_NAMES)


def _load_mesh(path: Path, uri: str, warn: Callable[[str], None]) -> tuple[np.ndarray, np.ndarray] | None:
    """Vertices (N,3) in the model's frame (ASSIMP conventions applied) and triangles (M,3), cached; or None."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_MODEL_EXTENSIONS:
        warn(f"3D model format '{suffix or path.name}' not supported here ({uri}; readable: "
             f"{', '.join(SUPPORTED_MODEL_EXTENSIONS)}); using the declared shape/bounding box")
        return None
    try:
        stat = path.stat()
    except OSError:
        warn(f"3D model file not found: {path} (model_uri {uri}); using the declared shape/bounding box")
        return None
    key, stamp = str(path.resolve()), (stat.st_size, stat.st_mtime_ns)
    limits = _limits_in_force()
    known = _known_refusal(key, stamp, limits)
    mesh, over, failure = None, known or "", ""
    if known is None:
        with _LOCK:
            cached = _CACHE.get(key)
        if cached is not None and cached[:2] == stamp:
            if cached[2] is None:
                return None  # failed before, and was warned about then
            mesh, over = cached[2], _parsed_problem(cached[2], stat.st_size, suffix, limits)
        else:
            mesh, over, failure = _read_within(path, suffix, limits or DEFAULT_RESOURCE_LIMITS)
            if not over:
                with _LOCK:
                    _CACHE[key] = (stamp[0], stamp[1], mesh)
    if over:
        if _refuse(key, stamp, limits or DEFAULT_RESOURCE_LIMITS, over, new=known is None):
            warn(f"3D model {path} (model_uri {uri}) is too large to read: {over}; "
                 "using the declared shape/bounding box")
        return None
    if mesh is None:
        warn(f"3D model {path} could not be read ({failure}); using the declared shape/bounding box")
    return mesh


def _read_within(path: Path, suffix: str,
                 limits: ResourceLimits) -> tuple[tuple[np.ndarray, np.ndarray] | None, str, str]:
    """Weigh the file, then read it within `limits`: (mesh or None, why it is over a budget or "", why it could
    not be read or "")."""
    try:
        file_bytes = path.stat().st_size  # by its size alone first: a huge file is refused without a scan
        check_mesh_size(MeshSize(file_bytes, None, None, memory_estimate(suffix, file_bytes, None, None)), limits)
        check_mesh_size(mesh_size(path, suffix), limits)
        mesh = _read_mesh(path, suffix, limits)
    except MeshOverBudget as exc:
        return None, str(exc), ""
    except Exception as exc:  # noqa: BLE001 - any reader failure only costs this model
        return None, "", f"{exc.__class__.__name__}: {exc}"
    return mesh, "", "" if mesh is not None else "it holds no vertices"


def _parsed_problem(mesh: tuple[np.ndarray, np.ndarray], file_bytes: int, suffix: str,
                    limits: ResourceLimits | None) -> str:
    """Why a model read earlier is over the budgets of the load in progress ("" when it is not, or outside a
    load: the verdict of the load that read it stands)."""
    if limits is None:
        return ""
    vertices, faces = len(mesh[0]), len(mesh[1])
    try:
        check_mesh_size(MeshSize(file_bytes, vertices, faces, memory_estimate(suffix, file_bytes, vertices, faces)),
                        limits)
    except MeshOverBudget as exc:
        return str(exc)
    return ""


def _known_refusal(key: str, stamp: tuple[int, int], limits: ResourceLimits | None) -> str | None:
    """Why the file (at this size and time) was refused before under `limits` (outside a load, None: under any
    limits, the load's verdict standing), or None when it was not."""
    with _LOCK:
        entry = _REFUSED.get(key)
    if entry is None or entry[:2] != stamp:
        return None
    if limits is None:
        return next(iter(entry[2].values()), None)
    return entry[2].get(_mesh_key(limits))


def _refuse(key: str, stamp: tuple[int, int], limits: ResourceLimits, problem: str, new: bool) -> bool:
    """Remember that the file (at this size and time) is over the budgets `limits`; True when it is to be warned
    about: the first time in the load in progress, or, outside a load, when the refusal is `new`."""
    with _LOCK:
        entry = _REFUSED.get(key)
        if entry is None or entry[:2] != stamp:
            entry = (stamp[0], stamp[1], {})
            _REFUSED[key] = entry
        entry[2][_mesh_key(limits)] = problem
        if not in_load():
            return new
        warned = _WARNED_IN_LOAD.setdefault(active_budget(), set())
        first = key not in warned
        warned.add(key)
    return first


def _read_mesh(path: Path, suffix: str,
               limits: ResourceLimits = DEFAULT_RESOURCE_LIMITS) -> tuple[np.ndarray, np.ndarray] | None:
    """Vertices (N,3) in the model's frame and triangles (M,3) of every geometry the file's scene places; None
    when it has no vertices. MeshOverBudget as soon as the geometry gathered goes over a mesh limit (before the
    vertices are transformed and copied)."""
    import trimesh  # lazy: about 0.2 s, paid only by worlds with local models

    pre = np.eye(3)
    if suffix == ".dae":
        unit, up_axis = _collada_asset(path)
        pre = unit * _UP_AXIS_TO_Y_UP.get(up_axis, np.eye(3))
    scene = trimesh.load_scene(str(path), file_type=suffix[1:], process=False, skip_materials=True)
    vertex_blocks: list[np.ndarray] = []
    face_blocks: list[np.ndarray] = []
    count = face_count = 0
    file_bytes = path.stat().st_size
    for node_name in scene.graph.nodes_geometry:
        transform, geometry_name = scene.graph[node_name]
        geometry = scene.geometry.get(geometry_name)
        vertices = np.asarray(getattr(geometry, "vertices", np.empty((0, 3))), dtype=float).reshape(-1, 3)
        if len(vertices) == 0:
            continue
        faces = getattr(geometry, "faces", None)
        faces = np.asarray(faces, dtype=np.int64).reshape(-1, 3) if faces is not None and len(faces) else None
        if faces is None:  # points or lines: each vertex counts as a degenerate triangle
            faces = np.repeat(np.arange(len(vertices), dtype=np.int64)[:, None], 3, axis=1)
        gathered = (count + len(vertices), face_count + len(faces))
        check_mesh_size(MeshSize(file_bytes, *gathered, memory_estimate(suffix, file_bytes, *gathered)), limits)
        vertices = vertices @ transform[:3, :3].T + transform[:3, 3]
        vertex_blocks.append(vertices)
        face_blocks.append(faces + count)
        count, face_count = gathered
    if not vertex_blocks:
        return None
    vertices = np.vstack(vertex_blocks) @ pre.T
    if not np.all(np.isfinite(vertices)):
        raise ValueError("non-finite vertex coordinates")
    return vertices, np.vstack(face_blocks)


#: ASSIMP's ColladaLoader turns X_UP / Z_UP files to Y-up (AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION off).
_UP_AXIS_TO_Y_UP = {
    "X_UP": np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]),
    "Z_UP": np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]]),
}


def _collada_asset(path: Path) -> tuple[float, str]:
    """(<unit meter=...> or 1.0, <up_axis> or 'Y_UP') of a COLLADA file, read with defusedxml.

    Reading stops at the document's first </asset>. defusedxml also refuses DTD entity declarations,
    so an XML-bomb file fails here before pycollada sees it.
    """
    import defusedxml.ElementTree as safe_et

    unit, up_axis = 1.0, "Y_UP"
    for _event, elem in safe_et.iterparse(str(path), events=("end",)):
        tag = elem.tag.rsplit("}", 1)[-1]
        if tag == "unit":
            meter = float(elem.attrib.get("meter", "1") or 1.0)
            if math.isfinite(meter) and meter > 0.0:
                unit = meter
        elif tag == "up_axis":
            up_axis = (elem.text or "").strip().upper() or "Y_UP"
        elif tag == "asset":
            break
    return unit, up_axis


__all__ = [
    "SUPPORTED_MODEL_EXTENSIONS",
    "clear_model_cache",
    "load_model_footprint",
    "check_remote_model",
    "model_file",
    "model_path",
    "parse_visual",
    "posed_model",
    "rotation_matrix",
]
