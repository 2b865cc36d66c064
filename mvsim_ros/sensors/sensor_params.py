"""Reading a sensor's numeric parameters (text kept by the world loader) with located errors."""

from __future__ import annotations

from mvsim_ros.world.specs import SensorSpec
from mvsim_ros.world.values import fail, parse_float
from mvsim_ros.world.xml_tree import XmlNode


def sensor_node(spec: SensorSpec) -> XmlNode:
    """An XmlNode standing for the sensor's element, to locate errors at its file and line."""
    src = spec.source
    return XmlNode(tag="sensor", attrib={}, file=src.file if src else "", line=src.line if src else 0)


def number(spec: SensorSpec, *names: str, default: float) -> float:
    """The first of `names` present in the sensor's parameters, as a float, else `default`."""
    for name in names:
        if name in spec.params:
            return parse_float(spec.params[name], sensor_node(spec), f"sensor '{spec.name}' {name}")
    return default


def positive_period(spec: SensorSpec, default: float) -> float:
    """sensor_period [s], which must be > 0."""
    period = number(spec, "sensor_period", default=default)
    if period <= 0:
        raise fail(sensor_node(spec), f"sensor '{spec.name}': sensor_period must be > 0")
    return period
