"""The status line's real-time factor: measured over one continuous run of one simulation, so a reset (time back
to 0), a swap of the simulation, a pause and a resume each start a new window, and the factor is never negative."""

from __future__ import annotations

import io
import re

import pytest

from conftest import robot_world_xml
from mvsim_ros.physics import Simulation
from mvsim_ros.ros.node.status import StatusLine
from mvsim_ros.world import load_world


class FakeClock:
    """A wall clock [s] the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _simulation(tmp_path) -> Simulation:
    path = tmp_path / "one.world.xml"
    path.write_text(robot_world_xml())
    return Simulation(load_world(str(path)))


def _factors(stream: io.StringIO) -> list[float]:
    return [float(m) for m in re.findall(r"rtf=\s*(-?[0-9.]+)x", stream.getvalue())]


@pytest.fixture
def status(tmp_path):
    clock, stream = FakeClock(), io.StringIO()
    return StatusLine(_simulation(tmp_path), period=1.0, stream=stream, clock=clock), clock, stream


def _run(status_line: StatusLine, clock: FakeClock, wall_s: float, steps: int) -> None:
    """`steps` steps spread over `wall_s` seconds of the fake clock, then an update."""
    status_line.sim.step_many(steps)
    clock.now += wall_s
    status_line.update()


def test_the_factor_is_simulated_over_wall_time(status):
    line, clock, stream = status
    _run(line, clock, 1.0, 400)  # 400 × 5 ms = 2 s in 1 s
    assert _factors(stream) == [pytest.approx(2.0)]


def test_after_a_reset_the_factor_restarts_and_is_never_negative(status, tmp_path):
    line, clock, stream = status
    _run(line, clock, 1.0, 4000)  # 20 s of simulated time
    line.sim = _simulation(tmp_path)  # the node's reset: a new simulation at time 0
    line.restart()
    _run(line, clock, 1.0, 200)  # 1 s in 1 s
    assert _factors(stream) == [pytest.approx(20.0), pytest.approx(1.0)]


def test_a_replaced_simulation_without_restart_prints_nothing_until_a_new_window_passes(status, tmp_path):
    line, clock, stream = status
    _run(line, clock, 1.0, 4000)
    line.sim = _simulation(tmp_path)  # time went back to 0, nobody called restart()
    _run(line, clock, 1.0, 200)
    _run(line, clock, 1.0, 200)
    factors = _factors(stream)
    assert factors == [pytest.approx(20.0), pytest.approx(1.0)]
    assert min(factors) >= 0.0


def test_a_pause_shows_the_state_and_its_wall_time_does_not_count_after_resuming(status):
    line, clock, stream = status
    _run(line, clock, 1.0, 200)
    line.restart("paused")
    clock.now += 1.0
    line.update()
    assert "[paused]" in stream.getvalue().splitlines()[-1]
    assert _factors(stream)[-1] == pytest.approx(0.0)
    clock.now += 30.0  # a long pause
    line.restart("")  # resumed
    _run(line, clock, 1.0, 200)
    last = stream.getvalue().splitlines()[-1]
    assert "[paused]" not in last
    assert _factors(stream)[-1] == pytest.approx(1.0)


def test_the_node_status_after_pause_reset_and_play_is_never_negative():
    """The node itself: status lines every 0.2 s while it plays 3 s of simulated time, pauses, is reset (time back to
    0) and plays again; every printed factor is >= 0, the paused lines say so, and playing again reads about 1."""
    import subprocess
    import threading

    import rclpy
    from simulation_interfaces import srv
    from simulation_interfaces.msg import SimulationState

    from conftest import DEMO_WORLD
    from dds_probe import ProbeNode, node_command, stop_process

    proc = subprocess.Popen(node_command(f"world_file:={DEMO_WORLD}", "status_period:=0.2"), stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
    reader.start()
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "status_probe")

    def call(kind, name, request):
        client = probe.node.create_client(kind, f"/mvsim/{name}")
        assert client.wait_for_service(timeout_sec=60.0), name
        future = client.call_async(request)
        assert probe.wait_for(future.done, 20.0), name
        return future.result()

    def set_state(state: int) -> None:
        call(srv.SetSimulationState, "set_simulation_state",
             srv.SetSimulationState.Request(state=SimulationState(state=state)))

    marks = {}
    try:
        call(srv.GetSimulationState, "get_simulation_state", srv.GetSimulationState.Request())
        probe.spin_for(3.0)
        set_state(SimulationState.STATE_PAUSED)
        probe.spin_for(1.0)
        call(srv.ResetSimulation, "reset_simulation", srv.ResetSimulation.Request())
        marks["reset"] = len(lines)
        probe.spin_for(1.0)
        set_state(SimulationState.STATE_PLAYING)
        marks["play"] = len(lines)
        probe.spin_for(2.0)
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_process(proc)
        reader.join(timeout=10)
    status = [ln for ln in lines if "rtf=" in ln]
    factors = [float(re.search(r"rtf=\s*(-?[0-9.]+)x", ln).group(1)) for ln in status]
    assert len(factors) > 10, lines
    assert min(factors) >= 0.0, status
    assert any("[paused]" in ln for ln in lines[:marks["play"]]), status
    after_play = [float(re.search(r"rtf=\s*(-?[0-9.]+)x", ln).group(1)) for ln in lines[marks["play"] + 2:]
                  if "rtf=" in ln]
    assert after_play and 0.5 < sorted(after_play)[len(after_play) // 2] < 1.5, after_play
