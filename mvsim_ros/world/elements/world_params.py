"""The world's own parameters (`<gravity>`, `<simul_timestep>`, ...) from their table values into the WorldSpec,
with MVSim's meaning: the automatic time step, Box2D iterations, the collision gap, ground-truth output."""

from __future__ import annotations

import math

from mvsim_ros.world.params.table import Values, Warn
from mvsim_ros.world.specs import WorldSpec
from mvsim_ros.world.xml.values import bounded, fail
from mvsim_ros.world.xml.xml_tree import XmlNode

#: MVSim's automatic step [s]: <simul_timestep> 0 or absent steps at this, or at the shortest sensor period of the
#: vehicles' sensors when that is shorter.
DEFAULT_TIMESTEP_S = 0.005


def apply_world_params(world: WorldSpec, values: Values, root: XmlNode, warn: Warn) -> None:
    """Set `world`'s physics and output settings from the <mvsim_world> table `values` (vehicles already built)."""
    world.gravity = values["gravity"]
    world.b2d_vel_iters = values["b2d_vel_iters"]
    world.b2d_pos_iters = values["b2d_pos_iters"]
    world.collision_threshold = values["collision_threshold"]
    world.joystick_enabled = values["joystick_enabled"]
    world.ground_truth_trajectory = values["save_ground_truth_trajectory"]
    world.ground_truth_rate = values["ground_truth_rate"]
    world.timestep = _timestep(world, values, root, warn)


def shortest_sensor_period(world: WorldSpec) -> tuple[float, str]:
    """(period [s], sensor name) of the vehicle-mounted sensor sampled most often; (inf, "") without sensors.

    As MVSim, sensors standing in the world on their own do not count. A sensor without <sensor_period> has its
    class's default."""
    best = (math.inf, "")
    for vehicle in world.vehicles:
        for sensor in vehicle.sensors:
            period = sensor.params.sensor_period
            if 0.0 < period < best[0]:
                best = (period, f"{vehicle.name}/{sensor.name}")
    return best


def _timestep(world: WorldSpec, values: Values, root: XmlNode, warn: Warn) -> float:
    """The physics step [s]: the given one, or with 0 MVSim's automatic min(5 ms, shortest sensor period)."""
    node = values.node("simul_timestep", root)
    step = values["simul_timestep"]
    period, sensor = shortest_sensor_period(world)
    if step == 0.0:
        return min(DEFAULT_TIMESTEP_S, period)
    if step < 0.0:
        raise fail(node, f"simul_timestep must be >= 0 (0 = automatic), got {step:g}")
    bounded(step, node, "timestep", "simulation timestep [s] (0 = automatic)")
    if step > period:
        warn(node, f"simul_timestep {step:g} s is longer than the sensor_period {period:g} s of sensor '{sensor}': "
                   "that sensor cannot be sampled at its rate")
    return step


__all__ = ["DEFAULT_TIMESTEP_S", "apply_world_params", "shortest_sensor_period"]
