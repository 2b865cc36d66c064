"""Spawning and removing entities as fast as a client can ask, over real DDS: the node never crashes, answers each
call in bounded time, keeps /clock going, and keeps the DDS writers of everything the edit did not touch.

One node process runs the demo world (r1, r2; boxes box1..3; block class box_small, 0.8 m boxes spanning
[x, x + 0.8] x [y, y + 0.8] from their pose) for the module.
"""

from __future__ import annotations

import subprocess
import time

import pytest
import rclpy
from nav_msgs.msg import Odometry
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from simulation_interfaces import srv
from simulation_interfaces.msg import Result

from conftest import DEMO_WORLD
from dds_probe import ProbeNode, node_command, stop_process

NS = "/mvsim/"
#: Longest any one call may take to answer [s] (a spawn or delete takes ~10 ms on a quiet machine).
CALL_TIMEOUT_S = 10.0


class Probe(ProbeNode):
    def __init__(self, context):
        super().__init__(context, "world_edit_probe")
        self.clients: dict[str, object] = {}
        self.clock: list[tuple[float, float]] = []  # (wall arrival [s], simulated time [s])
        self.node.create_subscription(
            Clock, "/clock", lambda m: self.clock.append((time.monotonic(), m.clock.sec + 1e-9 * m.clock.nanosec)),
            QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE))
        self.r1_odom: list[Odometry] = []
        self.node.create_subscription(Odometry, "/r1/odom", self.r1_odom.append, 10)

    def call(self, kind, name: str, request):
        client = self.clients.get(name)
        if client is None:
            client = self.clients[name] = self.node.create_client(kind, NS + name)
        assert self.wait_for(client.service_is_ready, 30.0), f"service {NS + name} not available"
        start = time.monotonic()
        future = client.call_async(request)
        assert self.wait_for(future.done, CALL_TIMEOUT_S), f"{name} did not answer within {CALL_TIMEOUT_S} s"
        return future.result(), time.monotonic() - start

    def spawn_box(self, name: str, x: float, y: float) -> float:
        request = srv.SpawnEntity.Request(name=name)
        request.entity_resource.uri = "box_small"
        request.initial_pose.pose.position.x, request.initial_pose.pose.position.y = x, y
        response, took = self.call(srv.SpawnEntity, "spawn_entity", request)
        assert response.result.result == Result.RESULT_OK, response.result.error_message
        return took

    def delete(self, name: str) -> float:
        response, took = self.call(srv.DeleteEntity, "delete_entity", srv.DeleteEntity.Request(entity=name))
        assert response.result.result == Result.RESULT_OK, response.result.error_message
        return took

    def reset_spawned(self) -> float:
        request = srv.ResetSimulation.Request(scope=srv.ResetSimulation.Request.SCOPE_SPAWNED)
        response, took = self.call(srv.ResetSimulation, "reset_simulation", request)
        assert response.result.result == Result.RESULT_OK, response.result.error_message
        return took

    def names(self) -> list[str]:
        response, _ = self.call(srv.GetEntities, "get_entities", srv.GetEntities.Request())
        return list(response.entities)

    def writers(self, topic: str) -> set[bytes]:
        """The DDS endpoint ids of the node's writers on `topic`."""
        return {bytes(info.endpoint_gid) for info in self.node.get_publishers_info_by_topic(topic)
                if info.node_name == "mvsim"}


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    log = tmp_path_factory.mktemp("edits") / "node.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(node_command(f"world_file:={DEMO_WORLD}", "realtime_factor:=1.0", "headless:=true"),
                                stdout=out, stderr=subprocess.STDOUT)
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = Probe(context)
    probe.proc, probe.log = proc, log
    try:
        assert probe.wait_for(lambda: len(probe.clock) > 5 and len(probe.r1_odom) > 2, 60.0), "no /clock or odom"
        yield probe
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_process(proc)


def test_a_hundred_rounds_of_touching_blocks_spawned_then_deleted_or_reset(sim):
    clock_writers, odom_writers = sim.writers("/clock"), sim.writers("/r1/odom")
    assert len(clock_writers) == 1 and len(odom_writers) == 1
    start_names = sim.names()
    worst = 0.0
    for round_ in range(100):
        names = [f"row{round_}_{k}" for k in range(5)]
        for k, name in enumerate(names):  # face to face in a row (5 cm overlaps: they push each other apart)
            worst = max(worst, sim.spawn_box(name, 3.0 + 0.75 * k, -2.0))
        sim.spin_for(0.02)
        if round_ % 2:
            worst = max(worst, sim.reset_spawned())
        else:
            for name in names:
                worst = max(worst, sim.delete(name))
        assert sim.proc.poll() is None, f"the node died in round {round_}: {sim.log.read_text()[-2000:]}"
    assert sim.names() == start_names
    # The simulation goes on, on the same /clock and odometry writers (no subscriber had to discover them again).
    last = sim.clock[-1][1]
    assert sim.wait_for(lambda: sim.clock[-1][1] > last + 0.2, 5.0), "/clock stopped advancing"
    assert sim.writers("/clock") == clock_writers and sim.writers("/r1/odom") == odom_writers
    assert worst < CALL_TIMEOUT_S
    text = sim.log.read_text()
    assert "Traceback" not in text and "simulation service failed" not in text, text[-2000:]


def test_a_spawned_vehicle_brings_only_its_own_topics_and_takes_them_along(sim):
    clock_writers, odom_writers = sim.writers("/clock"), sim.writers("/r1/odom")
    request = srv.SpawnEntity.Request(name="r9")
    request.entity_resource.uri = "demo_diff_robot"
    request.initial_pose.pose.position.x = -12.0
    response, _ = sim.call(srv.SpawnEntity, "spawn_entity", request)
    assert response.result.result == Result.RESULT_OK, response.result.error_message
    assert sim.wait_for(lambda: len(sim.writers("/r9/odom")) == 1, 10.0), "r9's odometry did not appear"
    assert sim.writers("/clock") == clock_writers and sim.writers("/r1/odom") == odom_writers
    sim.delete("r9")
    assert sim.wait_for(lambda: not sim.writers("/r9/odom"), 10.0), "r9's odometry outlived it"
    assert sim.writers("/clock") == clock_writers and sim.writers("/r1/odom") == odom_writers


def test_a_spawn_storm_does_not_stall_the_clock(sim):
    """40 spawns and deletes back to back: /clock keeps arriving (the bound is loose for a loaded CI machine;
    `python -m mvsim_ros.bench --edits` measures the gaps)."""
    first = len(sim.clock)
    for k in range(20):
        sim.spawn_box(f"storm_{k}", -15.0 - k, 10.0)
    sim.reset_spawned()
    for k in range(20):
        sim.spawn_box(f"storm_{k}", -15.0 - k, 10.0)
        sim.delete(f"storm_{k}")
    sim.spin_for(0.2)
    arrivals = [wall for wall, _ in sim.clock[first:]]
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:])]
    assert gaps and max(gaps) < 1.0, f"/clock paused {max(gaps, default=float('inf')):.2f} s during the storm"
    assert sim.proc.poll() is None
