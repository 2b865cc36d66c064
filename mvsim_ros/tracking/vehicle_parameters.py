"""Single-track parameters of an Ackermann vehicle of a world (the dynamic controller's "read from the world").

From the VehicleSpec, as the simulator builds it (physics/bodies.py, physics/wheels.py):
- mass M: chassis plus wheels (the wheels are fixtures of the chassis body);
- centre of gravity: the area centroid of the chassis outline (uniform density) and the wheel centres, weighted
  by mass; a and b are its distances to the front and rear axle;
- yaw inertia I_z about it: the outline's polar moment (uniform density) plus each wheel as a diameter x width
  box, moved to the centre of gravity;
- cornering stiffness: each wheel's Pacejka slope at zero slip, N B_y C_y D_y [N/rad], with the load the simulator
  gives it, N = m_chassis g / n_wheels + m_wheel g (equal loads, as MVSim); summed per axle.

`simulated_cornering_stiffness` gives the stiffness the simulator's time stepping shows in steady slip (the
Pacejka kernel evaluates the lateral force at the end of the step, which divides it by
1 + B C D g dt / v at small slip: see physics/friction/pacejka.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mvsim_ros.tracking.bicycle import BicycleParameters
from mvsim_ros.world.specs import VehicleSpec, WorldSpec

#: Friction models whose small-slip lateral stiffness the parameters can be read from.
STIFFNESS_MODELS = ("pacejka",)
ACKERMANN_WHEELS = ("rl_wheel", "rr_wheel", "fl_wheel", "fr_wheel")


@dataclass(frozen=True)
class VehicleGeometry:
    """The world vehicle's single-track parameters and where they sit in its frame: `params`; com_x [m]: x of
    the centre of gravity in the vehicle frame (whose origin, the odometry point, is usually the middle of the rear
    axle); rear_axle_x [m]: x of the rear axle; slope_per_load [1/rad]: B_y C_y D_y of the tyres; gravity [m/s^2]."""

    params: BicycleParameters
    com_x: float
    rear_axle_x: float
    slope_per_load: float
    gravity: float

    @property
    def cog_offset(self) -> float:
        """Distance [m] from the vehicle's reference point (frame origin) forward to the centre of gravity."""
        return self.com_x


def polygon_mass_properties(points: list[tuple[float, float]]) -> tuple[float, float, float, float]:
    """(area [m^2], centroid x, centroid y [m], polar second moment about the origin per unit density
    [m^4]) of a simple polygon (either orientation)."""
    area2 = cx = cy = j = 0.0
    count = len(points)
    for k in range(count):
        x0, y0 = points[k]
        x1, y1 = points[(k + 1) % count]
        cross = x0 * y1 - x1 * y0
        area2 += cross
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
        j += cross * (x0 * x0 + x0 * x1 + x1 * x1 + y0 * y0 + y0 * y1 + y1 * y1)
    if area2 == 0.0:
        raise ValueError("the chassis outline has no area")
    sign = 1.0 if area2 > 0 else -1.0
    return 0.5 * abs(area2), cx / (3.0 * area2), cy / (3.0 * area2), sign * j / 12.0


def _ackermann(world: WorldSpec, vehicle: str | int) -> tuple[VehicleSpec, dict]:
    """The vehicle and its wheels by name; ValueError unless it is a four-wheel Ackermann vehicle."""
    spec = find_vehicle(world, vehicle)
    wheels = {w.name: w for w in spec.wheels}
    missing = [name for name in ACKERMANN_WHEELS if name not in wheels]
    if spec.articulation is not None or missing:
        raise ValueError(f"vehicle '{spec.name}' is not a four-wheel Ackermann vehicle "
                         f"(dynamics '{spec.dynamics}'{'; missing ' + ', '.join(missing) if missing else ''})")
    return spec, wheels


