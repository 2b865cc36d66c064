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

    max_file_bytes: largest single file read whole (world and included files, map YAML, MRPT grid maps) [bytes];
    max_include_bytes: the world file and all included files read together (each file once) [bytes];
    max_nesting_depth: deepest element nesting (the root is level 1), counting <for>, <if> and included files;
    max_elements: XML elements read from files plus those the expansion produces or runs through (<variable>,
    <include>, <for> and <if> included), each time;
    max_loop_iterations: iterations of every <for> loop together, whether or not they produce elements;
    max_expanded_chars: characters of attribute values and element texts passed through substitution, plus the
    characters substitution produces (variables, expressions), each time a text is expanded;
    max_expression_chars: characters of the $f{...} expressions and <if> conditions evaluated, together;
    max_decompressed_bytes: bytes inflated from compressed data (.gridmap.gz, zip archives) together;
    max_image_pixels: pixels of any one image or grid read (occupancy grids, elevation maps, MRPT grid maps).

    The defaults keep the load of any world file within about 2 s and 500 MB on a desktop computer; MVSim's own
    worlds use a small fraction of each.
    """

    max_file_bytes: int = 32 * 1024 * 1024
    max_include_bytes: int = 64 * 1024 * 1024
    max_nesting_depth: int = 256
    max_elements: int = 100_000
    max_loop_iterations: int = 200_000
    max_expanded_chars: int = 16 * 1024 * 1024
    max_expression_chars: int = 100_000
    max_decompressed_bytes: int = 64 * 1024 * 1024
    max_image_pixels: int = 4096 * 4096


#: The limits used when a caller gives none.
DEFAULT_LIMITS = LoadLimits()


def limit_names() -> list[str]:
    """Names of the LoadLimits fields, in declaration order."""
    return [f.name for f in fields(LoadLimits)]


__all__ = ["DEFAULT_LIMITS", "LoadLimits", "limit_names"]
