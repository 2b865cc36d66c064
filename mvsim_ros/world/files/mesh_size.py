"""What reading a 3D model file would cost, known before parsing it: its vertex and face counts from its header
(PLY, OFF, binary STL, glTF/GLB accessors) or from counting its lines in pieces (OBJ, ASCII STL), and the memory
trimesh would need, estimated from those counts and from the file's size (COLLADA: from its size alone); and
the check of that cost against the mesh budgets of ResourceLimits (``max_mesh_vertices``, ``max_mesh_faces``,
``max_mesh_bytes``)."""

from __future__ import annotations

import json
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from mvsim_ros.world.xml.budget import limit_text
from mvsim_ros.world.xml.limits import ResourceLimits

#: Peak memory of reading a model with trimesh [bytes per vertex, bytes per face] (measured, trimesh 5: an OBJ of
#: 0.5 M vertices and 1 M faces peaked at 264 MB; binary PLY, STL and GLB at less).
BYTES_PER_VERTEX = 200
BYTES_PER_FACE = 160
#: Peak memory of reading a model with trimesh per byte of its file, by format (measured, trimesh 5: OBJ 7.2,
#: binary STL 9.2, binary PLY 8.3, GLB 7.7, COLLADA 16, ASCII PLY 18, OFF 18).
BYTES_PER_FILE_BYTE = {".obj": 8, ".stl": 10, ".ply": 20, ".off": 20, ".glb": 10, ".gltf": 10, ".dae": 20}
#: Largest piece [bytes] of a model file held at once while its lines are counted, and largest header read.
SCAN_CHUNK_BYTES = 1 << 20
#: Largest glTF JSON document [bytes] parsed for its counts (larger ones are weighed by their size alone).
GLTF_JSON_MAX_BYTES = 8 << 20


class MeshOverBudget(Exception):
    """A model file goes over one of the mesh budgets (ResourceLimits); the message names the limit."""


@dataclass(frozen=True)
class MeshSize:
    """What reading a model file would cost, known before parsing it: file_bytes [bytes] on disk; vertices and
    faces its header declares or its lines count (None where the format does not say); memory_bytes [bytes]
    estimated for trimesh to read it."""

    file_bytes: int
    vertices: int | None
    faces: int | None
    memory_bytes: int


def mesh_size(path: Path | str, suffix: str | None = None) -> MeshSize:
    """Weigh a model file without parsing it: counts from the header (PLY, OFF, binary STL, glTF/GLB) or from its
    lines read in pieces of SCAN_CHUNK_BYTES (OBJ, ASCII STL), none for COLLADA or an unreadable header; memory
    estimated as the larger of BYTES_PER_VERTEX x vertices + BYTES_PER_FACE x faces and BYTES_PER_FILE_BYTE x
    file size. Holds at most SCAN_CHUNK_BYTES of the file (a glTF's JSON: at most GLTF_JSON_MAX_BYTES, else its
    counts are not read)."""
    path = Path(path)
    suffix = (suffix or path.suffix).lower()
    file_bytes = path.stat().st_size
    counter = _COUNTERS.get(suffix)
    try:
        vertices, faces = counter(path, file_bytes) if counter is not None else (None, None)
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError, struct.error, RecursionError):
        vertices, faces = None, None  # an unreadable header: trimesh will say what is wrong with the file
    return MeshSize(file_bytes, vertices, faces, memory_estimate(suffix, file_bytes, vertices, faces))


def check_mesh_size(size: MeshSize, limits: ResourceLimits) -> None:
    """Raise MeshOverBudget naming the first mesh limit of `limits` that `size` goes over."""
    _check_count(size.vertices, "vertices", "max_mesh_vertices", limits)
    _check_count(size.faces, "faces", "max_mesh_faces", limits)
    limit = limits.max_mesh_bytes
    if size.memory_bytes > limit:
        raise MeshOverBudget(f"reading it would take about {size.memory_bytes} bytes of memory, more than "
                             f"{limit} ({limit_text('max_mesh_bytes', limit)})")


def _check_count(count: int | None, what: str, field: str, limits: ResourceLimits) -> None:
    limit = getattr(limits, field)
    if count is not None and count > limit:
        raise MeshOverBudget(f"{count} {what}, more than {limit} ({limit_text(field, limit)})")


def memory_estimate(suffix: str, file_bytes: int, vertices: int | None, faces: int | None) -> int:
    """Estimated peak memory [bytes] of reading a model (see BYTES_PER_VERTEX and BYTES_PER_FILE_BYTE)."""
    by_counts = BYTES_PER_VERTEX * (vertices or 0) + BYTES_PER_FACE * (faces or 0)
    return max(by_counts, BYTES_PER_FILE_BYTE.get(suffix, 20) * file_bytes)


