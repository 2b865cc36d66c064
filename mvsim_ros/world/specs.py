"""Plain dataclasses describing a loaded world. Units are SI (m, kg, s, rad) unless a name says otherwise.

These are the only thing the physics and the ROS layer learn from a world file: no XML, no Box2D here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

Point2 = tuple[float, float]


@dataclass(frozen=True)
class SourceRef:
    """Where a spec came from, for error messages: file path, line number and tag."""

    file: str
    line: int | None
    tag: str

    def __str__(self) -> str:
        line = f":{self.line}" if self.line is not None else ""
        return f"{self.file}{line}: <{self.tag}>"


@dataclass
class Pose2:
    """A planar pose: x, y [m], yaw [rad] (counter-clockwise from +x, REP-103)."""

    x: float = 0.0
    y: float = 0.0
    yaw: float = 0.0


@dataclass
class Twist2:
    """A planar twist in the body frame: vx, vy [m/s], omega [rad/s]."""

    vx: float = 0.0
    vy: float = 0.0
    omega: float = 0.0


@dataclass
class Pose3:
    """A 3D pose: x, y, z [m]; yaw, pitch, roll [rad] (MRPT order: R = Rz(yaw) Ry(pitch) Rx(roll))."""

    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    yaw: float = 0.0
    pitch: float = 0.0
    roll: float = 0.0

    def rotation(self) -> np.ndarray:
        """The 3x3 rotation matrix of this pose (body axes expressed in the parent frame)."""
        cy, sy = math.cos(self.yaw), math.sin(self.yaw)
        cp, sp = math.cos(self.pitch), math.sin(self.pitch)
        cr, sr = math.cos(self.roll), math.sin(self.roll)
        return np.array([
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ])


@dataclass
class WheelSpec:
    """One wheel, located in the vehicle frame.

    x, y: wheel centre [m]; yaw: fixed mounting angle [rad]; mass [kg]; width, diameter [m].
    side: +1 for a left wheel, -1 for a right wheel, 0 for a non-driven or centred wheel.
    inertia: spin inertia about the axle [kg m^2] as the world file gives it (None: a solid disc's); color:
    "#rrggbb[aa]".
    """

    name: str
    x: float
    y: float
    yaw: float = 0.0
    mass: float = 2.0
    width: float = 0.2
    diameter: float = 0.4
    side: int = 0
    driven: bool = True
    visual: object | None = None  # VisualSpec (world/visual_models.py) when the wheel has a <visual>
    unit: int = 0  # 0: on the chassis; 1: on the front unit of an articulated vehicle (x, y in that unit's frame)
    inertia: float | None = None
    color: str = "#323232"

    @property
    def radius(self) -> float:
        """Wheel radius [m]."""
        return 0.5 * self.diameter

    @property
    def inertia_yy(self) -> float:
        """Spin inertia about the axle [kg m^2]: `inertia` when given, else a solid disc's, I_yy = 1/2 m R^2."""
        return 0.5 * self.mass * self.radius**2 if self.inertia is None else self.inertia


@dataclass
class ChassisSpec:
    """Chassis rigid body: mass [kg], height span zmin..zmax [m] and a polygon outline in the vehicle frame [m];
    linear_damping, angular_damping [1/s]: Box2D's body damping (velocities scaled by 1 - c dt every step)."""

    mass: float = 15.0
    zmin: float = 0.05
    zmax: float = 0.6
    shape: list[Point2] = field(default_factory=list)
    color: str = "#ff0000"
    shape_from_visual: bool = False
    linear_damping: float = 0.1
    angular_damping: float = 0.1


@dataclass
class FrictionSpec:
    """Wheel-ground friction model name and its parameters (model-specific keys, SI units)."""

    model: str = "default"
    params: dict[str, float] = field(default_factory=dict)


@dataclass
class ControllerSpec:
    """Motor controller name and its parameters: every parameter of the controller's table
    (world/params/vehicle_tables.py) under MVSim's name, in SI units.

    PID controllers: KP [N m s/m], KI [N m/m], KD [N m s^2/m], N [1/s], max_torque [N m] (0: no limit), the
    switches and settings of anti-windup, feed-forward and the reference filter, V [m/s] and W [rad/s] (initial
    setpoints; the XML gives W in deg/s as MVSim does); I_MAX [m] (our integral clamp) only when the file gives it.
    raw: torque_left, torque_right (differential), fl_torque, fr_torque, steer_ang_deg [rad] (ackermann), torque
    and steer_ang_deg (ackermann_drivetrain).
    """

    kind: str = "twist_pid"
    params: dict[str, float] = field(default_factory=dict)


@dataclass
class DrivetrainSpec:
    """Ackermann drivetrain: differential type (open_front, ..., torsen_4wd) and its split/bias parameters."""

    type: str
    params: dict[str, float] = field(default_factory=dict)


@dataclass
class SensorSpec:
    """A sensor on a vehicle (or standalone in the world): class, name, pose on its parent, parameters.

    params: every parameter of the class by MVSim's name, typed and in SI units (radians, metres, seconds), as
    read through the class's table (world/params/sensor_tables.py) with MVSim's defaults for the ones not given
    (a world.params.Values: `given` names those the file set). A spec built in code may hold just a few entries;
    world/sensors.py `sensor_values` completes them with the defaults. publish: MVSim's <publish> block
    (publish_topic, enabled), which this simulator does not use.
    """

    kind: str
    name: str
    pose: Pose3 = field(default_factory=Pose3)
    params: dict[str, object] = field(default_factory=dict)
    publish: dict[str, object] = field(default_factory=dict)
    visual: object | None = None
    source: SourceRef | None = None


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


#: Footprint corner parameters of an articulated vehicle (seed 004 names; the "trailer" there is the front unit,
#: the "tractor" the rear one carrying base_link).
ARTICULATION_CORNERS = ("trailer_top_left", "trailer_top_right", "tractor_bottom_left", "tractor_bottom_right")


@dataclass
class ArticulationSpec:
    """Articulated steering (seed 004): two units joined by a powered vertical pivot.

    The vehicle's own chassis is the rear unit; its reference point (base_link) is the rear axle centre. The
    pivot lies rear_length (l_r) ahead of it, the front axle front_length (l_f) ahead of the pivot; the front
    unit's frame has its origin at the front axle centre, x forward. gamma = front yaw - rear yaw [rad], > 0 when
    the front unit points left. max_angle [rad] and max_rate [rad/s] limit gamma; the pivot motor reaches its
    target at gain [1/s] with at most max_torque [N m]. corners: ARTICULATION_CORNERS -> (x, y) [m] in base_link
    at gamma = 0 (front unit's front corners, rear unit's rear corners), or None to derive them from the chassis
    outlines.
    """

    front_length: float
    rear_length: float
    max_angle: float
    max_rate: float
    max_torque: float
    gain: float
    front_chassis: ChassisSpec
    corners: dict[str, Point2] | None = None

    @property
    def pivot_x(self) -> float:
        """Pivot position along base_link's x axis [m] (= l_r)."""
        return self.rear_length

    def front_unit_pose(self, x: float, y: float, yaw: float) -> tuple[float, float, float]:
        """World pose (x, y, yaw) [m, m, rad] of the front unit's frame, in line with base_link at (x, y, yaw)
        (gamma = 0): its axle l_r + l_f ahead."""
        ahead = self.rear_length + self.front_length
        return x + ahead * math.cos(yaw), y + ahead * math.sin(yaw), yaw


@dataclass
class VehicleSpec:
    """One vehicle instance, with its class already merged in.

    dynamics_params: model-specific values (e.g. max_steer_ang [rad] for Ackermann kinds).
    odometry: multipliers of the odometry increments (x_multiplier, y_multiplier, yaw_multiplier), 1 = exact.
    publish: the <publish> group as text. init_pose3: the <init_pose3d> given instead of init_pose (its x, y, yaw
    are init_pose's), else None.
    """

    name: str
    class_name: str
    dynamics: str
    chassis: ChassisSpec
    wheels: list[WheelSpec]
    friction: FrictionSpec
    controller: ControllerSpec
    init_pose: Pose2 = field(default_factory=Pose2)
    init_vel: Twist2 = field(default_factory=Twist2)
    dynamics_params: dict[str, float] = field(default_factory=dict)
    drivetrain: DrivetrainSpec | None = None
    sensors: list[SensorSpec] = field(default_factory=list)
    odometry: dict[str, float] = field(default_factory=dict)
    publish: dict[str, str] = field(default_factory=dict)
    visual: object | None = None
    articulation: ArticulationSpec | None = None
    source: SourceRef | None = None
    init_pose3: Pose3 | None = None


@dataclass
class BlockSpec:
    """An obstacle block: polygon outline [m] in its own frame, mass [kg], heights [m], ground friction mu.

    lateral_friction: Coulomb coefficient against the bodies it touches; restitution: bounce (0..1);
    linear_damping [1/s], angular_damping [1/s]: Box2D's velocity damping (dv/dt = -c v).
    static: never moves (infinite mass). intangible: takes part in nothing physical (no collisions).
    color: "#rrggbb". init_pose: its start pose in 3D (Box2D moves x, y, yaw; z, pitch, roll stay unless
    animated; z is raised onto the surface below unless skip_elevation_adjust, as MVSim). init_vel: its start
    twist in its own frame (of its origin). animation: a KeyframeAnimation (world/animation.py): the block is then
    moved along it, kinematically.
    """

    name: str
    shape: list[Point2]
    mass: float = 30.0
    zmin: float = 0.0
    zmax: float = 1.0
    ground_friction: float = 0.5
    lateral_friction: float = 0.5
    restitution: float = 0.01
    linear_damping: float = 0.1
    angular_damping: float = 0.1
    color: str = "#0000ff"
    static: bool = False
    intangible: bool = False
    init_pose: Pose3 = field(default_factory=Pose3)
    init_vel: Twist2 = field(default_factory=Twist2)
    skip_elevation_adjust: bool = False
    animation: object | None = None  # KeyframeAnimation (world/animation.py)
    geometry: object | None = None  # Geometry (world/block_geometry.py) the outline came from
    visual: object | None = None  # VisualSpec (world/visual_models.py)
    publish: dict[str, str] = field(default_factory=dict)
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
    ("" = none), written at ground_truth_rate [Hz] (output/ground_truth.py).
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
    elements: list[object] = field(default_factory=list)  # world/elements.py specs (ground grid, terrain, ...)
    sensors: list[SensorSpec] = field(default_factory=list)  # standalone sensors placed in the world
    actors: list[object] = field(default_factory=list)  # ActorSpec (world/actors.py): animated pedestrians
    joints: list[JointSpec] = field(default_factory=list)
    gui: object | None = None
    georeference: object | None = None
    lights: object | None = None
    walls: list[object] = field(default_factory=list)
    joystick_enabled: bool = False  # MVSim's GUI option: a gamepad drives the vehicle selected in its GUI
    other_params: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # SpawnCatalog (world/spawn_catalog.py): the world's vehicle and block classes, to build new instances later
    catalog: object | None = field(default=None, compare=False, repr=False)
