"""Wheel-ground friction models: pure functions of per-wheel arrays (no per-wheel Python loops).

Every model has the same signature (see default.py): kinematics, the motor torque law, loads, gravity-slope
forces and wheel constants in, (F_x, F_y, omega_new) out; its own parameters come as a per-wheel matrix whose
columns are the model's PARAM_NAMES.
"""

from mvsim_ros.physics.friction import default

#: Friction model name (as in world files) -> (vectorised function, parameter column names).
FRICTION_MODELS = {"default": (default.default_friction, default.PARAM_NAMES)}

__all__ = ["FRICTION_MODELS"]
