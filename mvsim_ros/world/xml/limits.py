"""Bounds on what loading one world may cost: every limit the loader enforces, in one place.

A world file is code of a kind (loops, includes, variables, compressed maps and images), so loading one is
bounded whatever its content: each budget below is counted over the whole load (the world file and everything it
includes), and going over it stops the load with a WorldFileError naming the limit, its value and where in the
file it was reached.

Remote resources and 3D models have budgets of their own (ResourceLimits): going over one of those leaves that
resource out, with one warning naming it and the limit, and the object keeps its declared shape; the load goes on.
WorldLimits holds both kinds; the node passes one to the loader, and exposes every field of either kind as a
parameter named ``load_<field>``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields


def _limit(default: int, meaning: str):
    """A LoadLimits field: its default and what it counts (the node's parameter description)."""
    return field(default=default, metadata={"meaning": meaning})


@dataclass(frozen=True)
class LoadLimits:
    """Budgets of one world load (all counts over the whole load, includes and loops included); each field's
    meaning is in its metadata (`limit_meaning`). The defaults keep the load of any world file within about 2 s
    and 500 MB on a desktop computer; MVSim's own worlds use a small fraction of each."""

    max_file_bytes: int = _limit(32 * 1024 * 1024, "largest single file read whole (world and included files, map "
                                                   "YAML, MRPT grid maps, DEM text) [bytes]")
    max_include_bytes: int = _limit(64 * 1024 * 1024, "the world file and all included files read together (each "
                                                      "file once) [bytes]")
    max_nesting_depth: int = _limit(256, "deepest element nesting (the root is level 1), counting <for>, <if> and "
                                         "included files")
    max_elements: int = _limit(100_000, "XML elements read from files plus those the expansion produces or runs "
                                        "through (<variable>, <include>, <for>, <if> included), each time")
    max_loop_iterations: int = _limit(200_000, "iterations of every <for> loop together, whether or not they "
                                               "produce elements")
    max_expanded_chars: int = _limit(16 * 1024 * 1024, "characters of attribute values and texts passed through "
                                                       "substitution, plus the characters substitution produces")
    max_expression_chars: int = _limit(100_000, "characters of the $f{...} expressions and <if> conditions "
                                                "evaluated, together; grows by 20 for each element a <for> loop "
                                                "builds (large worlds laid out by loops)")
    max_decompressed_bytes: int = _limit(64 * 1024 * 1024, "bytes inflated from compressed data (.gridmap.gz, zip "
                                                           "archives) together")
    max_image_pixels: int = _limit(4096 * 4096, "pixels of any one image or grid read (occupancy grids, elevation "
                                                "maps, MRPT grid maps)")


@dataclass(frozen=True)
class ResourceLimits:
    """Budgets of the remote resources and 3D model files one load reads (a drip-feeding server, a model of
    millions of vertices): going over one leaves that resource out with a warning, never stops the load.

    The memory a model needs is estimated before it is parsed, from its file size and the vertex and face counts
    its header declares (or, for OBJ and ASCII STL, a count of its lines): see files/mesh_size.py. Downloads also obey
    the resource cache's own caps (files/resources.py, MVSIM_DOWNLOAD_*): the smaller limit applies."""

    max_download_seconds: int = _limit(120, "wall time of one download of a remote resource (model, zip), from "
                                            "the request to the last byte [s]")
    max_remote_seconds: int = _limit(300, "wall time of all downloads of remote resources during one load, "
                                          "together [s]")
    max_mesh_vertices: int = _limit(1_000_000, "vertices of any one 3D model file (its header's count where the "
                                               "format has one, checked before parsing)")
    max_mesh_faces: int = _limit(2_000_000, "faces of any one 3D model file (its header's count where the format "
                                            "has one, checked before parsing)")
    max_mesh_bytes: int = _limit(512 * 1024 * 1024, "estimated memory to read any one 3D model file, from its size "
                                                    "and counts before parsing [bytes]")


@dataclass(frozen=True)
class WorldLimits(LoadLimits, ResourceLimits):
    """Every limit of a world load: those that stop it (LoadLimits) and those that leave a resource out
    (ResourceLimits). The loader takes it wherever it takes a LoadLimits."""


#: The limits used when a caller gives none.
DEFAULT_LIMITS = LoadLimits()
#: The resource limits in force when the limits of a load are a plain LoadLimits, or outside a load.
DEFAULT_RESOURCE_LIMITS = ResourceLimits()
#: Every limit at its default.
DEFAULT_WORLD_LIMITS = WorldLimits()


def resource_limits(limits: LoadLimits | ResourceLimits | None) -> ResourceLimits:
    """The ResourceLimits part of a load's limits: `limits` itself when it has one (a WorldLimits), else the
    defaults."""
    return limits if isinstance(limits, ResourceLimits) else DEFAULT_RESOURCE_LIMITS


def limit_names() -> list[str]:
    """Names of every limit (the fields of LoadLimits, then those of ResourceLimits)."""
    return [f.name for f in fields(LoadLimits)] + [f.name for f in fields(ResourceLimits)]


def limit_meaning(name: str) -> str:
    """What the limit `name` (a field of LoadLimits or ResourceLimits) counts, with its unit."""
    return next(f.metadata["meaning"] for f in fields(WorldLimits) if f.name == name)


__all__ = ["DEFAULT_LIMITS", "DEFAULT_RESOURCE_LIMITS", "DEFAULT_WORLD_LIMITS", "LoadLimits", "ResourceLimits",
           "WorldLimits", "limit_meaning", "limit_names", "resource_limits"]
