"""package.xml: every module mvsim_ros (and the launch file) imports is declared, with a rosdep key that exists;
setup.py ships the rviz configurations and the console scripts."""

from __future__ import annotations

import ast
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Imported top-level module -> the package.xml key that provides it (None: no rosdep key exists; the module
#: must then be named in PIP_ONLY and in setup.py).
MODULE_KEYS = {
    "rclpy": "rclpy", "ament_index_python": "ament_index_python", "builtin_interfaces": "builtin_interfaces",
    "rcl_interfaces": "rcl_interfaces", "geometry_msgs": "geometry_msgs", "nav_msgs": "nav_msgs",
    "sensor_msgs": "sensor_msgs", "std_msgs": "std_msgs", "std_srvs": "std_srvs",
    "rosgraph_msgs": "rosgraph_msgs", "tf2_msgs": "tf2_msgs", "visualization_msgs": "visualization_msgs",
    "ackermann_msgs": "ackermann_msgs", "simulation_interfaces": "simulation_interfaces",
    "launch": "launch", "launch_ros": "launch_ros",
    "numpy": "python3-numpy", "numba": "python3-numba", "llvmlite": "python3-numba",
    "defusedxml": "python3-defusedxml", "PIL": "python3-pil", "yaml": "python3-yaml",
    "trimesh": "python3-trimesh-pip", "collada": "python3-collada",
    "aiohttp": "python3-aiohttp", "matplotlib": "python3-matplotlib",
    "Box2D": None, "moderngl": None, "glcontext": None, "playwright": None, "re2": None,
    "mcap": None, "mcap_ros2": None, "lz4": None, "zstandard": None, "gymnasium": None,
    "ray": None, "pyarrow": None, "plotly": None, "foxglove": None, "skrl": None,
}
#: Modules without a rosdep key -> the pip requirement setup.py must name.
PIP_ONLY = {"Box2D": "box2d", "moderngl": "moderngl", "glcontext": "glcontext", "playwright": "playwright",
            "re2": "google-re2", "mcap": "mcap", "mcap_ros2": "mcap-ros2-support", "lz4": "lz4",
            "zstandard": "zstandard", "gymnasium": "gymnasium", "ray": "ray", "pyarrow": "pyarrow", "plotly": "plotly",
            "foxglove": "foxglove-sdk", "skrl": "skrl"}

#: Keys verified to resolve with rosdep. Checked in ros/rosdistro (commit 8468e88c, 2026-08):
#: ROS packages in kilted/distribution.yaml; python3-* in rosdep/python.yaml; tmux in rosdep/base.yaml.
#: (rosdep/python.yaml has no key for Box2D for Python 3 - only the Python 2 `python-box2d` - nor for moderngl
#: or glcontext.)
ROS_PACKAGE_KEYS = {
    "rclpy", "ament_index_python", "builtin_interfaces", "rcl_interfaces", "geometry_msgs", "nav_msgs",
    "sensor_msgs", "std_msgs", "std_srvs", "rosgraph_msgs", "tf2_msgs", "visualization_msgs", "ackermann_msgs",
    "simulation_interfaces", "launch", "launch_ros", "rviz2",
}
SYSTEM_KEYS = {
    "python3-numpy", "python3-numba", "python3-defusedxml", "python3-pil", "python3-yaml", "python3-trimesh-pip",
    "python3-collada", "python3-aiohttp", "python3-matplotlib", "python3-pytest", "tmux",
}


def imported_modules(paths: list[Path]) -> dict[str, str]:
    """Top-level modules imported (absolute imports, anywhere in the file) -> first file importing it; the
    standard library and mvsim_ros itself left out."""
    found: dict[str, str] = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "mvsim_ros":
                    found.setdefault(top, str(path.relative_to(ROOT)))
    return found


def declared_keys() -> dict[str, set[str]]:
    """package.xml's dependency tags -> their keys."""
    root = ElementTree.parse(ROOT / "package.xml").getroot()
    keys: dict[str, set[str]] = {}
    for tag in ("depend", "exec_depend", "build_depend", "test_depend"):
        keys[tag] = {element.text.strip() for element in root.findall(tag)}
    return keys


def _runtime_keys() -> set[str]:
    keys = declared_keys()
    return keys["depend"] | keys["exec_depend"]


def test_every_import_of_the_package_and_launch_file_is_declared():
    sources = sorted((ROOT / "mvsim_ros").rglob("*.py")) + sorted((ROOT / "launch").glob("*.py"))
    modules = imported_modules(sources)
    unknown = {m: f for m, f in modules.items() if m not in MODULE_KEYS}
    assert not unknown, f"imports with no entry in MODULE_KEYS (add the dependency): {unknown}"
    runtime = _runtime_keys()
    missing = {m: MODULE_KEYS[m] for m in modules if MODULE_KEYS[m] is not None and MODULE_KEYS[m] not in runtime}
    assert not missing, f"imported but not an exec_depend of package.xml: {missing}"


def test_modules_without_a_rosdep_key_are_pip_requirements_of_setup_py():
    setup_text = (ROOT / "setup.py").read_text()
    for module, key in MODULE_KEYS.items():
        if key is None:
            assert f'"{PIP_ONLY[module]}"' in setup_text, f"{module}: no rosdep key, and not named in setup.py"


def test_every_declared_key_is_a_verified_rosdep_key():
    declared = set().union(*declared_keys().values())
    unverified = declared - ROS_PACKAGE_KEYS - SYSTEM_KEYS
    assert not unverified, f"package.xml keys not verified to resolve with rosdep: {sorted(unverified)}"


def test_rviz_is_a_runtime_dependency_and_tmux_a_test_one():
    assert "rviz2" in _runtime_keys()
    assert "tmux" in declared_keys()["test_depend"]


def test_setup_py_ships_rviz_configs_launch_files_and_the_teleop_script():
    setup_text = (ROOT / "setup.py").read_text()
    assert 'glob("rviz/*.rviz")' in setup_text and 'glob("launch/*.launch.py")' in setup_text
    assert '"mvsim_teleop = mvsim_ros.cli.teleop:main"' in setup_text
    assert sorted((ROOT / "rviz").glob("*.rviz")), "no rviz configuration to ship"
