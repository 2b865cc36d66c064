"""The standard simulation services and action (ROS package simulation_interfaces 2.1.0) on the node.

All under the node's private namespace (`~/`, i.e. `/mvsim/...` for the default node name), named as the
standard's implementations name them (Gazebo serves `/gzserver/<name>`): get_simulator_features,
get_simulation_state, set_simulation_state, reset_simulation, step_simulation, simulate_steps (action),
get_entities, get_entities_states, get_entity_state, get_entity_info, set_entity_state, spawn_entity,
delete_entity, get_spawnables; and, answering RESULT_FEATURE_UNSUPPORTED, every other service of the package.
Every call answers: a request this simulator cannot serve gets FEATURE_UNSUPPORTED, a bad one the standard's code
and a one-line message; nothing raises into the executor.

Stepping (StepSimulation, SimulateSteps) needs the simulation paused (else OPERATION_FAILED / INCORRECT_STATE as
each interface says). The steps run in the node's loop timer a tick's worth of wall time at a time (see
runtime/step_queue.py), so the executor keeps serving other callbacks; the service answers once its steps are done.
StepSimulation takes at most MAX_SERVICE_STEPS steps: more is the SimulateSteps action's job (feedback, cancel).
"""

from __future__ import annotations

from typing import Callable

from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.task import Future
from simulation_interfaces.action import SimulateSteps
from simulation_interfaces.msg import Result, SimulationState, SimulatorFeatures, Spawnable
from simulation_interfaces import srv

from mvsim_ros.physics.world_edit import with_entity, without_entities, without_entity
from mvsim_ros.ros.services.entity_table import (FilterError, PoseError, check_world_frame, entities_by_name,
                                                 entity_names, entity_state, filtered, find_entity, planar_pose)
from mvsim_ros.ros.services.spawn_requests import SPAWN_FORMAT, SpawnError, plan_spawn
from mvsim_ros.runtime.step_queue import JobEnd, StepJob
from mvsim_ros.world.xml.bounds import BOUNDS

#: Most steps one StepSimulation call may ask for (use the simulate_steps action beyond).
MAX_SERVICE_STEPS = 100_000

#: What works here (GetSimulatorFeatures).
FEATURES = (
    SimulatorFeatures.SPAWNING, SimulatorFeatures.DELETING, SimulatorFeatures.ENTITY_CATEGORIES,
    SimulatorFeatures.SPAWNING_RESOURCE_STRING, SimulatorFeatures.ENTITY_STATE_GETTING,
    SimulatorFeatures.ENTITY_STATE_SETTING, SimulatorFeatures.ENTITY_INFO_GETTING, SimulatorFeatures.SPAWNABLES,
    SimulatorFeatures.SIMULATION_RESET, SimulatorFeatures.SIMULATION_RESET_SPAWNED,
    SimulatorFeatures.SIMULATION_STATE_GETTING, SimulatorFeatures.SIMULATION_STATE_SETTING,
    SimulatorFeatures.SIMULATION_STATE_PAUSE, SimulatorFeatures.STEP_SIMULATION_SINGLE,
    SimulatorFeatures.STEP_SIMULATION_MULTIPLE, SimulatorFeatures.STEP_SIMULATION_ACTION,
)
#: Reset scopes served: everything (DEFAULT, ALL, or TIME|STATE|SPAWNED), or only the spawned entities.
_SCOPE_FULL = (0, 255, 7)
_SCOPE_SPAWNED = 4
#: Services of the package this simulator does not serve (they answer RESULT_FEATURE_UNSUPPORTED).
UNSUPPORTED = {
    "get_entity_bounds": srv.GetEntityBounds, "get_named_poses": srv.GetNamedPoses,
    "get_named_pose_bounds": srv.GetNamedPoseBounds, "set_entity_info": srv.SetEntityInfo,
    "spawn_entities": srv.SpawnEntities, "load_world": srv.LoadWorld, "unload_world": srv.UnloadWorld,
    "get_current_world": srv.GetCurrentWorld, "get_available_worlds": srv.GetAvailableWorlds,
}


