"""Wheel-ground friction models, and the one driver that runs any of them over the wheels.

Each model (one module each) is a per-wheel force law with the same signature (see default.py `default_wheel`):
one wheel's kinematics, load, gravity-slope forces and constants (a WheelContact of floats), the motor torque law
tau = torque_const - torque_slope * omega_new as two scalars, its own parameters as row i of a per-wheel matrix
whose columns are the model's PARAM_NAMES; out come the scalars (F_x, F_y, omega_new, F_hold), F_hold being the
slope force the contact patch holds (part of F_x; the wheel's drivetrain carries R F_hold of torque).

`solve_wheels_into` is the driver: the loop over the wheels, the dispatch on the model (the laws are compiled into
the loop: no call per wheel), the motor torque limits, writing into given arrays; `solve_wheels` allocates its
outputs (Python's step), `wheel_forces` takes a model name and plain arrays (tests, tools).

  default       MVSim's Coulomb model (MVSim docs, "Default Friction Model")
  wardiagnemma  default + Ward–Iagnemma velocity-dependent rolling resistance (MVSim docs)
  ellipse       MVSim's ellipse-curve method: slip-angle / slip-ratio bounds coupled on an ellipse (MVSim docs)
  pacejka       Pacejka's magic formula on slip ratio and slip angle, friction ellipse (not in MVSim)
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from mvsim_ros.core.jit import kernel
from mvsim_ros.physics.friction import default, ellipse, pacejka, ward_iagnemma
from mvsim_ros.physics.step_phases import inlined_kernel

#: Per-wheel inputs of a friction law, arrays of W entries, wheel frame (x along the rolling direction, y along the
#: axle to the left):
#:   v_x, v_y [m/s]: contact-point velocity; omega [rad/s]: spin rate (positive rolls forward); torque_const [N m],
#:   torque_slope [N m s/rad]: motor law tau = torque_const - torque_slope * omega_new; normal_force [N]: load F_z;
#:   slope_x, slope_y [N]: ground-plane component of gravity on the wheel's share of mass (0 on flat ground);
#:   radius [m]; inertia_yy [kg m^2]: spin inertia; wheel_mass [kg].
FrictionInputs = namedtuple("FrictionInputs", "v_x v_y omega torque_const torque_slope normal_force slope_x slope_y "
                                              "radius inertia_yy wheel_mass")

#: One wheel's inputs as a law reads them, floats in the units of FrictionInputs (the motor law comes separately).
WheelContact = namedtuple("WheelContact", "v_x v_y omega normal_force slope_x slope_y radius inertia_yy wheel_mass")

#: What the driver writes, W entries each: force_x, force_y [N]: ground force on the wheel, wheel frame;
#: omega_new [rad/s]: spin rate after the step; held [N]: the part of force_x holding the wheel against slope_x.
FrictionOutputs = namedtuple("FrictionOutputs", "force_x force_y omega_new held")

#: A friction model as the simulation knows it: `code` (what the compiled driver dispatches on) and the names of its
#: parameter columns.
FrictionModel = namedtuple("FrictionModel", "code param_names")

#: Friction model name (as in world files) -> its FrictionModel.
FRICTION_MODELS = {
    "default": FrictionModel(0, default.PARAM_NAMES),
    "wardiagnemma": FrictionModel(1, ward_iagnemma.PARAM_NAMES),
    "ellipse": FrictionModel(2, ellipse.PARAM_NAMES),
    "pacejka": FrictionModel(3, pacejka.PARAM_NAMES),
}

#: Friction model name -> the number `solve_wheels_into` dispatches on (compiled code cannot hold Python functions).
FRICTION_CODES = {name: model.code for name, model in FRICTION_MODELS.items()}


@inlined_kernel
def wheel_law(code, wheel, torque_const, torque_slope, params, i, gravity, dt):
    """One wheel (WheelContact; its parameters are row i of params) through the model numbered `code`
    (FRICTION_CODES) under the motor law torque_const [N m] - torque_slope [N m s/rad] * omega_new:
    (F_x [N], F_y [N], omega_new [rad/s], F_hold [N])."""
    if code == 0:
        return default.default_wheel(wheel, torque_const, torque_slope, params, i, gravity, dt)
    if code == 1:
        return ward_iagnemma.ward_iagnemma_wheel(wheel, torque_const, torque_slope, params, i, gravity, dt)
    if code == 2:
        return ellipse.ellipse_wheel(wheel, torque_const, torque_slope, params, i, gravity, dt)
    return pacejka.pacejka_wheel(wheel, torque_const, torque_slope, params, i, gravity, dt)


@inlined_kernel
def solve_wheels_into(code, inputs, params, limit, gravity, dt, out):
    """Friction (phase 4) for wheels sharing one model (`code`), honouring the motor torque limits `limit` [N m]:
    each wheel's (F_x, F_y, omega_new, F_hold) written into `out` (FrictionOutputs; no allocation).

    inputs: FrictionInputs; params: (W, P) the model's parameter rows; gravity [m/s^2]; dt [s].
    The motor law tau = const - slope * omega_new is solved implicitly by the model; a wheel whose solved torque
    exceeds its limit is solved again with the limit as a constant torque (the torque balance is monotonic in
    omega_new, so that is the saturated solution). Each wheel's inputs are read before its outputs are written, so
    `out` may share arrays with `inputs`.
    """
    v_x, v_y, omega, normal_force = inputs.v_x, inputs.v_y, inputs.omega, inputs.normal_force
    slope_x, slope_y, radius = inputs.slope_x, inputs.slope_y, inputs.radius
    inertia_yy, wheel_mass = inputs.inertia_yy, inputs.wheel_mass
    torque_const, torque_slope = inputs.torque_const, inputs.torque_slope
    force_x, force_y, omega_new, held = out.force_x, out.force_y, out.omega_new, out.held
    for i in range(v_x.size):
        wheel = WheelContact(v_x[i], v_y[i], omega[i], normal_force[i], slope_x[i], slope_y[i], radius[i],
                             inertia_yy[i], wheel_mass[i])
        const, slope = torque_const[i], torque_slope[i]
        f_x, f_y, spin, f_hold = wheel_law(code, wheel, const, slope, params, i, gravity, dt)
        if abs(const - slope * spin) > limit[i]:
            saturated = np.copysign(limit[i], const - slope * spin)
            f_x, f_y, spin, f_hold = wheel_law(code, wheel, saturated, 0.0, params, i, gravity, dt)
        force_x[i] = f_x
        force_y[i] = f_y
        omega_new[i] = spin
        held[i] = f_hold


@kernel
def solve_wheels(code, wheel, params, limit, gravity, dt):
    """solve_wheels_into returning new arrays (F_x, F_y, omega_new, F_hold)."""
    count = wheel.v_x.size
    out = FrictionOutputs(np.empty(count), np.empty(count), np.empty(count), np.empty(count))
    solve_wheels_into(code, wheel, params, limit, gravity, dt, out)
    return out.force_x, out.force_y, out.omega_new, out.held


def wheel_forces(model: str, v_x: np.ndarray, v_y: np.ndarray, omega: np.ndarray, torque_const: np.ndarray,
                 torque_slope: np.ndarray, normal_force: np.ndarray, slope_x: np.ndarray, slope_y: np.ndarray,
                 radius: np.ndarray, inertia_yy: np.ndarray, wheel_mass: np.ndarray, params: np.ndarray,
                 gravity: float, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The named model on plain per-wheel arrays (see FrictionInputs for their units), no torque limit:
    (F_x [N], F_y [N], omega_new [rad/s], F_hold [N])."""
    columns = (v_x, v_y, omega, torque_const, torque_slope, normal_force, slope_x, slope_y, radius, inertia_yy,
               wheel_mass)
    arrays = [np.ascontiguousarray(a, dtype=float) for a in columns]
    unlimited = np.full(arrays[0].size, np.inf)
    return solve_wheels(FRICTION_MODELS[model].code, FrictionInputs(*arrays),
                        np.ascontiguousarray(params, dtype=float), unlimited, float(gravity), float(dt))


__all__ = ["FRICTION_CODES", "FRICTION_MODELS", "FrictionInputs", "FrictionModel", "FrictionOutputs", "WheelContact",
           "solve_wheels", "solve_wheels_into", "wheel_forces", "wheel_law"]
