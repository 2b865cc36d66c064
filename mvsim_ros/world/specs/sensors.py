"""Sensor specs: class, name, pose on the parent and the typed parameters the loader read and checked."""

from __future__ import annotations

from dataclasses import dataclass, field

from mvsim_ros.world.specs.common import Pose3, SourceRef
from mvsim_ros.world.specs.visuals import VisualSpec


@dataclass
class SensorSpec:
    """A sensor on a vehicle (or standalone in the world): class, name, pose on its parent, parameters.

    params: every parameter of the class by MVSim's name, typed and in SI units (radians, metres, seconds), as
    read through the class's table (world/params/sensor_tables.py) with MVSim's defaults for the ones not given
    (a world.params.Values: `given` names those the file set). A spec built in code may hold just a few entries;
    world/elements/sensors.py `sensor_values` completes them with the defaults. publish: MVSim's <publish> block
    (publish_topic, enabled), which this simulator does not use.
    """

    kind: str
    name: str
    pose: Pose3 = field(default_factory=Pose3)
    params: dict[str, object] = field(default_factory=dict)
    publish: dict[str, object] = field(default_factory=dict)
    visual: VisualSpec | None = None
    source: SourceRef | None = None


__all__ = ["SensorSpec"]
