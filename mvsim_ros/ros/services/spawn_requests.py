"""What a simulation_interfaces SpawnEntity request asks for, checked: the entity to build, its name and namespace.

Resources: `entity_resource.uri` is the name of a vehicle or block class of the loaded world (GetSpawnables lists
them); with an empty uri, `resource_string` is one `<vehicle>` or `<block>` element in MVSim world syntax (format
SPAWN_FORMAT). The pose is `initial_pose` in the world frame; for a resource_string, an initial_pose left at its
default (origin, identity, no frame) keeps the element's own `<init_pose>`.

Names: the request's `name`, else the element's name attribute, else (allow_renaming) the class name; a name in
use gets `_<k>` appended with allow_renaming, NAME_NOT_UNIQUE without. A name must be one ROS name token (letters,
digits, '_', not starting with a digit) of at most MAX_TOPIC_NAME_CHARS characters: it becomes the vehicle's topic
namespace. A namespace is at most MAX_TOPIC_NAME_CHARS characters long too.

Namespace: a spawned vehicle's topics are always namespaced: under `entity_namespace` when given (a ROS namespace,
e.g. 'fleet/r9'), else under its name. Blocks have no topics: a namespace given for one is ignored.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from simulation_interfaces.msg import Result
from simulation_interfaces.srv import SpawnEntity

from mvsim_ros.ros.services.entity_table import PoseError, check_world_frame, planar_pose
from mvsim_ros.world import WorldFileError
from mvsim_ros.world.specs import VehicleSpec
from mvsim_ros.world.elements.vehicles import MAX_TOPIC_NAME_CHARS, shown_name

#: The spawn format this node reads (GetSimulatorFeatures.spawn_formats).
SPAWN_FORMAT = "mvsim_xml"
#: One ROS name token.
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class SpawnError(ValueError):
    """A spawn request that cannot be served: `code` is a SpawnEntity.Response / Result code."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class SpawnPlan:
    """The checked request: the entity to add (a VehicleSpec or BlockSpec, named), and for a vehicle its topic
    prefix ('<namespace>/')."""

    entity: object
    prefix: str
    warnings: tuple[str, ...] = ()


def is_ros_token(name: str) -> bool:
    """Whether `name` is one ROS name token (letters, digits, '_', not starting with a digit)."""
    return bool(_TOKEN.match(name))


def _name_problem(name: str) -> str | None:
    """Why `name` cannot name a spawned entity, or None."""
    if not is_ros_token(name):
        return "use letters, digits and '_', not starting with a digit"
    if len(name) > MAX_TOPIC_NAME_CHARS:
        return f"it is {len(name)} characters long, more than {MAX_TOPIC_NAME_CHARS}"
    return None


def unique_name(base: str, taken: set[str]) -> str:
    """`base` if free, else `base_1`, `base_2`, ... (the first free one)."""
    if base not in taken:
        return base
    k = 1
    while f"{base}_{k}" in taken:
        k += 1
    return f"{base}_{k}"


