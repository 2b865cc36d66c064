"""``<element class="ground_grid">``: a visual reference grid on the ground plane."""

from __future__ import annotations

from mvsim_ros.world.elements.scenery.common import Warn, check_range, element_name, source_of
from mvsim_ros.world.params.world_tables import ELEMENT_GROUND_GRID
from mvsim_ros.world.specs import GroundGridSpec
from mvsim_ros.world.xml.param_reading import read_params
from mvsim_ros.world.xml.xml_tree import XmlNode


def parse_ground_grid(node: XmlNode, warn: Warn, context: str) -> GroundGridSpec:
    """A ``ground_grid`` element; ``floating_focus`` makes it floating, as in MVSim."""
    values = read_params(ELEMENT_GROUND_GRID, node, warn, label=context)
    spec = GroundGridSpec(source=source_of(node), name=element_name(node), **values)
    if spec.floating_focus:
        spec.floating = True
    check_range(node, spec.x_min, spec.x_max, "x")
    check_range(node, spec.y_min, spec.y_max, "y")
    return spec


__all__ = ["parse_ground_grid"]
