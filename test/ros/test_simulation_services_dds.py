"""The standard simulation services (simulation_interfaces) of the node, over real DDS.

One node process runs the demo world (r1 at (0, 0, 0), r2 at (-8, -4, 90 deg); boxes box1..3) for the whole
module; the tests run in file order and each one puts the run state it needs first. The last one quits the node
through SetSimulationState and checks the exit status.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import time

import pytest
import rclpy
from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from rclpy.action import ActionClient
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from simulation_interfaces import srv
from simulation_interfaces.action import SimulateSteps
from simulation_interfaces.msg import Bounds, EntityCategory, Result, SimulationState, SimulatorFeatures

from conftest import DEMO_WORLD
from dds_probe import ProbeNode, node_command, stamp_s, stop_process

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))

NS = "/mvsim/"
DT = 0.005  # the demo world's time step [s]
#: Initial poses of the demo world: vehicles (x, y, yaw) and blocks.
START = {"r1": (0.0, 0.0, 0.0), "r2": (-8.0, -4.0, math.pi / 2), "box1": (3.0, 3.0, 0.0),
         "box2": (-6.0, 4.0, math.radians(30)), "box3": (8.0, -5.0, math.radians(45))}


def yaw_of(q) -> float:
    return math.atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z))


def angle_diff(a: float, b: float) -> float:
    return (a - b + math.pi) % (2 * math.pi) - math.pi


class Probe(ProbeNode):
    """Service clients, the simulate_steps action client, /clock and the vehicles' ground truth."""

    def __init__(self, context):
        super().__init__(context, "simulation_services_probe")
        self.clients: dict[str, object] = {}
        self.clock: list[float] = []
        self.truth: dict[str, list[Odometry]] = {}
        self.node.create_subscription(Clock, "/clock", lambda m: self.clock.append(stamp_s_clock(m)),
                                      QoSProfile(depth=50, reliability=ReliabilityPolicy.BEST_EFFORT))
        for name in ("r1", "r2", "r9"):
            self.truth[name] = []
            self.node.create_subscription(Odometry, f"/{name}/base_pose_ground_truth", self.truth[name].append, 50)
        self.action = ActionClient(self.node, SimulateSteps, NS + "simulate_steps")

    def call(self, kind, name: str, request=None, timeout: float = 20.0):
        """Call service NS + name; the response (fails the test after `timeout` [s])."""
        client = self.clients.get(name)
        if client is None:
            client = self.clients[name] = self.node.create_client(kind, NS + name)
        assert self.wait_for(client.service_is_ready, 20.0), f"service {NS + name} not available"
        future = client.call_async(request if request is not None else kind.Request())
        assert self.wait_for(future.done, timeout), f"{NS + name} did not answer within {timeout} s"
        return future.result()

    def sim_time(self) -> float:
        """The simulation time [s], from the stamp of an entity state."""
        response = self.call(srv.GetEntityState, "get_entity_state", srv.GetEntityState.Request(entity="r1"))
        assert response.result.result == Result.RESULT_OK
        return stamp_s(response.state)

    def set_state(self, state: int) -> int:
        request = srv.SetSimulationState.Request()
        request.state.state = state
        return self.call(srv.SetSimulationState, "set_simulation_state", request).result.result

    def ensure_state(self, state: int) -> None:
        """Put the simulation in `state` (OK, or already there)."""
        assert self.set_state(state) in (Result.RESULT_OK, srv.SetSimulationState.Response.ALREADY_IN_TARGET_STATE)

    def entity(self, name: str):
        response = self.call(srv.GetEntityState, "get_entity_state", srv.GetEntityState.Request(entity=name))
        assert response.result.result == Result.RESULT_OK, response.result.error_message
        return response.state

    def latest_truth(self, name: str, after: float, timeout: float = 10.0) -> Odometry:
        """The first ground-truth message of vehicle `name` stamped after simulation time `after` [s]."""
        def fresh():
            return [m for m in self.truth[name] if stamp_s(m) > after + 1e-9]
        assert self.wait_for(lambda: bool(fresh()), timeout), f"no ground truth of {name} after t={after}"
        return fresh()[0]


def stamp_s_clock(msg: Clock) -> float:
    return msg.clock.sec + 1e-9 * msg.clock.nanosec


