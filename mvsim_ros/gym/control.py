"""The controlled vehicle's action: a twist (v [m/s], omega [rad/s]) or an Ackermann command (speed [m/s],
steering angle [rad]), normalised by default.

- action_units='normalized' (default, Gymnasium's recommendation): a float32 Box(-1, 1, (2,)); an action a is the
  command a * limits, so -1 and 1 are the limits in each direction.
- action_units='physical': a float32 Box(-limits, limits) in the units above.

The limits [m/s, rad/s or rad] are `action_limits` where given, each at most the simulator's command bounds
(physics/command_limits.py: the speed a motor can hold against bearing damping, Box2D's per-step caps, the
vehicle's max_steer_ang), which are also the limits where not given. Those bounds keep the simulation stable and
say what the physics allows, not what a controller would ask of the vehicle: the demo robot's motors could turn
its wheels at 13 m/s and the racecar's at 150 m/s, so the registered ids give operating limits of their own
(registration.py).
"""

from __future__ import annotations

import math

import numpy as np
from gymnasium import spaces

from mvsim_ros.gym import arguments
from mvsim_ros.physics.vehicles.fleet import ACKERMANN_KINDS

#: Control modes: a twist for any commandable vehicle, an Ackermann command for vehicles that steer.
CONTROL_MODES = ("twist", "ackermann")
#: Units of the actions: normalised to [-1, 1] by the limits, or the command's own units.
ACTION_UNITS = ("normalized", "physical")
#: Controllers that take no twist or Ackermann command (wheel torques only).
_UNCOMMANDABLE = ("raw",)
#: Accepted action limits: (0, inf) in the command's units.
LIMIT_RANGE = arguments.Interval(0.0, math.inf, low_open=True, high_open=True)


def default_control(sim, index: int) -> str:
    """'ackermann' for an Ackermann vehicle, else 'twist'."""
    return "ackermann" if sim.spec.vehicles[index].dynamics in ACKERMANN_KINDS else "twist"


def action_limits_argument(value) -> tuple[float | None, float | None] | None:
    """`action_limits` checked: None, or a pair whose items are each None (the simulator's bound) or a positive
    finite number [m/s; rad/s or rad]. TypeError / ValueError naming the argument."""
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or not hasattr(value, "__getitem__"):
        raise TypeError(f"Expected `action_limits` to be None or a pair (speed limit [m/s], yaw rate [rad/s] or "
                        f"steering [rad] limit), each None or a number in {LIMIT_RANGE.text()}, actual type: "
                        f"{type(value).__name__} ({value!r})")
    if len(value) != 2:
        raise ValueError(f"Expected `action_limits` to be a pair, actual: {value!r}")
    return tuple(None if value[k] is None else arguments.real(f"action_limits[{k}]", value[k], LIMIT_RANGE)
                 for k in range(2))


class VehicleControl:
    """Applies actions to vehicle `index` of a Simulation in `mode` ('twist' or 'ackermann'; None: the vehicle's
    natural one, see `default_control`), in `units` (ACTION_UNITS), scaled by `limits` (a pair of None or
    positive numbers, see the module docstring; None: the simulator's bounds).

    `high`: the limits [m/s; rad/s or rad], float64; `action_space`: Box(-1, 1) normalised, Box(-high, high)
    (float32) physical."""

    def __init__(self, sim, index: int, mode: str | None = None, units: str = "normalized",
                 limits: tuple[float | None, float | None] | None = None):
        vehicle = sim.spec.vehicles[index]
        if vehicle.controller.kind in _UNCOMMANDABLE:
            raise ValueError(f"vehicle '{vehicle.name}' has a '{vehicle.controller.kind}' controller (wheel torques): "
                             "it takes no twist or Ackermann command")
        self.index = index
        self.mode = default_control(sim, index) if mode is None else mode
        if self.mode not in CONTROL_MODES:
            raise ValueError(f"control must be one of {CONTROL_MODES}, got {self.mode!r}")
        self.units = arguments.choice("action_units", units, ACTION_UNITS)
        bounds = sim.limits
        if self.mode == "ackermann":
            if index not in sim.steering.vehicle and index not in sim.articulations.vehicle:
                raise ValueError(f"vehicle '{vehicle.name}' does not steer: use control='twist'")
            second = float(bounds.max_steer[index])
        else:
            second = float(bounds.max_yaw_rate[index])
        simulator = (float(bounds.max_speed[index]), second)
        given = action_limits_argument(limits) or (None, None)
        #: The limits [m/s; rad/s or rad], float64: the given ones, each at most the simulator's bound.
        self.high = np.array([b if g is None else min(g, b) for g, b in zip(given, simulator)])
        high = self.high.astype(np.float32)
        if self.units == "normalized":
            self.action_space = spaces.Box(low=-1.0, high=1.0, shape=(2,), dtype=np.float32)
        else:
            self.action_space = spaces.Box(low=-high, high=high, dtype=np.float32)
        self._bounds = [float(b) for b in high]  # the physical Box's bounds as floats, for clipping

    @property
    def names(self) -> tuple[str, str]:
        """The action's two quantities with their units."""
        if self.mode == "ackermann":
            return "speed [m/s]", "steering angle [rad]"
        return "v [m/s]", "omega [rad/s]"

    def command(self, action) -> tuple[float, float]:
        """The command `action` stands for, in m/s and rad/s or rad (clipped into the action space first);
        ValueError for a wrongly shaped or non-finite action."""
        values = np.asarray(action, dtype=np.float64).reshape(-1)
        if values.shape != (2,) or not math.isfinite(values[0]) or not math.isfinite(values[1]):
            raise ValueError(f"an action is two finite numbers, got {action!r}")
        if self.units == "normalized":
            first, second = (min(max(value, -1.0), 1.0) * limit
                             for value, limit in zip(values.tolist(), self.high.tolist()))
            return first, second
        first, second = (min(max(value, -bound), bound) for value, bound in zip(values.tolist(), self._bounds))
        return first, second

    def apply(self, sim, action) -> None:
        """Set the vehicle's command from `action` (see `command`)."""
        first, second = self.command(action)
        if self.mode == "ackermann":
            sim.set_ackermann(self.index, first, second)
        else:
            sim.set_twist(self.index, first, second)
