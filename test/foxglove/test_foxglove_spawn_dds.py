"""Channels follow the entities live: a vehicle spawned through the node's spawn service (called over DDS) shows up
in Foxglove with its topics, the compiled fast path's odometry and its scan among them, messages flowing; deleting
it takes its channels away. Followed with Foxglove's own client library (test/foxglove/channel_events.mjs, in
Node; it subscribes again to a channel the server answered `Unknown channel ID` for, docs/foxglove.md)."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time

import pytest
import rclpy
from simulation_interfaces import srv
from simulation_interfaces.msg import Result

from conftest import DEMO_WORLD
from dds_probe import ProbeNode, node_command, stop_process
from foxglove_support import FOXGLOVE, served_port, skip_reason  # noqa: F401 (used by other tests)

NS = "/mvsim/"
#: [s] to wait for each expected event.
EVENT_TIMEOUT_S = 60.0
#: Topics of the spawned vehicle that must appear, bring messages and go.
SPAWNED = ("/r9/odom", "/r9/scan", "/r9/base_pose_ground_truth")


class ChannelEvents:
    """channel_events.mjs's JSON lines, as they come (read by a thread)."""

    def __init__(self, url: str, prefix: str):
        self.proc = subprocess.Popen(["node", str(FOXGLOVE / "channel_events.mjs"), url, prefix, "300"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, cwd=FOXGLOVE)
        self.lines: queue.Queue[dict] = queue.Queue()
        self.seen: list[dict] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))

    def wait_for(self, probe: ProbeNode, wanted: set[tuple[str, str]]) -> None:
        """Spin `probe` until every (event, topic) of `wanted` was printed."""
        missing = set(wanted)
        deadline = time.monotonic() + EVENT_TIMEOUT_S
        while missing and time.monotonic() < deadline:
            probe.spin_for(0.05)
            while not self.lines.empty():
                event = self.lines.get()
                self.seen.append(event)
                missing.discard((event["event"], event["topic"]))
        assert not missing, f"missing {sorted(missing)}; seen {self.seen}"

    def close(self) -> None:
        self.proc.stdin.close()
        stop_process(self.proc)


def call(probe: ProbeNode, kind, name: str, request):
    client = probe.node.create_client(kind, NS + name)
    assert probe.wait_for(client.service_is_ready, 30.0), f"service {NS + name} not available"
    future = client.call_async(request)
    assert probe.wait_for(future.done, 30.0), f"{NS + name} did not answer"
    return future.result()


def test_spawned_vehicles_channels_come_and_go(tmp_path):
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    log = tmp_path / "node.log"
    proc = subprocess.Popen(node_command(f"world_file:={DEMO_WORLD}", "headless:=true", "foxglove:=true",
                                         "foxglove_port:=0"), stdout=log.open("wb"), stderr=subprocess.STDOUT)
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "foxglove_spawn_probe")
    events = None
    try:
        events = ChannelEvents(f"ws://127.0.0.1:{served_port(log, proc)}", "/r9/")
        events.wait_for(probe, {("advertise", "/r1/odom"), ("advertise", "/clock")})
        assert not any(event["topic"].startswith("/r9/") for event in events.seen)

        request = srv.SpawnEntity.Request(name="r9")
        request.entity_resource.uri = "demo_diff_robot"
        request.initial_pose.pose.position.x, request.initial_pose.pose.position.y = 2.0, -3.0
        answer = call(probe, srv.SpawnEntity, "spawn_entity", request)
        assert answer.result.result == Result.RESULT_OK, answer.result.error_message
        events.wait_for(probe, {(event, topic) for topic in SPAWNED for event in ("advertise", "message")})
        odom = next(e for e in events.seen if e["event"] == "advertise" and e["topic"] == "/r9/odom")
        assert odom["schemaName"] == "nav_msgs/msg/Odometry"

        deleted = call(probe, srv.DeleteEntity, "delete_entity", srv.DeleteEntity.Request(entity="r9"))
        assert deleted.result.result == Result.RESULT_OK, deleted.result.error_message
        events.wait_for(probe, {("unadvertise", topic) for topic in SPAWNED})
        assert not any(e["event"] == "unadvertise" and not e["topic"].startswith("/r9/") for e in events.seen)
        assert proc.poll() is None, log.read_text(errors="replace")
    finally:
        if events is not None:
            events.close()
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_process(proc)
