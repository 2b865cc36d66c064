"""A burst of hostile commands over real DDS (issue 11): 10,000 messages per command topic mixing NaN, +-inf,
+-1e308, 1e39, -0.0 and subnormals with valid commands, to one vehicle of every kind. The node stays up, every
published state is finite, each vehicle follows a valid command afterwards, and a burst of only non-finite
messages leaves it on that command. The node runs in a subprocess, probed with rclpy from the test."""

from __future__ import annotations

import math
import os
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
import rclpy
from ackermann_msgs.msg import AckermannDriveStamped
from geometry_msgs.msg import PoseWithCovarianceStamped, Twist
from nav_msgs.msg import Odometry
from tf2_msgs.msg import TFMessage

from dds_probe import ProbeNode, node_command, stop_process

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))

#: One vehicle of every kind; the test drives them on open ground (the yard's walls cut out) so that wherever the
#: burst sends them, nothing blocks the valid command afterwards.
WORLD = Path(__file__).resolve().parent / "worlds" / "every_kind.world.xml"
VEHICLES = ("diff", "ideal", "raw", "car", "truck", "loader")
STEERABLE = ("car", "truck", "loader")
BURST = int(os.environ.get("MVSIM_REDTEAM_BURST", "10000"))
HOSTILE = (math.nan, math.inf, -math.inf, 1e308, -1e308, 1e39, -1e39, -0.0, 5e-324, -5e-324, 3.4028235e38)
NON_FINITE = (math.nan, math.inf, -math.inf)
SPEED = 1.0  # the valid command afterwards [m/s], straight ahead
#: Where each vehicle is put after the hostile burst (x, y [m], heading +x): parallel lanes 40 m apart, so that
#: driving straight afterwards no vehicle meets another (a collision would change its speed, not the command).
LANES = {name: (-100.0, -100.0 + 40.0 * i) for i, name in enumerate(VEHICLES)}


def finite_odometry(msg: Odometry) -> bool:
    p, q, v, w = msg.pose.pose.position, msg.pose.pose.orientation, msg.twist.twist.linear, msg.twist.twist.angular
    return all(math.isfinite(x) for x in (p.x, p.y, p.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, w.x, w.y, w.z))


def finite_tf(msg: TFMessage) -> bool:
    return all(math.isfinite(x) for t in msg.transforms for x in (
        t.transform.translation.x, t.transform.translation.y, t.transform.translation.z, t.transform.rotation.x,
        t.transform.rotation.y, t.transform.rotation.z, t.transform.rotation.w))


class Probe(ProbeNode):
    """Odometry, ground truth and tf of every vehicle (latest message, count, non-finite count); command
    publishers for every cmd_vel and ackermann_cmd."""

    def __init__(self, context):
        super().__init__(context, "mvsim_burst_probe")
        n = self.node
        self.truth: dict[str, Odometry] = {}
        self.received = 0
        self.non_finite: list[str] = []
        for name in VEHICLES:
            n.create_subscription(Odometry, f"/{name}/odom", self._check(f"{name}/odom", finite_odometry), 10)
            n.create_subscription(Odometry, f"/{name}/base_pose_ground_truth",
                                  self._check(f"{name}/ground truth", finite_odometry, name), 10)
            n.create_subscription(TFMessage, f"/{name}/tf", self._check(f"{name}/tf", finite_tf), 10)
        n.create_subscription(TFMessage, "/tf", self._check("tf", finite_tf), 10)
        self.cmd_vel = {name: n.create_publisher(Twist, f"/{name}/cmd_vel", 10) for name in VEHICLES}
        self.ackermann = {name: n.create_publisher(AckermannDriveStamped, f"/{name}/ackermann_cmd", 10)
                          for name in STEERABLE}
        self.initialpose = {name: n.create_publisher(PoseWithCovarianceStamped, f"/{name}/initialpose", 10)
                            for name in VEHICLES}

    def _check(self, what: str, finite, truth_of: str | None = None):
        def callback(msg) -> None:
            self.received += 1
            if not finite(msg):
                self.non_finite.append(what)
            if truth_of is not None:
                self.truth[truth_of] = msg
        return callback

    def follows(self, name: str, speed: float) -> bool:
        """The vehicle's latest ground truth drives straight at `speed` [m/s] (within 5 %)."""
        msg = self.truth.get(name)
        return msg is not None and abs(msg.twist.twist.linear.x - speed) < 0.05 * speed and \
            abs(msg.twist.twist.angular.z) < 0.02

    def in_lane(self, name: str) -> bool:
        """The vehicle's latest ground truth is within 0.5 m of the start of its lane."""
        msg, (x, y) = self.truth.get(name), LANES[name]
        return msg is not None and math.hypot(msg.pose.pose.position.x - x, msg.pose.pose.position.y - y) < 0.5

    def put_in_lanes(self) -> None:
        """Stop every vehicle (a zero command) and put it at the start of its lane, heading +x."""
        for name, (x, y) in LANES.items():
            self.cmd_vel[name].publish(twist(0.0, 0.0))
            if name in STEERABLE:
                self.ackermann[name].publish(ackermann(0.0, 0.0, 0.0))
            msg = PoseWithCovarianceStamped()
            msg.header.frame_id = "map"
            msg.pose.pose.position.x, msg.pose.pose.position.y = x, y
            msg.pose.pose.orientation.w = 1.0
            self.initialpose[name].publish(msg)

    def send_valid(self) -> None:
        for name in VEHICLES:
            if name in ("car", "truck"):
                self.ackermann[name].publish(ackermann(SPEED, 0.0, 0.0))
            else:
                self.cmd_vel[name].publish(twist(SPEED, 0.0))


