"""Parameter `publish_log_topics`: every column of the vehicle logs as its own std_msgs/Float64 topic.

Topics (as MVSim's node names them, with this package's CSV column names, units in the name, see output/csv_logs.py):
  `<veh>/log/pose/<column>`, columns t_s, x_m, y_m, yaw_rad, vx_mps, vy_mps, omega_radps;
  `<veh>/log/wheel_<k>/<column>` (k = 1, 2, ... in the vehicle's world-file wheel order), columns t_s, torque_Nm,
  normal_force_N, omega_radps, phi_rad, force_x_N, force_y_N.
The values are those a CSV row holds at the same instant. Rate: one row every `log_period` of simulated time,
but never faster than the odometry (a row per step would be hundreds of messages per step): the period is
max(log_period, 1 / odometry_publish_rate), or max(log_period, DEFAULT_PERIOD_S) with odometry off. Nothing of
this is built when the parameter is false.
"""

from __future__ import annotations

import numpy as np
from rclpy.node import Node
from std_msgs.msg import Float64

from mvsim_ros.physics import Simulation
from mvsim_ros.output.csv_logs import POSE_COLUMNS, WHEEL_COLUMNS, fill_log_row
from mvsim_ros.ros.publishing.context import PublishingContext
from mvsim_ros.ros.qos import reliable
from mvsim_ros.core.schedule import Periodic

#: Shortest period [s of simulated time] of the log topics when the odometry rate does not set one.
DEFAULT_PERIOD_S = 0.02


def log_topic_period(log_period: float, odometry_rate_hz: float) -> float:
    """Period [s of simulated time] of the log topics: `log_period` [s], capped at the odometry rate [Hz]
    (DEFAULT_PERIOD_S when that is 0)."""
    fastest = 1.0 / odometry_rate_hz if odometry_rate_hz > 0 else DEFAULT_PERIOD_S
    return max(log_period, fastest)


def log_topic_names(sim: Simulation, prefixes: list[str]) -> list[list[str]]:
    """Topic names of every log row, in the order of a log row's files (each vehicle's pose, then every wheel
    in `sim.wheels` order): one list of column topics per row."""
    rows = [[f"{prefix}log/pose/{column}" for column in POSE_COLUMNS] for prefix in prefixes]
    seen = [0] * len(prefixes)
    for vehicle in sim.wheels.vehicle.tolist():
        seen[vehicle] += 1
        rows.append([f"{prefixes[vehicle]}log/wheel_{seen[vehicle]}/{column}" for column in WHEEL_COLUMNS])
    return rows


class LogTopics:
    """Publishes the log columns of every vehicle and wheel as Float64 topics when due (reliable, depth 10).
    context: the session's PublishingContext (a plain one on `node` when not given)."""

    def __init__(self, node: Node, sim: Simulation, prefixes: list[str], period_s: float,
                 context: PublishingContext | None = None):
        self.sim = sim
        self.schedule = Periodic(period_s)
        outlets = (context if context is not None else PublishingContext.plain(node, prefixes)).outlets
        self._outlets = [[outlets.create(Float64, name, reliable(10)) for name in row]
                         for row in log_topic_names(sim, prefixes)]
        self._row = np.zeros((len(self._outlets), len(POSE_COLUMNS)))
        self._msg = Float64()

    def schedules(self) -> list[Periodic]:
        """The log rows' schedule, which `publish_due` serves."""
        return [self.schedule]

    def publish_due(self) -> None:
        """Publish one row of every log if due at the simulation's current time."""
        sim = self.sim
        if not self.schedule.due(sim.time):
            return
        w = sim.wheels
        torque = sim.drive_torque if sim.terrain.active else w.torque
        fill_log_row(self._row, round(sim.time, 9), sim.pose, sim.velocity, torque, w.normal_force, w.omega, w.phi,
                     w.force_x, w.force_y)
        msg = self._msg
        for outlets, values in zip(self._outlets, self._row.tolist()):
            for outlet, value in zip(outlets, values):
                msg.data = value
                outlet.publish(msg)
