"""Topic and frame naming, as MVSim's ROS 2 node does it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mvsim_ros.world.specs import WorldSpec


@dataclass(frozen=True)
class Frames:
    """Frame ids (unprefixed: each vehicle's TF tree lives on its own `<veh>/tf` topic when namespaced)."""

    map: str = "map"
    odom: str = "odom"
    base_link: str = "base_link"


def vehicle_prefix(name: str, vehicle_count: int, force_namespace: bool) -> str:
    """'<name>/' when topics need a per-vehicle namespace (several vehicles, or forced), else ''."""
    return f"{name}/" if vehicle_count > 1 or force_namespace else ""


class RosNameError(ValueError):
    """A vehicle or sensor name of the world cannot be part of a ROS topic name (one-line message)."""


#: One token of a ROS 2 topic name: letters, digits and '_', not starting with a digit.
_NAME_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def check_ros_names(world: WorldSpec, force_namespace: bool) -> None:
    """Refuse names that would make invalid topics: vehicle names used as namespaces (several vehicles, or
    forced) and sensor names (topic names under their vehicle, or at the root for world sensors). RosNameError
    names the world file, line and the offending name, and says what is allowed."""
    namespaced = len(world.vehicles) > 1 or force_namespace
    named = [("vehicle", v.name, v.source) for v in world.vehicles if namespaced]
    named += [("sensor", s.name, s.source) for v in world.vehicles for s in v.sensors]
    named += [("sensor", s.name, s.source) for s in world.sensors]
    for kind, name, source in named:
        if not all(_NAME_TOKEN.match(token) for token in name.split("/")):
            where = f"{source}: " if source is not None else ""
            raise RosNameError(
                f"{where}{kind} name '{name}' cannot be used in a ROS topic name: use letters, digits and '_' "
                "(not starting with a digit); rename it in the world file")
