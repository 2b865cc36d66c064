"""``<element class="...">``: the element classes MVSim registers, each dispatched to its reader.

Tag names, defaults and semantics follow MVSim's own sources (``modules/simulator/src/WorldElements/*.cpp``).
Child tags that MVSim accepts but this version does not model are reported through
``warn(node, "... not used by this version; kept")`` and kept verbatim in the spec's ``kept`` list; tags MVSim does
not know either are reported as ``"unknown parameter for <...>; skipped"``. Bad values raise
:class:`~mvsim_ros.world.errors.WorldFileError` naming file, line and tag. Occupancy grids have their own reader
(occupancy_grid.py), called by the loader.
"""

from __future__ import annotations

from typing import Callable

from mvsim_ros.world.elements.scenery.common import Warn
from mvsim_ros.world.elements.scenery.elevation_map import parse_elevation_map
from mvsim_ros.world.elements.scenery.ground_grid import parse_ground_grid
from mvsim_ros.world.elements.scenery.planes import parse_horizontal_plane, parse_vertical_plane
from mvsim_ros.world.elements.scenery.pointcloud import parse_pointcloud
from mvsim_ros.world.elements.scenery.property_region import parse_property_region
from mvsim_ros.world.elements.scenery.skybox import parse_skybox
from mvsim_ros.world.elements.world_options import warner
from mvsim_ros.world.specs import ElementSpec
from mvsim_ros.world.xml.values import fail
from mvsim_ros.world.xml.xml_tree import XmlNode

#: Each element class read here -> its reader (called with the node, warn and a label for messages).
_ELEMENT_PARSERS: dict[str, Callable[[XmlNode, Warn, str], ElementSpec]] = {
    "ground_grid": parse_ground_grid,
    "elevation_map": parse_elevation_map,
    "horizontal_plane": parse_horizontal_plane,
    "vertical_plane": parse_vertical_plane,
    "property_region": parse_property_region,
    "skybox": parse_skybox,
    "pointcloud": parse_pointcloud,
}
#: Element classes parsed by :func:`parse_element` (``occupancy_grid`` has its own loader).
ELEMENT_CLASSES: tuple[str, ...] = tuple(_ELEMENT_PARSERS)
#: Every element class MVSim registers, for error messages.
ALL_ELEMENT_CLASSES: tuple[str, ...] = tuple(sorted(ELEMENT_CLASSES + ("occupancy_grid",)))


def parse_element(node: XmlNode, warn: Warn | None = None) -> ElementSpec:
    """Parse one ``<element class="...">`` (any class in :data:`ELEMENT_CLASSES`)."""
    warn = warner(warn)
    kind = node.attrib.get("class", "").strip()
    valid = ", ".join(ALL_ELEMENT_CLASSES)
    if not kind:
        raise fail(node, f'<element> needs a class="..." attribute; valid classes: {valid}')
    if kind == "occupancy_grid":
        raise fail(node, "element class 'occupancy_grid' is parsed by the occupancy-grid loader, not here")
    parser = _ELEMENT_PARSERS.get(kind)
    if parser is None:
        raise fail(node, f"unknown element class '{kind}'; valid classes: {valid}")
    return parser(node, warn, f'<element class="{kind}">')


__all__ = ["ALL_ELEMENT_CLASSES", "ELEMENT_CLASSES", "parse_element"]
