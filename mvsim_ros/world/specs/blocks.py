"""Obstacle-block specs: the block itself and the 2.5D geometry primitive its outline may come from."""

from __future__ import annotations

from dataclasses import dataclass, field

from mvsim_ros.world.specs.animation import KeyframeAnimation
from mvsim_ros.world.specs.common import Point2, Pose3, SourceRef, Twist2, polygon_area
from mvsim_ros.world.specs.visuals import VisualSpec


@dataclass
class Geometry:
    """A 2.5D shape in its object's frame.

    kind: 'box', 'cylinder', 'sphere', 'ramp', 'semi_cylinder_bump', 'polygon' or 'mesh'.
    footprint: simple (here always convex) polygon, counter-clockwise [m].
    zmin, zmax: lowest and highest point relative to the object's base [m] (a sphere reaches below it).
    params: the dimensions as given, SI units (vertex_count as a float); a mesh gets its bounding-box
    extents lx, ly, lz.
    """

    kind: str
    footprint: list[Point2]
    zmin: float
    zmax: float
    params: dict[str, float] = field(default_factory=dict)

    @property
    def area(self) -> float:
        """Footprint area [m^2]."""
        return polygon_area(self.footprint)


@dataclass
class BlockSpec:
    """An obstacle block: polygon outline [m] in its own frame, mass [kg], heights [m], ground friction mu.

    lateral_friction: Coulomb coefficient against the bodies it touches; restitution: bounce (0..1);
    linear_damping [1/s], angular_damping [1/s]: Box2D's velocity damping (dv/dt = -c v).
    static: never moves (infinite mass). intangible: takes part in nothing physical (no collisions).
    color: "#rrggbb". init_pose: its start pose in 3D (Box2D moves x, y, yaw; z, pitch, roll stay unless
    animated; z is raised onto the surface below unless skip_elevation_adjust, as MVSim). init_vel: its start
    twist in its own frame (of its origin). animation: a KeyframeAnimation: the block is then
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
    animation: KeyframeAnimation | None = None
    geometry: Geometry | None = None  # the primitive the outline came from
    visual: VisualSpec | None = None
    publish: dict[str, str] = field(default_factory=dict)
    source: SourceRef | None = None


__all__ = ["Geometry", "BlockSpec"]
