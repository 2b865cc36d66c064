"""launch/demo.launch.py: MVSim's launch arguments, and the node parameters it passes (with stand-ins for
`launch` / `launch_ros`, which are not installable here)."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from launch_support import load_launch_file
from mvsim_ros.ros.node.parameters import PARAMETERS
from mvsim_ros.cli.rviz_config import SINGLE_TREE_PARAMETER

ROOT = Path(__file__).resolve().parent.parent
LAUNCH_FILE = ROOT / "launch" / "demo.launch.py"
#: The arguments of MVSim's launch/launch_world.launch.py (MVSim 1.x), each with MVSim's default, except use_rviz
#: (MVSim: true; here false, the browser viewer shows the world).
MVSIM_ARGUMENTS = {"world_file": None, "headless": "false", "do_fake_localization": "true",
                   "publish_tf_odom2baselink": "true", "force_publish_vehicle_namespace": "false",
                   "publish_log_topics": "false", "use_rviz": "false", "rviz_config_file": ""}
#: MVSim's arguments plus ours.
EXPECTED_ARGUMENTS = set(MVSIM_ARGUMENTS) | {"viewer_port", "realtime_factor", "use_sim_time", "record"}


def _real_launch_available() -> bool:
    try:
        return importlib.util.find_spec("launch.actions") is not None and \
            importlib.util.find_spec("launch_ros") is not None
    except ModuleNotFoundError:
        return False


def test_launch_file_compiles_and_declares_mvsim_arguments():
    tree = ast.parse(LAUNCH_FILE.read_text(), str(LAUNCH_FILE))
    compile(tree, str(LAUNCH_FILE), "exec")
    table = next(node.value for node in tree.body
                 if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "ARGUMENTS" for t in node.targets))
    names = {ast.literal_eval(row.elts[0]) for row in table.elts}
    assert names == EXPECTED_ARGUMENTS
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert "generate_launch_description" in functions


def _nodes(monkeypatch, **overrides):
    """The Node stand-ins the launch description yields with the given argument values."""
    module = load_launch_file(monkeypatch, LAUNCH_FILE, "demo_launch_under_test")
    entities = module.generate_launch_description()
    declared = {e.args[0]: e.kwargs["default_value"] for e in entities if type(e).__name__ == "DeclareLaunchArgument"}
    assert set(declared) == EXPECTED_ARGUMENTS
    context = {**declared, **overrides}
    opaque = [e for e in entities if type(e).__name__ == "OpaqueFunction"]
    assert len(opaque) == 1
    return {n.kwargs["executable"]: n for n in opaque[0].kwargs["function"](context)}


skip_if_real_launch = pytest.mark.skipif(_real_launch_available(),
                                         reason="the real launch/launch_ros are installed: stand-ins not needed")


@skip_if_real_launch
def test_defaults_start_the_simulator_on_the_demo_world_without_rviz(monkeypatch):
    nodes = _nodes(monkeypatch)
    assert set(nodes) == {"mvsim_node"}
    params = nodes["mvsim_node"].kwargs["parameters"][1]
    assert params == {"world_file": str(ROOT / "worlds" / "demo_2robots.world.xml"), "headless": False,
                      "viewer_port": 8090, "do_fake_localization": True, "realtime_factor": 1.0, "use_sim_time": True,
                      "publish_tf_odom2baselink": True, "force_publish_vehicle_namespace": False,
                      "publish_log_topics": False}
    assert nodes["mvsim_node"].kwargs["parameters"][0] == str(ROOT / "config" / "demo.yaml")


@skip_if_real_launch
def test_rviz_on_a_multi_robot_world_uses_its_config_and_the_single_tf_tree(monkeypatch):
    nodes = _nodes(monkeypatch, use_rviz="True", realtime_factor="2", do_fake_localization="false")
    params = nodes["mvsim_node"].kwargs["parameters"][1]
    assert params[SINGLE_TREE_PARAMETER] is True
    assert params["realtime_factor"] == 2.0 and params["do_fake_localization"] is False
    rviz = nodes["rviz2"].kwargs
    assert rviz["package"] == "rviz2"
    assert rviz["arguments"] == ["-d", str(ROOT / "rviz" / "demo_2robots.rviz")]
    assert rviz["parameters"] == [{"use_sim_time": True}]


@skip_if_real_launch
def test_rviz_on_a_single_robot_world_keeps_per_vehicle_tf_and_takes_a_given_config(monkeypatch):
    world = str(ROOT / "worlds" / "office_yaml_map.world.xml")
    nodes = _nodes(monkeypatch, use_rviz="true", world_file=world, rviz_config_file="/tmp/mine.rviz")
    assert SINGLE_TREE_PARAMETER not in nodes["mvsim_node"].kwargs["parameters"][1]
    assert nodes["rviz2"].kwargs["arguments"] == ["-d", "/tmp/mine.rviz"]


@skip_if_real_launch
def test_a_world_without_a_shipped_config_gets_a_generated_one(monkeypatch):
    world = str(ROOT / "test" / "worlds" / "all_sensors.world.xml")
    nodes = _nodes(monkeypatch, use_rviz="true", world_file=world)
    config = Path(nodes["rviz2"].kwargs["arguments"][1])
    try:
        assert "/s1/rgbd_points" in config.read_text()
    finally:
        config.unlink()


@skip_if_real_launch
def test_a_bad_realtime_factor_is_one_clear_error(monkeypatch):
    with pytest.raises(ValueError, match="realtime_factor:='fast' is not a number"):
        _nodes(monkeypatch, realtime_factor="fast")


def test_mvsim_arguments_keep_mvsim_defaults_and_come_first():
    tree = ast.parse(LAUNCH_FILE.read_text(), str(LAUNCH_FILE))
    table = next(node.value for node in tree.body
                 if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "ARGUMENTS" for t in node.targets))
    rows = [ast.literal_eval(row) for row in table.elts]
    assert [name for name, _, _ in rows[:len(MVSIM_ARGUMENTS)]] == list(MVSIM_ARGUMENTS)
    for name, default, _ in rows[:len(MVSIM_ARGUMENTS)]:
        assert default == MVSIM_ARGUMENTS[name], name


@skip_if_real_launch
def test_mvsim_switches_reach_the_node_as_its_parameters(monkeypatch):
    nodes = _nodes(monkeypatch, publish_tf_odom2baselink="False", force_publish_vehicle_namespace="True",
                   publish_log_topics="true", headless="True")
    params = nodes["mvsim_node"].kwargs["parameters"][1]
    assert params["publish_tf_odom2baselink"] is False
    assert params["force_publish_vehicle_namespace"] is True
    assert params["publish_log_topics"] is True
    assert params["headless"] is True
    assert set(params) - {"use_sim_time"} <= set(PARAMETERS)  # every parameter passed is one the node knows


@skip_if_real_launch
def test_record_reaches_the_node_as_an_absolute_path(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    params = _nodes(monkeypatch, record="runs/run.mcap")["mvsim_node"].kwargs["parameters"][1]
    assert params["record"] == str(tmp_path / "runs" / "run.mcap")  # the node's working directory may differ
    assert "record" in PARAMETERS