def _result(response, code: int, message: str = ""):
    response.result.result = code
    response.result.error_message = message
    return response


class SimulationServices:
    """The simulation_interfaces services and the SimulateSteps action of `node` (an MvsimNode)."""

    def __init__(self, node):
        self.node = node
        self.spawned: set[str] = set()  # names of the entities spawned since the start (or the last reset)
        # Stepping awaits its steps: its own group, so that the loop timer (default group) keeps running.
        stepping = MutuallyExclusiveCallbackGroup()
        served: dict[str, tuple[type, Callable]] = {
            "get_simulator_features": (srv.GetSimulatorFeatures, self._features),
            "get_simulation_state": (srv.GetSimulationState, self._get_state),
            "set_simulation_state": (srv.SetSimulationState, self._set_state),
            "reset_simulation": (srv.ResetSimulation, self._reset),
            "get_entities": (srv.GetEntities, self._get_entities),
            "get_entities_states": (srv.GetEntitiesStates, self._get_entities_states),
            "get_entity_state": (srv.GetEntityState, self._get_entity_state),
            "get_entity_info": (srv.GetEntityInfo, self._get_entity_info),
            "set_entity_state": (srv.SetEntityState, self._set_entity_state),
            "spawn_entity": (srv.SpawnEntity, self._spawn),
            "delete_entity": (srv.DeleteEntity, self._delete),
            "get_spawnables": (srv.GetSpawnables, self._spawnables),
        }
        for name, (kind, callback) in served.items():
            node.create_service(kind, f"~/{name}", self._guarded(callback))
        for name, kind in UNSUPPORTED.items():
            node.create_service(kind, f"~/{name}", self._unsupported(name))
        node.create_service(srv.StepSimulation, "~/step_simulation", self._step, callback_group=stepping)
        self.action = ActionServer(node, SimulateSteps, "~/simulate_steps", self._simulate_steps,
                                   goal_callback=self._accept_goal, cancel_callback=lambda _goal: CancelResponse.ACCEPT,
                                   callback_group=ReentrantCallbackGroup())

    # -- plumbing -----------------------------------------------------------------------------------------------
    def _guarded(self, callback: Callable) -> Callable:
        """`callback` answering OPERATION_FAILED (and logging) instead of raising into the executor."""
        def serve(request, response):
            try:
                return callback(request, response)
            except Exception as exc:  # noqa: BLE001 (a service must answer, and the node must keep running)
                text = f"{type(exc).__name__}: {exc}"
                self.node.get_logger().error(f"simulation service failed: {' '.join(text.split())}")
                if hasattr(response, "result") and hasattr(response.result, "result"):
                    return _result(response, Result.RESULT_OPERATION_FAILED, " ".join(text.split()))
                return response
        return serve

    @staticmethod
    def _unsupported(name: str) -> Callable:
        def serve(_request, response):
            return _result(response, Result.RESULT_FEATURE_UNSUPPORTED,
                           f"{name} is not supported by this simulator (see get_simulator_features)")
        return serve

    # -- features and run state -----------------------------------------------------------------------------------
    def _features(self, _request, response):
        response.features.features = list(FEATURES)
        response.features.spawn_formats = [SPAWN_FORMAT]
        response.features.custom_info = (
            "mvsim_ros: planar MVSim-compatible simulator. spawn: entity_resource.uri = a vehicle or block class "
            f"of the world (get_spawnables), or resource_string = one <vehicle>/<block> element ({SPAWN_FORMAT}); "
            "a spawned vehicle's topics go under <entity_namespace or name>/. reset scopes: DEFAULT/ALL, SPAWNED. "
            f"step_simulation: at most {MAX_SERVICE_STEPS} steps per call (more: simulate_steps action).")
        return response

    def state(self) -> int:
        """The SimulationState constant of the node's run state."""
        if self.node.stopped:
            return SimulationState.STATE_STOPPED
        return SimulationState.STATE_PAUSED if self.node.paused else SimulationState.STATE_PLAYING

    def _get_state(self, _request, response):
        response.state.state = self.state()
        return _result(response, Result.RESULT_OK)

    def _set_state(self, request, response):
        S, R = SimulationState, srv.SetSimulationState.Response
        target, now, node = request.state.state, self.state(), self.node
        if target == S.STATE_QUITTING:
            node.get_logger().info("set_simulation_state: quitting")
            node.quit()
            return _result(response, Result.RESULT_OK)
        if target not in (S.STATE_PLAYING, S.STATE_PAUSED, S.STATE_STOPPED):
            return _result(response, Result.RESULT_FEATURE_UNSUPPORTED,
                           f"state {target} cannot be set here (worlds are not loaded or unloaded at run time)")
        if target == now:
            return _result(response, R.ALREADY_IN_TARGET_STATE, "the simulation is in that state already")
        if target == S.STATE_PLAYING:
            node.play()
        elif target == S.STATE_PAUSED:
            node.pause()
            node.stopped = False  # stopped -> paused: paused at the start
        else:
            node.stop_simulation()
            self.spawned.clear()
        return _result(response, Result.RESULT_OK)

    def _reset(self, request, response):
        scope = request.scope
        if scope in _SCOPE_FULL:
            self.node.reset_to_start()
            self.spawned.clear()
            return _result(response, Result.RESULT_OK)
        if scope == _SCOPE_SPAWNED:
            by_name = entities_by_name(self.node.sim)
            self._remove([by_name[name] for name in sorted(self.spawned) if name in by_name])
            self.spawned.clear()
            return _result(response, Result.RESULT_OK)
        return _result(response, Result.RESULT_FEATURE_UNSUPPORTED,
                       f"reset scope {scope} is not supported: use SCOPE_DEFAULT/SCOPE_ALL or SCOPE_SPAWNED")

    # -- stepping -------------------------------------------------------------------------------------------------
    async def _step(self, request, response):
        """StepSimulation: `steps` steps while paused; answers when they are done."""
        try:
            if not self.node.paused:
                return _result(response, Result.RESULT_OPERATION_FAILED,
                               "the simulation is not paused: pause it (set_simulation_state) before stepping")
            if request.steps > MAX_SERVICE_STEPS:
                return _result(response, Result.RESULT_OPERATION_FAILED,
                               f"{request.steps} steps is more than step_simulation takes ({MAX_SERVICE_STEPS}); "
                               "use the simulate_steps action (with feedback and cancel)")
            self.node.stopped = False
            outcome = await self.node.step_queue.add(StepJob(request.steps, future=Future()))
            if outcome.end is JobEnd.DONE:
                return _result(response, Result.RESULT_OK)
            return _result(response, Result.RESULT_OPERATION_FAILED, outcome.message)
        except Exception as exc:  # noqa: BLE001 (the call must be answered)
            return _result(response, Result.RESULT_OPERATION_FAILED, f"{type(exc).__name__}: {exc}")

    def _accept_goal(self, _goal) -> GoalResponse:
        return GoalResponse.ACCEPT  # a goal on a playing simulation is answered in its result

    async def _simulate_steps(self, goal_handle):
        """SimulateSteps: the steps of the goal while paused, feedback as they go, cancel between steps."""
        result = SimulateSteps.Result()
        if not self.node.paused:
            goal_handle.abort()
            return _result(result, Result.RESULT_OPERATION_FAILED,
                           "the simulation is not paused: pause it (set_simulation_state) before stepping")

        def progress(completed: int, remaining: int) -> None:
            feedback = SimulateSteps.Feedback()
            feedback.completed_steps, feedback.remaining_steps = completed, remaining
            goal_handle.publish_feedback(feedback)

        self.node.stopped = False
        job = StepJob(goal_handle.request.steps, progress, lambda: goal_handle.is_cancel_requested, Future())
        outcome = await self.node.step_queue.add(job)
        if outcome.end is JobEnd.DONE:
            goal_handle.succeed()
            return _result(result, Result.RESULT_OK)
        if outcome.end is JobEnd.CANCELLED and goal_handle.is_cancel_requested:
            goal_handle.canceled()
        else:
            goal_handle.abort()
        return _result(result, Result.RESULT_OPERATION_FAILED, outcome.message)

    # -- entities -------------------------------------------------------------------------------------------------
    def _get_entities(self, request, response):
        return self._answer_filtered(request, response, with_states=False)

    def _get_entities_states(self, request, response):
        return self._answer_filtered(request, response, with_states=True)

    def _answer_filtered(self, request, response, with_states: bool):
        """GetEntities / GetEntitiesStates: the names (and states) of the entities the request's filters select."""
        try:
            found = filtered(self.node.sim, request.filters)
        except FilterError as exc:
            code = Result.RESULT_FEATURE_UNSUPPORTED if exc.unsupported else Result.RESULT_OPERATION_FAILED
            return _result(response, code, str(exc))
        response.entities = [e.name for e in found]
        if with_states:
            response.states = [entity_state(self.node.sim, e) for e in found]
        return _result(response, Result.RESULT_OK)

    def _get_entity_state(self, request, response):
        entity = find_entity(self.node.sim, request.entity)
        if entity is None:
            return _result(response, Result.RESULT_NOT_FOUND, f"no entity named '{request.entity}'")
        response.state = entity_state(self.node.sim, entity)
        return _result(response, Result.RESULT_OK)

    def _get_entity_info(self, request, response):
        entity = find_entity(self.node.sim, request.entity)
        if entity is None:
            return _result(response, Result.RESULT_NOT_FOUND, f"no entity named '{request.entity}'")
        response.info.category.category = entity.category
        spawned = " (spawned)" if entity.name in self.spawned else ""
        response.info.description = f"MVSim {entity.kind} '{entity.name}'{spawned}"
        return _result(response, Result.RESULT_OK)

    def _set_entity_state(self, request, response):
        R, node = srv.SetEntityState.Response, self.node
        sim = node.sim
        entity = find_entity(sim, request.entity)
        if entity is None:
            return _result(response, Result.RESULT_NOT_FOUND, f"no entity named '{request.entity}'")
        if entity.kind == "actor":
            return _result(response, Result.RESULT_OPERATION_FAILED,
                           f"'{entity.name}' is an actor: it follows its path and cannot be placed")
        if not (request.set_pose or request.set_twist):
            return _result(response, Result.RESULT_OK)  # nothing asked for (acceleration is not settable)
        current = entity_state(sim, entity)
        try:
            check_world_frame(request.state.header.frame_id)
            if request.set_pose:  # a block keeps the pitch and roll of its world file: only its yaw is set
                x, y, yaw = planar_pose(request.state.pose, allow_tilt=entity.kind == "block")
            else:
                x, y, yaw = (sim.pose[entity.index] if entity.kind == "vehicle"
                             else sim.block_poses()[entity.index]).tolist()
            bound = BOUNDS["position"]
            if not (bound.low <= x <= bound.high and bound.low <= y <= bound.high):
                raise PoseError(f"position ({x:g}, {y:g}) is outside the world bounds {bound.text()}")
        except PoseError as exc:
            return _result(response, R.INVALID_POSE, str(exc))
        twist = request.state.twist if request.set_twist else current.twist
        velocity = (twist.linear.x, twist.linear.y, twist.angular.z)
        place = sim.set_vehicle_state if entity.kind == "vehicle" else sim.set_block_state
        try:
            place(entity.index, x, y, yaw, *velocity)
        except ValueError as exc:
            return _result(response, Result.RESULT_OPERATION_FAILED, " ".join(str(exc).split()))
        self._relocalize_all()
        return _result(response, Result.RESULT_OK)

    def _relocalize_all(self) -> None:
        """Fake localization after a teleport (every vehicle: the moved one's joined set may hold others)."""
        relocalize = getattr(self.node.session.publishers, "relocalize", None)
        if relocalize is not None:
            for index in range(len(self.node.sim.vehicle_names)):
                relocalize(index)

    # -- spawning and deleting ------------------------------------------------------------------------------------
    def _spawnables(self, request, response):
        catalog = self.node.sim.spec.catalog
        if catalog is None:
            return _result(response, Result.RESULT_OK)
        for kind, names in (("vehicle", catalog.vehicle_classes()), ("block", catalog.block_classes())):
            for name in names:
                spawnable = Spawnable()
                spawnable.entity_resource.uri = name
                spawnable.description = f"MVSim {kind} class '{name}' of {catalog.file}"
                response.spawnables.append(spawnable)
        ignored = [s for s in request.sources if s]
        note = f"sources not searched (only the world's classes are spawnable): {', '.join(ignored)}" if ignored \
            else ""
        return _result(response, Result.RESULT_OK, note)

    def _spawn(self, request, response):
        node = self.node
        sim = node.sim
        prefixes = list(node.session.prefixes)
        try:
            plan = plan_spawn(request, sim.spec.catalog, entity_names(sim), set(prefixes))
        except SpawnError as exc:
            return _result(response, exc.code, str(exc))
        for warning in plan.warnings:
            node.get_logger().warning(f"spawn_entity: {warning}")
        try:
            new_sim = with_entity(sim, plan.entity)
        except ValueError as exc:
            return _result(response, Result.RESULT_OPERATION_FAILED, " ".join(str(exc).split()))
        is_vehicle = len(new_sim.vehicle_names) > len(sim.vehicle_names)
        try:
            node.replace_simulation(new_sim, prefixes + [plan.prefix] if is_vehicle else prefixes)
        except Exception as exc:  # noqa: BLE001 (e.g. a sensor of the new vehicle cannot be built): take it out
            kind, index = ("vehicle", len(sim.vehicle_names)) if is_vehicle else ("block", len(sim.spec.blocks))
            node.replace_simulation(without_entity(new_sim, kind, index), prefixes)
            text = " ".join(f"{type(exc).__name__}: {exc}".split())
            return _result(response, Result.RESULT_OPERATION_FAILED, f"the spawned entity could not be set up: {text}")
        self.spawned.add(plan.entity.name)
        where = f", topics under {plan.prefix}" if is_vehicle else ""
        node.get_logger().info(f"spawned {'vehicle' if is_vehicle else 'block'} '{plan.entity.name}'{where}")
        response.entity_name = plan.entity.name
        return _result(response, Result.RESULT_OK)

    def _delete(self, request, response):
        entity = find_entity(self.node.sim, request.entity)
        if entity is None:
            return _result(response, Result.RESULT_NOT_FOUND, f"no entity named '{request.entity}'")
        if entity.kind == "actor":
            return _result(response, Result.RESULT_OPERATION_FAILED,
                           f"'{entity.name}' is an actor: actors cannot be deleted")
        self._remove([entity])
        self.spawned.discard(entity.name)
        self.node.get_logger().info(f"deleted {entity.kind} '{entity.name}'")
        return _result(response, Result.RESULT_OK)

    def _remove(self, entities: list) -> None:
        """Take `entities` (vehicles and blocks) out of the simulation, in one edit."""
        if not entities:
            return
        node = self.node
        gone = {e.index for e in entities if e.kind == "vehicle"}
        prefixes = [p for k, p in enumerate(node.session.prefixes) if k not in gone]
        new_sim = without_entities(node.sim, [(e.kind, e.index) for e in entities])
        node.replace_simulation(new_sim, prefixes)


__all__ = ["FEATURES", "MAX_SERVICE_STEPS", "SimulationServices", "UNSUPPORTED"]
