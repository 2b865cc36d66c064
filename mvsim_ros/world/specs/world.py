"""The world spec: everything a simulation needs from a world file, with its occupancy grids and joints.

These specs are the only thing the physics and the ROS layer learn from a world file: no XML, no Box2D.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mvsim_ros.world.specs.actors import ActorSpec
from mvsim_ros.world.specs.blocks import BlockSpec
from mvsim_ros.world.specs.common import Point2, SourceRef
from mvsim_ros.world.specs.scenery import ElementSpec, WallsSpec
from mvsim_ros.world.specs.sensors import SensorSpec
from mvsim_ros.world.specs.vehicles import VehicleSpec
from mvsim_ros.world.specs.world_options import Georeference, GuiOptions, LightOptions


@dataclass
class JointSpec:
    """A joint between two bodies (vehicles or blocks) by name.

    kind: "revolute" (a pin; optional angle limits [rad]) or "distance" (at most max_length [m] apart, at least
    min_length [m]; equal lengths make a rigid rod; with stiffness [N/m] and damping [N s/m] a spring whose rest
    length is max_length, as MVSim's Box2D 2.4 joint). Anchors are in each body's own frame [m].
    """

    kind: str
    body_a: str
    body_b: str
    anchor_a: Point2 = (0.0, 0.0)
    anchor_b: Point2 = (0.0, 0.0)
    enable_limit: bool = False
    lower_angle: float = 0.0
    upper_angle: float = 0.0
    min_length: float = 0.0
    max_length: float = 5.0
    stiffness: float = 0.0
    damping: float = 0.0
    source: SourceRef | None = None


@dataclass
class OccupancyGridSpec:
    """An occupancy grid as a boolean array: occupied[row, col], row 0 at the grid's minimum y.

    Cell (row, col) covers x in [x_min + col*res, x_min + (col+1)*res] and likewise in y.
    resolution [m/cell]; x_min, y_min [m]: world coordinates of the grid's lower-left corner.
    """

    occupied: np.ndarray
    resolution: float
    x_min: float
    y_min: float
    source_file: str = ""
    occupancy: np.ndarray | None = None  # int8, nav_msgs/OccupancyGrid convention: 0..100, -1 unknown
    restitution: float = 0.01
    lateral_friction: float = 0.5

    @property
    def width_m(self) -> float:
        """Extent along x [m]."""
        return self.occupied.shape[1] * self.resolution

    @property
    def height_m(self) -> float:
        """Extent along y [m]."""
        return self.occupied.shape[0] * self.resolution


@dataclass
class WorldSpec:
    """Everything a simulation needs from a world file.

    timestep: fixed physics step [s]; b2d_vel_iters / b2d_pos_iters: Box2D solver iterations;
    gravity: [m/s^2], used for wheel loads (the Box2D world itself is horizontal, no gravity);
    collision_threshold [m]: a body is in collision when another body's shape is closer than this (or touching);
    ground_truth_trajectory: file name whose extension becomes '<vehicle>.txt' for each vehicle's true trajectory
    ("" = none), written at ground_truth_rate [Hz] (output/ground_truth_files.py).
    """

    source_file: str
    timestep: float = 0.005
    b2d_vel_iters: int = 8
    b2d_pos_iters: int = 3
    gravity: float = 9.81
    collision_threshold: float = 0.03
    ground_truth_trajectory: str = ""
    ground_truth_rate: float = 50.0
    vehicles: list[VehicleSpec] = field(default_factory=list)
    blocks: list[BlockSpec] = field(default_factory=list)
    occupancy_grids: list[OccupancyGridSpec] = field(default_factory=list)
    elements: list[ElementSpec] = field(default_factory=list)  # ground grid, terrain, planes, ...
    sensors: list[SensorSpec] = field(default_factory=list)  # standalone sensors placed in the world
    actors: list[ActorSpec] = field(default_factory=list)  # animated pedestrians
    joints: list[JointSpec] = field(default_factory=list)
    gui: GuiOptions | None = None
    georeference: Georeference | None = None
    lights: LightOptions | None = None
    walls: list[WallsSpec] = field(default_factory=list)
    joystick_enabled: bool = False  # MVSim's GUI option: a gamepad drives the vehicle selected in its GUI
    other_params: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # SpawnCatalog (world/spawn_catalog.py): the world's vehicle and block classes, to build new instances later
    catalog: object | None = field(default=None, compare=False, repr=False)


__all__ = ["JointSpec", "OccupancyGridSpec", "WorldSpec"]
