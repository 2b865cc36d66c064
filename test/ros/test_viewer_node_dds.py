"""The node's viewer (headless:=false) in real headless Chromium, the simulation read back over real DDS.

The node runs the demo world (r1, r2) in a subprocess with `viewer_port:=0` (it prints the address it took); an
rclpy probe reads `/clock`, r1's ground truth and the goal topics `/goal_pose`, `/r1/goal_pose`, `/r2/goal_pose`.
Holding W in the page drives r1 forward through the same path as cmd_vel, the Pause button stops `/clock`, Play
starts it again; dragging on the ground with the "set pose" tool moves r1 there (as `initialpose` does), with the
"goal" tool publishes a geometry_msgs/PoseStamped (frame `map`) on the selected vehicle's `<veh>/goal_pose` as
rviz's goal tool does, and on no other vehicle's; the page shows no console error.
"""

from __future__ import annotations

import math
import re
import subprocess
import time

import pytest
import rclpy
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock

from browser_support import DEMO_WORLD, BrowserPage, browser_skip_reason
from dds_probe import ProbeNode, node_command, stop_process

#: The goal topics of a one-vehicle world and of the demo world's two vehicles.
GOAL_TOPICS = ("/goal_pose", "/r1/goal_pose", "/r2/goal_pose")

pytestmark = pytest.mark.skipif(browser_skip_reason() is not None, reason=str(browser_skip_reason()))


class Probe(ProbeNode):
    """/clock times and r1's latest ground truth."""

    def __init__(self, context):
        super().__init__(context, "mvsim_viewer_probe")
        self.clock: list[float] = []
        self.truth: Odometry | None = None
        #: Goals received on each goal topic.
        self.goals: dict[str, list[PoseStamped]] = {topic: [] for topic in GOAL_TOPICS}
        self.node.create_subscription(Clock, "/clock", self._on_clock, 50)
        self.node.create_subscription(Odometry, "/r1/base_pose_ground_truth", self._on_truth, 10)
        for topic in GOAL_TOPICS:
            self.node.create_subscription(PoseStamped, topic, self.goals[topic].append, 10)

    def _on_clock(self, msg: Clock) -> None:
        self.clock.append(msg.clock.sec + 1e-9 * msg.clock.nanosec)

    def _on_truth(self, msg: Odometry) -> None:
        self.truth = msg

    def r1_pose(self) -> tuple[float, float, float]:
        """(x [m], y [m], yaw [rad]) of r1's latest ground truth."""
        p, q = self.truth.pose.pose.position, self.truth.pose.pose.orientation
        return p.x, p.y, math.atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z))


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    """(node process, probe, page) on the demo world with the viewer on a free port."""
    log_path = tmp_path_factory.mktemp("viewer_node") / "node_output.txt"
    log = open(log_path, "w")
    proc = subprocess.Popen(node_command(f"world_file:={DEMO_WORLD}", "headless:=false", "viewer_port:=0",
                                         "realtime_factor:=1.0"),
                            stdout=log, stderr=subprocess.STDOUT, text=True)
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = Probe(context)
    page = None
    try:
        url = None
        deadline = time.monotonic() + 60.0
        while url is None and time.monotonic() < deadline and proc.poll() is None:
            found = re.search(r"viewer: open (http://\S+)", log_path.read_text())
            url = found.group(1) if found else None
            time.sleep(0.1)
        assert url, f"the node printed no viewer address:\n{log_path.read_text()[-3000:]}"
        assert probe.wait_for(lambda: probe.truth is not None and probe.clock, timeout=30.0)
        page = BrowserPage(url)
        page.page.wait_for_function("window.mvsimViewer && window.mvsimViewer.frames > 5", timeout=30000)
        yield proc, probe, page, log_path
    finally:
        if page is not None:
            page.close()
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_process(proc)
        log.close()


def test_page_shows_the_node_simulation_without_errors(running):
    _, probe, page, _ = running
    shown = page.viewer("({vehicles: v.vehicles, selected: v.selected, time: v.time, connected: v.connected})")
    assert shown["vehicles"] == ["r1", "r2"] and shown["selected"] == "r1" and shown["connected"]
    probe.spin_for(0.2)
    assert abs(shown["time"] - max(probe.clock)) < 2.0, "the page shows the node's simulated time"
    assert page.errors == []


def test_holding_w_drives_r1_forward_through_the_command_path(running):
    proc, probe, page, _ = running
    probe.spin_for(0.2)
    x0, y0, yaw0 = probe.r1_pose()
    page.page.keyboard.down("w")
    time.sleep(2.0)
    page.page.keyboard.up("w")
    probe.spin_for(1.5)  # the zero command on release stops it
    x1, y1, yaw1 = probe.r1_pose()
    forward = (x1 - x0) * math.cos(yaw0) + (y1 - y0) * math.sin(yaw0)
    assert 0.7 <= forward <= 1.3, (forward, (x0, y0), (x1, y1))
    assert abs(math.remainder(yaw1 - yaw0, math.tau)) < 0.1
    assert abs(probe.truth.twist.twist.linear.x) < 0.05, "released: stopped"
    assert proc.poll() is None and page.errors == []


