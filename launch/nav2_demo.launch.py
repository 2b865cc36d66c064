"""Run the simulator with Nav2's navigation stack (for users who have Nav2: `nav2_bringup` installed).

    ros2 launch mvsim_ros nav2_demo.launch.py                      # one robot: worlds/office_yaml_map.world.xml
    ros2 launch mvsim_ros nav2_demo.launch.py world_file:=worlds/demo_2robots.world.xml namespace:=r1

Starts `mvsim_node` on the world (fake localization on: the simulator publishes the true map -> odom, so neither
AMCL nor map_server runs) and Nav2's `navigation_launch.py` from nav2_bringup with `use_sim_time:=true`, the
given namespace and the parameter file for the case: `config/nav2/nav2_single_robot.yaml` without a namespace,
`config/nav2/nav2_namespaced_robot.yaml` with one (the robot of that name in a multi-robot world, whose topics
and TF tree are under `<namespace>/`). `params_file:=...` uses your own. Send goals with rviz2's "Nav2 Goal" tool
(rviz2 in the same namespace) or the `navigate_to_pose` action.

Arguments: world_file, namespace (empty: one-robot world), params_file (empty: the one for the case), headless
(false: the browser viewer is served, http://127.0.0.1:<viewer_port>/), viewer_port, realtime_factor, autostart.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription, OpaqueFunction
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

PACKAGE = "mvsim_ros"
TRUE_WORDS = ("true", "1", "yes", "on")
#: Parameter files in config/nav2/: without a namespace, with one.
SINGLE_ROBOT_PARAMS = "nav2_single_robot.yaml"
NAMESPACED_PARAMS = "nav2_namespaced_robot.yaml"

#: (name, default, description) of every launch argument.
ARGUMENTS = (
    ("world_file", None, "MVSim world XML file to simulate (default: worlds/office_yaml_map.world.xml)"),
    ("namespace", "", "Nav2's namespace: the name of the vehicle to navigate in a multi-robot world; empty for "
                      "a world with one vehicle"),
    ("params_file", "", "Nav2 parameter file (empty: config/nav2/ file for the case)"),
    ("headless", "false", "true: no viewer; false: serve the live 3D viewer at http://127.0.0.1:<viewer_port>/"),
    ("viewer_port", "8090", "TCP port of the viewer (0 = any free port, printed at start)"),
    ("realtime_factor", "1.0", "simulated s per wall s: 1 = real time"),
    ("autostart", "true", "bring Nav2's lifecycle nodes up at once"),
)


def is_true(text: str) -> bool:
    """A launch argument's text as a boolean (ROS's spellings: true/false, 1/0, yes/no, on/off)."""
    return text.strip().lower() in TRUE_WORDS


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


def launch_actions(context):
    """The simulator node and Nav2's navigation bringup (resolved once the arguments are known)."""
    share = get_package_share_directory(PACKAGE)
    arg = {name: LaunchConfiguration(name).perform(context) for name, _, _ in ARGUMENTS}
    world_file = arg["world_file"]
    if not os.path.isabs(world_file) and not os.path.exists(world_file):
        world_file = os.path.join(share, world_file)
    namespace = arg["namespace"].strip("/")
    simulator = Node(package=PACKAGE, executable="mvsim_node", name="mvsim", output="screen", emulate_tty=True,
                     parameters=[os.path.join(share, "config", "demo.yaml"), {
                         "world_file": world_file,
                         "headless": is_true(arg["headless"]),
                         "viewer_port": int(number(arg["viewer_port"], "viewer_port")),
                         "realtime_factor": number(arg["realtime_factor"], "realtime_factor"),
                         "do_fake_localization": True,
                         "use_sim_time": True,
                     }])
    bringup = get_package_share_directory("nav2_bringup")
    navigation = IncludeLaunchDescription(
        PythonLaunchDescriptionSource(os.path.join(bringup, "launch", "navigation_launch.py")),
        launch_arguments={
            "namespace": namespace,
            "use_sim_time": "true",
            "params_file": nav2_params_file(namespace, arg["params_file"], share),
            "autostart": "true" if is_true(arg["autostart"]) else "false",
            "use_composition": "False",
        }.items(),
    )
    return [simulator, navigation]


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    defaults = {"world_file": os.path.join(share, "worlds", "office_yaml_map.world.xml")}
    declared = [DeclareLaunchArgument(name, default_value=defaults.get(name, default), description=text)
                for name, default, text in ARGUMENTS]
    return LaunchDescription(declared + [OpaqueFunction(function=launch_actions)])
