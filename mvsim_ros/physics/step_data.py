"""Named groups of the arrays the step's kernels read and write: numba compiles attribute access on these
namedtuples (a struct of array pointers, no cost), so each kernel takes a few named groups instead of long
positional lists.

Every group holds views of the simulation's own arrays (built once; those arrays are only ever written in place),
so `Simulation.step()` and the compiled steps (compiled_steps.py) work on the same memory. Units are SI, angles in
radians; "world frame" is the Box2D plane (x, y, yaw about z), a body's frame has its origin at the body's reference
point (a vehicle's reference point, an articulated front unit's front axle), x forward, y to the left; a wheel's
frame is its body's frame turned by the wheel's yaw, x along the rolling direction.

Index spaces: V vehicles, B Box2D bodies (the V vehicles first, then the front units of articulated vehicles),
W wheels (all vehicles' wheels, each vehicle a contiguous range), S Ackermann vehicles, D differential-odometry
vehicles.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

#: The Box2D world the compiled steps drive through the C shim (box2d_native).
#:   world: address of the b2World (int); velocity_iterations, position_iterations: Box2D solver iterations (int);
#:   bodies (B,) uintp: addresses of the b2Body of every body; com_local (B, 2) [m]: each body's centre of mass in
#:   its own frame; vehicle_count: V (int).
Engine = namedtuple("Engine", "world velocity_iterations position_iterations bodies com_local vehicle_count")

#: The latest command of each vehicle (physics/commands.py), written by the setters and the watchdog.
#:   v (V,) [m/s]: forward speed setpoint; omega (V,) [rad/s]: yaw-rate setpoint; steer (V,) [rad]: equivalent
#:   steering angle (steering mode); steer_mode (V,) bool: steer is commanded instead of omega; steer_rate (V,)
#:   [rad/s]: the command's steering-rate limit (0: the vehicle's own); timeout [s]: watchdog delay (<= 0: off);
#:   watched (V,) bool: under the watchdog; last_command_time (V,) [s]: simulated time of the last command.
CommandData = namedtuple("CommandData", "v omega steer steer_mode steer_rate timeout watched last_command_time")

#: Ackermann steering (vehicles/fleet.Steering), one row per Ackermann vehicle.
#:   vehicle (S,) intp: its vehicle index; fl, fr (S,) intp: front-left and front-right wheel indices;
#:   wheelbase (S,) [m]: x_front - x_rear; track (S,) [m]: y_FL - y_FR; max_steer (S,) [rad]; max_rate (S,)
#:   [rad/s] (0: none); delta (S,) [rad]: current equivalent (bicycle-model) steering angle (state).
SteeringData = namedtuple("SteeringData", "vehicle fl fr wheelbase track max_steer max_rate delta")

#: Per-wheel constants and in-place state (wheels.WheelArrays), W rows.
#:   vehicle (W,) intp: owning vehicle; body (W,) intp: index of the body carrying it; x, y (W,) [m]: position in
#:   its body's frame; yaw (W,) [rad]: mounting (steering) angle in its body's frame, written by the steering;
#:   radius (W,) [m]; inertia_yy (W,) [kg m^2]: spin inertia; mass (W,) [kg]; normal_force (W,) [N]: load;
#:   phi (W,) [rad]: spin angle (state); force_x, force_y (W,) [N]: last ground force in its body's frame (state);
#:   arm_x, arm_y (W,) [m]: position relative to its body's centre of mass, body frame; casters (C,) intp: the
#:   caster wheels (no side force).
WheelData = namedtuple("WheelData", "vehicle body x y yaw radius inertia_yy mass normal_force phi force_x force_y "
                                    "arm_x arm_y casters")

#: PID settings and state per controlled row (controllers.WheelControllers), R rows (wheels, or drivetrain motors).
#:   pid (R,) bool: under PID; kp [N m s/m], ki [N m/m], kd [N m s^2/m], n_filter [1/s] (derivative filter, 0:
#:   plain); max_torque [N m] (inf: none); i_max [m] (integral clamp where `clamp`); clamp, antiwindup (R,) bool;
#:   ref_order (R,) int: reference filter stages (0, 1, 2); ref_tau [s]; zero_threshold, stop_threshold [m/s]:
#:   stop gate; feedforward [N m]: torque added this step. State: i_term [N m], d_state [N m], last_error [m/s],
#:   ref_y1, ref_y2 [m/s], first (R,) bool (no step run yet). raw_torque [N m]: torque of rows not under PID;
#:   group (R,) intp: rows of one group (a vehicle) share the stop gate.
ControllerData = namedtuple("ControllerData", "pid kp ki kd n_filter max_torque i_max clamp antiwindup ref_order "
                                              "ref_tau zero_threshold stop_threshold feedforward i_term d_state "
                                              "last_error ref_y1 ref_y2 first raw_torque group")

#: The friction phase's constants for worlds with one friction model on all wheels.
#:   code (int): friction.FRICTION_CODES; params (W, P): the model's per-wheel parameter columns (its PARAM_NAMES);
#:   slope_x, slope_y (W,) [N]: gravity along the ground on each wheel's share of mass, wheel frame (0 on flat
#:   ground); limit (W,) [N m]: motor torque bound (inf: none); max_spin (W,) [rad/s]: motor top speed;
#:   gravity [m/s^2].
FrictionData = namedtuple("FrictionData", "code params slope_x slope_y limit max_spin gravity")

#: Wheel odometry of differential vehicles (vehicles/differential.py, vehicles/odometry.py).
#:   vehicles (D,) intp: the vehicles it runs for; left, right (V,) intp: each vehicle's odometry wheels;
#:   pose (V, 3): (x [m], y [m], yaw [rad]) from the wheels, world frame (state); twist (V, 2): (v [m/s], omega
#:   [rad/s]) (state); scale (V, 3): error multipliers of the (x, y, yaw) increments.
OdometryData = namedtuple("OdometryData", "vehicles left right pose twist scale")

#: Articulated vehicles (vehicles/articulated.Articulations), one row per articulated vehicle.
#:   vehicle (A,) intp: its vehicle index; front_length l_f, rear_length l_r (A,) [m]: front axle ahead of the
#:   pivot, pivot ahead of the rear axle; max_angle (A,) [rad]; max_rate (A,) [rad/s] (0: none); gain (A,) [1/s]:
#:   pivot controller gain; rear_wheels, front_wheels (A, 2) intp: (left, right) wheel indices of each axle;
#:   gamma (A,) [rad]: pivot angle, front yaw - rear yaw (state); gamma_rate (A,) [rad/s] (state); target (A,)
#:   [rad]: the pivot controller's target (state).
ArticulationData = namedtuple("ArticulationData", "vehicle front_length rear_length max_angle max_rate gain "
                                                  "rear_wheels front_wheels gamma gamma_rate target")

#: Everything the phases read and update in place, by group.
StepModel = namedtuple("StepModel", "commands steering wheels controllers friction odometry")

#: The state a run of compiled steps starts from: spin (W,) [rad/s]: wheel spin rates; body_pose (B, 3):
#: (x [m], y [m], yaw [rad]) of each body's reference point, world frame; body_velocity (B, 3): (vx, vy [m/s],
#: omega [rad/s]) of that point, world frame.
StartState = namedtuple("StartState", "spin body_pose body_velocity")

#: The compiled steps' working arrays (allocated once per simulation, `step_workspace`): they hold the state
#: between steps, which `Simulation.run_compiled` copies out after a run.
#:   rows (B, 6): Box2D body states as read (x, y, angle of the origin; vx, vy of the centre of mass [m/s];
#:   omega [rad/s]), world frame; pose, velocity (B, 3): current reference-point pose and velocity (as
#:   StartState); pose_next, velocity_next (B, 3): the same after the Box2D step; acceleration (V, 3): (ax, ay
#:   [m/s^2], alpha [rad/s^2]) of the vehicles over the last step, world frame; spin (W,) [rad/s]: current wheel
#:   spin; spin_next (W,) [rad/s]: spin after the friction phase; wanted (W,) [m/s]: wheel ground-speed setpoints;
#:   wheel_cos, wheel_sin (W,): cos and sin of each wheel's yaw; omega_set (V,) [rad/s]: yaw-rate setpoints;
#:   const (W,) [N m], slope (W,) [N m s/rad]: motor torque laws tau = const - slope * omega_new; local_vx,
#:   local_vy (W,) [m/s]: contact-point velocity, wheel frame; force_lon, force_lat (W,) [N]: ground force, wheel
#:   frame; held (W,) [N]: the part of force_lon holding the slope; torque (W,) [N m]: applied motor torque;
#:   world_fx, world_fy (B,) [N], torque_z (B,) [N m]: each body's wrench about its centre of mass, world frame.
StepWorkspace = namedtuple("StepWorkspace", "rows pose velocity pose_next velocity_next acceleration spin spin_next "
                                            "wanted wheel_cos wheel_sin omega_set const slope local_vx local_vy "
                                            "force_lon force_lat held torque world_fx world_fy torque_z")

#: Outputs of the steering phase: setpoint (W,) [m/s]: each wheel's ground-speed setpoint along its heading;
#: cos_yaw, sin_yaw (W,): of each wheel's yaw; omega (V,) [rad/s]: each vehicle's yaw-rate setpoint.
Setpoints = namedtuple("Setpoints", "setpoint cos_yaw sin_yaw omega")

#: A motor torque law per row: tau = const - slope * omega_new; const (R,) [N m], slope (R,) [N m s/rad].
TorqueLaw = namedtuple("TorqueLaw", "const slope")

#: Contact-point velocity of each wheel, wheel frame: v_x, v_y (W,) [m/s].
ContactVelocity = namedtuple("ContactVelocity", "v_x v_y")

#: Where each wheel pushes on its body: body (W,) intp: the body carrying it; arm_x, arm_y (W,) [m]: its position
#: relative to that body's centre of mass, body frame.
WheelMounts = namedtuple("WheelMounts", "body arm_x arm_y")

#: Each wheel's ground force in its body's frame: force_x, force_y (W,) [N].
WheelForces = namedtuple("WheelForces", "force_x force_y")

#: One wrench per body about its centre of mass, world frame: fx, fy (B,) [N], torque_z (B,) [N m].
Wrenches = namedtuple("Wrenches", "fx fy torque_z")


class StepFrame:
    """What one phase of `Simulation.step()` hands to the next (the compiled steps keep the same in a
    StepWorkspace). wanted (W,) [m/s]: wheel ground-speed setpoints; omega_cmd (V,) [rad/s]: yaw-rate setpoints;
    torque_const (W,) [N m], torque_slope (W,) [N m s/rad]: motor torque laws; yaw (B,) [rad]: the bodies' headings
    at the start of the step; local_vx, local_vy (W,) [m/s]: contact-point velocities, wheel frame; force_lon,
    force_lat (W,) [N]: ground forces, wheel frame; held (W,) [N]: the part of force_lon holding the slope;
    world_fx, world_fy (B,) [N], torque_z (B,) [N m]: each body's wrench about its centre of mass, world frame."""

    __slots__ = ("wanted", "omega_cmd", "torque_const", "torque_slope", "yaw", "local_vx", "local_vy", "force_lon",
                 "force_lat", "held", "world_fx", "world_fy", "torque_z")


def step_workspace(body_count: int, vehicle_count: int, wheel_count: int) -> StepWorkspace:
    """A zeroed StepWorkspace for `body_count` Box2D bodies, of which the first `vehicle_count` are vehicles, and
    `wheel_count` wheels."""
    shapes = {"rows": (body_count, 6), "acceleration": (vehicle_count, 3), "omega_set": (vehicle_count,)}
    for name in ("pose", "velocity", "pose_next", "velocity_next"):
        shapes[name] = (body_count, 3)
    for name in ("world_fx", "world_fy", "torque_z"):
        shapes[name] = (body_count,)
    return StepWorkspace(*(np.zeros(shapes.get(name, (wheel_count,))) for name in StepWorkspace._fields))
