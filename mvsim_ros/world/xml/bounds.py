"""Accepted ranges of world-file values: one table, checked when a world loads (values.bounded).

Every value that reaches Box2D (which stores float32: about 7 significant digits, overflow above 3.4e38), sizes an
allocation or a loop (ray counts, image sizes, solver iterations, keyframe and waypoint counts) or sets the step
length is checked against its quantity here; a value outside gets a WorldFileError naming file, line, tag, the
value and the range. The ranges are far wider than any real robot or any MVSim example needs, and narrow enough
that Box2D and our integrators stay finite and a world loads in bounded time and memory. The reasons, quantity by
quantity, are in each entry's `why`; the less obvious choices:

* timestep: 0 keeps meaning "automatic" (DEFAULT_TIMESTEP_S in loader.py); otherwise [1e-4, 0.1] s. MVSim's worlds
  use 0 (auto), 2e-3 and 5e-3 s. Below 0.1 ms a second of simulated time costs over 10^4 steps (the node would
  crawl); above 0.1 s Box2D caps a body's travel at 2 m per step (20 m/s) and wheel/tyre dynamics go unstable.
* positions: within +/-1e5 m of the origin (100 km): a float32 coordinate there still resolves 8 mm, finer than
  Box2D's linear slop (5 mm). Outlines, wheel and sensor mounting positions are relative to their body and stay
  within +/-1e3 m, so that Box2D's float32 inertia about the body origin keeps its precision (see also the
  body-inertia check in vehicles.py).
* angles: within +/-1e4 degrees (about 28 turns); Box2D keeps angles as float32 and every pose is an angle.
* masses [1e-3, 1e6] kg and wheel sizes (diameter [0.01, 10] m, width [5e-3, 5] m): from a 1 g toy part to a
  1000 t machine; a Box2D fixture's density (mass / area) then stays well inside float32 and its inertia > 0.
* outlines: every point of a <shape> at least 5 mm (Box2D's linear slop) from the next, and an area of at least
  1 cm^2: Box2D welds closer vertices and asserts on polygons it cannot triangulate.
* ray counts and image sizes bound memory: a 2D lidar has at most 2e4 beams per scan (0.018 deg at 360 deg),
  a 3D lidar at most 1024 rings x 16384 azimuths and 1e6 beams in all, a camera image at most 8192 x 8192 px
  (OpenGL texture limits of common GPUs), a 3D lidar's render faces at most 4096 px wide.
* keyframes and waypoints: at most 1e4 per animation or path; a DEM resampled to at most 4e6 cells.
* Box2D solver iterations [1, 100]: MVSim's default is 8 (velocity) and 3 (position); each iteration costs a
  pass over every contact per step, so 10^9 would freeze the simulation.

Each entry: quantity -> Bound(low, high, unit, why), both ends included.
"""

from __future__ import annotations

from typing import NamedTuple


class Bound(NamedTuple):
    """An accepted range [low, high] (both included) in `unit`, and why it is that range."""

    low: float
    high: float
    unit: str
    why: str

    def text(self) -> str:
        """The range as the error messages write it, e.g. '[0.0001, 0.1] s'."""
        unit = f" {self.unit}" if self.unit else ""
        return f"[{self.low:g}, {self.high:g}]{unit}"


_FLOAT32 = "Box2D stores float32"