def test_pause_stops_the_clock_and_play_resumes_it(running):
    _, probe, page, log_path = running
    page.page.click("#pause")
    page.page.wait_for_function("window.mvsimViewer.paused === true", timeout=5000)
    probe.spin_for(0.3)
    probe.clock.clear()
    probe.spin_for(1.0)
    assert len(set(probe.clock)) <= 1, f"/clock went on while paused: {probe.clock[:3]} .. {probe.clock[-3:]}"
    paused_at = max(probe.clock) if probe.clock else None

    page.page.click("#play")
    page.page.wait_for_function("window.mvsimViewer.paused === false", timeout=5000)
    probe.clock.clear()
    probe.spin_for(1.0)
    assert probe.clock and max(probe.clock) - min(probe.clock) > 0.5, "/clock runs again at about real time"
    if paused_at is not None:
        assert min(probe.clock) >= paused_at - 1e-9, "no jump back"
    assert page.errors == [] and "Traceback" not in log_path.read_text()


def drag_on_ground(page, tool_key: str, x: float, y: float, yaw: float, length: float = 1.0) -> None:
    """With the page's tool of `tool_key` ("p": set pose, "g": goal), press on the ground at (x, y) [m], drag
    `length` m towards `yaw` [rad] and release."""
    page.viewer(f"v.setView({{distance: 6, azimuth: {-math.pi / 2}, elevation: 1.0, target: [{x}, {y}, 0]}})")
    start = page.viewer("v.rendered")
    page.page.wait_for_function(f"window.mvsimViewer.rendered >= {start + 3}", timeout=10000)
    page.page.keyboard.press(tool_key)
    page.page.wait_for_function("window.mvsimViewer.tool !== null", timeout=5000)
    x0, y0 = page.viewer(f"v.project({x}, {y}, 0)")
    x1, y1 = page.viewer(f"v.project({x + length * math.cos(yaw)}, {y + length * math.sin(yaw)}, 0)")
    page.page.mouse.move(x0, y0)
    page.page.mouse.down()
    for k in range(1, 6):
        page.page.mouse.move(x0 + (x1 - x0) * k / 5, y0 + (y1 - y0) * k / 5)
    page.page.mouse.up()
    page.page.wait_for_function("window.mvsimViewer.tool === null", timeout=5000)


def test_set_pose_by_mouse_moves_r1_as_initialpose_does(running):
    proc, probe, page, log_path = running
    target = (3.0, 2.0, -0.8)
    drag_on_ground(page, "p", *target)
    assert probe.wait_for(lambda: math.dist(probe.r1_pose()[:2], target[:2]) < 0.05, timeout=10.0), probe.r1_pose()
    x, y, yaw = probe.r1_pose()
    assert abs(math.remainder(yaw - target[2], math.tau)) < 0.05
    assert "r1: moved by the viewer" in log_path.read_text()
    assert proc.poll() is None and page.errors == []


def _check_goal(msg: PoseStamped, goal: tuple[float, float, float], sim_time: float) -> None:
    """`msg` is the planar goal (x [m], y [m], yaw [rad]) in `map`, stamped near `sim_time` [s]."""
    assert msg.header.frame_id == "map"
    p, q = msg.pose.position, msg.pose.orientation
    assert (p.x, p.y, p.z) == pytest.approx((goal[0], goal[1], 0.0), abs=0.03)
    assert (q.x, q.y) == (0.0, 0.0) and q.z ** 2 + q.w ** 2 == pytest.approx(1.0)
    assert abs(math.remainder(2.0 * math.atan2(q.z, q.w) - goal[2], math.tau)) < 0.05
    stamp = msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec
    assert abs(stamp - sim_time) < 2.0, "stamped with the simulated time"


def _goal_by_mouse(page, probe: Probe, vehicle: str, goal: tuple[float, float, float]) -> dict[str, list]:
    """Select `vehicle` in the page, set `goal` with the goal tool; the goals received per topic."""
    for received in probe.goals.values():
        received.clear()
    page.page.select_option("#vehicle", vehicle)
    page.page.wait_for_function(f"window.mvsimViewer.selected === {vehicle!r}", timeout=5000)
    drag_on_ground(page, "g", *goal)
    assert probe.wait_for(lambda: probe.goals[f"/{vehicle}/goal_pose"], timeout=10.0), \
        f"no PoseStamped on /{vehicle}/goal_pose: {({t: len(g) for t, g in probe.goals.items()})}"
    probe.spin_for(0.5)  # anything sent elsewhere arrives too
    return {topic: list(received) for topic, received in probe.goals.items()}


def test_goal_by_mouse_is_published_on_the_selected_vehicles_goal_pose(running):
    proc, probe, page, log_path = running
    goal = (-2.0, 3.0, 2.2)
    received = _goal_by_mouse(page, probe, "r1", goal)
    assert len(received["/r1/goal_pose"]) == 1
    assert received["/goal_pose"] == [] and received["/r2/goal_pose"] == []
    _check_goal(received["/r1/goal_pose"][0], goal, max(probe.clock))
    assert "r1: goal from the viewer" in log_path.read_text() and "published on /r1/goal_pose" in log_path.read_text()
    assert proc.poll() is None and page.errors == []


def test_a_goal_for_r2_goes_to_r2_goal_pose_only(running):
    proc, probe, page, _ = running
    goal = (1.5, -2.5, -1.0)
    received = _goal_by_mouse(page, probe, "r2", goal)
    assert len(received["/r2/goal_pose"]) == 1
    assert received["/goal_pose"] == [] and received["/r1/goal_pose"] == [], "r1's goal and r2's are told apart"
    _check_goal(received["/r2/goal_pose"][0], goal, max(probe.clock))
    page.page.select_option("#vehicle", "r1")
    assert proc.poll() is None and page.errors == []
