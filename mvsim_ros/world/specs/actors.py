"""Actor specs: MVSim's animated pedestrians and the waypoints of their paths."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from mvsim_ros.world.specs.common import Point2, Pose3, SourceRef
from mvsim_ros.world.specs.visuals import VisualSpec


@dataclass
class Waypoint:
    """One waypoint of an actor path: pose [m, rad]; pause [s] spent there on arrival; animation: '' (walk), 'run'
    (the segment leading here at running speed) or 'idle'."""

    pose: Pose3
    pause: float = 0.0
    animation: str = ""


@dataclass
class ActorSpec:
    """An animated pedestrian. Speeds [m/s], sizes [m], turning_rate [rad/s]; path: waypoints in world coordinates,
    followed from init_pose (see physics/kinematic/actor_paths.py); loop: start again from the first waypoint after
    the last.
    """

    name: str
    class_name: str = ""
    walking_speed: float = 1.4
    running_speed: float = 3.5
    turning_rate: float = math.radians(120.0)
    height: float = 1.75
    collision_radius: float = 0.3
    collision_height: float = 1.7
    clips: dict[str, str] = field(default_factory=dict)
    shape: list[Point2] | None = None
    visual: VisualSpec | None = None
    init_pose: Pose3 = field(default_factory=Pose3)
    skip_elevation_adjust: bool = False
    path: list[Waypoint] = field(default_factory=list)
    loop: bool = True
    source: SourceRef | None = None


__all__ = ["Waypoint", "ActorSpec"]