def plan_spawn(request: SpawnEntity.Request, catalog, taken: set[str], prefixes_in_use: set[str]) -> SpawnPlan:
    """Check `request` against the world's `catalog` (SpawnCatalog), the entity names in use (`taken`) and the
    vehicles' topic prefixes in use, and build the entity. Raises SpawnError with the standard's code."""
    R = SpawnEntity.Response
    resource = request.entity_resource
    if not resource.uri and not resource.resource_string:
        raise SpawnError(R.NO_RESOURCE, "entity_resource has neither a uri nor a resource_string")
    if catalog is None:
        raise SpawnError(Result.RESULT_FEATURE_UNSUPPORTED, "this world has no spawn catalog")
    x, y, yaw = _requested_pose(request)
    from_text = not resource.uri
    if from_text and _default_pose(request):
        x = y = yaw = None  # keep the element's own init_pose
    name = request.name.strip()
    problem = _name_problem(name) if name else None
    if problem:
        raise SpawnError(R.NAME_INVALID, f"name {shown_name(request.name)} is not a valid entity name: {problem}")
    if name in taken and not request.allow_renaming:
        raise SpawnError(R.NAME_NOT_UNIQUE, f"an entity named '{name}' exists already (set allow_renaming to get a "
                                            "generated name)")
    warnings: list[str] = []
    try:
        if from_text:
            entity = catalog.from_xml(resource.resource_string, name=name or None, x=x, y=y, yaw=yaw,
                                      warnings=warnings)
        else:
            if resource.uri not in catalog.vehicle_classes() + catalog.block_classes():
                raise SpawnError(Result.RESULT_NOT_FOUND, f"no spawnable '{resource.uri}': vehicle classes "
                                 f"[{', '.join(catalog.vehicle_classes())}], block classes "
                                 f"[{', '.join(catalog.block_classes())}] (see get_spawnables)")
            if not name and not request.allow_renaming:
                raise SpawnError(R.NAME_INVALID, "name is empty (give one, or set allow_renaming)")
            entity = catalog.from_class(resource.uri, name or resource.uri, x, y, yaw, warnings=warnings)
    except WorldFileError as exc:
        raise SpawnError(R.RESOURCE_PARSE_ERROR, " ".join(str(exc).split())) from None
    except SpawnError:
        raise
    except ValueError as exc:  # the names are checked above: what is left is the pose (e.g. beyond the world)
        raise SpawnError(R.INVALID_POSE, " ".join(str(exc).split())) from None
    final = _final_name(entity.name, taken, request.allow_renaming)
    if final != entity.name:
        entity = replace(entity, name=final)
    prefix = _prefix(request.entity_namespace, final, prefixes_in_use) if isinstance(entity, VehicleSpec) else ""
    return SpawnPlan(entity, prefix, tuple(warnings))


def _final_name(name: str, taken: set[str], allow_renaming: bool) -> str:
    R = SpawnEntity.Response
    problem = _name_problem(name)
    if problem:
        raise SpawnError(R.NAME_INVALID, f"name {shown_name(name)} is not a valid entity name: {problem}")
    if name in taken:
        if not allow_renaming:
            raise SpawnError(R.NAME_NOT_UNIQUE, f"an entity named '{name}' exists already (set allow_renaming to "
                                                "get a generated name)")
        return unique_name(name, taken)
    return name


def _prefix(namespace: str, name: str, prefixes_in_use: set[str]) -> str:
    """'<namespace>/' (or '<name>/'), checked against ROS namespace rules and the prefixes in use."""
    R = SpawnEntity.Response
    wanted = namespace.strip()
    tokens = wanted.strip("/").split("/") if wanted else [name]
    if not all(is_ros_token(t) for t in tokens):
        raise SpawnError(R.NAMESPACE_INVALID, f"namespace {shown_name(namespace)} is not a valid ROS namespace "
                                              "(tokens of letters, digits and '_', separated by '/')")
    prefix = "/".join(tokens) + "/"
    if len(prefix) - 1 > MAX_TOPIC_NAME_CHARS:
        raise SpawnError(R.NAMESPACE_INVALID, f"namespace {shown_name(namespace)} is {len(prefix) - 1} characters "
                                              f"long, more than {MAX_TOPIC_NAME_CHARS}")
    clash = [p for p in prefixes_in_use if p and (p.startswith(prefix) or prefix.startswith(p))]
    if clash:
        raise SpawnError(R.NAMESPACE_INVALID, f"namespace '{prefix[:-1]}' overlaps the topics of a vehicle under "
                                              f"'{clash[0][:-1]}'")
    return prefix


def _requested_pose(request: SpawnEntity.Request) -> tuple[float, float, float]:
    try:
        check_world_frame(request.initial_pose.header.frame_id)
        return planar_pose(request.initial_pose.pose)
    except PoseError as exc:
        raise SpawnError(SpawnEntity.Response.INVALID_POSE, f"initial_pose: {exc}") from None


def _default_pose(request: SpawnEntity.Request) -> bool:
    p, q = request.initial_pose.pose.position, request.initial_pose.pose.orientation
    return (request.initial_pose.header.frame_id == "" and (p.x, p.y, p.z) == (0.0, 0.0, 0.0)
            and (q.x, q.y, q.z) == (0.0, 0.0, 0.0) and math.isclose(q.w, 1.0))


__all__ = ["SPAWN_FORMAT", "SpawnError", "SpawnPlan", "is_ros_token", "plan_spawn", "unique_name"]
