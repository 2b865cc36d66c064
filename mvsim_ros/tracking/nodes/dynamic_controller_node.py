"""The `car_dynamic_controller` node (console script mvsim_car_dynamic_controller): linearization of the
linear-tyre dynamic bicycle model (mvsim_ros.tracking.dynamic_controller), from the desired velocity of P to an
Ackermann command.

    mvsim_car_dynamic_controller --ros-args -p world_file:=worlds/seed002_car.world.xml \\
        -r odom:=base_pose_ground_truth

Topics (relative): `virtual_velocities` (geometry_msgs/Vector3Stamped: V_Px, V_Py [m/s] in the odometry frame) and
`odom` (nav_msgs/Odometry: yaw, and the body-frame twist for the yaw rate and the side slip at the centre of
gravity; the simulator's `base_pose_ground_truth` has the true lateral velocity, its wheel `odom` none) in;
`ackermann_cmd` (ackermann_msgs/AckermannDriveStamped) out, one per virtual_velocities message: drive.speed =
the longitudinal speed V cos(beta) [m/s], drive.steering_angle = delta [rad] (clipped to the steering limit). A
non-finite command is not sent: the last valid one is sent again, with a (throttled) warning.

The tracker must put P where this controller does: at epsilon along the velocity of the centre of gravity (its
parameters cog_offset = this node's cog_offset, p_along_velocity = true, PL_distance = epsilon).

Parameters (changeable at run time; see PARAMETERS): M, a, b, C_f, C_r, epsilon, the steering limit and the
centre of gravity's offset from the odometry point, or `world_file` (+ `vehicle`): all but epsilon and min_speed
are then read from that vehicle of the world (tracking/vehicle_parameters.py: masses, outline, Pacejka
stiffness), at start and whenever world_file or vehicle change, and the parameters themselves are unused.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from mvsim_ros.ros.node.lifecycle import run_node
from mvsim_ros.ros.node.parameters import ParamSpec
from mvsim_ros.tracking.nodes.node_common import (CarControllerNode, OdometrySample, load_world_file,
                                                  non_negative_number, positive_number, steering_limit)
from mvsim_ros.tracking.bicycle import BicycleParameters
from mvsim_ros.tracking.dynamic_controller import DynamicCommand, DynamicController
from mvsim_ros.tracking.vehicle_parameters import vehicle_geometry

#: Defaults: the racecar of worlds/seed002_car.world.xml on dry tyres (what vehicle_geometry reads from it).
PARAMETERS: dict[str, ParamSpec] = {
    "mass": ParamSpec(5.36, "[kg] M: vehicle mass", positive_number),
    "a": ParamSpec(0.1773, "[m] centre of gravity to the front axle", positive_number),
    "b": ParamSpec(0.1477, "[m] centre of gravity to the rear axle", positive_number),
    "C_f": ParamSpec(499.5, "[N/rad] cornering stiffness of the front axle (both tyres)", positive_number),
    "C_r": ParamSpec(499.5, "[N/rad] cornering stiffness of the rear axle (both tyres)", positive_number),
    "epsilon": ParamSpec(0.1, "[m] distance from the centre of gravity to P along the velocity (the tracker's "
                              "PL_distance)", positive_number),
    "max_steering_angle": ParamSpec(math.radians(25.0), "[rad] steering limit", steering_limit),
    "cog_offset": ParamSpec(0.1477, "[m] the centre of gravity is this far ahead of the odometry point (for the "
                                    "side slip at the centre of gravity)"),
    "min_speed": ParamSpec(0.1, "[m/s] the yaw-rate term divides by max(|V|, min_speed)", non_negative_number),
    "world_file": ParamSpec("", "read M, a, b, C_f, C_r, the steering limit and cog_offset from a vehicle of this "
                                "MVSim world (Pacejka tyres); empty: use the parameters"),
    "vehicle": ParamSpec("", "that vehicle's name (empty: the world's first)"),
}


def controller_from(values: dict[str, Any]) -> tuple[DynamicController, float]:
    """(controller, cog_offset [m]) the parameter values describe; with world_file, from the world."""
    if values["world_file"].strip():
        world = load_world_file(values["world_file"])
        geometry = vehicle_geometry(world, values["vehicle"].strip() or 0)
        return DynamicController(geometry.params, values["epsilon"], values["min_speed"]), geometry.cog_offset
    params = BicycleParameters(values["mass"], values["a"], values["b"], values["C_f"], values["C_r"],
                               max_steering_angle=values["max_steering_angle"])
    return DynamicController(params, values["epsilon"], values["min_speed"]), values["cog_offset"]


class DynamicControllerNode(CarControllerNode):
    """Builds and owns the rclpy node (see the module docstring); `node` is the rclpy Node (node_options: passed
    to it, e.g. context=)."""

    PARAMETERS = PARAMETERS

    def __init__(self, name: str = "car_dynamic_controller", **node_options) -> None:
        self.controller: DynamicController | None = None
        self.cog_offset = 0.0
        super().__init__(name, DynamicCommand(0.0, 0.0, 0.0, 0.0), **node_options)

    def build(self, values: dict[str, Any]) -> tuple[DynamicController, float]:
        return controller_from(values)

    def adopt(self, built: tuple[DynamicController, float]) -> None:
        self.controller, self.cog_offset = built

    def side_slip(self) -> float:
        """Side-slip angle at the centre of gravity [rad] from the latest odometry (0 at rest)."""
        o = self.odometry
        lateral = o.vy + self.cog_offset * o.r
        return math.atan2(lateral, o.vx) if (o.vx or lateral) else 0.0

    def compute(self, vx: float, vy: float, odometry: OdometrySample) -> DynamicCommand:
        return self.controller.command(vx, vy, odometry.yaw, odometry.r, self.side_slip())

    def drive_of(self, command: DynamicCommand) -> tuple[float, float]:
        return command.longitudinal_speed, command.steering_angle

    def describe(self) -> str:
        p = self.controller.params
        return (f"M = {p.mass:.4g} kg, a = {p.a:.4g} m, b = {p.b:.4g} m, C_f = {p.cf:.4g} N/rad, "
                f"C_r = {p.cr:.4g} N/rad, epsilon = {self.controller.epsilon:.4g} m, centre of gravity "
                f"{self.cog_offset:.4g} m ahead of odom")


def main(args: list[str] | None = None) -> int:
    """Console entry point (mvsim_car_dynamic_controller)."""
    return run_node("mvsim_car_dynamic_controller", lambda stop: DynamicControllerNode().node, args)


__all__ = ["DynamicControllerNode", "PARAMETERS", "controller_from", "main"]


if __name__ == "__main__":
    sys.exit(main())
