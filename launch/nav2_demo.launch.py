"""Run the simulator with Nav2's navigation servers (for users who have Nav2 installed: Jazzy, Kilted or later).

    ros2 launch mvsim_ros nav2_demo.launch.py                      # one robot: worlds/office_yaml_map.world.xml
    ros2 launch mvsim_ros nav2_demo.launch.py world_file:=worlds/demo_2robots.world.xml namespace:=r1
    ros2 launch mvsim_ros nav2_demo.launch.py use_rviz:=true localization:=amcl
    ros2 launch mvsim_ros nav2_two_robots.launch.py                # r1 and r2, each with its own Nav2

Starts `mvsim_node` on the world (simulated time) and Nav2's servers (controller, smoother, planner, behavior,
velocity smoother, collision monitor, BT navigator, waypoint follower and their lifecycle manager) in the robot's
namespace. The launch file starts these nodes itself, the same way on every distro, instead of including
nav2_bringup's navigation_launch.py: on Jazzy and Kilted that file does not push its `namespace` onto the nodes
(only bringup_launch.py and, on Rolling, navigation_launch.py do), so a namespaced robot would get nodes at the root
and parameters under /<namespace>/ that never reach them.

What it does with the namespace (empty: a world with one vehicle; else the vehicle's name in the world):
- pushes it onto every Nav2 node (and rviz2), and remaps /tf and /tf_static to <namespace>/tf, <namespace>/tf_static,
  where the simulator publishes each vehicle's TF tree;
- replaces `<robot_namespace>` in the parameter file with "/<namespace>" (empty without one) and writes the
  parameters under the namespace, so /<namespace>/controller_server etc. get them.

Localization: `localization:=simulator` (default) runs the simulator's fake localization (the true map -> odom);
`localization:=amcl` turns it off, saves the world's occupancy grid at start (map_server's YAML + PGM, "raw" mode:
the same cells as `simul_map`) and runs Nav2's map_server and AMCL on it, AMCL starting at the vehicle's pose from the
world file; the global costmap then takes its map from map_server (<namespace>/map).

Commands: `cmd_vel_stamped` (default true) writes enable_stamped_cmd_vel into every server that sends or takes
velocity commands, so the choice of Twist or TwistStamped does not depend on the distro's default (Jazzy: false,
Kilted and later: true). The simulator takes both.

Arguments: world_file, namespace, params_file (empty: config/nav2/nav2_single_robot.yaml without a namespace,
config/nav2/nav2_namespaced_robot.yaml with one), localization (simulator | amcl), cmd_vel_stamped, use_rviz,
rviz_config (empty: rviz/nav2.rviz), start_simulator (false: Nav2 only, for a simulator already running, as
nav2_two_robots.launch.py does), headless, viewer_port, realtime_factor, autostart, log_level.
"""

from __future__ import annotations

import os
import tempfile

import yaml
from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, GroupAction, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node, PushROSNamespace

PACKAGE = "mvsim_ros"
TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off")
#: Parameter files in config/nav2/: without a namespace, with one.
SINGLE_ROBOT_PARAMS = "nav2_single_robot.yaml"
NAMESPACED_PARAMS = "nav2_namespaced_robot.yaml"
#: The rviz2 configuration in rviz/ (its topics are written with NAMESPACE_PLACEHOLDER).
RVIZ_CONFIG = "nav2.rviz"
#: Stands for "/" + the namespace in the parameter file and the rviz2 configuration (nav2_bringup's keyword).
NAMESPACE_PLACEHOLDER = "<robot_namespace>"
LOCALIZATIONS = ("simulator", "amcl")

#: Nav2's navigation servers: (package, executable, node name, remap cmd_vel -> cmd_vel_nav). The remaps are
#: nav2_bringup's: the controller's and the behaviors' commands go through the velocity smoother
#: (cmd_vel_nav -> cmd_vel_smoothed) and the collision monitor (cmd_vel_smoothed -> cmd_vel).
NAV2_SERVERS = (
    ("nav2_controller", "controller_server", "controller_server", True),
    ("nav2_smoother", "smoother_server", "smoother_server", False),
    ("nav2_planner", "planner_server", "planner_server", False),
    ("nav2_behaviors", "behavior_server", "behavior_server", True),
    ("nav2_velocity_smoother", "velocity_smoother", "velocity_smoother", True),
    ("nav2_collision_monitor", "collision_monitor", "collision_monitor", False),
    ("nav2_bt_navigator", "bt_navigator", "bt_navigator", False),
    ("nav2_waypoint_follower", "waypoint_follower", "waypoint_follower", False),
)
#: localization:=amcl: (package, executable, node name).
LOCALIZATION_NODES = (("nav2_map_server", "map_server", "map_server"), ("nav2_amcl", "amcl", "amcl"))
#: Nodes whose velocity publishers and subscriptions read enable_stamped_cmd_vel (nav2_util's TwistPublisher and
#: TwistSubscriber); docking_server is not started here but gets it too, for users of nav2_bringup.
STAMPED_NODES = ("controller_server", "behavior_server", "velocity_smoother", "collision_monitor", "docking_server")
STATIC_LAYER = "nav2_costmap_2d::StaticLayer"

