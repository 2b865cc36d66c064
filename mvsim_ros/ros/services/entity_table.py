"""The simulation's entities as simulation_interfaces sees them: names, categories, ground-truth states.

Entities are the vehicles (category ROBOT), the blocks (STATIC_OBJECT when static, else DYNAMIC_OBJECT) and the
actors (HUMAN, moved by their paths: read-only), named as in the world file. Looked up in that order when two
kinds share a name. States are in the world frame, which the node publishes as `map`: pose (x, y, yaw from the
physics; a vehicle's z, pitch and roll from the terrain under its wheels, a block's from the world and the
terrain, an actor's z from its path), twist of the entity's origin in the world frame (linear x, y; angular z),
acceleration where the simulation measures it (vehicles, horizontal).

Name filters are regular expressions in RE2 syntax, matched by RE2 in time linear in the name's length whatever
the pattern (no backtracking): a request's pattern cannot stall the node. RE2 has no backreferences or lookaround;
a pattern using them is refused like an invalid one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import re2

from geometry_msgs.msg import Accel, Pose, Twist
from simulation_interfaces.msg import EntityCategory, EntityFilters, EntityState

from mvsim_ros.core.rotations import ypr_quaternion
from mvsim_ros.physics import Simulation

#: Frame ids that name the simulation's world frame in requests (empty = world, per the standard).
WORLD_FRAMES = ("", "map", "world")
#: Frame id of the states this node returns.
WORLD_FRAME = "map"
#: Most characters of a refused filter quoted back in the error message.
MAX_QUOTED_FILTER = 80
#: Memory RE2 may use to compile one filter [bytes]: a larger pattern is refused as too large.
FILTER_MAX_MEMORY = 8 << 20


@dataclass(frozen=True)
class Entity:
    """One entity: `kind` "vehicle", "block" or "actor", its index among those, its category."""

    name: str
    kind: str
    index: int
    category: int


class FilterError(ValueError):
    """A filter the request uses cannot be applied: `unsupported` tells a missing feature from a bad value."""

    def __init__(self, message: str, unsupported: bool):
        super().__init__(message)
        self.unsupported = unsupported


def entities(sim: Simulation) -> list[Entity]:
    """Every entity of `sim`, vehicles first, then blocks, then actors (world order within each)."""
    out = [Entity(name, "vehicle", k, EntityCategory.CATEGORY_ROBOT) for k, name in enumerate(sim.vehicle_names)]
    for k, block in enumerate(sim.spec.blocks):
        category = EntityCategory.CATEGORY_STATIC_OBJECT if block.static else EntityCategory.CATEGORY_DYNAMIC_OBJECT
        out.append(Entity(block.name, "block", k, category))
    out += [Entity(actor.name, "actor", k, EntityCategory.CATEGORY_HUMAN) for k, actor in enumerate(sim.spec.actors)]
    return out


def entities_by_name(sim: Simulation) -> dict[str, Entity]:
    """Every entity of `sim` by name; where two kinds share a name, the vehicle before the block before the actor."""
    table: dict[str, Entity] = {}
    for entity in entities(sim):
        table.setdefault(entity.name, entity)
    return table


def find_entity(sim: Simulation, name: str) -> Entity | None:
    """The entity named `name` (vehicles before blocks before actors), or None."""
    return entities_by_name(sim).get(name)


def entity_names(sim: Simulation) -> set[str]:
    """Every name in use."""
    return {e.name for e in entities(sim)}


def filtered(sim: Simulation, filters: EntityFilters) -> list[Entity]:
    """The entities that pass `filters`: name regular expression (RE2 syntax, searched in the name; empty = all)
    and any of the categories (empty = all). FilterError for tags or bounds (unsupported) and for an expression
    that is invalid or uses what RE2 lacks (backreferences, lookaround)."""
    if filters.tags.tags:
        raise FilterError("entity tags are not supported by this simulator (the filter uses tags)", True)
    if filters.bounds.type != 0 or filters.bounds.points:
        raise FilterError("bounds filters are not supported by this simulator", True)
    pattern = compile_filter(filters.filter) if filters.filter else None
    categories = {c.category for c in filters.categories}
    return [e for e in entities(sim)
            if (pattern is None or pattern.search(e.name)) and (not categories or e.category in categories)]


def compile_filter(text: str):
    """`text` compiled by RE2 (matching in linear time), or FilterError with a one-line reason."""
    options = re2.Options()
    options.log_errors = False  # the reason goes back in the response, not to the node's stderr
    options.max_mem = FILTER_MAX_MEMORY
    try:
        return re2.compile(text, options=options)
    except re2.error as exc:
        raise FilterError(f"filter {_quoted(text)} is not a valid regular expression in RE2 syntax (no "
                          f"backreferences or lookaround): {_reason(exc)}", False) from None


def _quoted(text: str) -> str:
    """`text` as a Python literal, cut to MAX_QUOTED_FILTER characters (with its length when cut)."""
    if len(text) <= MAX_QUOTED_FILTER:
        return repr(text)
    return f"{text[:MAX_QUOTED_FILTER]!r}... ({len(text)} characters)"


def _reason(exc: Exception) -> str:
    """RE2's message for a refused pattern as one line of text (RE2 gives it as bytes)."""
    reason = exc.args[0] if exc.args else str(exc)
    if isinstance(reason, bytes):
        reason = reason.decode("utf-8", "replace")
    return " ".join(str(reason).split())[:200]


