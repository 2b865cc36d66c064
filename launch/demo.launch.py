"""Launch the mvsim_ros simulator (and optionally rviz2) on a world file; the arguments are MVSim's.

    ros2 launch mvsim_ros demo.launch.py [world_file:=...] [headless:=false] [do_fake_localization:=true]
        [publish_tf_odom2baselink:=true] [force_publish_vehicle_namespace:=false] [publish_log_topics:=false]
        [use_rviz:=false] [rviz_config_file:=...] [viewer_port:=8090] [realtime_factor:=1.0] [use_sim_time:=true]
        [record:=run.mcap]

The first eight are the arguments of MVSim's launch/launch_world.launch.py, with its meanings; `use_rviz`
defaults to false here (MVSim: true) because the browser viewer already shows the world. `viewer_port`,
`realtime_factor`, `use_sim_time` and `record` (the run into an MCAP file) are this package's.

headless:=false (the default, as MVSim's GUI) serves the live 3D viewer at http://127.0.0.1:<viewer_port>/ (the
node prints the address): open it in a browser to watch the world and drive the selected vehicle with W/A/S/D.

rviz2 (use_rviz:=true) opens `rviz_config_file`, or by default the configuration shipped for the world
(`share/mvsim_ros/rviz/NAME.rviz` for `NAME.world.xml`), or one generated from the world when none is shipped.
rviz2's TF display reads only /tf and /tf_static, while with several vehicles each vehicle's TF is on its own
`<veh>/tf`: so when rviz2 runs on a world with several vehicles, the node gets the single-TF-tree parameter
(`mvsim_ros.cli.rviz_config.SINGLE_TREE_PARAMETER`: every vehicle on /tf, frames prefixed `<veh>/`).
"""

import os
import tempfile

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

PACKAGE = "mvsim_ros"
TRUE_WORDS = ("true", "1", "yes", "on")

#: (name, default, description) of every launch argument. MVSim's launch_world.launch.py arguments come first.
ARGUMENTS = (
    ("world_file", None, "path to the *.world.xml file to load"),
    ("headless", "false", "true: no viewer; false: serve the live 3D viewer at http://127.0.0.1:<viewer_port>/"),
    ("do_fake_localization", "true", "publish the true map -> odom (identity until a teleport), amcl_pose and "
                                     "particlecloud; turn off when AMCL or SLAM runs"),
    ("publish_tf_odom2baselink", "true", "publish odom -> base_link on tf (the odometry topics go on regardless)"),
    ("force_publish_vehicle_namespace", "false", "use the vehicle name as topic namespace even if there is only "
                                                 "one vehicle"),
    ("publish_log_topics", "false", "publish every CSV-log column as a std_msgs/Float64 topic per vehicle"),
    ("use_rviz", "false", "also start rviz2"),
    ("rviz_config_file", "", "rviz2 configuration (empty: the world's own, or one generated from it)"),
    ("viewer_port", "8090", "TCP port of the viewer (0 = any free port, printed at start)"),
    ("realtime_factor", "1.0", "simulated s per wall s: 1 = real time, 0 = as fast as possible"),
    ("use_sim_time", "true", "nodes started here (rviz2) follow /clock; the simulator publishes it"),
    ("record", "", "record the run into this MCAP file (empty: no recording)"),
)
#: Boolean arguments passed to the node as the parameter of the same name.
BOOLEAN_PARAMETERS = ("headless", "do_fake_localization", "publish_tf_odom2baselink",
                      "force_publish_vehicle_namespace", "publish_log_topics", "use_sim_time")


def is_true(text: str) -> bool:
    """A launch argument's text as a boolean (ROS's spellings: true/false, 1/0, yes/no, on/off)."""
    return text.strip().lower() in TRUE_WORDS


def number(text: str, name: str) -> float:
    """A numeric launch argument, or ValueError naming it."""
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"launch argument {name}:={text!r} is not a number") from None


def world_vehicle_count(world_file: str) -> int:
    """Vehicles in a world file; 0 when it cannot be read (the simulator reports why when it starts)."""
    try:
        from mvsim_ros.world import load_world

        return len(load_world(world_file).vehicles)
    except Exception:  # noqa: BLE001 - any load error is reported by the node itself
        return 0


def rviz_config_for(world_file: str, share: str) -> str:
    """The shipped configuration of a world, or one generated from it into a temporary file."""
    from mvsim_ros.cli.rviz_config import config_name, rviz_config

    shipped = os.path.join(share, "rviz", config_name(world_file))
    if os.path.isfile(shipped):
        return shipped
    from mvsim_ros.world import load_world

    text = rviz_config(load_world(world_file), os.path.basename(world_file))
    handle, path = tempfile.mkstemp(prefix="mvsim_", suffix=".rviz")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    return path


def launch_nodes(context):
    """The simulator node and, with use_rviz, rviz2 (resolved once the arguments are known)."""
    from mvsim_ros.cli.rviz_config import SINGLE_TREE_PARAMETER

    share = get_package_share_directory(PACKAGE)
    arg = {name: LaunchConfiguration(name).perform(context) for name, _, _ in ARGUMENTS}
    world_file = arg["world_file"]
    if not os.path.isabs(world_file) and not os.path.exists(world_file):
        world_file = os.path.join(share, world_file)
    use_rviz = is_true(arg["use_rviz"])
    parameters = {
        "world_file": world_file,
        **{name: is_true(arg[name]) for name in BOOLEAN_PARAMETERS},
        "viewer_port": int(number(arg["viewer_port"], "viewer_port")),
        "realtime_factor": number(arg["realtime_factor"], "realtime_factor"),
    }
    if arg["record"]:
        parameters["record"] = os.path.abspath(arg["record"])
    if use_rviz and world_vehicle_count(world_file) > 1:
        parameters[SINGLE_TREE_PARAMETER] = True
    nodes = [Node(package=PACKAGE, executable="mvsim_node", name="mvsim", output="screen", emulate_tty=True,
                  parameters=[os.path.join(share, "config", "demo.yaml"), parameters])]
    if use_rviz:
        config = arg["rviz_config_file"] or rviz_config_for(world_file, share)
        nodes.append(Node(package="rviz2", executable="rviz2", name="rviz2", output="screen",
                          arguments=["-d", config],
                          parameters=[{"use_sim_time": is_true(arg["use_sim_time"])}]))
    return nodes


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    defaults = {"world_file": os.path.join(share, "worlds", "demo_2robots.world.xml")}
    declared = [DeclareLaunchArgument(name, default_value=defaults.get(name, default), description=text)
                for name, default, text in ARGUMENTS]
    return LaunchDescription(declared + [OpaqueFunction(function=launch_nodes)])
