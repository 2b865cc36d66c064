"""Parameter tables of the vehicle contexts: vehicle, chassis, wheels, dynamics classes, controllers, friction
models, odometry (see table.py)."""

from __future__ import annotations

from mvsim_ros.world.params.table import Param, ParamTable

_FRICTION_COMMON = (
    Param("C_damping", "float", 0.01, "N.m.s/rad", "viscous friction of each wheel's bearing (torque per wheel "
          "spin rate)", quantity="friction_parameter"),
    Param("C_rr", "float", 0.0, "", "rolling-resistance coefficient (force = C_rr x normal load)",
          quantity="friction_parameter"),
)

FRICTION_DEFAULT = ParamTable("friction.default", (
    Param("mu", "float", 0.8, "", "wheel-ground friction coefficient (Coulomb limit of the tyre force)",
          quantity="friction_coefficient"),
    *_FRICTION_COMMON,
), "`<friction class=\"default\">` (also what a vehicle without `<friction>` gets).")

#: The tables of this group, in the order docs/parameters.md lists them.
TABLES: list[ParamTable] = [FRICTION_DEFAULT]
