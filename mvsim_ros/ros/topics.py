"""Topic and frame naming, as MVSim's ROS 2 node does it."""

from __future__ import annotations

import dataclasses
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


#: Frames all vehicles share when their transforms go into one TF tree (never prefixed).
SHARED_FRAMES = frozenset({"map"})


def frame_name(prefix: str, frame: str) -> str:
    """`frame` as it appears in a TF tree where every frame of a vehicle carries that vehicle's `prefix`
    ('r1/' + 'base_link' -> 'r1/base_link'); shared frames ('map') and an empty prefix leave it as it is."""
    return frame if not prefix or frame in SHARED_FRAMES else prefix + frame


class FrameLayout:
    """How the node lays out the TF tree(s): made once per simulation session and handed to its publishers (in
    their ros/publishing/context.PublishingContext). Every publisher that names a vehicle's frame in a message goes
    through `frame`.

    Per-vehicle trees (MVSim's way, the default): each vehicle's transforms go on `<veh>/tf` and
    `<veh>/tf_static` with plain frame ids (odom, base_link, <sensor>). Single tree: every vehicle's transforms go
    on the root `tf` / `tf_static` with its frames prefixed by its topic prefix (`r1/odom`, `r1/base_link`,
    `r1/<sensor>`), `map` shared; with one vehicle and no forced namespace the prefix is '' and both layouts are
    the same.
    """

    def __init__(self, topic_prefixes: list[str] | None = None, single_tree: bool = False):
        self.single_tree = single_tree
        self.topic_prefixes = list(topic_prefixes or [])
        #: Prefix of each vehicle's frame ids ('' in per-vehicle trees).
        self.frame_prefixes = list(self.topic_prefixes) if single_tree else [""] * len(self.topic_prefixes)

    def tf_prefix(self, vehicle: int) -> str:
        """Prefix of the tf / tf_static topics that carry vehicle `vehicle`'s transforms."""
        return "" if self.single_tree else self.topic_prefixes[vehicle]

    def tf_topics(self) -> dict[str, list[int]]:
        """The prefix of every tf / tf_static topic in use, with the vehicles whose transforms go on it (one each in
        per-vehicle trees, all of them on '' in a single tree), in vehicle order."""
        topics: dict[str, list[int]] = {}
        for vehicle in range(len(self.topic_prefixes)):
            topics.setdefault(self.tf_prefix(vehicle), []).append(vehicle)
        return topics

    def frame(self, host: int, frame: str) -> str:
        """Frame id of `frame` (base_link, a sensor name, ...) on sensor host `host`: a vehicle index, or a negative
        number for the world (whose frames are never prefixed)."""
        if host < 0 or host >= len(self.frame_prefixes):
            return frame
        return frame_name(self.frame_prefixes[host], frame)


class RosNameError(ValueError):
    """Vehicle or sensor names of the world cannot be made distinct ROS topic names (one-line message)."""


#: One token of a ROS 2 topic name: letters, digits and '_', not starting with a digit.
_NAME_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_NOT_NAME_CHAR = re.compile(r"[^A-Za-z0-9_]")


def ros_name(name: str) -> str:
    """`name` as a valid ROS topic name: in each '/'-separated token, characters other than letters, digits and
    '_' become '_', and a token starting with a digit gets a leading '_' ('my-robot' -> 'my_robot',
    '01a_truck' -> '_01a_truck'); empty tokens give ''."""
    tokens = [_NOT_NAME_CHAR.sub("_", token) for token in name.split("/")]
    if not all(tokens):
        return ""
    return "/".join("_" + t if t[0].isdigit() else t for t in tokens)


def ros_safe_names(world: WorldSpec, force_namespace: bool) -> tuple[WorldSpec, list[str]]:
    """The world with every name that goes into a topic made a valid ROS name (see `ros_name`), and one warning
    per renamed name: vehicle names when they are namespaces (several vehicles, or forced) and sensor names
    (their topics, and their frames). Joints follow their renamed vehicles. RosNameError (naming file and line)
    when a name cannot be made one, or when renaming makes it equal to another vehicle's (or, on one host,
    another sensor's)."""
    warnings: list[str] = []

    def renamed(kind: str, name: str, source, taken: dict[str, tuple[str, object]]) -> str:
        where = f"{source}: " if source is not None else ""
        new = name if _is_ros_name(name) else ros_name(name)
        if not new:
            raise RosNameError(f"{where}{kind} name '{name}' cannot be made a ROS topic name; rename it")
        if new in taken:
            other, other_source = taken[new]
            at = f" ({other_source})" if other_source is not None else ""
            raise RosNameError(f"{where}{kind} '{name}' and {kind} '{other}'{at} would both be published as "
                               f"'{new}'; rename one of them")
        taken[new] = (name, source)
        if new != name:
            warnings.append(f"{where}{kind} '{name}' is published as '{new}' (ROS topic names take letters, digits "
                            "and '_', not a leading digit)")
        return new

    namespaced = len(world.vehicles) > 1 or force_namespace
    vehicle_names: dict[str, tuple[str, object]] = {}
    names = {v.name: (renamed("vehicle", v.name, v.source, vehicle_names) if namespaced else v.name)
             for v in world.vehicles}
    vehicles = []
    for vehicle in world.vehicles:
        taken: dict[str, tuple[str, object]] = {}
        sensors = [dataclasses.replace(s, name=renamed("sensor", s.name, s.source, taken)) for s in vehicle.sensors]
        vehicles.append(dataclasses.replace(vehicle, name=names[vehicle.name], sensors=sensors))
    taken = {}
    sensors = [dataclasses.replace(s, name=renamed("sensor", s.name, s.source, taken)) for s in world.sensors]
    if not warnings:
        return world, []
    joints = [dataclasses.replace(j, body_a=names.get(j.body_a, j.body_a), body_b=names.get(j.body_b, j.body_b))
              for j in world.joints]
    return dataclasses.replace(world, vehicles=vehicles, sensors=sensors, joints=joints), warnings


def _is_ros_name(name: str) -> bool:
    return all(_NAME_TOKEN.match(token) for token in name.split("/"))
