"""launch/tracking.launch.py (with stand-ins for `launch` / `launch_ros`, which are not installable here) and
config/tracking.yaml: the nodes, their parameters and remappings."""

from __future__ import annotations

import ast

import pytest
import yaml

from conftest import REPO
from launch_support import load_launch_file
from mvsim_ros.tracking.nodes import dynamic_controller_node, kinematic_controller_node, tracker_node

LAUNCH_FILE = REPO / "launch" / "tracking.launch.py"
CONFIG = REPO / "config" / "tracking.yaml"
ARGUMENTS = {"world_file", "shape", "controller", "active", "epsilon", "ramp_time", "odom_topic", "params_file",
             "headless", "realtime_factor", "use_sim_time"}


def _nodes(monkeypatch, **overrides):
    entities = load_launch_file(monkeypatch, LAUNCH_FILE, "tracking_launch_under_test").generate_launch_description()
    declared = {e.args[0]: e.kwargs["default_value"] for e in entities if type(e).__name__ == "DeclareLaunchArgument"}
    assert set(declared) == ARGUMENTS
    (opaque,) = [e for e in entities if type(e).__name__ == "OpaqueFunction"]
    return {n.kwargs["name"]: n.kwargs for n in opaque.kwargs["function"]({**declared, **overrides})}


def test_launch_file_compiles_and_declares_its_arguments():
    tree = ast.parse(LAUNCH_FILE.read_text(), str(LAUNCH_FILE))
    compile(tree, str(LAUNCH_FILE), "exec")
    table = next(node.value for node in tree.body
                 if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "ARGUMENTS" for t in node.targets))
    assert {ast.literal_eval(row.elts[0]) for row in table.elts} == ARGUMENTS


def test_defaults_run_the_seed_car_with_the_tracker_and_the_kinematic_controller(monkeypatch):
    nodes = _nodes(monkeypatch)
    assert set(nodes) == {"mvsim", "trajectory_tracker", "car_kinematic_controller"}
    world = str(REPO / "worlds" / "seed002_car.world.xml")
    assert nodes["mvsim"]["parameters"] == [{"world_file": world, "headless": True, "realtime_factor": 1.0}]
    params_file, tracker = nodes["trajectory_tracker"]["parameters"]
    assert params_file == str(CONFIG)
    assert tracker == {"trajectory_type": "circle", "active": True, "PL_distance": 0.1, "ramp_time": 0.0,
                       "use_sim_time": True}
    controller = nodes["car_kinematic_controller"]
    assert controller["executable"] == "mvsim_car_kinematic_controller"
    assert controller["parameters"][1] == {"epsilon": 0.1, "world_file": world, "use_sim_time": True}
    for name in ("trajectory_tracker", "car_kinematic_controller"):
        assert nodes[name]["remappings"] == [("odom", "base_pose_ground_truth")]


def test_the_dynamic_controller_gets_p_along_the_velocity_of_the_centre_of_gravity(monkeypatch):
    nodes = _nodes(monkeypatch, controller="dynamic", shape="figure_eight", epsilon="0.3", odom_topic="odom")
    tracker = nodes["trajectory_tracker"]["parameters"][1]
    assert tracker["p_along_velocity"] is True and tracker["cog_offset"] == pytest.approx(0.1477, abs=1e-4)
    assert tracker["trajectory_type"] == "figure_eight" and tracker["PL_distance"] == 0.3
    assert nodes["car_dynamic_controller"]["executable"] == "mvsim_car_dynamic_controller"
    assert nodes["car_dynamic_controller"]["remappings"] == [("odom", "odom")]


@pytest.mark.parametrize("overrides, message", [
    ({"shape": "square"}, "shape:='square'"), ({"controller": "mpc"}, "controller:='mpc'"),
    ({"epsilon": "small"}, "epsilon:='small' is not a number"),
])
def test_bad_arguments_are_one_clear_error(monkeypatch, overrides, message):
    with pytest.raises(ValueError, match=message):
        _nodes(monkeypatch, **overrides)


def test_the_yaml_holds_only_parameters_the_nodes_declare_with_valid_values():
    config = yaml.safe_load(CONFIG.read_text())
    tables = {"trajectory_tracker": tracker_node.PARAMETERS,
              "car_kinematic_controller": kinematic_controller_node.PARAMETERS,
              "car_dynamic_controller": dynamic_controller_node.PARAMETERS}
    assert set(config) == set(tables)
    for node, values in config.items():
        params = values["ros__parameters"]
        assert set(params) <= set(tables[node]), node
        for name, value in params.items():
            spec = tables[node][name]
            assert type(value) is type(spec.default), (node, name)
            assert spec.check is None or spec.check(value) is None, (node, name)
    assert config["trajectory_tracker"]["ros__parameters"]["Kp"] == 5.0
