"""Where the Gymnasium environments find world files: a path as given, else the repository's (or the installed
package's) `worlds/` folder, the places the simulator node looks in."""

from __future__ import annotations

import sys
from pathlib import Path

from mvsim_ros.core.package_share import package_share_directory

#: The repository's `worlds/` folder (a source checkout).
REPO_WORLDS = Path(__file__).resolve().parents[2] / "worlds"
#: The `worlds/` folder setup.py installs into the environment's share directory.
INSTALLED_WORLDS = Path(sys.prefix) / "share" / "mvsim_ros" / "worlds"


def resolve_world(path: str | Path) -> Path:
    """The world file `path` names, as an absolute path: an absolute or existing relative path as given, else the
    same relative path under `worlds/` of the repository, of the installed package, or of the ament share directory
    (also with a leading `worlds/` stripped). FileNotFoundError listing the places looked in."""
    given = Path(path)
    if given.is_absolute() or given.exists():
        if given.is_file():
            return given.resolve()
        raise FileNotFoundError(f"world file not found: {given}")
    relative = given.relative_to("worlds") if given.parts[:1] == ("worlds",) else given
    folders = [REPO_WORLDS, INSTALLED_WORLDS]
    share = package_share_directory()
    if share is not None:
        folders.append(share / "worlds")
    for folder in folders:
        candidate = folder / relative
        if candidate.is_file():
            return candidate
    looked = ", ".join(str(folder / relative) for folder in folders)
    raise FileNotFoundError(f"world file {str(path)!r} not found (looked in the current directory, {looked})")