#: (name, default, description) of every launch argument.
ARGUMENTS = (
    ("world_file", None, "MVSim world XML file to simulate (default: worlds/office_yaml_map.world.xml)"),
    ("namespace", "", "the vehicle to navigate, by name, in a multi-robot world (Nav2 runs in that namespace); "
                      "empty for a world with one vehicle"),
    ("params_file", "", "Nav2 parameter file (empty: the config/nav2/ file for the case); <robot_namespace> in it "
                        "is replaced by /<namespace>"),
    ("localization", "simulator", "simulator: the simulator's true map -> odom; amcl: map_server on the world's "
                                  "occupancy grid and AMCL, the simulator's fake localization off"),
    ("cmd_vel_stamped", "true", "true: Nav2 sends geometry_msgs/TwistStamped; false: Twist (written into every "
                                "server as enable_stamped_cmd_vel, whatever the distro's default)"),
    ("use_rviz", "false", "true: start rviz2 with the Nav2 configuration, in the robot's namespace"),
    ("rviz_config", "", "rviz2 configuration (empty: rviz/nav2.rviz); <robot_namespace> in it is replaced"),
    ("start_simulator", "true", "false: start only Nav2 (and rviz2), for a simulator that is already running"),
    ("headless", "false", "true: no viewer; false: serve the live 3D viewer at http://127.0.0.1:<viewer_port>/"),
    ("viewer_port", "8090", "TCP port of the viewer (0 = any free port, printed at start)"),
    ("realtime_factor", "1.0", "simulated s per wall s: 1 = real time"),
    ("autostart", "true", "bring Nav2's lifecycle nodes up at once"),
    ("log_level", "info", "log level of the Nav2 nodes"),
)


def is_true(text: str, name: str = "") -> bool:
    """A launch argument's text as a boolean (ROS's spellings: true/false, 1/0, yes/no, on/off)."""
    word = text.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS or not name:
        return False
    raise ValueError(f"launch argument {name}:={text!r} is not a boolean (true or false)")


def number(text: str, name: str) -> float:
    """A numeric launch argument, or ValueError naming it."""
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"launch argument {name}:={text!r} is not a number") from None


def nav2_params_file(namespace: str, given: str, share: str) -> str:
    """The Nav2 parameter file: `given` when not empty, else the shipped one for a namespaced or a single robot."""
    if given:
        return given
    name = NAMESPACED_PARAMS if namespace.strip("/") else SINGLE_ROBOT_PARAMS
    return os.path.join(share, "config", "nav2", name)


def namespace_prefix(namespace: str) -> str:
    """What NAMESPACE_PLACEHOLDER stands for: "/r1" in namespace r1, "" without one."""
    namespace = namespace.strip("/")
    return f"/{namespace}" if namespace else ""


def check_namespace(namespace: str, vehicles: list[str]) -> str | None:
    """Why Nav2 in `namespace` cannot drive a vehicle of a world with `vehicles`, or None. The simulator puts a
    vehicle's topics under <veh>/ only when the world has several vehicles (or force_publish_vehicle_namespace)."""
    namespace = namespace.strip("/")
    if not namespace and len(vehicles) > 1:
        return (f"the world has {len(vehicles)} vehicles ({', '.join(vehicles)}): choose one with "
                f"namespace:=<name>, or run nav2_two_robots.launch.py")
    if namespace and namespace not in vehicles:
        return f"namespace:={namespace} is no vehicle of the world (vehicles: {', '.join(vehicles)})"
    return None


def _sections(tree: dict, path: tuple = ()):
    """(node path, ros__parameters) of every node in a Nav2 parameter tree (costmaps are nested one level)."""
    for key, value in tree.items():
        if not isinstance(value, dict):
            continue
        if "ros__parameters" in value:
            yield path + (key,), value["ros__parameters"]
        else:
            yield from _sections(value, path + (key,))


