"""World files: MVSim XML text in, validated plain-dataclass specs out (no Box2D, no ROS)."""

from mvsim_ros.world.elements.sensors import with_sensor_params
from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.loader import load_world, load_world_string
from mvsim_ros.world.specs import (BlockSpec, ChassisSpec, ControllerSpec, FrictionSpec, OccupancyGridSpec, VehicleSpec,
                                   WheelSpec, WorldSpec)

__all__ = [
    "WorldFileError",
    "load_world",
    "load_world_string",
    "with_sensor_params",
    "BlockSpec",
    "ChassisSpec",
    "ControllerSpec",
    "FrictionSpec",
    "OccupancyGridSpec",
    "VehicleSpec",
    "WheelSpec",
    "WorldSpec",
]
