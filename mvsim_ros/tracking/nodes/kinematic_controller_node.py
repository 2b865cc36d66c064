"""The `car_kinematic_controller` node (console script mvsim_car_kinematic_controller): exact
linearization of the kinematic bicycle model, from the desired velocity of P to an Ackermann command.

    mvsim_car_kinematic_controller --ros-args -p epsilon:=0.1 -p world_file:=worlds/seed002_car.world.xml \\
        -r odom:=base_pose_ground_truth

Topics (relative): `virtual_velocities` (geometry_msgs/Vector3Stamped, from the trajectory tracker: vector.x,
vector.y = V_Px, V_Py [m/s] in the odometry frame) and `odom` (nav_msgs/Odometry: the yaw) in;
`ackermann_cmd` (ackermann_msgs/AckermannDriveStamped) out, one per virtual_velocities message once odometry has
arrived: drive.speed = V [m/s], drive.steering_angle = phi [rad] (clipped to the steering limit),
header.stamp from the node clock, header.frame_id = the odometry's child frame. A command that comes out
non-finite is not sent: the last valid one is sent again, with a (throttled) warning.

Parameters (changeable at run time; see PARAMETERS): wheelbase l, epsilon (the tracker's PL_distance), the
steering limit, or `world_file` (+ `vehicle`): l and the steering limit are then read from that vehicle of the
world (at start and whenever world_file or vehicle change) and the two parameters are unused.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from mvsim_ros.ros.node.lifecycle import run_node
from mvsim_ros.ros.node.parameters import ParamSpec
from mvsim_ros.tracking.nodes.node_common import (CarControllerNode, OdometrySample, load_world_file, positive_number,
                                                  steering_limit)
from mvsim_ros.tracking.kinematic_controller import KinematicCommand, KinematicController
from mvsim_ros.tracking.vehicle_parameters import steering_geometry

PARAMETERS: dict[str, ParamSpec] = {
    "wheelbase": ParamSpec(0.325, "[m] l: distance between the rear and front axles (unused with world_file)",
                           positive_number),
    "epsilon": ParamSpec(0.1, "[m] distance from the rear-axle point to P (the tracker's PL_distance)",
                         positive_number),
    "max_steering_angle": ParamSpec(math.radians(25.0), "[rad] steering limit (unused with world_file)",
                                    steering_limit),
    "world_file": ParamSpec("", "read l and the steering limit from a vehicle of this MVSim world (empty: use the "
                                "parameters)"),
    "vehicle": ParamSpec("", "that vehicle's name (empty: the world's first)"),
}


def controller_from(values: dict[str, Any]) -> KinematicController:
    """The controller the parameter values describe; with world_file, l and the steering limit from the world."""
    wheelbase, limit = values["wheelbase"], values["max_steering_angle"]
    if values["world_file"].strip():
        world = load_world_file(values["world_file"])
        wheelbase, limit = steering_geometry(world, values["vehicle"].strip() or 0)
    return KinematicController(wheelbase, values["epsilon"], limit)


class KinematicControllerNode(CarControllerNode):
    """Builds and owns the rclpy node (see the module docstring); `node` is the rclpy Node (node_options: passed
    to it, e.g. context=)."""

    PARAMETERS = PARAMETERS

    def __init__(self, name: str = "car_kinematic_controller", **node_options) -> None:
        self.controller: KinematicController | None = None
        super().__init__(name, KinematicCommand(0.0, 0.0, 0.0), **node_options)

    def build(self, values: dict[str, Any]) -> KinematicController:
        return controller_from(values)

    def adopt(self, built: KinematicController) -> None:
        self.controller = built

    def compute(self, vx: float, vy: float, odometry: OdometrySample) -> KinematicCommand:
        return self.controller.command(vx, vy, odometry.yaw)

    def drive_of(self, command: KinematicCommand) -> tuple[float, float]:
        return command.speed, command.steering_angle

    def describe(self) -> str:
        c = self.controller
        return f"l = {c.wheelbase:.4g} m, epsilon = {c.epsilon:.4g} m, steering limit {c.max_steering_angle:.4g} rad"


def main(args: list[str] | None = None) -> int:
    """Console entry point (mvsim_car_kinematic_controller)."""
    return run_node("mvsim_car_kinematic_controller", lambda stop: KinematicControllerNode().node, args)


__all__ = ["KinematicControllerNode", "PARAMETERS", "controller_from", "main"]


if __name__ == "__main__":
    sys.exit(main())
