"""The `trajectory_tracker` node (console script mvsim_trajectory_tracker): the seed packages' trajectory
tracker.

    mvsim_trajectory_tracker --ros-args -p trajectory_type:=circle -p R:=2.0 -p W:=0.5 -p active:=true \\
        -r odom:=base_pose_ground_truth

Every `control_rate` [Hz] of the node clock (simulated time with use_sim_time) it reads the latest `odom`, runs
the tracker (mvsim_ros.tracking.tracker: generator, point-P transformations, two PIDs with feed-forward) and
publishes the desired velocity of P. The trajectory's clock is the odometry's stamp (the time the vehicle's state
was measured; the node clock when the stamp is zero), so the reference and the measurement it is compared with
are of the same instant, whatever the delays between the processes. Topics (relative: namespaces and remaps apply):

- `odom` (nav_msgs/Odometry, subscribed): pose of the vehicle's reference point (the middle of the rear axle for
  the seed's car). The simulator's `odom` is wheel odometry; `base_pose_ground_truth` is the true pose (what the
  seed's Gazebo odometry gave): remap to it for tracking.
- `virtual_velocities` (geometry_msgs/Vector3Stamped): vector.x, vector.y = V_Px, V_Py [m/s], the desired velocity
  of P in the odometry's frame (header.frame_id), vector.z = 0. Published every control tick while active, and
  one zero vector when the trajectory stops (the controllers then stop the car).
- `reference_trajectory` (nav_msgs/Path, latched): the reference path of the vehicle's point, sampled every
  `path_resolution` [s] over one period (closed shapes) or `path_duration` [s]; re-sent when the shape changes
  or the trajectory starts.
- `reference_pose` (geometry_msgs/PoseStamped): the reference point now, oriented along its velocity.
- `tracking_error` (geometry_msgs/Vector3Stamped): x, y = reference point - vehicle point [m] (world frame),
  z = their distance [m].

The trajectory starts (t = 0) at the first control tick where `active` is true, odometry has arrived and (with
`wait_for_controller`) a controller subscribes to virtual_velocities.

Parameters (all changeable at run time; refused changes leave everything as it was): see PARAMETERS. The seed
packages' names are kept (trajectory_type 0..4 or a name, a_coeff, b_coeff, focal_length, R, W, a, cycloid_radius,
cycloid_distance, Kp, Ki, Kd, FFWD, PL_distance, active). A change of the shape or its parameters restarts a
running trajectory; gains apply at once, keeping the PID state.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from mvsim_ros.core.rotations import yaw_quaternion
from mvsim_ros.ros.node.lifecycle import run_node
from mvsim_ros.ros.node.parameters import ParamSpec
from mvsim_ros.tracking.nodes.node_common import (OdometrySample, RuntimeParameters, Throttled, clock_seconds,
                                                  non_negative_number, odometry_qos, one_of, positive_number)
from mvsim_ros.tracking.pid import SEED_FEED_FORWARD, SEED_KD, SEED_KI, SEED_KP, PidGains
from mvsim_ros.tracking.point_p import HEADING_MODES
from mvsim_ros.tracking.shapes import SHAPES, Shape, make_shape, shape_name

#: Tracker parameter -> (shape, field) it sets (the seed packages' names; W serves the circle and the figure eight).
SHAPE_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "a_coeff": (("line", "a"),), "b_coeff": (("line", "b"),), "focal_length": (("parabola", "focal_length"),),
    "R": (("circle", "R"),), "W": (("circle", "W"), ("figure_eight", "W")), "a": (("figure_eight", "a"),),
    "cycloid_radius": (("cycloid", "r"),), "cycloid_distance": (("cycloid", "d"),),
}

PARAMETERS: dict[str, ParamSpec] = {
    "trajectory_type": ParamSpec("circle", f"reference shape: {', '.join(SHAPES)} (or the seed's 0..4)"),
    "a_coeff": ParamSpec(1.0, "[m/s] line: x = a_coeff t"),
    "b_coeff": ParamSpec(0.5, "[m/s] line: y = b_coeff t"),
    "focal_length": ParamSpec(0.5, "[m] parabola: x = 2 a t, y = a t^2 (a = focal_length, non-zero)"),
    "R": ParamSpec(2.0, "[m] circle radius", positive_number),
    "W": ParamSpec(0.5, "[rad/s] angular rate of the circle and of the figure eight", positive_number),
    "a": ParamSpec(3.0, "[m] figure eight amplitude (x from -a to a)", positive_number),
    "cycloid_radius": ParamSpec(1.5, "[m] cycloid: radius r of the rolling circle", positive_number),
    "cycloid_distance": ParamSpec(0.5, "[m] cycloid: distance d < r of the drawing point from its centre",
                                  non_negative_number),
    "ramp_time": ParamSpec(0.0, "[s] start the reference smoothly over about this time (same path, warped time); "
                                "0 = the seed's shapes as written", non_negative_number),
    "Kp": ParamSpec(SEED_KP, "[1/s] proportional gain of both PIDs (seed: 5)", non_negative_number),
    "Ki": ParamSpec(SEED_KI, "[1/s^2] integral gain of both PIDs (seed: 0)", non_negative_number),
    "Kd": ParamSpec(SEED_KD, "[-] derivative gain of both PIDs (seed: 0)", non_negative_number),
    "FFWD": ParamSpec(SEED_FEED_FORWARD, "add the reference velocity of P as feed-forward (seed: true)"),
    "PL_distance": ParamSpec(0.1, "[m] distance from the vehicle point to P: the controller's epsilon",
                             non_negative_number),
    "reference_heading": ParamSpec("trajectory", "direction of P_ref from the reference point: 'trajectory' (the "
                                                 "reference's own velocity: exact tracking) or 'vehicle' (the yaw, "
                                                 "as the seed writes it)", one_of(*HEADING_MODES)),
    "active": ParamSpec(False, "run the trajectory (it starts, from t = 0, when this becomes true)"),
    "wait_for_controller": ParamSpec(True, "start the trajectory only once virtual_velocities has a subscriber (a "
                                           "controller), so that no reference runs away before anyone follows it"),
    "start_at_vehicle": ParamSpec(False, "place the shape at the vehicle's pose when the trajectory starts (else "
                                         "at the origin of the odometry frame)"),
    "control_rate": ParamSpec(50.0, "[Hz] of the node clock: tracker updates and virtual_velocities",
                              lambda v: None if 0 < v <= 1000 else "must be in (0, 1000]"),
    "cog_offset": ParamSpec(0.0, "[m] the vehicle point is this far ahead of the odometry point (the dynamic "
                                 "controller's centre of gravity; 0 for the kinematic one)"),
    "p_along_velocity": ParamSpec(False, "P lies along the velocity (yaw + side slip) instead of the yaw: the "
                                         "dynamic controller's P"),
    "path_duration": ParamSpec(0.0, "[s] length of reference_trajectory for open shapes (0: 30 s); closed shapes "
                                    "give one period", non_negative_number),
    "path_resolution": ParamSpec(0.05, "[s] time between the poses of reference_trajectory", positive_number),
}

#: Most poses in reference_trajectory.
MAX_PATH_POSES = 5000
DEFAULT_OPEN_PATH_S = 30.0


def build_shape(values: dict[str, Any]) -> Shape:
    """The shape the parameter values describe (ValueError naming the problem)."""
    name = shape_name(values["trajectory_type"])
    fields = {field: values[param] for param, uses in SHAPE_FIELDS.items() for shape, field in uses if shape == name}
    return make_shape(name, ramp_time=values["ramp_time"], **fields)


def gains_of(values: dict[str, Any]) -> PidGains:
    """PidGains from Kp, Ki, Kd, FFWD."""
    return PidGains(values["Kp"], values["Ki"], values["Kd"], values["FFWD"])


def _type_text(value: Any) -> Any:
    """trajectory_type given as the seed's integer code: its text."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


