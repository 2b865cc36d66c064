"""Bounds on what loading one world may cost: every limit the loader enforces, in one place.

A world file is code of a kind (loops, includes, variables, compressed maps and images), so loading one is
bounded whatever its content: each budget below is counted over the whole load (the world file and everything it
includes), and going over it stops the load with a WorldFileError naming the limit, its value and where in the
file it was reached. The node exposes every field as a parameter named ``load_<field>``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class LoadLimits:
    """Budgets of one world load (all counts over the whole load, includes and loops included).

    max_file_bytes: largest single world or included file read [bytes];
    max_include_bytes: all world and included files read together [bytes];
    max_nesting_depth: deepest element nesting in one file (the root is level 1);
    max_elements: XML elements in the expanded world;
    max_loop_iterations: iterations of every <for> loop together, whether or not they produce elements;
    max_expanded_chars: characters produced by variable and expression substitution together;
    max_decompressed_bytes: bytes inflated from compressed data (.gridmap.gz, zip archives) together;
    max_image_pixels: pixels of any one image read (occupancy grids, elevation maps).
    """

    max_file_bytes: int = 64 * 1024 * 1024
    max_include_bytes: int = 256 * 1024 * 1024
    max_nesting_depth: int = 256
    max_elements: int = 1_000_000
    max_loop_iterations: int = 1_000_000
    max_expanded_chars: int = 16 * 1024 * 1024
    max_decompressed_bytes: int = 128 * 1024 * 1024
    max_image_pixels: int = 40_000_000


#: The limits used when a caller gives none.
DEFAULT_LIMITS = LoadLimits()


def limit_names() -> list[str]:
    """Names of the LoadLimits fields, in declaration order."""
    return [f.name for f in fields(LoadLimits)]


__all__ = ["DEFAULT_LIMITS", "LoadLimits", "limit_names"]