BOUNDS: dict[str, Bound] = {
    # World
    "timestep": Bound(1e-4, 0.1, "s", "0 means automatic (5 ms); shorter steps freeze the node, longer ones "
                      "let Box2D and the tyre models go unstable"),
    "solver_iterations": Bound(1, 100, "", "Box2D velocity/position iterations per step (MVSim: 8 and 3); "
                               "each one costs a pass over every contact"),
    "gravity": Bound(0.01, 100.0, "m/s^2", "wheel loads are mass x gravity; from a small asteroid to 10 g"),
    "collision_threshold": Bound(0.0, 1e3, "m", "gap between two bodies below which they are in collision"),
    # Poses and motion
    "position": Bound(-1e5, 1e5, "m", f"{_FLOAT32}: 8 mm resolution at 100 km from the origin"),
    "angle": Bound(-1e4, 1e4, "deg", f"{_FLOAT32} angles; about 28 turns either way"),
    "body_coordinate": Bound(-1e3, 1e3, "m", "outline points and mounting positions on a body; Box2D computes "
                                             "the body's inertia about its origin in float32"),
    "velocity": Bound(-1e3, 1e3, "m/s", f"{_FLOAT32}; Box2D moves a body at most 2 m per step anyway"),
    "angular_velocity": Bound(-1e5, 1e5, "deg/s", f"{_FLOAT32}; Box2D turns a body at most 90 deg per step"),
    "duration": Bound(0.0, 1e7, "s", "keyframe times and waypoint pauses (about 4 months)"),
    "keyframes": Bound(1, 10_000, "", "keyframes of one animation: memory and load time"),
    "waypoints": Bound(0, 10_000, "", "waypoints of one actor path: memory and load time"),
    # Bodies
    "mass": Bound(1e-3, 1e6, "kg", "from 1 g to 1000 t: Box2D's float32 density (mass / area) and inertia "
                                   "stay finite and > 0"),
    "wheel_diameter": Bound(0.01, 10.0, "m", "Box2D wheel box and spin inertia 1/2 m r^2"),
    "wheel_width": Bound(0.005, 5.0, "m", "Box2D wheel box"),
    "outline_edge": Bound(0.005, 3e3, "m", "distance between consecutive <shape> points: Box2D welds points "
                                           "closer than its 5 mm linear slop (points within +/-1e3 m are never "
                                           "more than 2.83 km apart)"),
    "outline_area": Bound(1e-4, 4e6, "m^2", "area of a body outline: Box2D asserts on (near) zero areas"),
    "body_length": Bound(0.01, 1e3, "m", "axle track, wheelbase, articulation arm lengths"),
    "steer_angle": Bound(0.0, 89.0, "deg", "maximum steering angle of an Ackermann front wheel or of an articulation"),
    "drivetrain_bias": Bound(1.0, 1e3, "", "Torsen torque bias ratio"),
    "fraction": Bound(0.0, 1.0, "", "a share of torque, or a fraction of a length"),
    "odometry_multiplier": Bound(-1e3, 1e3, "", "odometry error multipliers (1 = exact)"),
    # Controllers and friction
    "controller_gain": Bound(0.0, 1e6, "", "PID gains KP, KI, KD (N m per m/s of error, and its integral and "
                                           "derivative)"),
    "integral_limit": Bound(0.0, 1e6, "m", "PID integral clamp I_MAX"),
    "torque": Bound(0.0, 1e6, "N m", "motor torque limits (max_torque, pivot_max_torque)"),
    "raw_torque": Bound(-1e6, 1e6, "N m", "initial wheel torques of the raw controller"),
    "friction_coefficient": Bound(0.0, 100.0, "", "Coulomb friction coefficient mu (rubber on asphalt ~ 1)"),
    "friction_parameter": Bound(0.0, 1e6, "", "coefficients of the friction models (damping, rolling resistance, "
                                              "slip stiffnesses, Pacejka B, C, D)"),
    "pacejka_curvature": Bound(-1e3, 1.0, "", "Pacejka curvature factor E (<= 1)"),
    "pivot_gain": Bound(1e-3, 1e4, "1/s", "articulation pivot motor gain"),
    # Joints
    "joint_length": Bound(0.0, 1e4, "m", "rope/rod lengths between two bodies"),
    "joint_stiffness": Bound(0.0, 1e9, "N/m", "spring stiffness of a distance joint (0 = rope)"),
    "joint_damping": Bound(0.0, 1e9, "N s/m", "spring damping of a distance joint"),
    # Actors
    "actor_speed": Bound(1e-3, 1e3, "m/s", "walking and running speeds"),
    "actor_size": Bound(1e-3, 1e3, "m", "height, collision radius and height of an actor"),
    # Sensors
    "sensor_period": Bound(1e-4, 3600.0, "s", "time between two samples (10 kHz to one per hour)"),
    "lidar_rays": Bound(2, 20_000, "", "beams of a 2D lidar scan (ray casts per scan)"),
    "lidar_fov": Bound(0.01, 360.0, "deg", "field of view of a 2D lidar"),
    "lidar3d_rings": Bound(1, 1024, "", "vertical beams (rings) of a 3D lidar"),
    "lidar3d_columns": Bound(1, 16_384, "", "horizontal beams of a 3D lidar"),
    "lidar3d_beams": Bound(1, 1_000_000, "", "beams per 3D lidar scan (rings x azimuths): memory per scan"),
    "lidar3d_vert_fov": Bound(0.0, 120.0, "deg", "vertical field of view of a 3D lidar (its render faces grow "
                                                 "as tan(fov / 2))"),
    "render_width": Bound(64, 4096, "px", "width of a 3D lidar's depth render faces (fbo_ncols)"),
    "sensor_range": Bound(0.0, 1e4, "m", "minimum and maximum range of lidars"),
    "image_size": Bound(1, 8192, "px", "camera image columns and rows (OpenGL texture limits)"),
    "focal_length": Bound(1e-3, 1e6, "px", "camera focal lengths fx, fy"),
    "principal_point": Bound(-1e5, 1e5, "px", "camera principal point cx, cy"),
    "clip_distance": Bound(1e-4, 1e6, "m", "camera near and far clip distances"),
    "noise_std": Bound(0.0, 1e4, "", "standard deviations and random walks of sensor noise, in the "
                                     "parameter's unit"),
    # World elements
    "element_size": Bound(1e-6, 1e5, "", "positive sizes of world elements (intervals, textures, scales, "
                                         "widths), in the parameter's unit"),
    "wall_thickness": Bound(1e-3, 1e3, "m", "walls and vertical planes become Box2D boxes this thick"),
    "elevation_resolution": Bound(1e-3, 1e4, "m", "cell size of an elevation map"),
    "elevation_samples": Bound(4, 4_000_000, "", "cells of an elevation grid resampled from a DEM: memory"),
    "window_size": Bound(1, 16_384, "px", "GUI window and shadow map sizes, frame rates (allocations)"),
    "model_scale": Bound(1e-4, 1e4, "", "scale of a visual model (its footprint can become a Box2D outline)"),
    "geometry_size": Bound(1e-3, 1e3, "m", "dimensions of a block <geometry> (its footprint is a Box2D outline)"),
    "vertex_count": Bound(0, 1024, "", "vertices of a cylinder or sphere geometry (0 = default, else >= 3)"),
}

__all__ = ["BOUNDS", "Bound"]
