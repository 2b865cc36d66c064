"""The sensors learn a world only through its typed specs: no module of mvsim_ros/sensors/ imports the XML layer
(world/elements, world/xml, world/params), so every parameter reaches a sensor as a typed field of its spec."""

import ast
from pathlib import Path

SENSORS = Path(__file__).resolve().parents[2] / "mvsim_ros" / "sensors"
XML_LAYER = ("mvsim_ros.world.elements", "mvsim_ros.world.xml", "mvsim_ros.world.params", "mvsim_ros.world.loader")


def test_no_sensor_module_imports_the_xml_layer():
    found = []
    for path in sorted(SENSORS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
            found += [f"{path.name}:{node.lineno}: {name}" for name in names if name.startswith(XML_LAYER)]
    assert not found, found
