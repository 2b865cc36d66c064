"""Importing a launch file in the tests with local stand-ins for `launch`, `launch_ros` and the package share
directory (none of them is installable here): the entities it builds record their constructor arguments. Share
directories: this package's is the repository (it has the share layout); any other package's is
`OTHER_SHARE/<package>`."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: Where the stand-in puts the share directory of packages other than mvsim_ros (e.g. nav2_bringup).
OTHER_SHARE = "/opt/ros/stand-in/share"


class Recorded:
    """A stand-in launch entity: keeps its constructor arguments."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


class LaunchConfigurationStandIn:
    """launch.substitutions.LaunchConfiguration: performs to the context's value of its argument."""

    def __init__(self, name):
        self.name = name

    def perform(self, context):
        return context[self.name]


def load_launch_file(monkeypatch, path: Path, module_name: str):
    """Import the launch file at `path` (as `module_name`) with the stand-ins installed through `monkeypatch`; the
    package share directory is the repository (it has the share layout)."""
    launch = types.ModuleType("launch")
    launch.LaunchDescription = lambda entities: list(entities)
    actions = types.ModuleType("launch.actions")
    actions.DeclareLaunchArgument = type("DeclareLaunchArgument", (Recorded,), {})
    actions.OpaqueFunction = type("OpaqueFunction", (Recorded,), {})
    actions.IncludeLaunchDescription = type("IncludeLaunchDescription", (Recorded,), {})
    actions.GroupAction = type("GroupAction", (Recorded,), {})
    sources = types.ModuleType("launch.launch_description_sources")
    sources.PythonLaunchDescriptionSource = type("PythonLaunchDescriptionSource", (Recorded,), {})
    substitutions = types.ModuleType("launch.substitutions")
    substitutions.LaunchConfiguration = LaunchConfigurationStandIn
    launch_ros = types.ModuleType("launch_ros")
    ros_actions = types.ModuleType("launch_ros.actions")
    ros_actions.Node = type("Node", (Recorded,), {})
    ros_actions.PushROSNamespace = type("PushROSNamespace", (Recorded,), {})
    ament = types.ModuleType("ament_index_python.packages")
    ament.get_package_share_directory = lambda package: str(REPO) if package == "mvsim_ros" \
        else f"{OTHER_SHARE}/{package}"
    for name, module in {"launch": launch, "launch.actions": actions, "launch.substitutions": substitutions,
                         "launch.launch_description_sources": sources,
                         "launch_ros": launch_ros, "launch_ros.actions": ros_actions,
                         "ament_index_python.packages": ament}.items():
        monkeypatch.setitem(sys.modules, name, module)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
