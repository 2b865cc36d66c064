"""Trajectory generator and tracker, the bicycle-model controllers of an Ackermann car and the single-track models
they are designed on, without ROS (the nodes are in mvsim_ros/tracking/nodes/: tracker_node,
kinematic_controller_node, dynamic_controller_node; the comparison with the simulated car in mvsim_ros/compare).

    shapes                 the five reference shapes (closed-form position, velocity, acceleration)
    point_p                the point-P reference and output transformations
    pid                    the two PIDs with feed-forward
    tracker                generator + point P + PIDs -> desired velocity of P
    kinematic_controller   exact linearization of the kinematic bicycle -> speed, steering angle
    dynamic_controller     linearization of the linear-tyre dynamic bicycle -> speed, steering angle
    guard                  refuse non-finite commands, keep the last valid one
    bicycle                single-track parameters, understeer gradient and steady-state cornering
    vehicle_parameters     single-track parameters of a world's Ackermann vehicle
    single_track           kinematic and linear-tyre dynamic single-track models (simulation)
    plants, closed_loop    the simulated car or a model under the tracker and a controller
    seed_car               the 1/10-scale racecar's world (worlds/seed002_car.world.xml) by surface
"""

from mvsim_ros.tracking.bicycle import BicycleParameters, kinematic_yaw_rate
from mvsim_ros.tracking.closed_loop import Run, run_open_loop, run_tracking
from mvsim_ros.tracking.dynamic_controller import DynamicController, dynamic_linearization
from mvsim_ros.tracking.guard import CommandGuard
from mvsim_ros.tracking.kinematic_controller import KinematicController, kinematic_linearization
from mvsim_ros.tracking.pid import PidGains
from mvsim_ros.tracking.shapes import SHAPES, Shape, make_shape
from mvsim_ros.tracking.single_track import KinematicBicycle, LinearDynamicBicycle
from mvsim_ros.tracking.tracker import TrackerOutput, TrajectoryTracker

__all__ = [
    "BicycleParameters", "CommandGuard", "DynamicController", "KinematicBicycle", "KinematicController",
    "LinearDynamicBicycle", "PidGains", "Run", "SHAPES", "Shape", "TrackerOutput", "TrajectoryTracker",
    "dynamic_linearization", "kinematic_linearization", "kinematic_yaw_rate", "make_shape", "run_open_loop",
    "run_tracking",
]
