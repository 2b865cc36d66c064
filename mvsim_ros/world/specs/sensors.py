"""Sensor specs: class, name, pose on the parent and the typed parameters the loader read and checked."""

from __future__ import annotations

from dataclasses import dataclass, field

from mvsim_ros.world.specs.common import Pose3, SourceRef
from mvsim_ros.world.specs.sensor_params import SensorParams, params_class
from mvsim_ros.world.specs.visuals import VisualSpec


@dataclass
class SensorSpec:
    """A sensor on a vehicle (or standalone in the world): class, name, pose on its parent, parameters.

    params: the class's parameter record (world/specs/sensor_params.py: every parameter by MVSim's name, typed,
    in SI units, MVSim's defaults for the ones the file leaves out), as the loader read and checked it; None (a
    spec built in code) gives the class's defaults. `mvsim_ros.world.with_sensor_params` changes parameters
    with the loader's conversions and checks. publish: MVSim's <publish> block (publish_topic,
    enabled), which this simulator does not use.
    """

    kind: str
    name: str
    pose: Pose3 = field(default_factory=Pose3)
    params: SensorParams | None = None
    publish: dict[str, object] = field(default_factory=dict)
    visual: VisualSpec | None = None
    source: SourceRef | None = None

    def __post_init__(self) -> None:
        expected = params_class(self.kind)
        if self.params is None:
            self.params = expected()
        elif type(self.params) is not expected:
            raise TypeError(f"sensor '{self.name}' (class '{self.kind}'): params must be a {expected.__name__}, got "
                            f"{type(self.params).__name__} (mvsim_ros.world.with_sensor_params changes parameters "
                            "by name)")


__all__ = ["SensorSpec"]
