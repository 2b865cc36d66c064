"""``<element class="property_region">``: a named value (friction, GNSS coverage, ...) inside a box."""

from __future__ import annotations

from mvsim_ros.world.elements.scenery.common import Warn, check_range, element_name, source_of
from mvsim_ros.world.params.world_tables import ELEMENT_PROPERTY_REGION
from mvsim_ros.world.specs import PropertyRegionSpec
from mvsim_ros.world.xml.param_reading import read_params
from mvsim_ros.world.xml.values import fail
from mvsim_ros.world.xml.xml_tree import XmlNode

#: Property names the simulator gives a meaning to, with the value type each needs.
KNOWN_PROPERTIES: dict[str, type] = {"friction_mu": float, "friction_C_rr": float, "gps_no_coverage": bool}


def parse_property_region(node: XmlNode, warn: Warn, context: str) -> PropertyRegionSpec:
    """A ``property_region`` element: its box [m] and value (MVSim's priority among the value tags); the
    properties the simulator uses must have the value type it needs."""
    values = read_params(ELEMENT_PROPERTY_REGION, node, warn, label=context)
    spec = PropertyRegionSpec(source=source_of(node), name=element_name(node), property_name=values["property_name"],
                              **{f"{axis}_{end}": values[f"{axis}_{end}"] for axis in "xyz" for end in ("min", "max")})
    for axis in "xyz":
        check_range(node, getattr(spec, f"{axis}_min"), getattr(spec, f"{axis}_max"), axis)
    # MVSim's priority: a value_double anywhere wins over value_bool, which wins over value_string.
    given = [tag for tag in ("value_double", "value_bool", "value_string") if tag in values.given]
    chosen = given[0] if given else None
    if chosen is not None:
        spec.value = values[chosen]
        for tag in given[1:]:
            warn(values.nodes[tag], f"<{tag}> ignored: MVSim uses <{chosen}> when both are given")
    if not spec.property_name:
        warn(node, "property_region has no <property_name>; it will never match any query")
    elif spec.value is None:
        warn(node, f"property_region '{spec.property_name}' has no <value_double>, <value_bool> or <value_string>")
    expected = KNOWN_PROPERTIES.get(spec.property_name)
    if expected is not None and spec.value is not None:
        if type(spec.value) is not expected:
            tag = "value_double" if expected is float else "value_bool"
            raise fail(values.nodes[chosen], f"property '{spec.property_name}' needs a <{tag}>, got <{chosen}>")
        if expected is float and spec.value < 0:
            raise fail(values.nodes[chosen], f"property '{spec.property_name}' must be >= 0, got {spec.value:g}")
    return spec


__all__ = ["KNOWN_PROPERTIES", "parse_property_region"]
