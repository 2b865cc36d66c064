"""The simulation services called from Foxglove: a client with Foxglove's own library (test/foxglove/service_client.mjs,
in Node) lists the node's services as advertised Foxglove services (ros2msg schemas, cdr), gets the demo world's
vehicles from /mvsim/get_entities, moves r1 with /mvsim/set_entity_state (seen through get_entity_state, from
Foxglove and over DDS), a call with malformed bytes gets a service call failure while the node keeps serving, and
step_simulation (a callback the node awaits) steps the paused simulation."""

from __future__ import annotations

import json
import subprocess

import pytest
import rclpy
from simulation_interfaces import srv
from simulation_interfaces.msg import Result, SimulationState

from conftest import DEMO_WORLD
from dds_probe import ProbeNode, node_command, stop_process
from test_foxglove_spawn_dds import FOXGLOVE, call, served_port, skip_reason

#: [m] where the client places r1 (a free spot of the demo world).
TARGET = (2.0, -3.0)
#: [m] how far r1 may be from TARGET when read back (it keeps its velocity while the simulation plays).
TOLERANCE_M = 0.3


def test_simulation_services_from_foxglove(tmp_path):
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    log = tmp_path / "node.log"
    proc = subprocess.Popen(node_command(f"world_file:={DEMO_WORLD}", "headless:=true", "foxglove:=true",
                                         "foxglove_port:=0"), stdout=log.open("wb"), stderr=subprocess.STDOUT)
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = ProbeNode(context, "foxglove_services_probe")
    try:
        url = f"ws://127.0.0.1:{served_port(log, proc)}"
        run = subprocess.run(["node", str(FOXGLOVE / "service_client.mjs"), url, *map(str, TARGET)],
                             capture_output=True, text=True, cwd=FOXGLOVE, timeout=150)
        assert run.returncode == 0, run.stderr
        found = json.loads(run.stdout.strip().splitlines()[-1])
        assert "error" not in found, f"{found['error']}\n{run.stderr}\n{log.read_text(errors='replace')}"

        services = {s["name"]: s for s in found["services"]}
        entities = services["/mvsim/get_entities"]
        assert entities["type"] == "simulation_interfaces/srv/GetEntities"
        assert entities["requestSchemaName"] == "simulation_interfaces/srv/GetEntities_Request"
        assert entities["requestEncoding"] == "cdr"
        for name in ("spawn_entity", "delete_entity", "reset_simulation", "step_simulation", "set_simulation_state",
                     "get_spawnables", "get_entities_states", "get_entity_info"):
            assert "/mvsim/" + name in services, sorted(services)
        assert not any("parameter" in name for name in services), sorted(services)

        features, listed, placed, state, malformed, again, paused, stepped, run_state = found["calls"]
        assert features["response"]["features"]["features"], features
        assert features["response"]["features"]["spawn_formats"], features
        assert listed["response"]["result"]["result"] == Result.RESULT_OK, listed
        assert {"r1", "r2"} <= set(listed["response"]["entities"]), listed
        assert placed["response"]["result"]["result"] == Result.RESULT_OK, placed
        position = state["response"]["state"]["pose"]["position"]
        assert abs(position["x"] - TARGET[0]) < TOLERANCE_M and abs(position["y"] - TARGET[1]) < TOLERANCE_M, state
        assert "failure" in malformed and "response" not in malformed, malformed
        assert "GetEntities" in malformed["failure"], malformed
        assert again["response"]["entities"] == listed["response"]["entities"], again
        assert paused["response"]["result"]["result"] == Result.RESULT_OK, paused
        assert stepped["response"]["result"]["result"] == Result.RESULT_OK, stepped
        assert run_state["response"]["state"]["state"] == SimulationState.STATE_PAUSED, run_state

        over_dds = call(probe, srv.GetEntityState, "get_entity_state", srv.GetEntityState.Request(entity="r1"))
        assert over_dds.result.result == Result.RESULT_OK, over_dds.result.error_message
        dds_position = over_dds.state.pose.position
        assert abs(dds_position.x - TARGET[0]) < TOLERANCE_M and abs(dds_position.y - TARGET[1]) < TOLERANCE_M
        assert proc.poll() is None, log.read_text(errors="replace")
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_process(proc)
