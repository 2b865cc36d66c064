"""Two robots, each with its own Nav2 (for users who have Nav2 installed: Jazzy, Kilted or later).

    ros2 launch mvsim_ros nav2_two_robots.launch.py                       # r1 and r2 of worlds/demo_2robots.world.xml
    ros2 launch mvsim_ros nav2_two_robots.launch.py use_rviz:=true localization:=amcl

Starts one `mvsim_node` on the world and includes nav2_demo.launch.py once per robot, with `namespace:=<robot>`
and `start_simulator:=false`: each robot's Nav2 runs in its namespace (/r1/controller_server, /r2/...), reads the
robot's TF tree from /<robot>/tf and sends commands to /<robot>/cmd_vel; with use_rviz, one rviz2 per robot, whose
"Nav2 Goal" and "2D Pose Estimate" tools talk to that robot. Goals: rviz2's tools, or the
/<robot>/navigate_to_pose action.

Arguments: world_file, robots (names of the world's vehicles, separated by commas or spaces; empty: all of them),
localization (simulator | amcl, for every robot), cmd_vel_stamped, use_rviz, headless, viewer_port,
realtime_factor, autostart, log_level.
"""

from __future__ import annotations

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, GroupAction, IncludeLaunchDescription, OpaqueFunction
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

PACKAGE = "mvsim_ros"
TRUE_WORDS = ("true", "1", "yes", "on")
#: The launch file included once per robot, and the arguments passed through to it unchanged.
NAV2_LAUNCH = "nav2_demo.launch.py"
PASSED_THROUGH = ("world_file", "localization", "cmd_vel_stamped", "use_rviz", "autostart", "log_level")

#: (name, default, description) of every launch argument.
ARGUMENTS = (
    ("world_file", None, "MVSim world XML file with several vehicles (default: worlds/demo_2robots.world.xml)"),
    ("robots", "", "the vehicles that get a Nav2, by name, separated by commas or spaces; empty: every vehicle"),
    ("localization", "simulator", "simulator: the simulator's true map -> odom; amcl: map_server and AMCL per "
                                  "robot, the simulator's fake localization off"),
    ("cmd_vel_stamped", "true", "true: Nav2 sends geometry_msgs/TwistStamped; false: Twist"),
    ("use_rviz", "false", "true: one rviz2 per robot, in the robot's namespace"),
    ("headless", "false", "true: no viewer; false: serve the live 3D viewer at http://127.0.0.1:<viewer_port>/"),
    ("viewer_port", "8090", "TCP port of the viewer (0 = any free port, printed at start)"),
    ("realtime_factor", "1.0", "simulated s per wall s: 1 = real time"),
    ("autostart", "true", "bring Nav2's lifecycle nodes up at once"),
    ("log_level", "info", "log level of the Nav2 nodes"),
)


def robot_names(text: str, vehicles: list[str]) -> list[str]:
    """The robots named in `text` (commas or spaces between names; empty: every vehicle), each a vehicle of the
    world, or ValueError naming the ones that are not."""
    if len(vehicles) < 2:
        raise ValueError(f"the world has {len(vehicles)} vehicle(s): use nav2_demo.launch.py for one robot")
    names = [n.strip("/") for n in text.replace(",", " ").split()] or list(vehicles)
    unknown = [n for n in names if n not in vehicles]
    if unknown:
        raise ValueError(f"robots:={text!r}: {', '.join(unknown)} not in the world (vehicles: {', '.join(vehicles)})")
    return names


def launch_actions(context):
    """The simulator node, and one nav2_demo.launch.py per robot (each in its own scope)."""
    from mvsim_ros.world import load_world

    share = get_package_share_directory(PACKAGE)
    arg = {name: LaunchConfiguration(name).perform(context) for name, _, _ in ARGUMENTS}
    world_file = arg["world_file"]
    if not os.path.isabs(world_file) and not os.path.exists(world_file):
        world_file = os.path.join(share, world_file)
    robots = robot_names(arg["robots"], [v.name for v in load_world(world_file).vehicles])
    localization = arg["localization"].strip().lower()
    simulator = Node(package=PACKAGE, executable="mvsim_node", name="mvsim", output="screen", emulate_tty=True,
                     parameters=[os.path.join(share, "config", "demo.yaml"), {
                         "world_file": world_file,
                         "headless": arg["headless"].strip().lower() in TRUE_WORDS,
                         "viewer_port": int(float(arg["viewer_port"])),
                         "realtime_factor": float(arg["realtime_factor"]),
                         "do_fake_localization": localization != "amcl",
                         "use_sim_time": True,
                     }])
    actions = [simulator]
    for robot in robots:
        arguments = {name: arg[name] for name in PASSED_THROUGH}
        arguments.update(world_file=world_file, namespace=robot, start_simulator="false")
        actions.append(GroupAction(actions=[IncludeLaunchDescription(
            PythonLaunchDescriptionSource(os.path.join(share, "launch", NAV2_LAUNCH)),
            launch_arguments=arguments.items())]))
    return actions


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    defaults = {"world_file": os.path.join(share, "worlds", "demo_2robots.world.xml")}
    declared = [DeclareLaunchArgument(name, default_value=defaults.get(name, default), description=text)
                for name, default, text in ARGUMENTS]
    return LaunchDescription(declared + [OpaqueFunction(function=launch_actions)])