@pytest.fixture(scope="module")
def sim():
    proc = subprocess.Popen(node_command(f"world_file:={DEMO_WORLD}", "realtime_factor:=1.0",
                                         "base_watchdog_timeout:=0.5"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    context = rclpy.Context()
    rclpy.init(context=context)
    probe = Probe(context)
    probe.proc = proc
    try:
        assert probe.wait_for(lambda: len(probe.truth["r1"]) > 3, 30.0), "no ground truth from the node"
        yield probe
    finally:
        probe.node.destroy_node()
        rclpy.shutdown(context=context)
        stop_process(proc)


def test_features_and_unsupported_requests(sim):
    features = sim.call(srv.GetSimulatorFeatures, "get_simulator_features").features
    listed = set(features.features)
    for wanted in (SimulatorFeatures.SPAWNING, SimulatorFeatures.DELETING, SimulatorFeatures.ENTITY_STATE_SETTING,
                   SimulatorFeatures.SIMULATION_STATE_PAUSE, SimulatorFeatures.STEP_SIMULATION_ACTION,
                   SimulatorFeatures.SIMULATION_RESET):
        assert wanted in listed
    for absent in (SimulatorFeatures.WORLD_LOADING, SimulatorFeatures.ENTITY_TAGS, SimulatorFeatures.NAMED_POSES,
                   SimulatorFeatures.ENTITY_BOUNDS_BOX, SimulatorFeatures.SIMULATION_RESET_TIME):
        assert absent not in listed
    assert list(features.spawn_formats) == ["mvsim_xml"]

    start = time.monotonic()
    load = srv.LoadWorld.Request()
    load.world_resource.uri = str(DEMO_WORLD)
    assert sim.call(srv.LoadWorld, "load_world", load).result.result == Result.RESULT_FEATURE_UNSUPPORTED
    bounded = srv.GetEntities.Request()
    bounded.filters.bounds.type = Bounds.TYPE_SPHERE
    assert sim.call(srv.GetEntities, "get_entities", bounded).result.result == Result.RESULT_FEATURE_UNSUPPORTED
    tagged = srv.GetEntities.Request()
    tagged.filters.tags.tags = ["shelf"]
    assert sim.call(srv.GetEntities, "get_entities", tagged).result.result == Result.RESULT_FEATURE_UNSUPPORTED
    assert time.monotonic() - start < 5.0


def test_entities_filters_and_categories(sim):
    everything = sim.call(srv.GetEntities, "get_entities")
    assert everything.result.result == Result.RESULT_OK
    assert list(everything.entities) == ["r1", "r2", "box1", "box2", "box3"]
    by_name = srv.GetEntities.Request()
    by_name.filters.filter = "^box[12]$"
    assert list(sim.call(srv.GetEntities, "get_entities", by_name).entities) == ["box1", "box2"]
    robots = srv.GetEntitiesStates.Request()
    robots.filters.categories = [EntityCategory(category=EntityCategory.CATEGORY_ROBOT)]
    answer = sim.call(srv.GetEntitiesStates, "get_entities_states", robots)
    assert list(answer.entities) == ["r1", "r2"] and len(answer.states) == 2
    bad = srv.GetEntities.Request()
    bad.filters.filter = "box("
    assert sim.call(srv.GetEntities, "get_entities", bad).result.result == Result.RESULT_OPERATION_FAILED
    missing = sim.call(srv.GetEntityState, "get_entity_state", srv.GetEntityState.Request(entity="nobody"))
    assert missing.result.result == Result.RESULT_NOT_FOUND
    info = sim.call(srv.GetEntityInfo, "get_entity_info", srv.GetEntityInfo.Request(entity="box3"))
    assert info.info.category.category == EntityCategory.CATEGORY_DYNAMIC_OBJECT


def test_pause_stops_the_clock_and_step_advances_exactly(sim):
    assert sim.set_state(SimulationState.STATE_PAUSED) == Result.RESULT_OK
    state = sim.call(srv.GetSimulationState, "get_simulation_state").state.state
    assert state == SimulationState.STATE_PAUSED
    sim.spin_for(0.3)
    sim.clock.clear()
    t0 = sim.sim_time()
    sim.spin_for(1.0)
    assert sim.sim_time() == t0, "simulation time moved while paused"
    assert all(c <= t0 + 1e-9 for c in sim.clock), "/clock went on while paused"

    step = sim.call(srv.StepSimulation, "step_simulation", srv.StepSimulation.Request(steps=100))
    assert step.result.result == Result.RESULT_OK, step.result.error_message
    t1 = sim.sim_time()
    assert abs((t1 - t0) - 100 * DT) < 5e-9
    assert sim.wait_for(lambda: sim.clock and max(sim.clock) >= t1 - 1e-9, 5.0)
    assert abs(max(sim.clock) - t1) < 5e-9
    # One more step: /clock (100 Hz, every other 5 ms step) reads the stepped time off its grid too.
    one = sim.call(srv.StepSimulation, "step_simulation", srv.StepSimulation.Request(steps=1))
    assert one.result.result == Result.RESULT_OK, one.result.error_message
    t1 = sim.sim_time()
    assert sim.wait_for(lambda: max(sim.clock) >= t1 - 1e-9, 5.0), "/clock does not read the stepped time"
    assert abs(max(sim.clock) - t1) < 5e-9
    sim.spin_for(0.5)
    assert sim.sim_time() == t1

    too_many = sim.call(srv.StepSimulation, "step_simulation", srv.StepSimulation.Request(steps=10**9))
    assert too_many.result.result == Result.RESULT_OPERATION_FAILED and "simulate_steps" in \
        too_many.result.error_message
    assert sim.set_state(SimulationState.STATE_PAUSED) == srv.SetSimulationState.Response.ALREADY_IN_TARGET_STATE

    assert sim.set_state(SimulationState.STATE_PLAYING) == Result.RESULT_OK
    sim.spin_for(1.0)
    t2 = sim.sim_time()
    assert 0.5 < t2 - t1 < 1.5, "after resuming, time runs at real time from where it paused (no jump)"
    playing = sim.call(srv.StepSimulation, "step_simulation", srv.StepSimulation.Request(steps=1))
    assert playing.result.result == Result.RESULT_OPERATION_FAILED


def run_goal(sim, steps: int, cancel_after_feedback: int | None = None):
    """Send a SimulateSteps goal; returns (status, result, feedback list)."""
    assert sim.action.wait_for_server(timeout_sec=10.0)
    feedback = []
    goal_future = sim.action.send_goal_async(SimulateSteps.Goal(steps=steps),
                                             feedback_callback=lambda m: feedback.append(m.feedback))
    assert sim.wait_for(goal_future.done, 10.0)
    handle = goal_future.result()
    assert handle.accepted
    if cancel_after_feedback is not None:
        assert sim.wait_for(lambda: len(feedback) >= cancel_after_feedback, 20.0)
        cancel = handle.cancel_goal_async()
        assert sim.wait_for(cancel.done, 10.0)
    result_future = handle.get_result_async()
    assert sim.wait_for(result_future.done, 30.0)
    return result_future.result().status, result_future.result().result, feedback


def test_simulate_steps_action_with_feedback_and_cancel(sim):
    from action_msgs.msg import GoalStatus

    sim.ensure_state(SimulationState.STATE_PAUSED)
    t0 = sim.sim_time()
    status, result, feedback = run_goal(sim, 400)
    assert status == GoalStatus.STATUS_SUCCEEDED and result.result.result == Result.RESULT_OK
    assert abs(sim.sim_time() - t0 - 400 * DT) < 5e-9
    assert sim.wait_for(lambda: feedback and feedback[-1].remaining_steps == 0, 5.0)
    assert all(f.completed_steps + f.remaining_steps == 400 for f in feedback)
    assert feedback[-1].completed_steps == 400

    t1 = sim.sim_time()
    status, result, feedback = run_goal(sim, 10**12, cancel_after_feedback=2)
    assert status == GoalStatus.STATUS_CANCELED
    assert result.result.result == Result.RESULT_OPERATION_FAILED
    done = int(re.search(r"cancelled after (\d+) of", result.result.error_message).group(1))
    assert done >= max(f.completed_steps for f in feedback) > 0
    assert abs(sim.sim_time() - t1 - done * DT) < 5e-9, "exactly the steps done before the cancel ran"
    sim.spin_for(0.3)
    t2 = sim.sim_time()
    sim.spin_for(0.5)
    assert sim.sim_time() == t2, "a cancelled goal leaves no steps running"

    assert sim.set_state(SimulationState.STATE_PLAYING) == Result.RESULT_OK
    status, result, _ = run_goal(sim, 10)
    assert status == GoalStatus.STATUS_ABORTED and result.result.result == Result.RESULT_OPERATION_FAILED


def set_entity(sim, name: str, x: float, y: float, yaw: float, frame: str = "", vx: float = 0.0,
               set_twist: bool = True) -> Result:
    request = srv.SetEntityState.Request(entity=name, set_pose=True, set_twist=set_twist)
    request.state.header.frame_id = frame
    request.state.pose.position.x, request.state.pose.position.y = x, y
    request.state.pose.orientation.z, request.state.pose.orientation.w = math.sin(yaw / 2), math.cos(yaw / 2)
    request.state.twist.linear.x = vx
    return sim.call(srv.SetEntityState, "set_entity_state", request).result


def test_set_entity_state_places_a_vehicle(sim):
    sim.ensure_state(SimulationState.STATE_PAUSED)
    result = set_entity(sim, "r2", 2.5, -1.0, 0.7, frame="map")
    assert result.result == Result.RESULT_OK, result.error_message
    t0 = sim.sim_time()
    sim.call(srv.StepSimulation, "step_simulation", srv.StepSimulation.Request(steps=10))  # ground truth is due
    truth = sim.latest_truth("r2", t0)
    p = truth.pose.pose
    assert math.hypot(p.position.x - 2.5, p.position.y + 1.0) < 1e-3
    assert abs(angle_diff(yaw_of(p.orientation), 0.7)) < 1e-3
    box = set_entity(sim, "box1", 1.0, 6.0, -0.4, frame="world")
    assert box.result == Result.RESULT_OK, box.error_message
    state = sim.entity("box1")
    assert math.hypot(state.pose.position.x - 1.0, state.pose.position.y - 6.0) < 1e-3

    assert set_entity(sim, "nobody", 0, 0, 0).result == Result.RESULT_NOT_FOUND
    assert set_entity(sim, "r2", 0, 0, 0, frame="odom").result == srv.SetEntityState.Response.INVALID_POSE
    assert set_entity(sim, "r2", 1e9, 0, 0).result == srv.SetEntityState.Response.INVALID_POSE
    tilted = srv.SetEntityState.Request(entity="r2", set_pose=True)
    tilted.state.pose.orientation.x, tilted.state.pose.orientation.w = math.sin(0.2), math.cos(0.2)
    answer = sim.call(srv.SetEntityState, "set_entity_state", tilted).result
    assert answer.result == srv.SetEntityState.Response.INVALID_POSE
    assert set_entity(sim, "r2", 2.5, -1.0, 0.7).result == Result.RESULT_OK  # unchanged by the refusals


def test_reset_returns_every_body_to_its_start(sim):
    sim.ensure_state(SimulationState.STATE_PLAYING)
    set_entity(sim, "box2", -2.0, 2.0, 1.0)
    set_entity(sim, "r1", 1.0, 1.0, 1.0, vx=0.3)
    sim.spin_for(0.5)
    assert sim.sim_time() > 1.0
    reset = sim.call(srv.ResetSimulation, "reset_simulation", srv.ResetSimulation.Request(scope=0))
    assert reset.result.result == Result.RESULT_OK, reset.result.error_message
    sim.ensure_state(SimulationState.STATE_PAUSED)
    t = sim.sim_time()
    assert t < 1.0, f"time goes back to the start (t={t})"
    sim.call(srv.StepSimulation, "step_simulation", srv.StepSimulation.Request(steps=2))
    for name in ("r1", "r2"):
        pose = sim.latest_truth(name, t).pose.pose
        x, y, yaw = START[name]
        assert math.hypot(pose.position.x - x, pose.position.y - y) < 1e-3, name
        assert abs(angle_diff(yaw_of(pose.orientation), yaw)) < 1e-3, name
    for name in ("box1", "box2", "box3"):
        state = sim.entity(name)
        x, y, yaw = START[name]
        assert math.hypot(state.pose.position.x - x, state.pose.position.y - y) < 1e-3, name
        assert abs(angle_diff(yaw_of(state.pose.orientation), yaw)) < 1e-3, name
    unsupported = sim.call(srv.ResetSimulation, "reset_simulation", srv.ResetSimulation.Request(scope=1))
    assert unsupported.result.result == Result.RESULT_FEATURE_UNSUPPORTED


def spawn(sim, name: str, uri: str = "demo_diff_robot", xml: str = "", x: float = 0.0, y: float = 0.0,
          allow_renaming: bool = False, namespace: str = ""):
    request = srv.SpawnEntity.Request(name=name, allow_renaming=allow_renaming, entity_namespace=namespace)
    request.entity_resource.uri, request.entity_resource.resource_string = uri, xml
    request.initial_pose.pose.position.x, request.initial_pose.pose.position.y = x, y
    return sim.call(srv.SpawnEntity, "spawn_entity", request)


def test_spawned_vehicle_drives_on_its_own_cmd_vel_and_delete_removes_it(sim):
    sim.ensure_state(SimulationState.STATE_PLAYING)
    spawnables = sim.call(srv.GetSpawnables, "get_spawnables")
    assert "demo_diff_robot" in [s.entity_resource.uri for s in spawnables.spawnables]
    answer = spawn(sim, "r9", x=2.0, y=-3.0)
    assert answer.result.result == Result.RESULT_OK, answer.result.error_message
    assert answer.entity_name == "r9"
    r1_before = sim.entity("r1").pose.position

    cmd = sim.node.create_publisher(Twist, "/r9/cmd_vel", 10)
    drive = Twist()
    drive.linear.x = 0.5
    sim.spin_for(3.0, publish=lambda: cmd.publish(drive), rate_hz=20.0)
    r9 = sim.entity("r9").pose.position
    assert r9.x > 2.5 and abs(r9.y + 3.0) < 0.1, f"r9 at ({r9.x:.3f}, {r9.y:.3f})"
    assert sim.truth["r9"], "r9 publishes its ground truth under /r9/"
    r1_after = sim.entity("r1").pose.position
    assert math.hypot(r1_after.x - r1_before.x, r1_after.y - r1_before.y) < 0.01, "r1 did not take r9's command"

    R = srv.SpawnEntity.Response
    assert spawn(sim, "r9", x=5.0).result.result == R.NAME_NOT_UNIQUE
    renamed = spawn(sim, "r9", x=5.0, y=2.0, allow_renaming=True)
    assert renamed.result.result == Result.RESULT_OK and renamed.entity_name == "r9_1"
    assert spawn(sim, "9-bad", x=5.0).result.result == R.NAME_INVALID
    assert spawn(sim, "r10", uri="").result.result == R.NO_RESOURCE
    assert spawn(sim, "r10", uri="no_such_class").result.result == Result.RESULT_NOT_FOUND
    assert spawn(sim, "r10", uri="", xml="<vehicle name='r10'").result.result == R.RESOURCE_PARSE_ERROR
    assert spawn(sim, "r10", x=1e9).result.result == R.INVALID_POSE
    assert spawn(sim, "r10", x=6.0, namespace="bad ns").result.result == R.NAMESPACE_INVALID
    assert sim.set_state(SimulationState.STATE_PAUSED) == Result.RESULT_OK  # the crate stays where it is put
    block = spawn(sim, "", uri="", xml='<block class="box_small" name="crate"><init_pose>1.5 -1.5 0</init_pose>'
                                       '</block>')
    assert block.result.result == Result.RESULT_OK and block.entity_name == "crate"
    crate = sim.entity("crate").pose.position
    assert math.hypot(crate.x - 1.5, crate.y + 1.5) < 1e-3
    sim.ensure_state(SimulationState.STATE_PLAYING)

    def topics():
        return {name for name, _ in sim.node.get_topic_names_and_types()}

    assert sim.wait_for(lambda: "/r9/odom" in topics(), 10.0)
    for name in ("r9", "r9_1", "crate"):
        deleted = sim.call(srv.DeleteEntity, "delete_entity", srv.DeleteEntity.Request(entity=name))
        assert deleted.result.result == Result.RESULT_OK, deleted.result.error_message
    assert sim.wait_for(lambda: "/r9/odom" not in topics() and "/r9_1/odom" not in topics(), 10.0)
    assert "/r1/odom" in topics()
    assert list(sim.call(srv.GetEntities, "get_entities").entities) == ["r1", "r2", "box1", "box2", "box3"]
    gone = sim.call(srv.DeleteEntity, "delete_entity", srv.DeleteEntity.Request(entity="r9"))
    assert gone.result.result == Result.RESULT_NOT_FOUND


def test_stop_resets_and_reset_spawned_removes_only_spawned(sim):
    sim.ensure_state(SimulationState.STATE_PLAYING)
    assert spawn(sim, "extra", x=3.0, y=-2.0).result.result == Result.RESULT_OK
    scoped = sim.call(srv.ResetSimulation, "reset_simulation", srv.ResetSimulation.Request(scope=4))
    assert scoped.result.result == Result.RESULT_OK
    assert "extra" not in sim.call(srv.GetEntities, "get_entities").entities
    assert sim.sim_time() > 0.5, "SCOPE_SPAWNED keeps the time"

    assert sim.set_state(SimulationState.STATE_STOPPED) == Result.RESULT_OK
    state = sim.call(srv.GetSimulationState, "get_simulation_state").state.state
    assert state == SimulationState.STATE_STOPPED
    t = sim.sim_time()
    assert t < 0.1
    sim.spin_for(0.5)
    assert sim.sim_time() == t


def test_quitting_ends_the_node_cleanly(sim):
    assert sim.set_state(SimulationState.STATE_QUITTING) == Result.RESULT_OK
    assert sim.proc.wait(timeout=15.0) == 0
