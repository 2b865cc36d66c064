"""Wheel-ground friction models: pure functions of per-wheel arrays (no per-wheel Python loops).

Every model has the same signature (see default.py): kinematics, the motor torque law, loads, gravity-slope
forces and wheel constants in, (F_x, F_y, omega_new) out; its own parameters come as a per-wheel matrix whose
columns are the model's PARAM_NAMES. Each has a `*_held` twin that also returns the slope force its contact patch
holds (HELD_FRICTION_MODELS).

  default       MVSim's Coulomb model (seed 001)
  wardiagnemma  default + Ward–Iagnemma velocity-dependent rolling resistance (seed 001)
  ellipse       MVSim's ellipse-curve method: slip-angle / slip-ratio bounds coupled on an ellipse (seed 001)
  pacejka       Pacejka's magic formula on slip ratio and slip angle, friction ellipse (seed 002; not in MVSim)
"""

from mvsim_ros.physics.friction import default, ellipse, pacejka, ward_iagnemma
from mvsim_ros.core.jit import kernel

#: Friction model name (as in world files) -> (vectorised function, parameter column names).
FRICTION_MODELS = {
    "default": (default.default_friction, default.PARAM_NAMES),
    "wardiagnemma": (ward_iagnemma.ward_iagnemma_friction, ward_iagnemma.PARAM_NAMES),
    "ellipse": (ellipse.ellipse_friction, ellipse.PARAM_NAMES),
    "pacejka": (pacejka.pacejka_friction, pacejka.PARAM_NAMES),
}

#: The same models returning a fourth array, the slope force the contact patch holds (F_hold [N], part of F_x):
#: what the simulation calls, to report the torque a wheel's drivetrain carries on a slope (R F_hold).
HELD_FRICTION_MODELS = {
    "default": default.default_friction_held,
    "wardiagnemma": ward_iagnemma.ward_iagnemma_friction_held,
    "ellipse": ellipse.ellipse_friction_held,
    "pacejka": pacejka.pacejka_friction_held,
}

#: Friction model name -> the number `held_friction` dispatches on (compiled code cannot hold Python functions).
FRICTION_CODES = {"default": 0, "wardiagnemma": 1, "ellipse": 2, "pacejka": 3}


@kernel
def held_friction(code, v_x, v_y, omega, torque_const, torque_slope, normal_force, slope_x, slope_y, radius,
                  inertia_yy, wheel_mass, params, gravity, dt):
    """The held model FRICTION_CODES names by `code`, called with the shared signature (see default.py):
    returns (F_x, F_y, omega_new, F_hold)."""
    args = (v_x, v_y, omega, torque_const, torque_slope, normal_force, slope_x, slope_y, radius, inertia_yy,
            wheel_mass, params, gravity, dt)
    if code == 0:
        return default.default_friction_held(*args)
    if code == 1:
        return ward_iagnemma.ward_iagnemma_friction_held(*args)
    if code == 2:
        return ellipse.ellipse_friction_held(*args)
    return pacejka.pacejka_friction_held(*args)


@kernel
def held_friction_into(code, v_x, v_y, omega, torque_const, torque_slope, normal_force, slope_x, slope_y, radius,
                       inertia_yy, wheel_mass, params, gravity, dt, force_x, force_y, omega_new, held):
    """held_friction writing (F_x, F_y, omega_new, F_hold) into the given arrays, which must not be any of the
    inputs: without allocating for the default model (the common one), through held_friction for the others."""
    if code == 0:
        default.default_friction_held_into(v_x, v_y, omega, torque_const, torque_slope, normal_force, slope_x,
                                           slope_y, radius, inertia_yy, wheel_mass, params, gravity, dt, force_x,
                                           force_y, omega_new, held)
        return
    f_x, f_y, o_new, f_hold = held_friction(code, v_x, v_y, omega, torque_const, torque_slope, normal_force,
                                            slope_x, slope_y, radius, inertia_yy, wheel_mass, params, gravity, dt)
    force_x[:] = f_x
    force_y[:] = f_y
    omega_new[:] = o_new
    held[:] = f_hold


__all__ = ["FRICTION_CODES", "FRICTION_MODELS", "HELD_FRICTION_MODELS", "held_friction", "held_friction_into"]
