"""Command subscriptions: `<veh>/cmd_vel` for every vehicle, `<veh>/ackermann_cmd` for steerable ones."""

from __future__ import annotations

import math
import time
from functools import partial

from ackermann_msgs.msg import AckermannDriveStamped
from geometry_msgs.msg import Twist, TwistStamped
from rclpy.node import Node

from mvsim_ros.physics import Simulation
from mvsim_ros.ros.qos import COMMAND_QOS
from mvsim_ros.ros.inputs.twin_participant import TwinParticipant

#: Minimum wall time [s] between two warnings about dropped (non-finite) or clamped commands, per vehicle, topic
#: and kind.
WARNING_THROTTLE_S = 2.0


class CommandSubscriptions:
    """Feeds commands from ROS into the simulation.

    `<prefix>cmd_vel`: geometry_msgs/Twist (teleop_twist_keyboard) and geometry_msgs/TwistStamped (Nav2's
    default since Jazzy), both at once: Twist on the node, TwistStamped on a second DDS participant
    (twin_participant.py: one participant cannot hold two types on one topic). linear.x [m/s] and angular.z
    [rad/s] go to `Simulation.set_twist`; the stamp and frame are not used (commands apply on arrival).
    `<prefix>ackermann_cmd` (vehicles with Ackermann or articulated steering only):
    ackermann_msgs/AckermannDriveStamped; drive.speed [m/s], drive.steering_angle [rad] (equivalent bicycle-model
    angle, or an articulated vehicle's pivot angle, clipped to the vehicle's limit),
    drive.steering_angle_velocity [rad/s] (steering rate limit; 0 = the vehicle's own) go to
    `Simulation.set_ackermann`; acceleration and jerk are not used. Messages holding NaN or inf are dropped
    with a warning: the vehicle keeps its last valid command. Finite values beyond the vehicle's bounds (speed, yaw
    rate, steering angle and rate: physics.command_limits) are clamped to them, with a warning. Warnings are
    throttled: at most one per WARNING_THROTTLE_S of wall time per vehicle, topic and kind (dropped, clamped).
    All use COMMAND_QOS. `destroy()` ends the TwistStamped subscriptions (or parks them, see
    ros/node/entity_reuse.py).
    """

    def __init__(self, node: Node, sim: Simulation, prefixes: list[str]):
        self.node = node
        self.sim = sim
        self._last_warning: dict[tuple[int, str], float] = {}
        self.cmd_vel = [
            node.create_subscription(Twist, prefix + "cmd_vel", partial(self._on_cmd_vel, i, False), COMMAND_QOS)
            for i, prefix in enumerate(prefixes)
        ]
        reuse = getattr(node, "entity_reuse", None)
        #: The second participant: the node's own when it keeps one across sessions, else this object's.
        self._own_twin = reuse is None
        self._twin = (TwinParticipant(node) if reuse is None else reuse.twin()) if prefixes else None
        #: Resolved names of the TwistStamped subscriptions (on the twin participant), by vehicle.
        self.cmd_vel_stamped = [
            self._twin.subscribe(TwistStamped, prefix + "cmd_vel", partial(self._on_cmd_vel, i, True), COMMAND_QOS)
            for i, prefix in enumerate(prefixes)
        ]
        self.ackermann_cmd = [
            node.create_subscription(AckermannDriveStamped, prefixes[i] + "ackermann_cmd",
                                     partial(self._on_ackermann, i), COMMAND_QOS)
            for i in sorted(sim.steering.vehicle.tolist() + sim.articulations.vehicle.tolist())
        ]

    def destroy(self, keep_twin: bool = False) -> None:
        """End the TwistStamped subscriptions (the Twist and Ackermann ones go with the node's entities); with
        `keep_twin`, park them on the second participant for the next subscriptions to take over."""
        if self._twin is None:
            return
        if keep_twin and not self._own_twin:
            self._twin.park_all()
        elif self._own_twin:
            self._twin.destroy()
        else:  # the node's participant stays: only these subscriptions end
            self._twin.park_all()
            self._twin.release_parked()

    def _on_cmd_vel(self, index: int, stamped: bool, msg) -> None:
        twist = msg.twist if stamped else msg
        self.drive(index, twist.linear.x, twist.angular.z)

    def _on_ackermann(self, index: int, msg: AckermannDriveStamped) -> None:
        drive = msg.drive
        self.steer(index, drive.speed, drive.steering_angle, drive.steering_angle_velocity)

    def drive(self, index: int, v: float, omega: float, source: str = "cmd_vel") -> None:
        """A twist command for vehicle `index`: forward speed v [m/s], yaw rate omega [rad/s], checked as a
        cmd_vel message is (non-finite: dropped with a warning; beyond the limits: clamped with a warning).
        `source` names the input in the warnings (e.g. 'viewer drive')."""
        if not (math.isfinite(v) and math.isfinite(omega)):
            self._warn(index, f"{source} dropped", f"dropped {source} with non-finite values (linear.x={v}, "
                       f"angular.z={omega}); keeping the last valid command")
            return
        note = self.sim.set_twist(index, v, omega)
        if note:
            self._warn(index, f"{source} clamped", f"{source} (linear.x={v:.6g}, angular.z={omega:.6g}): {note} "
                       "(the vehicle's limits)")

    def steer(self, index: int, speed: float, angle: float, rate: float = 0.0,
              source: str = "ackermann_cmd") -> None:
        """An Ackermann command for vehicle `index`: speed [m/s], steering angle [rad], steering rate limit
        [rad/s] (0: the vehicle's own), checked as an ackermann_cmd message is. A vehicle that cannot steer: a
        warning, nothing changes."""
        if not (math.isfinite(speed) and math.isfinite(angle) and math.isfinite(rate)):
            self._warn(index, f"{source} dropped", f"dropped {source} with non-finite values "
                       f"(speed={speed}, steering_angle={angle}, steering_angle_velocity={rate}); "
                       "keeping the last valid command")
            return
        try:
            note = self.sim.set_ackermann(index, speed, angle, rate)
        except ValueError as error:  # a vehicle with no steering
            self._warn(index, f"{source} refused", str(error))
            return
        if note:
            self._warn(index, f"{source} clamped", f"{source} (speed={speed:.6g}, steering_angle={angle:.6g}, "
                       f"steering_angle_velocity={rate:.6g}): {note} (the vehicle's limits)")

    def _warn(self, index: int, kind: str, text: str) -> None:
        """Log `text` for vehicle `index`, at most once per WARNING_THROTTLE_S of wall time per vehicle and kind
        (topic, dropped or clamped)."""
        now = time.monotonic()
        key = (index, kind)
        if now - self._last_warning.get(key, -math.inf) < WARNING_THROTTLE_S:
            return
        self._last_warning[key] = now
        self.node.get_logger().warning(f"{self.sim.vehicle_names[index]}: {text}")
