"""launch/nav2_demo.launch.py (with stand-ins for `launch` / `launch_ros`, not installable here): the simulator
with fake localization and simulated time, and Nav2's navigation bringup with the parameter file for the case."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from launch_support import OTHER_SHARE, load_launch_file
from mvsim_ros.ros.node.parameters import PARAMETERS

ROOT = Path(__file__).resolve().parent.parent
LAUNCH_FILE = ROOT / "launch" / "nav2_demo.launch.py"


def _real_launch_available() -> bool:
    try:
        return importlib.util.find_spec("launch.actions") is not None
    except ModuleNotFoundError:
        return False


pytestmark = pytest.mark.skipif(_real_launch_available(),
                                reason="the real launch/launch_ros are installed: stand-ins not needed")


def _actions(monkeypatch, **overrides):
    module = load_launch_file(monkeypatch, LAUNCH_FILE, "nav2_launch_under_test")
    entities = module.generate_launch_description()
    declared = {e.args[0]: e.kwargs["default_value"] for e in entities if type(e).__name__ == "DeclareLaunchArgument"}
    opaque = [e for e in entities if type(e).__name__ == "OpaqueFunction"]
    assert len(opaque) == 1
    simulator, navigation = opaque[0].kwargs["function"]({**declared, **overrides})
    source = navigation.args[0]
    return simulator.kwargs, source.args[0], dict(navigation.kwargs["launch_arguments"])


def test_one_robot_world_gets_the_single_robot_file_and_no_namespace(monkeypatch):
    simulator, included, arguments = _actions(monkeypatch)
    params = simulator["parameters"][1]
    assert params["world_file"] == str(ROOT / "worlds" / "office_yaml_map.world.xml")
    assert params["do_fake_localization"] is True and params["use_sim_time"] is True
    assert set(params) <= set(PARAMETERS) | {"use_sim_time"}
    assert included == f"{OTHER_SHARE}/nav2_bringup/launch/navigation_launch.py"
    assert arguments["namespace"] == ""
    assert arguments["use_sim_time"] == "true"
    assert arguments["params_file"] == str(ROOT / "config" / "nav2" / "nav2_single_robot.yaml")
    assert Path(arguments["params_file"]).is_file()


def test_a_namespace_picks_the_namespaced_file(monkeypatch):
    _, _, arguments = _actions(monkeypatch, world_file="worlds/demo_2robots.world.xml", namespace="/r1")
    assert arguments["namespace"] == "r1"
    assert arguments["params_file"] == str(ROOT / "config" / "nav2" / "nav2_namespaced_robot.yaml")
    assert Path(arguments["params_file"]).is_file()


def test_a_given_params_file_is_used(monkeypatch):
    _, _, arguments = _actions(monkeypatch, params_file="/tmp/mine.yaml", autostart="false")
    assert arguments["params_file"] == "/tmp/mine.yaml" and arguments["autostart"] == "false"
