"""Setting the state of a vehicle or block from outside the simulation (teleport), for Box2D bodies.

An entity does not move alone: bodies joined to it by world-file <joint>s (a trailer and its tractor, a chain of
trailers) and the front unit of an articulated vehicle move with it as one rigid set, keeping their relative
poses, so no joint is stretched. The set gets the rigid-body motion of the requested twist: every body turns at
omega and its centre of mass moves at v_ref + omega x (c - p_ref).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import Box2D

from mvsim_ros.physics import box2d_native
from mvsim_ros.world.xml.bounds import BOUNDS
from mvsim_ros.world.specs import WorldSpec


@dataclass(frozen=True)
class JoinedSet:
    """Indices of the vehicles and blocks that move together with one entity (itself included), sorted."""

    vehicles: tuple[int, ...]
    blocks: tuple[int, ...]


def joined_set(world: WorldSpec, kind: str, index: int) -> JoinedSet:
    """The vehicles and blocks connected to entity (`kind` "vehicle" or "block", `index`) through the world's
    joints, directly or through other bodies."""
    names = {("vehicle", i): v.name for i, v in enumerate(world.vehicles)}
    names.update({("block", i): b.name for i, b in enumerate(world.blocks)})
    by_name = {name: key for key, name in names.items()}
    neighbours: dict[tuple[str, int], set[tuple[str, int]]] = {key: set() for key in names}
    for joint in world.joints:
        a, b = by_name.get(joint.body_a), by_name.get(joint.body_b)
        if a is not None and b is not None:
            neighbours[a].add(b)
            neighbours[b].add(a)
    seen, stack = {(kind, index)}, [(kind, index)]
    while stack:
        for other in neighbours[stack.pop()]:
            if other not in seen:
                seen.add(other)
                stack.append(other)
    return JoinedSet(tuple(sorted(i for k, i in seen if k == "vehicle")),
                     tuple(sorted(i for k, i in seen if k == "block")))


def checked_state(what: str, x: float, y: float, yaw: float, vx: float, vy: float,
                  omega: float) -> tuple[float, float, float, float, float, float]:
    """The state as floats with yaw wrapped into [-pi, pi) [rad]; ValueError (one line, naming `what`) for a
    non-finite value or one outside the world bounds (positions, velocities, yaw rates: world/xml/bounds.py)."""
    values = {"x": x, "y": y, "yaw": yaw, "vx": vx, "vy": vy, "omega": omega}
    try:
        numbers = {key: float(value) for key, value in values.items()}
    except (TypeError, ValueError):
        raise ValueError(f"{what}: state values must be numbers, got {values!r}") from None
    bad = [f"{key}={value!r}" for key, value in numbers.items() if not math.isfinite(value)]
    if bad:
        raise ValueError(f"{what}: state must be finite, got {', '.join(bad)}")
    ranges = {"x": "position", "y": "position", "vx": "velocity", "vy": "velocity"}
    for key, quantity in ranges.items():
        bound = BOUNDS[quantity]
        if not bound.low <= numbers[key] <= bound.high:
            raise ValueError(f"{what}: {key}={numbers[key]:g} is outside the world bounds {bound.text()}")
    rate = BOUNDS["angular_velocity"]
    if not math.radians(rate.low) <= numbers["omega"] <= math.radians(rate.high):
        raise ValueError(f"{what}: omega={numbers['omega']:g} rad/s is outside the world bounds {rate.text()}")
    wrapped = (numbers["yaw"] + math.pi) % (2.0 * math.pi) - math.pi
    return numbers["x"], numbers["y"], wrapped, numbers["vx"], numbers["vy"], numbers["omega"]


def place_rigidly(bodies: list[Box2D.b2Body], reference: Box2D.b2Body, x: float, y: float, yaw: float,
                  vx: float, vy: float, omega: float) -> None:
    """Move `bodies` (which include `reference`) as one rigid set so that the reference body's origin lands at
    (x, y) [m] with heading yaw [rad], and give the set the rigid motion whose reference-origin velocity is
    (vx, vy) [m/s] and yaw rate omega [rad/s], world frame. Every body is woken up; static ones moved are made known to
    the world's scan index (box2d_native.touch_scene_index)."""
    (x0, y0), yaw0 = reference.position.tuple, float(reference.angle)
    turn = yaw - yaw0
    c, s = math.cos(turn), math.sin(turn)
    for body in bodies:
        bx, by = body.position.tuple
        dx, dy = bx - x0, by - y0
        body.transform = ((x + c * dx - s * dy, y + s * dx + c * dy), float(body.angle) + turn)
    if any(body.type == Box2D.b2_staticBody for body in bodies):
        box2d_native.touch_scene_index(reference.world)  # the lidars' index of static bodies looks again
    for body in bodies:
        if body.type == Box2D.b2_staticBody:
            continue
        cx, cy = body.worldCenter.tuple
        body.linearVelocity = (vx - omega * (cy - y), vy + omega * (cx - x))
        body.angularVelocity = omega
        body.awake = True


__all__ = ["JoinedSet", "checked_state", "joined_set", "place_rigidly"]
