"""Property: whatever is done to a world file's text, loading either succeeds or raises WorldFileError."""

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO
from mvsim_ros.world import WorldFileError, load_world_string

WORLDS = REPO / "worlds"
BASES = {name: (WORLDS / name).read_text() for name in (
    "procedural.world.xml", "warehouse.world.xml", "demo_2robots.world.xml", "office_yaml_map.world.xml",
    "gridmap_yard.world.xml", "elevation_car.world.xml")}
TOKENS = ["<", ">", "/>", "</", '"', "'", "$", "${", "$f{", "}", "{", "(", ")", "&", ";", "=", " ", "\n", "-", ".",
          "0", "1e9", "-1", "nan", "inf", "1e400", "pi", "rand()", "/0", "%", "^", "k", "i", "NAME", "</for>",
          "<for var=\"q\" from=\"1\" to=\"3\">", "<if condition=\"1\">", "</if>", "<include file=\"x.xml\"/>",
          "<variable name=\"v\" value=\"2\"/>", "${v}", "<block/>", "<vehicle/>", "<element class=\"x\"/>",
          "<shape><pt>0 0</pt></shape>", "<geometry type=\"box\"/>", "\x00", "\u00e9", "<![CDATA[x]]>", "<!-- c -->"]


@st.composite
def mutated_world(draw):
    name = draw(st.sampled_from(sorted(BASES)))
    text = BASES[name]
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["delete", "insert", "duplicate", "replace_number", "truncate"]))
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 80)))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "insert":
            text = text[:i] + draw(st.sampled_from(TOKENS)) + text[i:]
        elif op == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        elif op == "replace_number":
            text = text[:i] + draw(st.sampled_from(["-3", "0", "1e308", "NaN", "abc", ""])) + text[j:]
        else:
            text = text[:i]
    return name, text


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_world())
def test_only_world_file_errors_escape(case):
    name, text = case
    try:
        world = load_world_string(text, file=str(WORLDS / name))
    except WorldFileError as exc:
        message = str(exc)
        assert message and ("<" in message or ":" in message)
        return
    assert world.timestep > 0


def test_unmutated_bases_load():
    for name, text in BASES.items():
        assert load_world_string(text, file=str(Path(WORLDS / name))).source_file.endswith(name)
