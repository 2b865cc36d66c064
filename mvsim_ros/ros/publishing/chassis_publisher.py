"""Each vehicle's shape for rviz, as MVSim's node publishes it.

`<veh>/chassis_markers` (visualization_msgs/MarkerArray, latched, depth 5): marker 0 is the chassis outline as a
closed LINE_STRIP in base_link (namespace `mvsim.chassis_shape`), then one closed rectangle per wheel, diameter
long and width wide, placed at the wheel's pose in base_link (namespace `mvsim.chassis_shape.wheel<k>`); every
marker's id is the vehicle's index. Vehicles that steer (Ackermann, articulated) republish it whenever their
wheel poses changed, checked at the TF rate, so steered wheels turn in rviz; the others publish it once.
The markers are stamped 0 and frame-locked: rviz draws them with the latest transform of base_link.

`<veh>/chassis_polygon` (geometry_msgs/Polygon, latched, depth 1): the chassis outline in base_link [m], once.
"""

from __future__ import annotations

import math

import numpy as np
from geometry_msgs.msg import Point, Point32, Polygon
from rclpy.node import Node
from visualization_msgs.msg import Marker, MarkerArray

from mvsim_ros.physics import Simulation
from mvsim_ros.physics.footprint import relative_pose
from mvsim_ros.physics.vehicles.fleet import steering_targets
from mvsim_ros.ros.publishing.context import PublishingContext
from mvsim_ros.ros.publishing.outlet import Outlet
from mvsim_ros.ros.qos import latched
from mvsim_ros.ros.publishing.serialized import SerializedBatch
from mvsim_ros.core.rotations import yaw_quaternions_xyzw
from mvsim_ros.core.schedule import DUE_TOLERANCE_S, Periodic, next_grid_time

#: MVSim's marker namespaces (rviz configs written for MVSim select them by name).
CHASSIS_NAMESPACE = "mvsim.chassis_shape"
WHEEL_NAMESPACE = CHASSIS_NAMESPACE + ".wheel{}"
#: Line width of the outlines [m] and colours (r, g, b, a).
LINE_WIDTH = 0.05
CHASSIS_RGBA = (0.9, 0.9, 0.9, 0.9)
WHEEL_RGBA = (0.2, 0.2, 0.2, 1.0)

#: The pose fields of one wheel marker, in serialized order.
_POSE_FIELDS = ["pose.position.x", "pose.position.y", "pose.position.z", "pose.orientation.x",
                "pose.orientation.y", "pose.orientation.z", "pose.orientation.w"]


def closed_line(points: list[tuple[float, float]]) -> list[Point]:
    """The points (x, y) [m] at z = 0, the first repeated at the end (a closed LINE_STRIP)."""
    return [Point(x=float(x), y=float(y), z=0.0) for x, y in [*points, points[0]]]


def wheel_outline(diameter: float, width: float) -> list[tuple[float, float]]:
    """Corners [m] of a wheel seen from above, in the wheel's frame: diameter along x, width along y."""
    lx, ly = 0.5 * diameter, 0.5 * width
    return [(lx, ly), (lx, -ly), (-lx, -ly), (-lx, ly)]


def chassis_polygon(outline: list[tuple[float, float]]) -> Polygon:
    """geometry_msgs/Polygon of a chassis outline [m] (float32 points at z = 0)."""
    return Polygon(points=[Point32(x=float(x), y=float(y), z=0.0) for x, y in outline])


def wheel_poses(sim: Simulation, vehicle: int, wheels: np.ndarray) -> np.ndarray:
    """(x, y, yaw) of the given wheels (indices into sim.wheels) in the vehicle's base_link [m, m, rad]: their
    steered yaw included, and wheels on an articulated vehicle's front unit carried by the unit's pose."""
    w = sim.wheels
    out = np.stack((w.x[wheels], w.y[wheels], w.yaw[wheels]), axis=1)
    for row, k in enumerate(wheels.tolist()):
        body = int(w.body[k])
        if body != vehicle:
            bx, by, byaw = relative_pose(sim.body_pose, vehicle, body)
            c, s = np.cos(byaw), np.sin(byaw)
            x, y = out[row, 0], out[row, 1]
            out[row] = (bx + c * x - s * y, by + s * x + c * y, byaw + out[row, 2])
    return out


