"""Where a world file named on a command line, in a parameter or in a program is: one rule for the simulator node,
`mvsim_view`, the Gymnasium environments, the sweeps and the tracking nodes.

A name is looked for, in this order:

1. as given: an absolute path, or a path relative to the current directory;
2. in the ament index's share directory of the package (a ROS 2 install): `share/mvsim_ros/<name>`, then
   `share/mvsim_ros/worlds/<name>` (with a leading `worlds/` of the name taken off);
3. in the source checkout this package runs from: `<checkout>/<name>`, then `<checkout>/worlds/<name>`;
4. in the environment's installed share directory (setup.py's data files): `<sys.prefix>/share/mvsim_ros/<name>`,
   then `.../worlds/<name>`.

So `worlds/demo_2robots.world.xml` and `demo_2robots.world.xml` both name the example world from any folder. A name
found nowhere raises WorldFileNotFound, whose one-line message lists every place looked in; a directory raises
WorldFileError.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mvsim_ros.core.package_share import package_share_directory
from mvsim_ros.world.errors import WorldFileError

#: The source checkout's root (holding setup.py and worlds/) when the package runs from one.
SOURCE_ROOT = Path(__file__).resolve().parents[3]
#: The share directory setup.py installs the worlds into, in the running environment.
INSTALLED_SHARE = Path(sys.prefix) / "share" / "mvsim_ros"
#: The folder of the example worlds under each root.
WORLDS_FOLDER = "worlds"


class WorldFileNotFound(WorldFileError, FileNotFoundError):
    """No world file of that name in any of the places looked in (`looked_in`, absolute paths, in order)."""

    def __init__(self, name: str, looked_in: list[Path]):
        self.looked_in = list(looked_in)
        places = ", ".join(str(p) for p in self.looked_in)
        super().__init__(f"world file not found (looked in {places})", file=name)

    def __reduce__(self):
        return type(self), (self.file, self.looked_in)


def _search_roots() -> list[Path]:
    """The folders after the current directory, in order: the ament share directory, the source checkout (when the
    package runs from one), the installed share directory (when it exists)."""
    roots = []
    share = package_share_directory()
    if share is not None:
        roots.append(Path(share))
    if (SOURCE_ROOT / "setup.py").is_file() and (SOURCE_ROOT / WORLDS_FOLDER).is_dir():
        roots.append(SOURCE_ROOT)
    if INSTALLED_SHARE.is_dir():
        roots.append(INSTALLED_SHARE)
    return roots


def world_file_candidates(name: str | os.PathLike) -> list[Path]:
    """Every path `name` may stand for, in the order they are tried (see the module docstring); absolute paths."""
    given = Path(name).expanduser()
    candidates = [given if given.is_absolute() else Path.cwd() / given]
    if given.is_absolute():
        return candidates
    in_worlds = given.relative_to(WORLDS_FOLDER) if given.parts[:1] == (WORLDS_FOLDER,) else given
    for root in _search_roots():
        for candidate in (root / given, root / WORLDS_FOLDER / in_worlds):
            if candidate not in candidates:
                candidates.append(candidate)
    return candidates


def resolve_world_path(name: str | os.PathLike) -> Path:
    """The world file `name` names (see the module docstring), as an absolute path. WorldFileError when the first
    existing candidate is a directory, WorldFileNotFound (also a FileNotFoundError) when no candidate exists."""
    text = os.fspath(name)
    if not text.strip():
        raise WorldFileError("the world file name is empty")
    candidates = world_file_candidates(text.strip())
    for candidate in candidates:
        if candidate.is_dir():
            raise WorldFileError("is a directory, not a world file", file=str(candidate))
        if candidate.exists():
            return candidate
    raise WorldFileNotFound(text, candidates)


__all__ = ["INSTALLED_SHARE", "SOURCE_ROOT", "WORLDS_FOLDER", "WorldFileNotFound", "resolve_world_path",
           "world_file_candidates"]