def twist(v: float, omega: float) -> Twist:
    msg = Twist()
    msg.linear.x, msg.angular.z = v, omega
    return msg


def ackermann(speed: float, angle: float, rate: float) -> AckermannDriveStamped:
    msg = AckermannDriveStamped()
    msg.drive.speed, msg.drive.steering_angle, msg.drive.steering_angle_velocity = speed, angle, rate
    return msg


def random_values(rng: np.random.Generator, count: int, pool: tuple[float, ...], valid_share: float) -> np.ndarray:
    """count x 3 values: from `pool`, or (a valid_share of the rows) a valid command."""
    out = np.array(pool)[rng.integers(len(pool), size=(count, 3))]
    valid = rng.random(count) < valid_share
    out[valid] = rng.uniform(-2.0, 2.0, size=(int(valid.sum()), 3))
    return out


def burst(probe: Probe, rng: np.random.Generator, count: int, pool: tuple[float, ...],
          valid_share: float = 0.0) -> None:
    """`count` messages on every command topic, interleaved, spinning the probe now and then."""
    values = {topic: random_values(rng, count, pool, valid_share) for topic in
              [("cmd_vel", n) for n in VEHICLES] + [("ackermann", n) for n in STEERABLE]}
    for i in range(count):
        for (kind, name), rows in values.items():
            a, b, c = rows[i].tolist()
            if kind == "cmd_vel":
                probe.cmd_vel[name].publish(twist(a, b))
            else:
                probe.ackermann[name].publish(ackermann(a, b, c))
        if i % 200 == 0:
            probe.executor.spin_once(timeout_sec=0.0)


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    """The node on the every-kind world at 10x real time, no watchdog; its output goes to a file."""
    tmp = tmp_path_factory.mktemp("burst")
    text = WORLD.read_text()
    world = tmp / "open.world.xml"
    world.write_text(text[:text.index("<walls>")] + text[text.index("</walls>") + len("</walls>"):])
    log = open(tmp / "node_output.txt", "w")
    proc = subprocess.Popen(node_command(f"world_file:={world}", "realtime_factor:=10.0",
                                         "base_watchdog_timeout:=0.0", "odometry_publish_rate:=20.0"),
                            stdout=log, stderr=subprocess.STDOUT, text=True)
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = Probe(context)
    try:
        assert probe.wait_for(lambda: len(probe.truth) == len(VEHICLES), timeout=30.0), "no ground truth"
        assert probe.wait_for(lambda: all(p.get_subscription_count() == 1 for p in probe.cmd_vel.values()),
                              timeout=10.0)
        yield proc, probe, tmp
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_process(proc)
        log.close()


def test_hostile_burst_then_valid_then_non_finite_only(node):
    proc, probe, tmp = node
    rng = np.random.default_rng(11)
    start = time.monotonic()
    burst(probe, rng, BURST, HOSTILE, valid_share=0.25)
    burst_s = time.monotonic() - start
    received = probe.received
    probe.spin_for(1.0)
    assert proc.poll() is None, (tmp / "node_output.txt").read_text()[-3000:]
    assert probe.received > received, "the node stopped publishing after the burst"
    assert not probe.non_finite, f"non-finite states published: {sorted(set(probe.non_finite))}"
    output = (tmp / "node_output.txt").read_text()
    assert "clamped to" in output and "non-finite" in output and "Traceback" not in output

    # Every vehicle (but the raw one, which takes no twist) follows a valid command again, each in its own lane.
    assert probe.wait_for(lambda: probe.put_in_lanes() or all(probe.in_lane(n) for n in VEHICLES), timeout=10.0)
    followers = [n for n in VEHICLES if n != "raw"]
    steady_since: list[float] = []

    def steady() -> bool:
        """Every follower has followed the command for the last second of wall time (10 s simulated)."""
        probe.send_valid()
        if not all(probe.follows(n, SPEED) for n in followers):
            steady_since.clear()
            return False
        steady_since[:] = steady_since or [time.monotonic()]
        return time.monotonic() - steady_since[0] > 1.0

    settled = probe.wait_for(steady, timeout=30.0)
    assert settled, {n: (probe.truth[n].twist.twist.linear.x, probe.truth[n].twist.twist.angular.z)
                     for n in followers}

    # Only non-finite messages now: each vehicle stays on its last valid command.
    burst(probe, rng, 2000, NON_FINITE)
    probe.spin_for(2.0)
    speeds = {n: probe.truth[n].twist.twist.linear.x for n in followers}
    assert all(probe.follows(n, SPEED) for n in followers), speeds
    assert proc.poll() is None and not probe.non_finite
    print(f"burst of {BURST} messages on each of {len(VEHICLES) + len(STEERABLE)} topics: {burst_s:.1f} s")
