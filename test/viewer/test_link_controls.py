"""ViewerLink bounds what pages ask of the host: merged run-state controls, resets at most once per
RESET_INTERVAL_S, the newest drive per vehicle, rate-limited warnings; mvsim_view's standalone host bounds its steps."""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest

from mvsim_ros.viewer.standalone_host import STEP_BATCH, StandaloneHost
from mvsim_ros.physics import Simulation
from mvsim_ros.viewer.link import ViewerLink, merge_controls, newest_commands
from mvsim_ros.viewer.protocol import MAX_STEPS, RESET_INTERVAL_S
from mvsim_ros.world import load_world

DEMO_WORLD = Path(__file__).resolve().parents[2] / "worlds" / "demo_2robots.world.xml"


def control(action: str, steps: int | None = None) -> dict:
    msg = {"type": "control", "action": action}
    if steps is not None:
        msg["steps"] = steps
    return msg


@pytest.fixture(scope="module")
def demo_spec():
    return load_world(DEMO_WORLD)


class Server:
    """The server side of a link: hands it queued messages; no page connected (no frames encoded)."""

    rate_hz = 25.0
    page_count = 0

    def __init__(self):
        self.inbox: list[dict] = []
        self.scenes = 0

    def set_scene(self, scene):
        self.scenes += 1

    def set_trails(self, trails):
        pass

    def take_messages(self):
        out, self.inbox = self.inbox, []
        return out


class Host:
    """A ViewerHost recording its calls; a reset rebuilds its simulation."""

    def __init__(self, spec):
        self.spec, self.sim, self.sensors = spec, Simulation(spec), None
        self.scene_version, self.paused, self.rtf = 0, False, 0.0
        self.calls: list[tuple] = []

    def drive(self, index, v, w):
        self.calls.append(("drive", index, v, w))

    def steer(self, index, speed, angle):
        self.calls.append(("steer", index, speed, angle))

    def pause(self):
        self.calls.append(("pause",))

    def play(self):
        self.calls.append(("play",))

    def step(self, n):
        self.calls.append(("step", n))

    def reset(self):
        self.calls.append(("reset",))
        self.sim = Simulation(self.spec)
        self.scene_version += 1


def test_merge_controls():
    assert merge_controls([control("reset")] * 1000) == [control("reset")]
    assert merge_controls([control("pause"), control("play")] * 500) == [control("pause"), control("play")]
    assert merge_controls([control("play"), control("pause")] * 500) == [control("play"), control("pause")]
    assert merge_controls([control("step", 3), control("reset"), control("step", 4)]) == [
        control("reset"), control("step", 7)]
    assert merge_controls([control("step", MAX_STEPS)] * 1000) == [control("step", MAX_STEPS)]
    assert merge_controls([]) == []


def test_newest_command_per_vehicle():
    drives = [{"type": "drive", "vehicle": name, "v": float(k), "w": 0.0} for k, name in enumerate("abab" * 250)]
    steer = {"type": "steer", "vehicle": "a", "speed": 1.0, "angle": 0.1}
    assert newest_commands(drives) == [drives[-2], drives[-1]]
    assert newest_commands(drives + [steer]) == [drives[-1], steer]


def test_a_burst_of_resets_is_one_reset_then_one_per_interval(demo_spec):
    server, host = Server(), Host(demo_spec)
    link = ViewerLink(server, host)
    server.inbox = [control("reset")] * 1000
    link.service(0.0)
    assert host.calls == [("reset",)]
    t = 0.0
    for _ in range(30):  # 1.2 s of frames, a burst of resets before each
        t += 0.04
        server.inbox = [control("reset")] * 1000
        link.service(t)
    resets = host.calls.count(("reset",))
    assert resets == 1 + int(1.2 / RESET_INTERVAL_S), host.calls
    t += RESET_INTERVAL_S + 0.04
    link.service(t)  # the reset asked last, still waiting, runs once its turn comes
    assert host.calls.count(("reset",)) == resets + 1
    link.service(t + 5.0)
    assert host.calls.count(("reset",)) == resets + 1  # and only once


def test_what_follows_a_waiting_reset_waits_with_it(demo_spec):
    server, host = Server(), Host(demo_spec)
    link = ViewerLink(server, host)
    server.inbox = [control("reset")]
    link.service(0.0)
    server.inbox = [control("pause"), control("reset"), control("step", 2)]
    link.service(0.04)
    assert host.calls == [("reset",), ("pause",)]
    link.service(0.04 + RESET_INTERVAL_S)
    assert host.calls == [("reset",), ("pause",), ("reset",), ("step", 2)]


def test_resets_of_a_real_runner_leave_the_simulation_running(demo_spec):
    """1000 resets in a burst cost the runner's loop well under a second of wall time."""
    runner = StandaloneHost(demo_spec, warn=lambda text: None)
    server = Server()
    link = ViewerLink(server, runner)
    versions = runner.scene_version
    server.inbox = [control("reset")] * 1000
    t0 = time.monotonic()
    link.service(t0)
    assert time.monotonic() - t0 < 0.5
    assert runner.scene_version == versions + 1


def test_warnings_about_page_messages_are_rate_limited(demo_spec):
    server, host = Server(), Host(demo_spec)
    warnings: list[str] = []
    link = ViewerLink(server, host, warn=warnings.append)
    t = 0.0
    for k in range(100):  # 4 s of frames, 200 drives for vehicles that do not exist each
        server.inbox = [{"type": "drive", "vehicle": f"ghost{k}_{j}", "v": 0.1, "w": 0.0} for j in range(200)]
        link.service(t)
        t += 0.04
    assert ViewerLink.LOG_BURST <= len(warnings) <= ViewerLink.LOG_BURST + 5, len(warnings)
    assert "ghost0_0" in warnings[0]
    assert host.calls == []


def test_view_runner_bounds_its_steps(demo_spec):
    runner = StandaloneHost(demo_spec, warn=lambda text: None)
    for _ in range(1000):
        runner.step(MAX_STEPS)
    assert runner.pending_steps == MAX_STEPS
    now = time.monotonic()
    assert runner.due_steps(now) == STEP_BATCH and runner.pending_steps == MAX_STEPS - STEP_BATCH
    runner.play()
    runner.runtime.pacer.wall_anchor -= 1000.0  # far behind the wall clock: still one batch at a time
    assert runner.due_steps(time.monotonic()) <= STEP_BATCH


def test_view_runner_clamp_warnings_are_rate_limited(demo_spec):
    warnings: list[str] = []
    runner = StandaloneHost(demo_spec, warn=warnings.append)
    for _ in range(5000):
        runner.drive(0, 1000.0, 0.0)  # beyond the robot's speed limit: clamped, with a warning
        runner.drive(0, math.inf, 0.0)  # non-finite: ignored, with a warning
    assert 2 <= len(warnings) <= 2 * 21, len(warnings)