def nav2_parameters(text: str, namespace: str, localization: str, stamped: bool, map_yaml: str = "",
                    initial_pose: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> dict:
    """The parameter tree Nav2's nodes get, from a parameter file's `text`: NAMESPACE_PLACEHOLDER replaced,
    use_sim_time on every node, enable_stamped_cmd_vel = `stamped` on STAMPED_NODES; with localization amcl, the
    static layers' map_topic on map_server's <namespace>/map, map_server's yaml_filename = `map_yaml` and AMCL's
    initial pose (x [m], y [m], yaw [rad]); all of it under the namespace's keys (/r1/controller_server ...)."""
    tree = yaml.safe_load(text.replace(NAMESPACE_PLACEHOLDER, namespace_prefix(namespace))) or {}
    for node_path, params in _sections(tree):
        params["use_sim_time"] = True
        if node_path[-1] in STAMPED_NODES:
            params["enable_stamped_cmd_vel"] = stamped
        if localization != "amcl":
            continue
        for layer in params.values():
            if isinstance(layer, dict) and layer.get("plugin") == STATIC_LAYER:
                layer["map_topic"] = namespace_prefix(namespace) + "/map"
                layer["map_subscribe_transient_local"] = True
        if node_path[-1] == "map_server":
            params["yaml_filename"] = map_yaml
        if node_path[-1] == "amcl":
            x, y, yaw = initial_pose
            params["set_initial_pose"] = True
            params["initial_pose"] = {"x": float(x), "y": float(y), "z": 0.0, "yaw": float(yaw)}
    for part in reversed([p for p in namespace.strip("/").split("/") if p]):
        tree = {part: tree}
    return tree


def pgm_bytes(cells) -> bytes:
    """An 8-bit binary PGM of occupancy values (rows from the south, nav_msgs/OccupancyGrid's order): each pixel is
    the cell's value 0..100, unknown (-1) as 255, the image's top row the northmost cells."""
    import numpy as np

    values = np.asarray(cells, dtype=np.int16)
    pixels = np.where((values < 0) | (values > 100), 255, values).astype(np.uint8)[::-1]
    rows, cols = pixels.shape
    return f"P5\n{cols} {rows}\n255\n".encode("ascii") + pixels.tobytes()


def save_map(grid, folder: str, name: str = "map") -> str:
    """Write an occupancy grid (mvsim_ros.world's OccupancyGridSpec) as map_server's YAML + PGM in `folder`;
    returns the YAML's path. Mode "raw": map_server publishes each pixel's value as the cell's occupancy (255:
    unknown), so its map has the same cells as the simulator's `simul_map`."""
    from mvsim_ros.ros.publishing.map_publisher import occupancy_values

    image = os.path.join(folder, f"{name}.pgm")
    with open(image, "wb") as f:
        f.write(pgm_bytes(occupancy_values(grid)))
    meta = {"image": f"{name}.pgm", "mode": "raw", "resolution": float(grid.resolution),
            "origin": [float(grid.x_min), float(grid.y_min), 0.0], "negate": 0,
            "occupied_thresh": 0.65, "free_thresh": 0.25}
    path = os.path.join(folder, f"{name}.yaml")
    with open(path, "w", encoding="utf-8") as f:
        yaml.safe_dump(meta, f, sort_keys=False)
    return path


def rviz_config_text(text: str, namespace: str) -> str:
    """The rviz2 configuration with NAMESPACE_PLACEHOLDER replaced (absolute topics of the robot's namespace)."""
    return text.replace(NAMESPACE_PLACEHOLDER, namespace_prefix(namespace))


def tf_remappings(namespace: str) -> list[tuple[str, str]]:
    """/tf and /tf_static to the namespace's own (where the simulator publishes each vehicle's tree)."""
    return [("/tf", "tf"), ("/tf_static", "tf_static")] if namespace.strip("/") else []


def nav2_nodes(namespace: str, params_file: str, localization: str, autostart: bool, log_level: str,
               rviz_config: str | None) -> list:
    """Nav2's nodes (and rviz2 when `rviz_config` is given), to run in the pushed namespace."""
    remaps = tf_remappings(namespace)
    common = {"output": "screen", "parameters": [params_file, {"use_sim_time": True}],
              "arguments": ["--ros-args", "--log-level", log_level]}
    nodes = []
    if localization == "amcl":
        for package, executable, name in LOCALIZATION_NODES:
            nodes.append(Node(package=package, executable=executable, name=name, remappings=list(remaps), **common))
        nodes.append(Node(package="nav2_lifecycle_manager", executable="lifecycle_manager",
                          name="lifecycle_manager_localization", output="screen",
                          parameters=[{"use_sim_time": True, "autostart": autostart,
                                       "node_names": [n for _, _, n in LOCALIZATION_NODES]}]))
    for package, executable, name, via_smoother in NAV2_SERVERS:
        extra = [("cmd_vel", "cmd_vel_nav")] if via_smoother else []
        nodes.append(Node(package=package, executable=executable, name=name, remappings=remaps + extra, **common))
    nodes.append(Node(package="nav2_lifecycle_manager", executable="lifecycle_manager",
                      name="lifecycle_manager_navigation", output="screen",
                      parameters=[{"use_sim_time": True, "autostart": autostart,
                                   "node_names": [n for _, _, n, _ in NAV2_SERVERS]}]))
    if rviz_config:
        nodes.append(Node(package="rviz2", executable="rviz2", name="rviz2", output="screen",
                          arguments=["-d", rviz_config], parameters=[{"use_sim_time": True}],
                          remappings=list(remaps)))
    return nodes


def launch_actions(context):
    """The simulator node, and Nav2's nodes in the robot's namespace (resolved once the arguments are known)."""
    from mvsim_ros.world import load_world
    from mvsim_ros.world.files.world_path import resolve_world_path

    share = get_package_share_directory(PACKAGE)
    arg = {name: LaunchConfiguration(name).perform(context) for name, _, _ in ARGUMENTS}
    world_file = str(resolve_world_path(arg["world_file"]))  # the simulator node's own rule
    namespace = arg["namespace"].strip("/")
    localization = arg["localization"].strip().lower()
    if localization not in LOCALIZATIONS:
        raise ValueError(f"launch argument localization:={arg['localization']!r} must be one of {LOCALIZATIONS}")
    stamped = is_true(arg["cmd_vel_stamped"], "cmd_vel_stamped")
    world = load_world(world_file)
    vehicles = [v.name for v in world.vehicles]
    problem = check_namespace(namespace, vehicles)
    if problem:
        raise ValueError(f"{world_file}: {problem}")
    vehicle = world.vehicles[vehicles.index(namespace) if namespace else 0]
    folder = tempfile.mkdtemp(prefix=f"mvsim_nav2_{namespace or 'robot'}_")
    map_yaml = ""
    if localization == "amcl":
        if not world.occupancy_grids:
            raise ValueError(f"{world_file}: localization:=amcl needs an occupancy grid in the world")
        map_yaml = save_map(world.occupancy_grids[0], folder)
    source = nav2_params_file(namespace, arg["params_file"], share)
    with open(source, encoding="utf-8") as f:
        tree = nav2_parameters(f.read(), namespace, localization, stamped, map_yaml,
                               (vehicle.init_pose.x, vehicle.init_pose.y, vehicle.init_pose.yaw))
    params_file = os.path.join(folder, "nav2_params.yaml")
    with open(params_file, "w", encoding="utf-8") as f:
        yaml.safe_dump(tree, f, sort_keys=False)
    rviz_config = None
    if is_true(arg["use_rviz"], "use_rviz"):
        with open(arg["rviz_config"] or os.path.join(share, "rviz", RVIZ_CONFIG), encoding="utf-8") as f:
            text = rviz_config_text(f.read(), namespace)
        rviz_config = os.path.join(folder, "nav2.rviz")
        with open(rviz_config, "w", encoding="utf-8") as f:
            f.write(text)
    actions = []
    if is_true(arg["start_simulator"], "start_simulator"):
        actions.append(Node(package=PACKAGE, executable="mvsim_node", name="mvsim", output="screen",
                            emulate_tty=True, parameters=[os.path.join(share, "config", "demo.yaml"), {
                                "world_file": world_file,
                                "headless": is_true(arg["headless"], "headless"),
                                "viewer_port": int(number(arg["viewer_port"], "viewer_port")),
                                "realtime_factor": number(arg["realtime_factor"], "realtime_factor"),
                                "do_fake_localization": localization == "simulator",
                                "use_sim_time": True,
                            }]))
    nodes = nav2_nodes(namespace, params_file, localization, is_true(arg["autostart"], "autostart"),
                       arg["log_level"], rviz_config)
    actions.append(GroupAction(actions=([PushROSNamespace(namespace=namespace)] if namespace else []) + nodes))
    return actions


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    defaults = {"world_file": os.path.join(share, "worlds", "office_yaml_map.world.xml")}
    declared = [DeclareLaunchArgument(name, default_value=defaults.get(name, default), description=text)
                for name, default, text in ARGUMENTS]
    return LaunchDescription(declared + [OpaqueFunction(function=launch_actions)])
