"""launch/nav2_demo.launch.py and launch/nav2_two_robots.launch.py (with stand-ins for `launch` / `launch_ros`, not
installable here): the simulator, Nav2's servers pushed into the robot's namespace with /tf remapped, the
parameters Nav2 gets, the saved map for AMCL, rviz2's configuration, and the two-robot file's includes."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import numpy as np
import pytest
import yaml

from launch_support import load_launch_file
from mvsim_ros.ros.node.parameters import PARAMETERS
from mvsim_ros.ros.publishing.map_publisher import occupancy_values
from mvsim_ros.world import load_world

ROOT = Path(__file__).resolve().parent.parent
LAUNCH_FILE = ROOT / "launch" / "nav2_demo.launch.py"
TWO_ROBOTS_FILE = ROOT / "launch" / "nav2_two_robots.launch.py"
TWO_ROBOT_WORLD = "worlds/demo_2robots.world.xml"
#: The Nav2 nodes the launch file starts: (package, executable) as nav2_bringup's navigation_launch.py and
#: localization_launch.py name them on jazzy, kilted and main.
NAV2_EXECUTABLES = {
    "controller_server": ("nav2_controller", "controller_server"),
    "smoother_server": ("nav2_smoother", "smoother_server"),
    "planner_server": ("nav2_planner", "planner_server"),
    "behavior_server": ("nav2_behaviors", "behavior_server"),
    "velocity_smoother": ("nav2_velocity_smoother", "velocity_smoother"),
    "collision_monitor": ("nav2_collision_monitor", "collision_monitor"),
    "bt_navigator": ("nav2_bt_navigator", "bt_navigator"),
    "waypoint_follower": ("nav2_waypoint_follower", "waypoint_follower"),
    "lifecycle_manager_navigation": ("nav2_lifecycle_manager", "lifecycle_manager"),
}
LOCALIZATION_EXECUTABLES = {
    "map_server": ("nav2_map_server", "map_server"),
    "amcl": ("nav2_amcl", "amcl"),
    "lifecycle_manager_localization": ("nav2_lifecycle_manager", "lifecycle_manager"),
}
#: Every argument of nav2_demo.launch.py (docs/nav2.md lists them).
ARGUMENT_NAMES = {"world_file", "namespace", "params_file", "localization", "cmd_vel_stamped", "use_rviz",
                  "rviz_config", "start_simulator", "headless", "viewer_port", "realtime_factor", "autostart",
                  "log_level"}


#: The last commit with the Nav2 files that relied on relative costmap topics and pushed no namespace (the
#: negative cases read them from git history).
OLD_NAV2_COMMIT = "4543dd4"


def _real_launch_available() -> bool:
    try:
        return importlib.util.find_spec("launch.actions") is not None
    except ModuleNotFoundError:
        return False


pytestmark = pytest.mark.skipif(_real_launch_available(),
                                reason="the real launch/launch_ros are installed: stand-ins not needed")


def _declared(entities) -> dict:
    return {e.args[0]: e.kwargs["default_value"] for e in entities if type(e).__name__ == "DeclareLaunchArgument"}


def _run(monkeypatch, path=LAUNCH_FILE, **overrides):
    module = load_launch_file(monkeypatch, path, "nav2_launch_under_test")
    entities = module.generate_launch_description()
    opaque = [e for e in entities if type(e).__name__ == "OpaqueFunction"]
    assert len(opaque) == 1
    return module, opaque[0].kwargs["function"]({**_declared(entities), **overrides})


def _launch(monkeypatch, **overrides):
    """(simulator Node or None, the pushed namespace or None, Nav2's nodes by name) of nav2_demo.launch.py."""
    _, actions = _run(monkeypatch, **overrides)
    simulators = [a for a in actions if type(a).__name__ == "Node"]
    groups = [a for a in actions if type(a).__name__ == "GroupAction"]
    assert len(groups) == 1 and len(simulators) <= 1
    inner = groups[0].kwargs["actions"]
    pushes = [a for a in inner if type(a).__name__ == "PushROSNamespace"]
    assert pushes in ([], inner[:1]), "the namespace is pushed before the nodes"
    nodes = {n.kwargs["name"]: n.kwargs for n in inner if type(n).__name__ == "Node"}
    return (simulators[0].kwargs if simulators else None), (pushes[0].kwargs["namespace"] if pushes else None), nodes


def _params(node: dict) -> dict:
    """The parameter tree written for Nav2 (the first entry of a Nav2 node's parameters)."""
    return yaml.safe_load(Path(node["parameters"][0]).read_text(encoding="utf-8"))


def test_arguments_are_the_documented_ones(monkeypatch):
    module = load_launch_file(monkeypatch, LAUNCH_FILE, "nav2_launch_under_test")
    assert set(_declared(module.generate_launch_description())) == ARGUMENT_NAMES
    docs = (ROOT / "docs" / "nav2.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in docs for name in ARGUMENT_NAMES), "docs/nav2.md names every argument"
    assert "use_namespace" not in docs


def test_one_robot_world_runs_nav2_at_the_root_with_absolute_costmap_topics(monkeypatch):
    simulator, pushed, nodes = _launch(monkeypatch)
    params = simulator["parameters"][1]
    assert params["world_file"] == str(ROOT / "worlds" / "office_yaml_map.world.xml")
    assert params["do_fake_localization"] is True and params["use_sim_time"] is True
    assert set(params) <= set(PARAMETERS) | {"use_sim_time"}
    assert pushed is None
    assert {name: (n["package"], n["executable"]) for name, n in nodes.items()} == NAV2_EXECUTABLES
    assert all(("/tf", "tf") not in n.get("remappings", []) for n in nodes.values())
    tree = _params(nodes["controller_server"])
    local = tree["local_costmap"]["local_costmap"]["ros__parameters"]
    assert local["obstacle_layer"]["scan"]["topic"] == "/scan"
    assert tree["global_costmap"]["global_costmap"]["ros__parameters"]["static_layer"]["map_topic"] == "/simul_map"
    manager = nodes["lifecycle_manager_navigation"]["parameters"][0]
    assert manager["node_names"] == [n for n in NAV2_EXECUTABLES if not n.startswith("lifecycle")]


def test_a_namespace_is_pushed_tf_remapped_and_parameters_written_under_it(monkeypatch):
    simulator, pushed, nodes = _launch(monkeypatch, world_file=TWO_ROBOT_WORLD, namespace="/r1")
    assert pushed == "r1"
    for name, node in nodes.items():
        if name.startswith("lifecycle"):
            continue
        assert {("/tf", "tf"), ("/tf_static", "tf_static")} <= set(node["remappings"]), name
    for name in ("controller_server", "behavior_server", "velocity_smoother"):
        assert ("cmd_vel", "cmd_vel_nav") in nodes[name]["remappings"], name
    assert ("cmd_vel", "cmd_vel_nav") not in nodes["collision_monitor"]["remappings"]
    tree = _params(nodes["bt_navigator"])
    assert list(tree) == ["r1"], "the parameters sit under the namespace, where /r1/<node> finds them"
    text = Path(nodes["bt_navigator"]["parameters"][0]).read_text(encoding="utf-8")
    assert "<robot_namespace>" not in text
    local = tree["r1"]["local_costmap"]["local_costmap"]["ros__parameters"]
    assert local["obstacle_layer"]["scan"]["topic"] == "/r1/scan"
    assert simulator["parameters"][1]["world_file"].endswith(TWO_ROBOT_WORLD)


@pytest.mark.parametrize("word, stamped", [("true", True), ("false", False), ("False", False), ("1", True)])
def test_cmd_vel_stamped_is_written_into_every_velocity_server(monkeypatch, word, stamped):
    _, _, nodes = _launch(monkeypatch, cmd_vel_stamped=word)
    tree = _params(nodes["controller_server"])
    for name in ("controller_server", "behavior_server", "velocity_smoother", "collision_monitor", "docking_server"):
        assert tree[name]["ros__parameters"]["enable_stamped_cmd_vel"] is stamped, name


def test_wrong_arguments_are_refused_with_their_names(monkeypatch):
    with pytest.raises(ValueError, match="cmd_vel_stamped"):
        _launch(monkeypatch, cmd_vel_stamped="maybe")
    with pytest.raises(ValueError, match="localization"):
        _launch(monkeypatch, localization="slam")
    with pytest.raises(ValueError, match="r3 is no vehicle"):
        _launch(monkeypatch, world_file=TWO_ROBOT_WORLD, namespace="r3")
    with pytest.raises(ValueError, match="namespace:=<name>"):
        _launch(monkeypatch, world_file=TWO_ROBOT_WORLD)


def map_server_cells(yaml_path: Path) -> tuple[np.ndarray, dict]:
    """What Nav2's map_server publishes for a map YAML in mode "raw" (nav2_map_server/src/map_io.cpp,
    loadMapFromFile): each gray pixel's value is the occupancy, values outside 0..100 unknown (-1), the image
    flipped vertically (the message's first row is the image's bottom row)."""
    meta = yaml.safe_load(yaml_path.read_text(encoding="utf-8"))
    assert meta["mode"] == "raw"
    data = (yaml_path.parent / meta["image"]).read_bytes()
    magic, size, maxval, pixels = data.split(b"\n", 3)
    assert magic == b"P5" and maxval == b"255"
    cols, rows = (int(v) for v in size.split())
    gray = np.frombuffer(pixels, dtype=np.uint8).reshape(rows, cols)
    cells = gray.astype(np.int8).astype(np.int16)
    cells = np.where((cells < 0) | (cells > 100), -1, cells)
    return cells[::-1], meta


@pytest.mark.parametrize("world", ["worlds/office_yaml_map.world.xml", TWO_ROBOT_WORLD])
def test_amcl_gets_map_server_on_the_worlds_grid_and_the_simulator_stops_its_localization(monkeypatch, world):
    namespace = "r2" if world == TWO_ROBOT_WORLD else ""
    simulator, _, nodes = _launch(monkeypatch, world_file=world, namespace=namespace, localization="amcl")
    assert simulator["parameters"][1]["do_fake_localization"] is False
    assert {n: (nodes[n]["package"], nodes[n]["executable"]) for n in LOCALIZATION_EXECUTABLES} == \
        LOCALIZATION_EXECUTABLES
    assert nodes["lifecycle_manager_localization"]["parameters"][0]["node_names"] == ["map_server", "amcl"]
    tree = _params(nodes["amcl"])
    if namespace:
        tree = tree[namespace]
    prefix = f"/{namespace}" if namespace else ""
    static = tree["global_costmap"]["global_costmap"]["ros__parameters"]["static_layer"]
    assert static["map_topic"] == f"{prefix}/map" and static["map_subscribe_transient_local"] is True
    spec = load_world(str(ROOT / world))
    vehicle = next(v for v in spec.vehicles if v.name == namespace) if namespace else spec.vehicles[0]
    amcl = tree["amcl"]["ros__parameters"]
    assert amcl["set_initial_pose"] is True
    assert (amcl["initial_pose"]["x"], amcl["initial_pose"]["y"], amcl["initial_pose"]["yaw"]) == \
        pytest.approx((vehicle.init_pose.x, vehicle.init_pose.y, vehicle.init_pose.yaw))
    cells, meta = map_server_cells(Path(tree["map_server"]["ros__parameters"]["yaml_filename"]))
    grid = spec.occupancy_grids[0]
    np.testing.assert_array_equal(cells, occupancy_values(grid).astype(np.int16))
    assert meta["resolution"] == pytest.approx(grid.resolution)
    assert meta["origin"] == pytest.approx([grid.x_min, grid.y_min, 0.0])


def test_unknown_and_partial_cells_survive_the_saved_map(monkeypatch, tmp_path):
    module = load_launch_file(monkeypatch, LAUNCH_FILE, "nav2_launch_under_test")
    spec = load_world(str(ROOT / "worlds" / "office_yaml_map.world.xml")).occupancy_grids[0]
    values = np.array([[-1, 0, 37], [100, 65, -1]], dtype=np.int8)
    grid = type(spec)(**{**spec.__dict__, "occupancy": values, "occupied": values > 50})
    cells, _ = map_server_cells(Path(module.save_map(grid, str(tmp_path))))
    np.testing.assert_array_equal(cells, values.astype(np.int16))


def test_rviz_runs_in_the_namespace_with_the_robots_topics(monkeypatch):
    _, _, nodes = _launch(monkeypatch, world_file=TWO_ROBOT_WORLD, namespace="r1", use_rviz="true")
    rviz = nodes["rviz2"]
    assert (rviz["package"], rviz["executable"]) == ("rviz2", "rviz2")
    assert {("/tf", "tf"), ("/tf_static", "tf_static")} <= set(rviz["remappings"])
    config = yaml.safe_load(Path(rviz["arguments"][1]).read_text(encoding="utf-8"))
    manager = config["Visualization Manager"]
    topics = {d["Topic"]["Value"]: d["Class"] for d in manager["Displays"] if "Topic" in d}
    assert topics == {
        "/simul_map": "rviz_default_plugins/Map", "/r1/map": "rviz_default_plugins/Map",
        "/r1/global_costmap/costmap": "rviz_default_plugins/Map",
        "/r1/local_costmap/costmap": "rviz_default_plugins/Map",
        "/r1/plan": "rviz_default_plugins/Path", "/r1/local_plan": "rviz_default_plugins/Path",
        "/r1/local_costmap/published_footprint": "rviz_default_plugins/Polygon",
        "/r1/global_costmap/published_footprint": "rviz_default_plugins/Polygon",
        "/r1/scan": "rviz_default_plugins/LaserScan", "/r1/chassis_markers": "rviz_default_plugins/MarkerArray",
        "/r1/particle_cloud": "nav2_rviz_plugins/ParticleCloud"}
    tools = {t["Class"]: t.get("Topic", {}).get("Value") for t in manager["Tools"]}
    assert tools["rviz_default_plugins/SetInitialPose"] == "/r1/initialpose"
    assert tools["rviz_default_plugins/SetGoal"] == "/r1/goal_pose"
    assert "nav2_rviz_plugins/GoalTool" in tools
    assert "nav2_rviz_plugins/Navigation 2" in [p["Class"] for p in config["Panels"]]
    _, _, single = _launch(monkeypatch, use_rviz="true")
    text = Path(single["rviz2"]["arguments"][1]).read_text(encoding="utf-8")
    assert "Value: /scan" in text and "<robot_namespace>" not in text
    assert single["rviz2"]["remappings"] == []


def test_start_simulator_false_starts_only_nav2(monkeypatch):
    simulator, _, nodes = _launch(monkeypatch, world_file=TWO_ROBOT_WORLD, namespace="r2", start_simulator="false")
    assert simulator is None and "controller_server" in nodes


def test_a_given_params_file_is_used(monkeypatch, tmp_path):
    mine = tmp_path / "mine.yaml"
    mine.write_text("controller_server:\n  ros__parameters:\n    odom_topic: <robot_namespace>/odometry\n")
    _, _, nodes = _launch(monkeypatch, params_file=str(mine), autostart="false")
    tree = _params(nodes["controller_server"])
    assert tree["controller_server"]["ros__parameters"]["odom_topic"] == "/odometry"
    assert nodes["lifecycle_manager_navigation"]["parameters"][0]["autostart"] is False


def test_two_robot_example_includes_one_nav2_per_robot_with_declared_arguments(monkeypatch):
    demo = load_launch_file(monkeypatch, LAUNCH_FILE, "nav2_launch_under_test")
    accepted = set(_declared(demo.generate_launch_description()))
    module, actions = _run(monkeypatch, TWO_ROBOTS_FILE)
    simulators = [a for a in actions if type(a).__name__ == "Node"]
    assert len(simulators) == 1
    assert simulators[0].kwargs["parameters"][1]["world_file"].endswith(TWO_ROBOT_WORLD)
    includes = [g.kwargs["actions"][0] for g in actions if type(g).__name__ == "GroupAction"]
    assert len(includes) == 2
    namespaces = []
    for include in includes:
        assert include.args[0].args[0] == str(LAUNCH_FILE)
        arguments = dict(include.kwargs["launch_arguments"])
        assert set(arguments) <= accepted, set(arguments) - accepted
        assert arguments["start_simulator"] == "false"
        namespaces.append(arguments["namespace"])
    assert namespaces == ["r1", "r2"]
    _, actions = _run(monkeypatch, TWO_ROBOTS_FILE, robots="r2", localization="amcl")
    assert actions[0].kwargs["parameters"][1]["do_fake_localization"] is False
    assert [dict(g.kwargs["actions"][0].kwargs["launch_arguments"])["namespace"] for g in actions[1:]] == ["r2"]
    with pytest.raises(ValueError, match="r9"):
        _run(monkeypatch, TWO_ROBOTS_FILE, robots="r1,r9")


def test_each_included_robot_gets_its_own_nav2(monkeypatch):
    """What the two includes resolve to: Nav2 in /r1 and /r2, each with parameters under its own namespace."""
    seen = {}
    for robot in ("r1", "r2"):
        _, pushed, nodes = _launch(monkeypatch, world_file=TWO_ROBOT_WORLD, namespace=robot, start_simulator="false")
        seen[pushed] = _params(nodes["controller_server"])
    assert set(seen) == {"r1", "r2"} and list(seen["r1"]) == ["r1"] and list(seen["r2"]) == ["r2"]
    assert seen["r2"]["r2"]["global_costmap"]["global_costmap"]["ros__parameters"]["obstacle_layer"]["scan"][
        "topic"] == "/r2/scan"


def test_old_launch_file_did_not_push_the_namespace(monkeypatch, tmp_path):
    """The negative case for the launch: the file as it was (OLD_NAV2_COMMIT) included nav2_bringup's
    navigation_launch.py with namespace:=r1 and pushed nothing; on Jazzy and Kilted that file does not push it
    either, so the nodes start at the root (test/ros/test_nav2_config_dds.py shows what they then miss)."""
    shown = subprocess.run(["git", "show", f"{OLD_NAV2_COMMIT}:launch/nav2_demo.launch.py"], cwd=ROOT,
                           capture_output=True, text=True)
    if shown.returncode != 0:
        pytest.skip("no git history here")
    assert "navigation_launch.py" in shown.stdout
    old = tmp_path / "old_nav2_demo.launch.py"
    old.write_text(shown.stdout, encoding="utf-8")
    _, actions = _run(monkeypatch, old, world_file=TWO_ROBOT_WORLD, namespace="r1")
    assert not any(type(a).__name__ in ("PushROSNamespace", "GroupAction") for a in actions)
    include = next(a for a in actions if type(a).__name__ == "IncludeLaunchDescription")
    assert dict(include.kwargs["launch_arguments"])["namespace"] == "r1"