def steering_geometry(world: WorldSpec, vehicle: str | int = 0) -> tuple[float, float]:
    """(wheelbase L [m], steering limit [rad]) of an Ackermann vehicle (by name or index), whatever its tyres."""
    spec, wheels = _ackermann(world, vehicle)
    rear_x = 0.5 * (wheels["rl_wheel"].x + wheels["rr_wheel"].x)
    front_x = 0.5 * (wheels["fl_wheel"].x + wheels["fr_wheel"].x)
    return front_x - rear_x, float(spec.dynamics_params.get("max_steer_ang", math.radians(30.0)))


def vehicle_geometry(world: WorldSpec, vehicle: str | int = 0) -> VehicleGeometry:
    """Single-track parameters of an Ackermann vehicle (by name or index) with Pacejka tyres; ValueError naming
    what is missing otherwise."""
    spec, wheels = _ackermann(world, vehicle)
    if spec.friction.model not in STIFFNESS_MODELS:
        raise ValueError(f"vehicle '{spec.name}': its friction model '{spec.friction.model}' has no cornering "
                         "stiffness to read; give C_f and C_r yourself (readable models: "
                         f"{', '.join(STIFFNESS_MODELS)})")
    p = spec.friction.params
    slope = p["By"] * p["Cy"] * p["Dy"]
    gravity = float(world.gravity)
    chassis_load = spec.chassis.mass * gravity / len(spec.wheels)
    stiffness = {name: (chassis_load + wheels[name].mass * gravity) * slope for name in ACKERMANN_WHEELS}

    area, px, py, j_origin = polygon_mass_properties([tuple(pt) for pt in spec.chassis.shape])
    density = spec.chassis.mass / area
    mass = spec.chassis.mass + sum(w.mass for w in spec.wheels)
    com_x = (spec.chassis.mass * px + sum(w.mass * w.x for w in spec.wheels)) / mass
    com_y = (spec.chassis.mass * py + sum(w.mass * w.y for w in spec.wheels)) / mass
    inertia_origin = density * j_origin + sum(
        w.mass * ((w.diameter ** 2 + w.width ** 2) / 12.0 + w.x ** 2 + w.y ** 2) for w in spec.wheels)
    iz = inertia_origin - mass * (com_x ** 2 + com_y ** 2)
    wheelbase, limit = steering_geometry(world, vehicle)
    rear_x = 0.5 * (wheels["rl_wheel"].x + wheels["rr_wheel"].x)
    front_x = rear_x + wheelbase
    params = BicycleParameters(mass=mass, a=front_x - com_x, b=com_x - rear_x,
                               cf=stiffness["fl_wheel"] + stiffness["fr_wheel"],
                               cr=stiffness["rl_wheel"] + stiffness["rr_wheel"], iz=iz, max_steering_angle=limit)
    return VehicleGeometry(params, com_x, rear_x, slope, gravity)


def simulated_cornering_stiffness(stiffness: float, slope_per_load: float, gravity: float, dt: float,
                                  speed: float) -> float:
    """Cornering stiffness [N/rad] the simulator shows in steady, small slip at `speed` [m/s] with step dt [s]:
    C / (1 + B C D g dt / v) (see the module docstring)."""
    return stiffness / (1.0 + slope_per_load * gravity * dt / max(abs(speed), 0.1))


def find_vehicle(world: WorldSpec, vehicle: str | int) -> VehicleSpec:
    """A vehicle of the world by name or index (ValueError listing the names)."""
    names = [v.name for v in world.vehicles]
    if isinstance(vehicle, int) and not isinstance(vehicle, bool):
        if 0 <= vehicle < len(names):
            return world.vehicles[vehicle]
        raise ValueError(f"no vehicle with index {vehicle} (the world has {len(names)})")
    if vehicle in names:
        return world.vehicles[names.index(vehicle)]
    raise ValueError(f"no vehicle named {vehicle!r}; vehicles: {', '.join(names) or 'none'}")


__all__ = ["VehicleGeometry", "find_vehicle", "polygon_mass_properties", "simulated_cornering_stiffness",
           "steering_geometry", "vehicle_geometry"]
