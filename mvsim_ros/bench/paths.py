"""Where the benchmarks find the repository's world files (they run from a source checkout)."""

from pathlib import Path

#: The repository's `worlds/` folder.
WORLDS = Path(__file__).resolve().parents[2] / "worlds"
#: The demo world: two differential robots with 2D lidars, a block class `box_small`.
DEMO_WORLD = WORLDS / "demo_2robots.world.xml"

__all__ = ["DEMO_WORLD", "WORLDS"]
