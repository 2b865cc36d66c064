"""Vehicle specs: wheels, chassis, friction model, motor controller, drivetrain, articulation, and the vehicle
that holds them; plus the wheel slots and chassis defaults a dynamics class brings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from mvsim_ros.world.specs.common import Point2, Pose2, Pose3, SourceRef, Twist2
from mvsim_ros.world.specs.sensors import SensorSpec
from mvsim_ros.world.specs.visuals import VisualSpec


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
    visual: VisualSpec | None = None  # when the wheel has a <visual>
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


#: Footprint corner parameters of an articulated vehicle (the "trailer" is the front unit, the "tractor"
#: the rear one carrying base_link).
ARTICULATION_CORNERS = ("trailer_top_left", "trailer_top_right", "tractor_bottom_left", "tractor_bottom_right")


@dataclass
class ArticulationSpec:
    """Articulated steering: two units joined by a powered vertical pivot.

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
    visual: VisualSpec | None = None
    articulation: ArticulationSpec | None = None
    source: SourceRef | None = None
    init_pose3: Pose3 | None = None


@dataclass(frozen=True)
class WheelSlot:
    """A wheel tag of a dynamics class: default position [m], side (+1 left, -1 right, 0 centre), driven."""

    x: float
    y: float
    side: int
    driven: bool = True
    unit: int = 0  # 1: on the front unit of an articulated vehicle


@dataclass(frozen=True)
class DynamicsClass:
    """What a <dynamics class=...> brings besides its parameter table: wheel slots and chassis defaults."""

    wheels: dict[str, WheelSlot]
    chassis_mass: float
    chassis_zmin: float
    chassis_zmax: float
    chassis_shape: tuple[tuple[float, float], ...]
    chassis_color: str


__all__ = ["WheelSpec", "ChassisSpec", "FrictionSpec", "ControllerSpec", "DrivetrainSpec", "ARTICULATION_CORNERS",
           "ArticulationSpec", "VehicleSpec", "WheelSlot", "DynamicsClass"]
