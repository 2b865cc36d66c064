"""Bounds on what loading one world may cost: every limit the loader enforces, in one place.

A world file is code of a kind (loops, includes, variables, compressed maps and images), so loading one is
bounded whatever its content: each budget below is counted over the whole load (the world file and everything it
includes), and going over it stops the load with a WorldFileError naming the limit, its value and where in the
file it was reached. The node exposes every field as a parameter named ``load_<field>``.
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
                                                "evaluated, together")
    max_decompressed_bytes: int = _limit(64 * 1024 * 1024, "bytes inflated from compressed data (.gridmap.gz, zip "
                                                           "archives) together")
    max_image_pixels: int = _limit(4096 * 4096, "pixels of any one image or grid read (occupancy grids, elevation "
                                                "maps, MRPT grid maps)")


#: The limits used when a caller gives none.
DEFAULT_LIMITS = LoadLimits()


def limit_names() -> list[str]:
    """Names of the LoadLimits fields, in declaration order."""
    return [f.name for f in fields(LoadLimits)]


def limit_meaning(name: str) -> str:
    """What the LoadLimits field `name` counts, with its unit."""
    return next(f.metadata["meaning"] for f in fields(LoadLimits) if f.name == name)


__all__ = ["DEFAULT_LIMITS", "LoadLimits", "limit_meaning", "limit_names"]
