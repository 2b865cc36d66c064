"""ViewerLink (between simulation steps) with a fake server, and mvsim_ros.cli.view's runner as its host."""

from __future__ import annotations

import math
import socket
import time
from pathlib import Path

import pytest

from mvsim_ros.cli import view
from mvsim_ros.viewer.standalone_host import COMMAND_TIMEOUT, StandaloneHost
from mvsim_ros.physics import Simulation
from mvsim_ros.sensors.suite import build_sensors
from mvsim_ros.viewer import frame_message
from mvsim_ros.viewer.frame_message import unpack_message
from mvsim_ros.viewer.link import ViewerHost, ViewerLink
from mvsim_ros.viewer.protocol import IMAGE_RATE_HZ
from mvsim_ros.world import load_world, load_world_string

REPO = Path(__file__).resolve().parents[2]
DEMO_WORLD = REPO / "worlds" / "demo_2robots.world.xml"
CAR_WORLD = """<mvsim_world version="1.0">
  <vehicle:class name="car">
    <dynamics class="ackermann">
      <rl_wheel pos="0 0.75" mass="15" width="0.22" diameter="0.65"/>
      <rr_wheel pos="0 -0.75" mass="15" width="0.22" diameter="0.65"/>
      <fl_wheel mass="15" width="0.22" diameter="0.65"/> <fr_wheel mass="15" width="0.22" diameter="0.65"/>
      <f_wheels_x>2.5</f_wheels_x> <f_wheels_d>1.5</f_wheels_d> <max_steer_ang_deg>35</max_steer_ang_deg>
      <chassis mass="1200"/>
      <controller class="twist_front_steer_pid"><KP>1500</KP><KI>500</KI><I_MAX>1</I_MAX>
        <max_torque>800</max_torque></controller>
    </dynamics>
  </vehicle:class>
  <vehicle name="bot" class="car"/>
  <vehicle name="car2" class="car"><init_pose>0 5 0</init_pose></vehicle>
</mvsim_world>
"""


@pytest.fixture(scope="module")
def demo_spec():
    return load_world(DEMO_WORLD)


class FakeServer:
    """Records what the link sends; hands it the messages a test queues."""

    rate_hz = 25.0

    def __init__(self):
        self.scenes, self.frames, self.images, self.inbox = [], [], [], []
        self.trails: list[dict] = []
        self.page_count = 1
        self.cameras: set[int] = set()
        self.takes = 0

    def set_scene(self, scene):
        self.scenes.append(scene)

    def set_frame(self, data):
        self.frames.append(data)

    def set_trails(self, trails):
        self.trails.append(trails)

    def set_image(self, index, data):
        self.images.append((index, data))

    def take_messages(self):
        self.takes += 1
        out, self.inbox = self.inbox, []
        return out

    def wanted_cameras(self):
        return set(self.cameras)


class FakeHost:
    """A ViewerHost that records the requests it gets."""

    def __init__(self, spec):
        self.spec = spec
        self.sim = Simulation(spec, command_timeout=1.0)
        self.sensors = build_sensors(spec)
        self.scene_version = 0
        self.paused = False
        self.rtf = 1.0
        self.rtf_target = 2.0
        self.calls = []

    def drive(self, vehicle_index, v, w):
        self.calls.append(("drive", vehicle_index, v, w))

    def set_pose(self, vehicle_index, x, y, yaw):
        self.calls.append(("set_pose", vehicle_index, x, y, yaw))
        if abs(x) > 1000:
            raise ValueError("beyond the world bounds")

    def goal(self, vehicle_index, x, y, yaw):
        self.calls.append(("goal", vehicle_index, x, y, yaw))

    def steer(self, vehicle_index, speed, angle):
        self.calls.append(("steer", vehicle_index, speed, angle))

    def pause(self):
        self.calls.append(("pause",))

    def play(self):
        self.calls.append(("play",))

    def step(self, n):
        self.calls.append(("step", n))

    def reset(self):
        self.calls.append(("reset",))
        self.sim = Simulation(self.spec, command_timeout=1.0)
        self.scene_version += 1


def test_hosts_satisfy_the_protocol(demo_spec):
    assert isinstance(FakeHost(demo_spec), ViewerHost)
    assert isinstance(StandaloneHost(demo_spec), ViewerHost)


def test_scene_then_frames_at_the_rate(demo_spec):
    server, host = FakeServer(), FakeHost(demo_spec)
    link = ViewerLink(server, host)
    link.service(100.0)
    assert [s["version"] for s in server.scenes] == [0] and len(server.frames) == 1
    assert [v["name"] for v in server.scenes[0]["vehicles"]] == ["r1", "r2"]
    link.service(100.02)  # not due: nothing at all happens
    assert len(server.frames) == 1 and server.takes == 1
    link.service(100.041)
    assert len(server.frames) == 2 and len(server.scenes) == 1
    header, arrays, _ = unpack_message(server.frames[-1])
    assert header["type"] == "frame" and header["version"] == 0 and arrays["bodies"].shape == (2, 6)
    assert header["paused"] is False and header["rtf"] == 1.0

    server.page_count = 0  # nobody watching: messages and scenes still handled, no frame encoded
    link.service(100.082)
    assert len(server.frames) == 2 and server.takes == 3
    host.scene_version += 1  # e.g. a spawn rebuilt the simulation
    link.service(100.123)
    assert [s["version"] for s in server.scenes] == [0, 1]


