"""Hostile inputs on the node's surfaces, over real DDS: entity filters that would make a backtracking regular
expression engine run for minutes, a spawn description holding two elements, and the log folder removed while
the node writes into it.

One node process runs a small world for the whole module: robot r1, and a block whose name is 32 'a's (the
subject of the catastrophic-backtracking pattern `(a+)+b`), logging every step to a folder of the test's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import rclpy
from simulation_interfaces import srv
from simulation_interfaces.msg import Result

from conftest import robot_world_xml
from dds_probe import ProbeNode, node_command, stop_process

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))

NS = "/mvsim/"
LONG_NAME = "a" * 32
WORLD = robot_world_xml(extra=f'<block name="{LONG_NAME}"><mass>5</mass><init_pose>3 3 0</init_pose>'
                              "<shape><pt>0 0</pt><pt>0.5 0</pt><pt>0.5 0.5</pt><pt>0 0.5</pt></shape></block>")
#: The node's log line for files created again (physics/logs.py).
RECREATED = "was removed while logging"


class Probe(ProbeNode):
    """Service clients of the node's simulation services."""

    def __init__(self, context):
        super().__init__(context, "hostile_inputs_probe")
        self.clients: dict[str, object] = {}

    def call(self, kind, name: str, request, timeout: float = 20.0):
        """Call service NS + name; the response and the wall time [s] it took (fails after `timeout`)."""
        client = self.clients.get(name)
        if client is None:
            client = self.clients[name] = self.node.create_client(kind, NS + name)
        assert self.wait_for(client.service_is_ready, 20.0), f"service {NS + name} not available"
        start = time.monotonic()
        future = client.call_async(request)
        assert self.wait_for(future.done, timeout), f"{NS + name} did not answer within {timeout} s"
        return future.result(), time.monotonic() - start

    def entities(self, pattern: str = ""):
        """GetEntities with name filter `pattern`: (response, wall time [s])."""
        request = srv.GetEntities.Request()
        request.filters.filter = pattern
        return self.call(srv.GetEntities, "get_entities", request)


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile_inputs")
    world = folder / "w.world.xml"
    world.write_text(WORLD)
    output = open(folder / "node_output.txt", "w")
    proc = subprocess.Popen(node_command(f"world_file:={world}", "realtime_factor:=1.0",
                                         f"log_dir:={folder / 'logs'}"),
                            stdout=output, stderr=subprocess.STDOUT)
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = Probe(context)
    try:
        everything, _ = probe.entities()
        assert everything.result.result == Result.RESULT_OK
        yield probe, folder
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_process(proc)
        output.close()


def test_a_catastrophic_backtracking_filter_answers_within_a_second(node):
    probe, _ = node
    for pattern in ("(a+)+b", "(a|a)*b", "(a*)*b"):  # each 2^32 steps for Python's re on the block's name
        answer, seconds = probe.entities(pattern)
        assert answer.result.result == Result.RESULT_OK, answer.result.error_message
        assert list(answer.entities) == [] and seconds < 1.0, (pattern, seconds)


def test_valid_filters_still_select_by_name(node):
    probe, _ = node
    assert list(probe.entities()[0].entities) == ["r1", LONG_NAME]
    assert list(probe.entities("^a{32}$")[0].entities) == [LONG_NAME]
    assert list(probe.entities("(a+)+")[0].entities) == [LONG_NAME]
    assert list(probe.entities("^r[0-9]")[0].entities) == ["r1"]
    assert list(probe.entities("a{33}")[0].entities) == []


@pytest.mark.parametrize("pattern, reason", [("box(", "missing )"), (r"(a)\1", "invalid escape sequence"),
                                             ("(?=a)a", "invalid perl operator")])
def test_a_bad_or_unsupported_pattern_gets_the_error_code_and_one_line(node, pattern, reason):
    probe, _ = node
    answer, seconds = probe.entities(pattern)
    assert answer.result.result == Result.RESULT_OPERATION_FAILED
    message = answer.result.error_message
    assert reason in message and "RE2" in message and "\n" not in message, message
    assert seconds < 1.0


def test_a_spawn_string_with_two_top_level_elements_fails_naming_the_extra_one(node):
    probe, _ = node
    request = srv.SpawnEntity.Request()
    request.entity_resource.resource_string = ('<block name="b1"><mass>1</mass><init_pose>6 0 0</init_pose></block>'
                                               '<block name="b2"><mass>1</mass><init_pose>8 0 0</init_pose></block>')
    answer, _ = probe.call(srv.SpawnEntity, "spawn_entity", request)
    assert answer.result.result == srv.SpawnEntity.Response.RESOURCE_PARSE_ERROR, answer.result.error_message
    assert 'extra <block name="b2">' in answer.result.error_message, answer.result.error_message
    assert list(probe.entities()[0].entities) == ["r1", LONG_NAME]


def test_a_removed_log_folder_is_created_again_with_one_warning(node):
    probe, folder = node
    (session,) = [p for p in (folder / "logs").iterdir() if p.is_dir()]
    pose = session / "r1_pose.csv"
    assert probe.wait_for(lambda: pose.exists() and pose.read_text().count("\n") > 10, 10.0), "no rows logged"
    shutil.rmtree(session)
    removed_at = time.monotonic()
    assert probe.wait_for(lambda: pose.exists() and pose.read_text().count("\n") > 10, 10.0), \
        "the log folder was not created again, or no rows were written to it"
    lines = pose.read_text().splitlines()
    assert lines[0] == "t_s,x_m,y_m,yaw_rad,vx_mps,vy_mps,omega_radps"
    assert all(line.count(",") == 6 for line in lines[1:-1])
    assert sorted(p.name for p in session.iterdir()) == ["r1_l_wheel.csv", "r1_pose.csv", "r1_r_wheel.csv"]
    probe.spin_for(max(0.0, 1.5 - (time.monotonic() - removed_at)))  # more flushes: still one warning
    output = Path(folder / "node_output.txt").read_text()
    warnings = [line for line in output.splitlines() if RECREATED in line]
    assert len(warnings) == 1 and "WARN" in warnings[0] and str(session) in warnings[0], output[-3000:]
    assert "logging stopped" not in output