class TrackerNode:
    """Builds and owns the rclpy node (see the module docstring); `node` is the rclpy Node (node_options: passed
    to it, e.g. context=)."""

    SHAPE_PARAMETERS = frozenset({"trajectory_type", "ramp_time", *SHAPE_FIELDS})

    def __init__(self, name: str = "trajectory_tracker", **node_options) -> None:
        from geometry_msgs.msg import PoseStamped, Vector3Stamped
        from nav_msgs.msg import Odometry, Path
        from rclpy.node import Node

        from mvsim_ros.ros.qos import latched, reliable
        from mvsim_ros.tracking.tracker import TrajectoryTracker

        self.node = node = Node(name, **node_options)
        self._warn = Throttled(node)
        self.odometry: OdometrySample | None = None
        self.tracker: TrajectoryTracker | None = None
        self.params = RuntimeParameters(node, PARAMETERS, self._validate, self._apply,
                                        convert={"trajectory_type": _type_text})
        v = self.params.values
        self.tracker = TrajectoryTracker(build_shape(v), gains_of(v), v["PL_distance"], v["reference_heading"])
        self._path_sent = False
        self._stopped_sent = True
        self.virtual_velocities = node.create_publisher(Vector3Stamped, "virtual_velocities", reliable(10))
        self.reference_trajectory = node.create_publisher(Path, "reference_trajectory", latched(1))
        self.reference_pose = node.create_publisher(PoseStamped, "reference_pose", reliable(10))
        self.tracking_error = node.create_publisher(Vector3Stamped, "tracking_error", reliable(10))
        self.odom_subscription = node.create_subscription(Odometry, "odom", self._on_odom, odometry_qos())
        self.timer = node.create_timer(1.0 / v["control_rate"], self._tick)

    # -- parameters -------------------------------------------------------------------------------------------
    def _validate(self, values: dict[str, Any]) -> None:
        build_shape(values)
        gains_of(values)

    def _apply(self, values: dict[str, Any], changed: set[str]) -> None:
        tracker = self.tracker
        if changed & self.SHAPE_PARAMETERS:
            tracker.shape = build_shape(values)
            self._path_sent = False
            if tracker.active:
                tracker.stop()  # the next tick starts the new shape
        tracker.gains = gains_of(values)
        tracker.pl_distance = values["PL_distance"]
        tracker.reference_heading = values["reference_heading"]
        if "active" in changed and not values["active"]:
            tracker.stop()
        if "control_rate" in changed:
            self.timer.cancel()
            self.node.destroy_timer(self.timer)
            self.timer = self.node.create_timer(1.0 / values["control_rate"], self._tick)
        self.node.get_logger().info(f"parameters changed: {', '.join(sorted(changed))}")

    # -- inputs and the control tick ----------------------------------------------------------------------------
    def _on_odom(self, msg) -> None:
        sample = OdometrySample.from_message(msg)
        if not sample.finite():
            self._warn.warn("odom", "ignoring an odometry message with non-finite values")
            return
        self.odometry = sample

    def vehicle_point(self) -> tuple[float, float, float, float]:
        """(x, y, yaw, direction of P) of the point the tracker controls, from the latest odometry."""
        o, v = self.odometry, self.params.values
        c, s = math.cos(o.yaw), math.sin(o.yaw)
        offset = v["cog_offset"]
        x, y = o.x + offset * c, o.y + offset * s
        direction = o.yaw
        if v["p_along_velocity"] and (o.vx or o.vy):
            direction += math.atan2(o.vy + offset * o.r, o.vx)
        return x, y, o.yaw, direction

    def _tick(self) -> None:
        if self.odometry is None:
            self._warn.warn("no odom", f"waiting for odometry on {self.odom_subscription.topic_name}")
            return
        now = self.odometry.t if self.odometry.t > 0.0 else clock_seconds(self.node)
        tracker, values = self.tracker, self.params.values
        x, y, yaw, direction = self.vehicle_point()
        if values["active"] and not tracker.active:
            if values["wait_for_controller"] and self.virtual_velocities.get_subscription_count() == 0:
                self._warn.warn("no controller", f"active, waiting for a subscriber to "
                                                 f"{self.virtual_velocities.topic_name} before starting")
                return
            tracker.start(now, (x, y, yaw), anchor=values["start_at_vehicle"])
            self._path_sent = False
            self._stopped_sent = False
        if not self._path_sent:
            self.publish_path()
        if not tracker.active:
            if not self._stopped_sent:
                self._publish_velocity(0.0, 0.0)
                self._stopped_sent = True
            return
        out = tracker.update(now, x, y, yaw, p_direction=direction)
        if not (math.isfinite(out.vpx) and math.isfinite(out.vpy)):
            self._warn.warn("nan", f"refused a non-finite desired velocity ({out.vpx}, {out.vpy}); not sent")
            return
        self._publish_velocity(out.vpx, out.vpy)
        self._publish_reference(out)

    # -- outputs ------------------------------------------------------------------------------------------------
    def _header(self, msg) -> None:
        msg.header.stamp = self.node.get_clock().now().to_msg()
        msg.header.frame_id = self.odometry.frame_id if self.odometry is not None else ""

    def _publish_velocity(self, vpx: float, vpy: float) -> None:
        from geometry_msgs.msg import Vector3Stamped

        msg = Vector3Stamped()
        self._header(msg)
        msg.vector.x, msg.vector.y = float(vpx), float(vpy)
        self.virtual_velocities.publish(msg)

    def _publish_reference(self, out) -> None:
        from geometry_msgs.msg import PoseStamped, Vector3Stamped

        pose = PoseStamped()
        self._header(pose)
        pose.pose.position.x, pose.pose.position.y = out.ref_x, out.ref_y
        _set_yaw(pose.pose.orientation, out.ref_heading)
        self.reference_pose.publish(pose)
        error = Vector3Stamped()
        self._header(error)
        error.vector.x, error.vector.y = out.position_error_x, out.position_error_y
        error.vector.z = out.position_error
        self.tracking_error.publish(error)

    def publish_path(self) -> None:
        """Send reference_trajectory: the reference of the vehicle point over one period or path_duration."""
        from geometry_msgs.msg import PoseStamped
        from nav_msgs.msg import Path

        values, tracker = self.params.values, self.tracker
        duration = tracker.shape.period() or values["path_duration"] or DEFAULT_OPEN_PATH_S
        step = max(values["path_resolution"], duration / MAX_PATH_POSES)
        path = Path()
        self._header(path)
        count = int(duration / step) + 1
        for k in range(count):
            (x, y), (vx, vy), _ = tracker.reference(k * step)
            pose = PoseStamped()
            pose.header = path.header
            pose.pose.position.x, pose.pose.position.y = x, y
            heading = math.atan2(vy, vx)
            _set_yaw(pose.pose.orientation, heading)
            path.poses.append(pose)
        self.reference_trajectory.publish(path)
        self._path_sent = True


def _set_yaw(orientation, yaw: float) -> None:
    """Set a geometry_msgs/Quaternion to the rotation by `yaw` [rad] about +z."""
    orientation.w, orientation.x, orientation.y, orientation.z = yaw_quaternion(yaw)


def main(args: list[str] | None = None) -> int:
    """Console entry point (mvsim_trajectory_tracker)."""
    return run_node("mvsim_trajectory_tracker", lambda stop: TrackerNode().node, args)


__all__ = ["PARAMETERS", "SHAPE_FIELDS", "TrackerNode", "build_shape", "gains_of", "main"]


if __name__ == "__main__":
    sys.exit(main())
