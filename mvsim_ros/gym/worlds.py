"""Where the Gymnasium environments find world files: the places the simulator node looks in
(mvsim_ros.world.files.world_path): as given, then the package's share directory, source checkout and installed
share directory, with or without a leading `worlds/`."""

from __future__ import annotations

from pathlib import Path

from mvsim_ros.world.files.world_path import SOURCE_ROOT, WORLDS_FOLDER, resolve_world_path

#: The source checkout's `worlds/` folder.
REPO_WORLDS = SOURCE_ROOT / WORLDS_FOLDER


def resolve_world(path: str | Path) -> Path:
    """The world file `path` names, as an absolute path (resolve_world_path's rule). FileNotFoundError (a
    WorldFileNotFound) listing every place looked in; WorldFileError when it names a directory."""
    return resolve_world_path(path)
