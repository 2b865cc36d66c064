"""Wheel-ground friction models: pure functions of per-wheel arrays (no per-wheel Python loops)."""

from mvsim_ros.physics.friction.default import default_friction

#: Friction model name (as in world files) -> vectorised function.
FRICTION_MODELS = {"default": default_friction}

__all__ = ["FRICTION_MODELS", "default_friction"]