def test_not_due_costs_almost_nothing(demo_spec):
    server, host = FakeServer(), FakeHost(demo_spec)
    link = ViewerLink(server, host)
    link.service()
    n = 20000
    t0 = time.perf_counter()
    for _ in range(n):
        link.service()
    per_call = (time.perf_counter() - t0) / n
    assert per_call < 5e-6, per_call
    assert len(server.frames) <= 2


def test_due_service_is_cheap(demo_spec):
    server, host = FakeServer(), FakeHost(demo_spec)
    runner = StandaloneHost(demo_spec)
    host.sim, host.sensors = runner.sim, runner.sensors
    for _ in range(100):  # the lidars have scanned
        runner.advance()
    link = ViewerLink(server, host)
    link.service(0.0)
    t0 = time.perf_counter()
    for k in range(1, 201):
        link.service(k * 0.041)
    per_frame = (time.perf_counter() - t0) / 200
    assert len(server.frames) == 201
    _, arrays, _ = unpack_message(server.frames[-1])
    assert {"scan:0", "scan:1", "wheels", "bodies"} <= set(arrays)
    assert per_frame < 1e-3, per_frame


def test_page_messages_reach_the_host(demo_spec, caplog):
    server, host = FakeServer(), FakeHost(demo_spec)
    warnings = []
    link = ViewerLink(server, host, warn=warnings.append)
    server.inbox = [
        {"type": "drive", "vehicle": "r2", "v": 0.5, "w": -1.0},
        {"type": "drive", "vehicle": "nobody", "v": 0.5, "w": 0.0},
        {"type": "steer", "vehicle": "r1", "speed": 1.0, "angle": 0.2},
        {"type": "control", "action": "pause"},
        {"type": "control", "action": "step", "steps": 3},
        {"type": "control", "action": "play"},
        {"type": "control", "action": "reset"},
    ]
    link.service(0.0)
    assert host.calls == [("drive", 1, 0.5, -1.0), ("pause",), ("step", 3), ("play",), ("reset",)]
    assert len(warnings) == 2 and "nobody" in warnings[0] and "r1" in warnings[1] and "steer" in warnings[1]
    assert [s["version"] for s in server.scenes] == [0, 1]  # the reset's new scene, in the same call
    assert unpack_message(server.frames[-1])[0]["version"] == 1


def test_steer_for_a_steerable_vehicle():
    spec = load_world_string(CAR_WORLD)
    server, host = FakeServer(), FakeHost(spec)
    link = ViewerLink(server, host)
    server.inbox = [{"type": "steer", "vehicle": "car2", "speed": 1.0, "angle": -0.3}]
    link.service(0.0)
    assert host.calls == [("steer", 1, 1.0, -0.3)]


def test_set_pose_and_goal_reach_the_host_newest_per_vehicle(demo_spec):
    server, host = FakeServer(), FakeHost(demo_spec)
    warnings = []
    link = ViewerLink(server, host, warn=warnings.append)
    server.inbox = [
        {"type": "set_pose", "vehicle": "r1", "x": 1.0, "y": 2.0, "yaw": 0.5},
        {"type": "goal", "vehicle": "r2", "x": -1.0, "y": 0.0, "yaw": 0.0},
        {"type": "set_pose", "vehicle": "r1", "x": 3.0, "y": 4.0, "yaw": -0.5},  # replaces the first
        {"type": "drive", "vehicle": "r1", "v": 0.2, "w": 0.0},  # a set-point of its own: not replaced
        {"type": "goal", "vehicle": "nobody", "x": 0.0, "y": 0.0, "yaw": 0.0},
    ]
    link.service(0.0)
    assert host.calls == [("goal", 1, -1.0, 0.0, 0.0), ("set_pose", 0, 3.0, 4.0, -0.5), ("drive", 0, 0.2, 0.0)]
    assert len(warnings) == 1 and "nobody" in warnings[0]
    server.inbox = [{"type": "set_pose", "vehicle": "r2", "x": 5000.0, "y": 0.0, "yaw": 0.0}]
    link.service(1.0)  # the host refuses it: one warning, the link goes on
    assert host.calls[-1] == ("set_pose", 1, 5000.0, 0.0, 0.0)
    assert len(warnings) == 2 and "set_pose" in warnings[1] and "world bounds" in warnings[1]


