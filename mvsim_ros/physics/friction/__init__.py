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

__all__ = ["FRICTION_MODELS", "HELD_FRICTION_MODELS"]
