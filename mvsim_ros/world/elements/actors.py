"""``<actor:class>`` and ``<actor>`` (MVSim 1.2's animated pedestrians) -> ActorSpec.

An actor is kinematic: it walks its waypoint path at its own speed, whatever pushes it. Parameters, read through
the actor tables (params/world_tables.py; class first, then the instance's own tags win, as MVSim reads them):

=======================  =========  =====================================================================
tag                      default    meaning
=======================  =========  =====================================================================
``walking_speed``        1.4        [m/s] speed of ordinary segments
``running_speed``        3.5        [m/s] speed of segments whose target waypoint says ``animation="run"``
``turning_rate``         120        [deg/s] documented by MVSim, not used by its motion; kept
``height``               1.75       [m] the character's height (placeholder body, markers)
``collision_radius``     0.3        [m] radius of the cylinder it collides as
``collision_height``     1.7        [m] height of that cylinder (sensors see it from z to z + height)
``animation_idle|walk|run``  --     clip names of the animated model (appearance only)
``shape``                --         optional ``<pt>`` outline [m] to collide as instead of the cylinder
``visual``               --         ``<visual>`` model (see visual_models.py); a body placeholder otherwise
``init_pose[3d]``        0 0 0      start pose, ``x y yaw_deg`` or ``x y z yaw pitch roll`` (degrees)
``path``                 --         ``<path loop="true|false">`` of ``<waypoint pause="s" animation="run">``
                                    ``x y yaw_deg</waypoint>`` (or six values ``x y z yaw pitch roll``)
=======================  =========  =====================================================================
"""

from __future__ import annotations

import math
from typing import Callable

from mvsim_ros.world.specs import ActorSpec, Pose3, SourceRef, Waypoint
from mvsim_ros.world.xml.bounds import BOUNDS
from mvsim_ros.world.xml.param_reading import read_params
from mvsim_ros.world.params.world_tables import ACTOR, ACTOR_PATH, ACTOR_WAYPOINT
from mvsim_ros.world.xml.values import (POSE2D_QUANTITIES, POSE3D_QUANTITIES, bounded, fail, parse_bool, parse_floats,
                                        parse_init_pose, range_note)
from mvsim_ros.world.elements.vehicles import polygon
from mvsim_ros.world.files.visual_models import parse_visual
from mvsim_ros.world.xml.xml_tree import XmlNode

Warn = Callable[[XmlNode, str], None]

#: Most waypoints one actor path may have (world/xml/bounds.py).
MAX_WAYPOINTS = int(BOUNDS["waypoints"].high)
#: Waypoint animation hints MVSim knows.
ANIMATION_HINTS = ("walk", "run", "idle")
_CLIP_NAMES = ("animation_idle", "animation_walk", "animation_run")


def build_actor(node: XmlNode, classes: dict[str, XmlNode], warn: Warn) -> ActorSpec:
    """An ``<actor name=...>`` merged with its ``<actor:class>`` (the instance's tags win). The loader names
    unnamed actors as MVSim does (actor001, actor002, ...) before they get here."""
    name = node.attrib["name"].strip()
    class_name = node.attrib.get("class", "").strip()
    if class_name and class_name not in classes:
        valid = ", ".join(sorted(classes)) or "none defined"
        raise fail(node, f"unknown actor class '{class_name}' (defined actor classes: {valid})")
    actor = ActorSpec(name=name, class_name=class_name, source=SourceRef(node.file, node.line, node.tag))
    values = None
    for source in ([classes[class_name]] if class_name else []) + [node]:
        values = read_params(ACTOR, source, warn, label=f"actor '{name}'", base=values,
                             handled_tags=("visual", "path"))
        for child in source.children:
            if child.tag == "visual":
                actor.visual = parse_visual(child, warn)
            elif child.tag == "path":
                actor.path, actor.loop = parse_path(child, warn)
    for key in ("walking_speed", "running_speed", "height", "collision_radius", "collision_height"):
        setattr(actor, key, values[key])
    actor.turning_rate = math.radians(values["turning_rate"])
    actor.clips = {key.removeprefix("animation_"): values[key] for key in _CLIP_NAMES if key in values.given}
    if values["shape"] is not None:
        actor.shape = polygon(values["shape"])
    if values["skip_elevation_adjust"] is not None:  # MVSim skips whenever the tag is present; "false" adjusts
        flag = values["skip_elevation_adjust"]
        actor.skip_elevation_adjust = parse_bool(flag.text or "true", flag, "skip_elevation_adjust")
    if "init_pose" in values.given:  # MVSim reads <init_pose> first, <init_pose3d> only without it
        actor.init_pose = parse_init_pose(values.nodes["init_pose"])
    elif "init_pose3d" in values.given:
        actor.init_pose = parse_init_pose(values.nodes["init_pose3d"])
    return actor


def parse_path(node: XmlNode, warn: Warn) -> tuple[list[Waypoint], bool]:
    """``<path loop="...">`` -> (waypoints, loop). MVSim loops unless loop is "false"/"0"."""
    loop = read_params(ACTOR_PATH, node, warn, label="<path>", handled_tags=("waypoint",))["loop"]
    waypoints = []
    for child in node.children:
        if child.tag != "waypoint":
            continue
        what = "waypoint 'x y yaw_deg' or 'x y z yaw_deg pitch_deg roll_deg'"
        values = parse_floats(child.text, child, what, (3, 6))
        for value, quantity in zip(values, POSE2D_QUANTITIES if len(values) == 3 else POSE3D_QUANTITIES):
            bounded(value, child, quantity, what)
        if len(values) == 3:
            pose = Pose3(values[0], values[1], 0.0, math.radians(values[2]))
        else:
            x, y, z, yaw, pitch, roll = values
            pose = Pose3(x, y, z, math.radians(yaw), math.radians(pitch), math.radians(roll))
        attributes = read_params(ACTOR_WAYPOINT, child, warn, label="<waypoint>")
        if attributes["pause"] < 0:
            raise fail(child, f"waypoint pause must be >= 0 [s], got {attributes['pause']:g}")
        hint = attributes["animation"]
        if hint and hint not in ANIMATION_HINTS:
            raise fail(child, f"unknown waypoint animation '{hint}'; valid: {', '.join(ANIMATION_HINTS)}")
        waypoints.append(Waypoint(pose, attributes["pause"], "" if hint == "walk" else hint))
        if len(waypoints) > MAX_WAYPOINTS:
            raise fail(child, f"more than {MAX_WAYPOINTS} waypoints in one path{range_note('waypoints')}")
    return waypoints, loop


__all__ = ["build_actor", "parse_path"]
