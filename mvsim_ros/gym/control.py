"""The controlled vehicle's action: a twist (v [m/s], omega [rad/s]) or an Ackermann command (speed [m/s],
steering angle [rad]), as a float32 Box bounded by the vehicle's own command limits (physics/command_limits.py)."""

from __future__ import annotations

import math

import numpy as np
from gymnasium import spaces

from mvsim_ros.physics.vehicles.fleet import ACKERMANN_KINDS

#: Control modes: a twist for any commandable vehicle, an Ackermann command for vehicles that steer.
CONTROL_MODES = ("twist", "ackermann")
#: Controllers that take no twist or Ackermann command (wheel torques only).
_UNCOMMANDABLE = ("raw",)


def default_control(sim, index: int) -> str:
    """'ackermann' for an Ackermann vehicle, else 'twist'."""
    return "ackermann" if sim.spec.vehicles[index].dynamics in ACKERMANN_KINDS else "twist"


class VehicleControl:
    """Applies actions to vehicle `index` of a Simulation in `mode` ('twist' or 'ackermann'; None: the vehicle's
    natural one, see `default_control`). `action_space`: Box([-max_speed, -max_yaw_rate], [max_speed,
    max_yaw_rate]) for a twist, Box([-max_speed, -max_steer], [max_speed, max_steer]) for an Ackermann command,
    from the simulation's `limits` [m/s, rad/s, rad], float32."""

    def __init__(self, sim, index: int, mode: str | None = None):
        vehicle = sim.spec.vehicles[index]
        if vehicle.controller.kind in _UNCOMMANDABLE:
            raise ValueError(f"vehicle '{vehicle.name}' has a '{vehicle.controller.kind}' controller (wheel torques): "
                             "it takes no twist or Ackermann command")
        self.index = index
        self.mode = default_control(sim, index) if mode is None else mode
        if self.mode not in CONTROL_MODES:
            raise ValueError(f"control must be one of {CONTROL_MODES}, got {self.mode!r}")
        limits = sim.limits
        if self.mode == "ackermann":
            if index not in sim.steering.vehicle and index not in sim.articulations.vehicle:
                raise ValueError(f"vehicle '{vehicle.name}' does not steer: use control='twist'")
            second = float(limits.max_steer[index])
        else:
            second = float(limits.max_yaw_rate[index])
        #: The bounds [m/s, rad/s or rad], float64, as the limits give them.
        self.high = np.array([float(limits.max_speed[index]), second])
        high = self.high.astype(np.float32)
        self.action_space = spaces.Box(low=-high, high=high, dtype=np.float32)
        self._bounds = [float(b) for b in high]  # the Box's bounds as floats, for clipping

    def apply(self, sim, action) -> None:
        """Set the vehicle's command from `action` (clipped into the action space's bounds); ValueError for a
        wrongly shaped or non-finite action."""
        values = np.asarray(action, dtype=np.float64).reshape(-1)
        if values.shape != (2,) or not math.isfinite(values[0]) or not math.isfinite(values[1]):
            raise ValueError(f"an action is two finite numbers, got {action!r}")
        first, second = (min(max(value, -bound), bound) for value, bound in zip(values.tolist(), self._bounds))
        if self.mode == "ackermann":
            sim.set_ackermann(self.index, first, second)
        else:
            sim.set_twist(self.index, first, second)