def test_frames_carry_the_target_real_time_factor(demo_spec):
    server, host = FakeServer(), FakeHost(demo_spec)
    ViewerLink(server, host).service(0.0)
    header, arrays, _ = unpack_message(server.frames[-1])
    assert header["rtf_target"] == 2.0 and header["rtf"] == 1.0
    assert arrays["vehicles"].shape == (2, 8)


class ImageEncoder(frame_message.FrameEncoder):
    def image(self, camera_index):
        return b"image %d" % camera_index


def test_images_of_wanted_cameras_at_most_image_rate(demo_spec, monkeypatch):
    monkeypatch.setattr(frame_message, "FrameEncoder", ImageEncoder)
    server, host = FakeServer(), FakeHost(demo_spec)
    link = ViewerLink(server, host)
    link.service(0.0)
    assert server.images == []
    server.cameras = {2, 0}
    t = 0.0
    for _ in range(50):  # 2 s at the frame rate
        t += 0.0401
        link.service(t)
    per_camera = len(server.images) / 2
    assert {index for index, _ in server.images} == {0, 2}
    assert per_camera / 2 <= IMAGE_RATE_HZ + 1 and per_camera / 2 >= IMAGE_RATE_HZ - 1


# -- mvsim_ros.viewer.standalone_host, mvsim_ros.cli.view -----------------------------------------------------------
def test_view_runner_commands(demo_spec):
    warnings = []
    runner = StandaloneHost(demo_spec, warn=warnings.append)
    runner.drive(0, 0.5, 0.0)
    assert runner.sim.commands.v[0] == 0.5
    runner.drive(0, math.nan, 0.0)
    assert runner.sim.commands.v[0] == 0.5 and "drive command ignored" in warnings[-1]
    runner.steer(0, 1.0, 0.1)  # a differential robot cannot steer
    assert "steer command ignored" in warnings[-1]
    assert runner.sim.command_timeout == COMMAND_TIMEOUT

    runner.step(3)
    assert runner.paused and runner.due_steps(time.monotonic()) == 3 and runner.due_steps(time.monotonic()) == 0
    for _ in range(3):
        runner.advance()
    runner.play()
    assert not runner.paused
    old = runner.sim
    runner.reset()
    assert runner.sim is not old and runner.sim.time == 0.0 and runner.scene_version == 1


def test_view_runner_set_pose_and_goal(demo_spec):
    runner = StandaloneHost(demo_spec, realtime_factor=1.5)
    assert runner.rtf_target == 1.5
    runner.drive(1, 0.5, 0.0)
    for _ in range(100):
        runner.advance()
    runner.set_pose(1, 2.0, -1.0, 0.75)  # the initialpose path: placed at rest
    assert runner.sim.pose[1] == pytest.approx([2.0, -1.0, 0.75], abs=1e-9)
    assert runner.sim.velocity[1] == pytest.approx([0.0, 0.0, 0.0], abs=1e-9)
    with pytest.raises(ValueError):
        runner.set_pose(1, 1e9, 0.0, 0.0)
    assert runner.sim.pose[1] == pytest.approx([2.0, -1.0, 0.75], abs=1e-9)
    runner.goal(0, 1.0, 1.0, 0.0)
    assert runner.goals == {0: (1.0, 1.0, 0.0)}
    assert runner.sim.pose[0] == pytest.approx([0.0, 0.0, 0.0], abs=1e-6), "a goal moves nothing"


def test_view_runs_at_the_realtime_factor(demo_spec):
    import threading

    runner = StandaloneHost(demo_spec, realtime_factor=2.0)
    server = FakeServer()
    server.page_count = 0
    link = ViewerLink(server, runner)
    t0 = time.monotonic()
    runner.run(link, threading.Event(), seconds=1.0)
    wall = time.monotonic() - t0
    assert runner.sim.time == pytest.approx(2.0 * wall, abs=0.15)


def test_view_broken_world_exits_2_without_traceback(tmp_path, capsys):
    broken = tmp_path / "broken.world.xml"
    broken.write_text("<mvsim_world><vehicle name='x' class='nope'/></mvsim_world>")
    assert view.main([str(broken), "--no-open", "--seconds", "0"]) == 2
    err = capsys.readouterr().err
    assert "broken.world.xml" in err and "Traceback" not in err
    assert view.main([str(tmp_path / "absent.world.xml"), "--no-open"]) == 2


def test_view_port_in_use_exits_2(capsys):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        port = taken.getsockname()[1]
        assert view.main([str(DEMO_WORLD), "--port", str(port), "--no-open", "--seconds", "0"]) == 2
    finally:
        taken.close()
    err = capsys.readouterr().err
    assert f"127.0.0.1:{port}" in err and "--port" in err


def test_view_runs_and_stops(capsys):
    assert view.main([str(DEMO_WORLD), "--port", "0", "--no-open", "--seconds", "0.3"]) == 0
    out = capsys.readouterr().out
    assert "viewer at http://127.0.0.1:" in out and "stopped" in out
