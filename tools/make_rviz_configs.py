#!/usr/bin/env python3
"""Write rviz/NAME.rviz for every worlds/NAME.world.xml (rviz2 displays derived from the world file).

Usage: tools/make_rviz_configs.py [--check]
  --check: write nothing; list the configurations that are missing or differ from what the worlds give, and
           exit 1 when there is any.
Worlds are loaded offline (MVSIM_OFFLINE=1): remote models are not needed to list vehicles and sensors.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Configurations written by hand, not from a world (the Nav2 view of launch/nav2_demo.launch.py).
HAND_WRITTEN = {"nav2.rviz"}


def expected_configs(root: Path = ROOT) -> dict[Path, str]:
    """Configuration path -> text, one per example world under `root`/worlds."""
    os.environ.setdefault("MVSIM_OFFLINE", "1")
    sys.path.insert(0, str(root))
    from mvsim_ros.cli.rviz_config import config_name, rviz_config
    from mvsim_ros.world import load_world

    configs = {}
    for world_file in sorted((root / "worlds").glob("*.world.xml")):
        world = load_world(str(world_file))
        configs[root / "rviz" / config_name(world_file)] = rviz_config(world, f"worlds/{world_file.name}")
    return configs


def stale_configs(root: Path = ROOT) -> list[str]:
    """Names (relative to `root`) of the configurations that are missing, differ from their world, or have no
    world any more (HAND_WRITTEN ones excepted)."""
    expected = expected_configs(root)
    stale = [str(p.relative_to(root)) for p, text in expected.items()
             if not p.exists() or p.read_text(encoding="utf-8") != text]
    stale += [str(p.relative_to(root)) for p in sorted((root / "rviz").glob("*.rviz"))
              if p not in expected and p.name not in HAND_WRITTEN]
    return stale


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale configurations (exit 1 if any)")
    args = parser.parse_args()
    if args.check:
        stale = stale_configs()
        for name in stale:
            print(f"stale: {name} (run tools/make_rviz_configs.py)")
        return 1 if stale else 0
    for path, text in expected_configs().items():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
