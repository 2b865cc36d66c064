"""Trajectory tracking: the simulator with the 1/10-scale racecar, the tracker and a bicycle-model controller.

    ros2 launch mvsim_ros tracking.launch.py [shape:=circle] [controller:=kinematic] [active:=true]
        [world_file:=...] [epsilon:=0.1] [ramp_time:=0.0] [odom_topic:=base_pose_ground_truth]
        [headless:=true] [realtime_factor:=1.0] [use_sim_time:=true] [params_file:=...]

shape: line, parabola, circle, figure_eight or cycloid (or their codes 0..4); controller: kinematic (exact
linearization of the kinematic bicycle) or dynamic (linear-tyre bicycle, its parameters read from the world's
vehicle; the tracker then puts P along the velocity of the centre of gravity). The tracker and the controller read
`odom_topic` (the simulator's ground truth by default: its `odom` is wheel odometry) and follow /clock. Shape
parameters, gains and the rest: params_file (config/tracking.yaml), or `ros2 param set /trajectory_tracker ...`
at run time (`active` starts and stops the trajectory).
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

PACKAGE = "mvsim_ros"
TRUE_WORDS = ("true", "1", "yes", "on")
SHAPES = ("line", "parabola", "circle", "figure_eight", "cycloid", "0", "1", "2", "3", "4")
CONTROLLERS = {"kinematic": ("mvsim_car_kinematic_controller", "car_kinematic_controller"),
               "dynamic": ("mvsim_car_dynamic_controller", "car_dynamic_controller")}

ARGUMENTS = (
    ("world_file", None, "MVSim world with one Ackermann vehicle on Pacejka tyres (default: the 1/10 racecar)"),
    ("shape", "circle", "reference shape: line, parabola, circle, figure_eight, cycloid (or 0..4)"),
    ("controller", "kinematic", "kinematic or dynamic bicycle-model controller"),
    ("active", "true", "start the trajectory at once (else: ros2 param set /trajectory_tracker active true)"),
    ("epsilon", "0.1", "[m] distance to the point P (the tracker's PL_distance and the controller's epsilon)"),
    ("ramp_time", "0.0", "[s] start the reference smoothly over about this time (0: start at full speed)"),
    ("odom_topic", "base_pose_ground_truth", "odometry the tracker and controller read"),
    ("params_file", None, "YAML parameters of the tracker and controllers"),
    ("headless", "true", "true: no viewer; false: serve the simulator's live 3D viewer"),
    ("realtime_factor", "1.0", "simulated s per wall s"),
    ("use_sim_time", "true", "the tracker and controller follow the simulator's /clock"),
)


def is_true(text: str) -> bool:
    """A launch argument's text as a boolean (true/false, 1/0, yes/no, on/off)."""
    return text.strip().lower() in TRUE_WORDS


def number(text: str, name: str) -> float:
    """A numeric launch argument, or ValueError naming it."""
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"launch argument {name}:={text!r} is not a number") from None


def centre_of_gravity_offset(world_file: str) -> float:
    """How far ahead of the odometry point the world's first vehicle has its centre of gravity [m] (0 when it
    cannot be read: the controller node reports why)."""
    try:
        from mvsim_ros.tracking.vehicle_parameters import vehicle_geometry
        from mvsim_ros.world import load_world

        return float(vehicle_geometry(load_world(world_file)).cog_offset)
    except Exception:  # noqa: BLE001 - any problem is reported by the controller node itself
        return 0.0


def launch_nodes(context):
    """The simulator, the tracker and the chosen controller (resolved once the arguments are known)."""
    share = get_package_share_directory(PACKAGE)
    arg = {name: LaunchConfiguration(name).perform(context) for name, _, _ in ARGUMENTS}
    world_file = arg["world_file"]
    if not os.path.isabs(world_file) and not os.path.exists(world_file):
        world_file = os.path.join(share, world_file)
    shape = arg["shape"].strip()
    if shape not in SHAPES:
        raise ValueError(f"launch argument shape:={shape!r}: valid are {', '.join(SHAPES)}")
    controller = arg["controller"].strip()
    if controller not in CONTROLLERS:
        raise ValueError(f"launch argument controller:={controller!r}: valid are {', '.join(CONTROLLERS)}")
    epsilon = number(arg["epsilon"], "epsilon")
    use_sim_time = is_true(arg["use_sim_time"])
    remap = [("odom", arg["odom_topic"])]
    params_file = arg["params_file"]
    tracker = {"trajectory_type": shape, "active": is_true(arg["active"]), "PL_distance": epsilon,
               "ramp_time": number(arg["ramp_time"], "ramp_time"), "use_sim_time": use_sim_time}
    if controller == "dynamic":
        tracker.update(p_along_velocity=True, cog_offset=centre_of_gravity_offset(world_file))
    executable, name = CONTROLLERS[controller]
    return [
        Node(package=PACKAGE, executable="mvsim_node", name="mvsim", output="screen",
             parameters=[{"world_file": world_file, "headless": is_true(arg["headless"]),
                          "realtime_factor": number(arg["realtime_factor"], "realtime_factor")}]),
        Node(package=PACKAGE, executable="mvsim_trajectory_tracker", name="trajectory_tracker", output="screen",
             parameters=[params_file, tracker], remappings=remap),
        Node(package=PACKAGE, executable=executable, name=name, output="screen",
             parameters=[params_file, {"epsilon": epsilon, "world_file": world_file, "use_sim_time": use_sim_time}],
             remappings=remap),
    ]


def generate_launch_description():
    share = get_package_share_directory(PACKAGE)
    defaults = {"world_file": os.path.join(share, "worlds", "seed002_car.world.xml"),
                "params_file": os.path.join(share, "config", "tracking.yaml")}
    declared = [DeclareLaunchArgument(name, default_value=defaults.get(name, default), description=text)
                for name, default, text in ARGUMENTS]
    return LaunchDescription(declared + [OpaqueFunction(function=launch_nodes)])