def _count_occurrences(path: Path, needles: tuple[bytes, ...]) -> list[int]:
    """How often each needle occurs in the file (a newline counts as coming before its first byte), read in
    pieces of SCAN_CHUNK_BYTES: memory bounded whatever the file's size."""
    counts = [0] * len(needles)
    keep = max(len(needle) for needle in needles) - 1
    tail = b"\n"
    with open(path, "rb") as handle:
        while chunk := handle.read(SCAN_CHUNK_BYTES):
            piece = tail + chunk
            for k, needle in enumerate(needles):
                counts[k] += piece.count(needle)
            tail = piece[-keep:] if keep else b""
    return counts


def _obj_counts(path: Path, file_bytes: int) -> tuple[int, int]:
    """(vertex lines, face lines) of a Wavefront OBJ file (a polygon face counts once)."""
    v_space, v_tab, f_space, f_tab = _count_occurrences(path, (b"\nv ", b"\nv\t", b"\nf ", b"\nf\t"))
    return v_space + v_tab, f_space + f_tab


def _stl_counts(path: Path, file_bytes: int) -> tuple[int, int]:
    """(vertices, triangles) of an STL file: the binary header's count when the size matches it, else the ASCII
    file's ``endfacet`` lines (trimesh keeps three vertices per triangle)."""
    with open(path, "rb") as handle:
        head = handle.read(84)
    if len(head) == 84:
        (triangles,) = struct.unpack("<I", head[80:84])
        if 84 + 50 * triangles == file_bytes:
            return 3 * triangles, triangles
    (triangles,) = _count_occurrences(path, (b"endfacet",))
    return 3 * triangles, triangles


def _header_text(path: Path, end: bytes) -> str:
    """The start of a file up to `end` (or SCAN_CHUNK_BYTES of it), as text."""
    with open(path, "rb") as handle:
        head = handle.read(SCAN_CHUNK_BYTES)
    stop = head.find(end)
    return (head if stop < 0 else head[:stop]).decode("ascii", errors="replace")


def _ply_counts(path: Path, file_bytes: int) -> tuple[int | None, int | None]:
    """(vertices, faces) a PLY header declares (``element vertex N``, ``element face M``)."""
    found = dict(re.findall(r"^\s*element\s+(\w+)\s+(\d+)\s*$", _header_text(path, b"end_header"), re.M))
    vertices, faces = found.get("vertex"), found.get("face")
    return (int(vertices) if vertices else None), (int(faces) if faces else None)


def _off_counts(path: Path, file_bytes: int) -> tuple[int | None, int | None]:
    """(vertices, faces) an OFF header declares: the first two numbers after the ``OFF`` keyword."""
    text = "\n".join(line.split("#", 1)[0] for line in _header_text(path, b"\x00").splitlines())
    tokens = text.split()
    if not tokens or not tokens[0].upper().endswith("OFF"):
        return None, None
    numbers = tokens[1:3]
    if len(numbers) < 2 or not all(t.isdigit() for t in numbers):
        return None, None
    return int(numbers[0]), int(numbers[1])


def _gltf_counts(path: Path, file_bytes: int) -> tuple[int | None, int | None]:
    """(vertices, triangles) a glTF / GLB file's JSON declares: each mesh's POSITION and index accessor counts,
    as many times as nodes place the mesh (every mesh once when no node does)."""
    with open(path, "rb") as handle:
        head = handle.read(20)
        if head[:4] == b"glTF":
            length, kind = struct.unpack("<I4s", head[12:20])
        else:
            length, kind = file_bytes, b"JSON"
            handle.seek(0)
        if kind != b"JSON" or length > GLTF_JSON_MAX_BYTES:
            return None, None
        document = json.loads(handle.read(length))
    accessors = document.get("accessors", [])
    per_mesh = [_gltf_mesh_counts(mesh, accessors) for mesh in document.get("meshes", [])]
    placed = [node["mesh"] for node in document.get("nodes", []) if isinstance(node.get("mesh"), int)]
    chosen = [per_mesh[k] for k in placed] if placed else per_mesh
    return sum(v for v, _ in chosen), sum(f for _, f in chosen)


def _gltf_mesh_counts(mesh: dict, accessors: list) -> tuple[int, int]:
    """(vertices, triangles) of one glTF mesh from its accessors' counts."""
    vertices = faces = 0
    for primitive in mesh.get("primitives", []):
        positions = int(accessors[primitive["attributes"]["POSITION"]]["count"])
        indices = primitive.get("indices")
        vertices += positions
        faces += (int(accessors[indices]["count"]) if isinstance(indices, int) else positions) // 3
    return vertices, faces


_COUNTERS: dict[str, Callable[[Path, int], tuple[int | None, int | None]]] = {
    ".obj": _obj_counts, ".stl": _stl_counts, ".ply": _ply_counts, ".off": _off_counts,
    ".glb": _gltf_counts, ".gltf": _gltf_counts,
}


__all__ = ["BYTES_PER_FACE", "BYTES_PER_FILE_BYTE", "BYTES_PER_VERTEX", "GLTF_JSON_MAX_BYTES", "MeshOverBudget",
           "MeshSize", "SCAN_CHUNK_BYTES", "check_mesh_size", "memory_estimate", "mesh_size"]