def _marker(frame: str, namespace: str, vehicle: int, points: list[Point], rgba) -> Marker:
    marker = Marker()
    marker.header.frame_id = frame
    marker.ns, marker.id = namespace, vehicle
    marker.type, marker.action = Marker.LINE_STRIP, Marker.MODIFY
    marker.pose.orientation.w = 1.0
    marker.scale.x, marker.scale.y, marker.scale.z = LINE_WIDTH, LINE_WIDTH, 0.02
    marker.color.r, marker.color.g, marker.color.b, marker.color.a = (float(c) for c in rgba)
    marker.frame_locked = True
    marker.points = points
    return marker


class ChassisPublisher:
    """chassis_markers and chassis_polygon of every vehicle (see the module docstring).

    prefixes: each vehicle's topic prefix. rate_hz: how often [Hz of simulated time] steering vehicles' wheel
    markers are checked and republished when they moved (the TF rate; 0: never after the first). context: the
    session's PublishingContext (a plain one on `node` when not given).
    """

    def __init__(self, node: Node, sim: Simulation, prefixes: list[str], rate_hz: float,
                 context: PublishingContext | None = None):
        self.sim = sim
        spec = sim.spec
        context = context if context is not None else PublishingContext.plain(node, prefixes)
        first_wheel = np.cumsum([0] + [len(v.wheels) for v in spec.vehicles])
        steering = {int(k) for k in [*sim.steering.vehicle.tolist(), *sim.articulations.vehicle.tolist()]}
        self._polygon_outlets: list[Outlet] = []
        self._marker_outlets: list[Outlet] = []
        #: Steering vehicles: (vehicle, outlet, its wheel indices, serialized MarkerArray, last pose values).
        self._steered: list[tuple[int, Outlet, np.ndarray, SerializedBatch, np.ndarray]] = []
        #: What moves the wheel markers of each steering vehicle (same order): its wheels' steered yaws, and its
        #: front unit's pose for an articulated vehicle; the markers are recomputed only when it changed.
        self._steer_state: list[np.ndarray] = []
        self._articulated = set(sim.articulations.vehicle.tolist())
        for i, (vehicle, prefix) in enumerate(zip(spec.vehicles, prefixes)):
            base_link = context.frame(i, "base_link")
            outline = [(float(x), float(y)) for x, y in vehicle.chassis.shape]
            polygon_outlet = context.outlets.create(Polygon, prefix + "chassis_polygon", latched(1))
            polygon_outlet.publish(chassis_polygon(outline))
            self._polygon_outlets.append(polygon_outlet)
            wheels = np.arange(first_wheel[i], first_wheel[i + 1])
            msg = MarkerArray()
            if outline:
                msg.markers.append(_marker(base_link, CHASSIS_NAMESPACE, i, closed_line(outline), CHASSIS_RGBA))
            for j, wheel in enumerate(vehicle.wheels):
                msg.markers.append(_marker(base_link, WHEEL_NAMESPACE.format(j), i,
                                           closed_line(wheel_outline(wheel.diameter, wheel.width)), WHEEL_RGBA))
            first = len(msg.markers) - len(vehicle.wheels)
            poses = _pose_values(wheel_poses(sim, i, wheels))
            for j, marker in enumerate(msg.markers[first:]):
                x, y, _, _, _, qz, qw = poses[0, 7 * j:7 * j + 7].tolist()
                marker.pose.position.x, marker.pose.position.y = x, y
                marker.pose.orientation.z, marker.pose.orientation.w = qz, qw
            outlet = context.outlets.create(MarkerArray, prefix + "chassis_markers", latched(5))
            outlet.publish(msg)
            self._marker_outlets.append(outlet)
            if i in steering and len(wheels):
                fields = [f"markers.{first + j}.{f}" for j in range(len(wheels)) for f in _POSE_FIELDS]
                self._steered.append((i, outlet, wheels, SerializedBatch(msg, fields, 1), poses))
                self._steer_state.append(self._state(i, wheels))
        self._timer = Periodic.at_rate(rate_hz)
        self._timer.due(sim.time)  # just published

    def schedules(self) -> list:
        """The schedule `publish_due` serves, as the node loop sees it (none without steering vehicles): the TF
        grid while some steered wheel may move, never while they all rest where the markers show them."""
        return [_SteeringSchedule(self)] if self._steered else []

    @property
    def check_period(self) -> float:
        """Period [s of simulated time] at which steered wheels are checked (the TF period; inf at rate 0)."""
        return self._timer.period

    def next_check_time(self) -> float:
        """Simulated time [s] of the next check of the steered wheels: the next instant of the TF grid while some
        steered wheel may move (instants skipped while all rested are left behind), never (inf) while they all
        rest where their markers show them."""
        if not self.steering_may_move():
            return math.inf
        timer, now = self._timer, self.sim.time
        if timer.next_time + DUE_TOLERANCE_S <= now:  # instants skipped while at rest: back onto the grid
            timer.next_time = next_grid_time(timer.next_time, timer.period, now)
        return timer.next_time

    def steering_may_move(self) -> bool:
        """True unless every steered wheel rests where its markers show it: the markers are up to date and each
        Ackermann vehicle's steering angle sits at its command's target (no steering without a new command).
        Always true with articulated vehicles."""
        if any(vehicle in self._articulated for vehicle, *_ in self._steered):
            return True
        for index, (vehicle, _, wheels, _, _) in enumerate(self._steered):
            if not np.array_equal(self._state(vehicle, wheels), self._steer_state[index]):
                return True
        sim, steer = self.sim, self.sim.steering
        if not steer.vehicle.size:
            return False
        c, k = sim.commands, steer.vehicle
        targets = steering_targets(c.v[k], c.omega[k], c.steer[k], c.steer_mode[k], steer.wheelbase, steer.max_steer)
        return not np.array_equal(np.clip(targets, -steer.max_steer, steer.max_steer), steer.delta)

    def publish_due(self) -> None:
        """Republish the markers of steering vehicles whose wheels moved, when the TF period has come."""
        if not self._steered or not self._timer.due(self.sim.time):
            return
        for index, (vehicle, outlet, wheels, batch, last) in enumerate(self._steered):
            state = self._state(vehicle, wheels)
            if np.array_equal(state, self._steer_state[index]):
                continue
            self._steer_state[index] = state
            poses = _pose_values(wheel_poses(self.sim, vehicle, wheels))
            if np.array_equal(poses, last):
                continue
            batch.fill(poses)
            outlet.publish_serialized(batch.row(0))
            self._steered[index] = (vehicle, outlet, wheels, batch, poses)

    def _state(self, vehicle: int, wheels: np.ndarray) -> np.ndarray:
        """The steered yaws [rad] of `wheels`, and the pivot angle [rad] of an articulated `vehicle`."""
        yaws = self.sim.wheels.yaw[wheels]
        if vehicle not in self._articulated:
            return yaws.copy()
        a = self.sim.articulations
        return np.append(yaws, a.gamma[a.vehicle == vehicle])


def _pose_values(poses: np.ndarray) -> np.ndarray:
    """One row of (x, y, z, qx, qy, qz, qw) per planar pose (x, y, yaw), all wheels side by side: shape (1, 7 n)."""
    out = np.zeros((len(poses), 7))
    out[:, 0], out[:, 1] = poses[:, 0], poses[:, 1]
    out[:, 3:] = yaw_quaternions_xyzw(poses[:, 2])
    return out.reshape(1, -1)


class _SteeringSchedule:
    """ChassisPublisher's TF-rate timer as the node loop's due times see it (duck-typed Periodic: `period`,
    `next_time`): its next grid instant after now while steering may move, else never (inf). The markers go out at
    the same instants as with the plain timer, minus those at which nothing moved."""

    def __init__(self, publisher: ChassisPublisher):
        self._publisher = publisher
        self.period = publisher.check_period

    @property
    def next_time(self) -> float:
        """ChassisPublisher.next_check_time."""
        return self._publisher.next_check_time()