def entity_state(sim: Simulation, entity: Entity) -> EntityState:
    """Ground-truth state of `entity` in the world frame (header: WORLD_FRAME, stamped with the simulation
    time)."""
    state = EntityState()
    state.header.frame_id = WORLD_FRAME
    seconds = int(math.floor(sim.time))
    state.header.stamp.sec = seconds
    state.header.stamp.nanosec = min(int(round((sim.time - seconds) * 1e9)), 999_999_999)
    z, pitch, roll, accel = 0.0, 0.0, 0.0, (0.0, 0.0, 0.0)
    if entity.kind == "vehicle":
        x, y, yaw = (float(v) for v in sim.pose[entity.index])
        z, pitch, roll = (float(a[entity.index]) for a in (sim.vehicle_z, sim.vehicle_pitch, sim.vehicle_roll))
        vx, vy, omega = (float(v) for v in sim.velocity[entity.index])
        accel = tuple(float(v) for v in sim.acceleration[entity.index])  # horizontal (the Box2D plane)
    elif entity.kind == "block":
        x, y, z, yaw, pitch, roll = (float(v) for v in sim.block_poses3()[entity.index])
        body = sim.box2d.blocks[entity.index]
        vx, vy = body.GetLinearVelocityFromWorldPoint(body.position)
        vx, vy, omega = float(vx), float(vy), float(body.angularVelocity)
    else:
        x, y, z, yaw = (float(v) for v in sim.actor_poses[entity.index])
        speed = float(sim.actor_paths[entity.index].speed(sim.time))
        vx, vy, omega = speed * math.cos(yaw), speed * math.sin(yaw), 0.0
    state.pose = pose_msg(x, y, z, yaw, pitch, roll)
    state.twist = Twist()
    state.twist.linear.x, state.twist.linear.y, state.twist.angular.z = vx, vy, omega
    state.acceleration = Accel()
    state.acceleration.linear.x, state.acceleration.linear.y, state.acceleration.angular.z = accel
    return state


def pose_msg(x: float, y: float, z: float, yaw: float, pitch: float = 0.0, roll: float = 0.0) -> Pose:
    """A geometry_msgs/Pose from a position [m] and yaw, pitch, roll [rad] (R = Rz(yaw) Ry(pitch) Rx(roll))."""
    pose = Pose()
    pose.position.x, pose.position.y, pose.position.z = x, y, z
    q = pose.orientation
    q.w, q.x, q.y, q.z = ypr_quaternion(yaw, pitch, roll)
    return pose


class PoseError(ValueError):
    """A requested pose cannot be used (one-line message)."""


#: Largest roll or pitch [rad] a requested orientation may have: the simulation is planar.
MAX_TILT = 1e-3


def planar_pose(pose: Pose, allow_tilt: bool = False) -> tuple[float, float, float]:
    """(x, y, yaw) [m, m, rad] of a requested pose (z ignored). PoseError for a non-finite value, a quaternion far
    from unit length (0.9 to 1.1; it is normalised) or, unless `allow_tilt`, one that tilts the entity (roll or
    pitch beyond MAX_TILT)."""
    p, q = pose.position, pose.orientation
    values = (p.x, p.y, p.z, q.x, q.y, q.z, q.w)
    if not all(math.isfinite(v) for v in values):
        raise PoseError(f"pose has a non-finite value: position ({p.x}, {p.y}, {p.z}), orientation "
                        f"({q.x}, {q.y}, {q.z}, {q.w})")
    norm = math.sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w)
    if not 0.9 <= norm <= 1.1:
        raise PoseError(f"orientation quaternion ({q.x}, {q.y}, {q.z}, {q.w}) is not a unit quaternion "
                        f"(norm {norm:.3g})")
    x, y, z, w = q.x / norm, q.y / norm, q.z / norm, q.w / norm
    sin_pitch = max(-1.0, min(1.0, 2.0 * (w * y - z * x)))
    roll = math.atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y))
    if not allow_tilt and (abs(math.asin(sin_pitch)) > MAX_TILT or abs(roll) > MAX_TILT):
        raise PoseError("orientation tilts the entity (roll or pitch not zero): this simulation is planar")
    yaw = math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
    return float(p.x), float(p.y), yaw


def check_world_frame(frame_id: str) -> None:
    """PoseError unless `frame_id` names the world frame ('', 'map' or 'world')."""
    if frame_id not in WORLD_FRAMES:
        raise PoseError(f"frame '{frame_id}' is not known here: give poses and twists in the world frame "
                        "('', 'map' or 'world')")


__all__ = ["Entity", "FilterError", "MAX_TILT", "PoseError", "WORLD_FRAME", "WORLD_FRAMES", "check_world_frame",
           "compile_filter", "entities", "entities_by_name", "entity_names", "entity_state", "filtered", "find_entity",
           "planar_pose", "pose_msg"]
