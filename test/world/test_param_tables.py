"""Parameter tables (world/params): reading an element through a table, and the tables themselves."""

import math

import pytest

from mvsim_ros.world import WorldFileError
from mvsim_ros.world.params import NOT_SIMULATED, SIMULATED, Param, ParamTable, all_tables
from mvsim_ros.world.params.doc import DOC_PATH, render
from mvsim_ros.world.xml.xml_tree import parse_xml_bytes

TABLE = ParamTable("test.context", (
    Param("range", "float", 30.0, "m", "a range", aliases=("maxRange",), quantity="sensor_range"),
    Param("fov_deg", "deg", 180.0, "rad", "an angle"),
    Param("rays", "int", 181, "", "a count"),
    Param("visible", "bool", True, "", "a switch"),
    Param("mode", "str", "fast", "", "a name"),
    Param("height", "float", 0.5, "m", "a height", attribute=True),
    Param("rawlog", "str", "", "", "an output", support=NOT_SIMULATED, note="no .rawlog output here"),
))


def element(text: str):
    return parse_xml_bytes(text.encode(), "w.xml")


def read(text: str):
    warnings = []
    values = TABLE.read(element(text), lambda node, msg: warnings.append(f"{node.file}:{node.line}: {msg}"))
    return values, warnings


def test_defaults_come_converted_and_given_values_override_them():
    values, warnings = read("<e/>")
    assert values == {"range": 30.0, "fov_deg": math.pi, "rays": 181, "visible": True, "mode": "fast",
                      "height": 0.5, "rawlog": ""}
    assert not values.given and not warnings
    values, warnings = read('<e height="1.5">\n<maxRange>70</maxRange>\n<fov_deg>90</fov_deg>\n'
                            '<rays>3</rays><visible>false</visible><mode> slow </mode></e>')
    assert values["range"] == 70.0 and values["fov_deg"] == pytest.approx(math.pi / 2)
    assert (values["rays"], values["visible"], values["mode"], values["height"]) == (3, False, "slow", 1.5)
    assert values.given == {"range", "fov_deg", "rays", "visible", "mode", "height"} and not warnings
    assert values.nodes["range"].line == 2


def test_unknown_tags_and_attributes_are_warned_with_their_line_and_not_simulated_ones_named():
    values, warnings = read('<e bogus="2">\n<rnage>5</rnage>\n<rawlog>x.rawlog</rawlog></e>')
    assert values["range"] == 30.0
    assert len(warnings) == 3
    assert warnings[0].startswith("w.xml:1: unknown attribute bogus=\"2\"")
    assert warnings[1].startswith("w.xml:2: unknown parameter <rnage>") and "known: range" in warnings[1]
    assert warnings[2].startswith("w.xml:3: rawlog of test.context is accepted but not used: no .rawlog output")


@pytest.mark.parametrize("text, message", [
    ("<e>\n<range>abc</range></e>", "w.xml:2.*range: expected a number"),
    ("<e>\n<range>1e9</range></e>", "w.xml:2.*outside the accepted range"),
    ("<e>\n<rays>2.5</rays></e>", "w.xml:2.*expected a whole number"),
    ("<e>\n<visible>maybe</visible></e>", "w.xml:2.*expected true or false"),
])
def test_bad_values_name_file_line_and_parameter(text, message):
    with pytest.raises(WorldFileError, match=message):
        read(text)


def test_every_table_is_well_formed():
    contexts = set()
    for table in all_tables():
        assert table.context not in contexts, f"{table.context} listed twice"
        contexts.add(table.context)
        for param in table:
            assert param.meaning.strip(), f"{table.context}.{param.name} has no meaning"
            assert param.support == SIMULATED or param.note, f"{table.context}.{param.name}: say why not"


def test_the_parameters_page_is_generated_from_the_tables():
    assert DOC_PATH.read_text(encoding="utf-8") == render(), \
        "docs/parameters.md is out of date: run python -m mvsim_ros.world.params.doc"
