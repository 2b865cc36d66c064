"""Launch the mvsim_ros simulator with the demo world (ROS 2 installs with launch / launch_ros)."""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def generate_launch_description():
    share = get_package_share_directory("mvsim_ros")
    world = DeclareLaunchArgument(
        "world_file",
        default_value=os.path.join(share, "worlds", "demo_2robots.world.xml"),
        description="MVSim world XML file to simulate",
    )
    realtime = DeclareLaunchArgument("realtime_factor", default_value="1.0",
                                     description="1 = real time, 0 = as fast as possible")
    use_sim_time = DeclareLaunchArgument("use_sim_time", default_value="true")
    node = Node(
        package="mvsim_ros",
        executable="mvsim_node",
        name="mvsim",
        output="screen",
        emulate_tty=True,
        parameters=[
            os.path.join(share, "config", "demo.yaml"),
            {
                "world_file": LaunchConfiguration("world_file"),
                "realtime_factor": LaunchConfiguration("realtime_factor"),
                "use_sim_time": LaunchConfiguration("use_sim_time"),
            },
        ],
    )
    return LaunchDescription([world, realtime, use_sim_time, node])
