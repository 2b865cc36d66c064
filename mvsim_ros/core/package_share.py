"""This package's share directory from the ament index (where a ROS 2 install puts its worlds, launch files and
configurations), for the code that looks world files up there."""

from __future__ import annotations

from pathlib import Path


def package_share_directory() -> Path | None:
    """`share/mvsim_ros` of the ament index, or None without an index (AMENT_PREFIX_PATH unset: a plain venv) or
    when the package is not in it."""
    try:
        from ament_index_python.packages import get_package_share_directory

        return Path(get_package_share_directory("mvsim_ros"))
    except (ImportError, LookupError, ValueError, OSError):
        return None
