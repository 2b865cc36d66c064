"""World files MVSim (rapidxml) reads although XML refuses them: each leniency, its warning, and the safety
rules and limits that still hold on the lenient path."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REPO
from mvsim_ros.world import WorldFileError, load_world, load_world_string
from mvsim_ros.world.xml.limits import LoadLimits
from mvsim_ros.world.xml.xml_tree import (MAX_NESTING_DEPTH, XmlNode, parse_xml_bytes, parse_xml_document,
                                          parse_xml_lenient)

LENIENT = "as MVSim does"


def world(body: str) -> str:
    return f'<mvsim_world version="1.0">\n{body}\n</mvsim_world>\n'


def leniency_warnings(loaded) -> list[str]:
    return [w for w in loaded.warnings if LENIENT in w and "named as MVSim" not in w]


def lenient_tree(data: bytes, file: str = "w.xml") -> tuple[list[XmlNode], list[str]]:
    """Roots and warnings of the lenient reader alone (no strict first pass)."""
    document = parse_xml_lenient(data, file)
    return document.roots, document.warnings


def shape(node: XmlNode) -> tuple:
    return node.tag, node.line, node.attrib, node.text, [shape(c) for c in node.children]


# -- raw '<' in attribute values ---------------------------------------------------------------------------------

def test_raw_less_than_in_a_condition_keeps_and_drops_the_right_elements():
    text = world('<for var="i" from="1" to="4">\n'
                 '  <if condition="$f{if(i<=1 or i>=3, 1, 0)}"><block name="b${i}"/></if>\n'
                 '</for>')
    loaded = load_world_string(text, file="/w/loop.world.xml")
    assert [b.name for b in loaded.blocks] == ["b1", "b3", "b4"]
    assert leniency_warnings(loaded) == [
        "/w/loop.world.xml:3: <if>: attribute 'condition' holds a raw '<'; accepted as MVSim does (XML wants &lt;)"]


def test_raw_less_than_in_single_quotes_and_two_on_one_line_give_one_warning():
    text = world("<if condition='1<2'><block name='kept' color='#ff0000'/></if><if condition='3<2'>"
                 "<block name='dropped'/></if>")
    loaded = load_world_string(text, file="w.xml")
    assert [b.name for b in loaded.blocks] == ["kept"]
    assert leniency_warnings(loaded) == [
        "w.xml:2: <if>: attribute 'condition' holds a raw '<'; accepted as MVSim does (XML wants &lt;)"]


def test_raw_greater_than_alone_is_plain_xml_and_gives_no_warning():
    loaded = load_world_string(world('<if condition="2>1"><block name="kept"/></if>'), file="w.xml")
    assert [b.name for b in loaded.blocks] == ["kept"]
    assert loaded.warnings == []


# -- raw '&' ---------------------------------------------------------------------------------------------------

def test_raw_ampersand_is_kept_in_attributes_and_text():
    loaded = load_world_string(world('<block name="R&D"/>\n<my_param>salt & pepper &;</my_param>'), file="w.xml")
    assert [b.name for b in loaded.blocks] == ["R&D"]
    assert loaded.other_params["my_param"] == "salt & pepper &;"
    assert leniency_warnings(loaded) == [
        "w.xml:2: <block>: attribute 'name' holds a raw '&' that starts no entity reference; kept as it is, "
        "as MVSim does (XML wants &amp;)",
        "w.xml:3: <my_param>: text holds a raw '&' that starts no entity reference; kept as it is, "
        "as MVSim does (XML wants &amp;)"]


def test_references_are_decoded_on_the_lenient_path_too():
    loaded = load_world_string(world('<block name="&lt;a&amp;b&#65;&#x42;&quot;&apos;&gt;" z="1<2"/>'))
    assert [b.name for b in loaded.blocks] == ["<a&bAB\"'>"]


def test_an_undefined_named_entity_is_an_error_with_its_line():
    with pytest.raises(WorldFileError) as info:
        load_world_string(world('<block name="a<b"/>\n<block name="x&nbsp;y"/>'), file="w.xml")
    assert (info.value.file, info.value.line) == ("w.xml", 3)
    assert "undefined entity &nbsp;" in str(info.value)


# -- closing tag with another name ---------------------------------------------------------------------------------

def test_a_mismatched_closing_tag_closes_the_open_element():
    text = world('<block name="b">\n  <mass>7.5</massx>\n  <zmax>2.5</zmax>\n</block>')
    loaded = load_world_string(text, file="w.xml")
    (block,) = loaded.blocks
    assert (block.mass, block.zmax) == (7.5, 2.5)
    assert leniency_warnings(loaded) == [
        "w.xml:3: <mass>: closing tag </massx> does not match; it closes <mass> as MVSim does (XML wants </mass>)"]


def test_a_mismatched_closing_tag_on_another_line_names_the_opening_line():
    roots, warnings = lenient_tree(b'<mvsim_world>\n<block name="b">\n<mass>1</mass>\n</blok>\n</mvsim_world>')
    assert [(c.tag, c.line, [g.tag for g in c.children]) for c in roots[0].children] == [("block", 2, ["mass"])]
    assert warnings == ["w.xml:4: <block>: closing tag </blok> does not match; it closes <block> (opened at line 2) "
                        "as MVSim does (XML wants </block>)"]


# -- several top-level elements ----------------------------------------------------------------------------------

CLASS = """<vehicle:class name="{name}">
  <dynamics class="differential">
    <chassis mass="{mass}"><shape><pt>-0.2 -0.2</pt><pt>0.2 -0.2</pt><pt>0.2 0.2</pt><pt>-0.2 0.2</pt></shape></chassis>
    <l_wheel pos="0 0.25" diameter="{diameter}"/>
    <r_wheel pos="0 -0.25" diameter="{diameter}"/>
  </dynamics>
</vehicle:class>
"""


def test_an_included_file_with_two_roots_defines_both_classes(tmp_path):
    included = tmp_path / "two.vehicle.xml"
    included.write_text("<!-- two classes -->\n" + CLASS.format(name="small", mass=10, diameter=0.2)
                        + "\n" + CLASS.format(name="big", mass=40, diameter=0.5))
    path = tmp_path / "w.world.xml"
    path.write_text(world('<include file="two.vehicle.xml"/>\n'
                          '<vehicle name="s" class="small"/>\n<vehicle name="b" class="big"/>'))
    loaded = load_world(path)
    assert [(v.name, v.class_name, v.chassis.mass, v.wheels[0].diameter) for v in loaded.vehicles] == [
        ("s", "small", 10.0, 0.2), ("b", "big", 40.0, 0.5)]
    assert leniency_warnings(loaded) == [
        f"{included}:10: <vehicle:class>: the included file holds 2 top-level elements; all are used, as MVSim does "
        "(XML allows one)"]


def test_top_level_variables_and_conditions_of_an_included_file_apply(tmp_path):
    (tmp_path / "parts.xml").write_text(
        '<variable name="m" value="$f{2*k}"/>\n'
        '<if condition="${k} > 1"><block name="big${k}"><mass>${m}</mass></block></if>\n'
        '<block name="any${k}"><mass>${m}</mass></block>\n')
    path = tmp_path / "w.world.xml"
    path.write_text(world('<for var="i" from="1" to="2"><include file="parts.xml" k="${i}"/></for>'))
    loaded = load_world(path)
    assert [(b.name, b.mass) for b in loaded.blocks] == [("any1", 2.0), ("big2", 4.0), ("any2", 4.0)]
    assert len(leniency_warnings(loaded)) == 1  # the same file included twice: its warning once


def test_elements_after_the_world_root_are_ignored_with_a_warning():
    loaded = load_world_string(world('<block name="in"/>') + '<block name="out1"/>\n<block name="out2"/>\n',
                               file="w.xml")
    assert [b.name for b in loaded.blocks] == ["in"]
    assert leniency_warnings(loaded) == [
        "w.xml:4: <block>: this and 1 more top-level elements after <mvsim_world> ignored, as MVSim does "
        "(it reads only the first; XML allows one)"]


def test_the_first_root_of_the_world_file_must_be_mvsim_world():
    with pytest.raises(WorldFileError, match=r"^w\.xml:1: <block>: the root element must be <mvsim_world>"):
        load_world_string('<block name="a"/>\n' + world(""), file="w.xml")


# -- strict files stay strict ------------------------------------------------------------------------------------

def test_a_strictly_valid_file_takes_the_strict_path_and_gives_no_warning():
    text = world('<?pi data?>\n<!-- a comment -->\n<block name="a&amp;b"><mass><![CDATA[3]]></mass></block>'
                 '<if condition="1 &lt; 2"><block name="c"/></if>')
    document = parse_xml_document(text.encode(), "w.xml")
    assert (document.lenient, document.warnings) == (False, [])
    loaded = load_world_string(text, file="w.xml")
    assert [(b.name, b.mass) for b in loaded.blocks] == [("a&b", 3.0), ("c", 30.0)]
    assert loaded.warnings == []


@pytest.mark.parametrize("name", sorted(p.name for p in (REPO / "worlds").glob("*.xml")))
def test_the_lenient_reader_builds_the_same_tree_as_the_strict_parser(name):
    data = (REPO / "worlds" / name).read_bytes()
    for variant in (data, data.replace(b"\n", b"\r\n")):
        strict = parse_xml_bytes(variant, name)
        roots, warnings = lenient_tree(variant, name)
        assert warnings == [] and len(roots) == 1
        assert shape(roots[0]) == shape(strict)


def test_lines_whitespace_and_cdata_match_xml():
    data = (b'<?xml version="1.0" encoding="UTF-8"?>\r\n<!-- c\r\n -->\r\n<a x="1\t2\n3&#10;">\r\n'
            b'  <b>  t <![CDATA[<&>]]> u  </b>\r\n\r\n  <c\n y="2"/>\r</a>')
    strict = parse_xml_bytes(data, "f")
    roots, _ = lenient_tree(data, "f")
    assert shape(roots[0]) == shape(strict) == (
        "a", 4, {"x": "1 2 3\n"}, "", [("b", 6, {}, "t <&> u", []), ("c", 8, {"y": "2"}, "", [])])


# -- safety on the lenient path ------------------------------------------------------------------------------------

def test_doctype_with_entities_is_refused_on_the_lenient_path():
    # Well-formed up to the DOCTYPE after the root, so the strict parser fails first and the lenient one decides.
    text = world('<block name="a"/>') + '<!DOCTYPE x [<!ENTITY e "boom">]>\n<block name="&e;"/>\n'
    with pytest.raises(WorldFileError) as info:
        load_world_string(text, file="w.xml")
    assert str(info.value) == ("w.xml:4: refused unsafe XML (EntitiesForbidden: a <!DOCTYPE> with an internal "
                               "subset is not accepted in world files)")


@pytest.mark.parametrize("head, kind", [
    ('<!DOCTYPE w [<!ENTITY e "boom">]>', "EntitiesForbidden"),
    ("<!DOCTYPE w [<!ELEMENT w ANY>]>", "DTDForbidden"),
    ('<!DOCTYPE w SYSTEM "file:///etc/passwd">', "ExternalReferenceForbidden"),
    ('<!DOCTYPE w PUBLIC "-//x" "http://example.com/x.dtd">', "ExternalReferenceForbidden"),
    ('<!ENTITY e "boom">', "EntitiesForbidden"),
])
def test_the_lenient_reader_refuses_dtds_and_entities_even_in_lenient_files(head, kind):
    data = f'{head}\n<mvsim_world a="1<2">&amp;</mvsim_world>'.encode()
    with pytest.raises(WorldFileError, match=rf"^w\.xml:1: refused unsafe XML \({kind}: "):
        lenient_tree(data)


def test_a_plain_doctype_is_accepted_by_both_paths():
    data = b'<!DOCTYPE mvsim_world>\n<mvsim_world a="1<2"><b/></mvsim_world>'
    roots, _ = lenient_tree(data)
    assert shape(roots[0]) == ("mvsim_world", 2, {"a": "1<2"}, "", [("b", 2, {}, "", [])])


@pytest.mark.parametrize("leniency", ["", ' a="1<2"'])
def test_deep_nesting_is_a_located_error_not_a_recursion_error(leniency):
    deep = MAX_NESTING_DEPTH + 20
    text = f"<mvsim_world{leniency}>\n" + "<a>\n" * deep + "</a>\n" * deep + "</mvsim_world>\n"
    with pytest.raises(WorldFileError) as info:
        load_world_string(text, file="w.xml")
    assert (info.value.line, info.value.tag) == (MAX_NESTING_DEPTH + 1, "a")
    assert f"elements nested deeper than {MAX_NESTING_DEPTH} levels" in str(info.value)


def test_nesting_up_to_the_limit_loads():
    inner = MAX_NESTING_DEPTH - 1
    text = "<mvsim_world>\n" + "<a>" * inner + "1" + "</a>" * inner + "</mvsim_world>\n"
    loaded = load_world_string(text, file="w.xml")
    assert loaded.warnings == ["w.xml:2: <a>: unknown tag; skipped"]


def test_nesting_is_counted_through_includes(tmp_path):
    half = MAX_NESTING_DEPTH // 2 + 10
    (tmp_path / "deep.xml").write_text("<a>" * half + "</a>" * half)
    path = tmp_path / "w.world.xml"
    path.write_text("<mvsim_world>" + "<b>" * half + '<include file="deep.xml"/>' + "</b>" * half + "</mvsim_world>")
    with pytest.raises(WorldFileError, match="nested deeper than 256 levels .*included files") as info:
        load_world(path)
    assert info.value.file == str(tmp_path / "deep.xml")


def test_element_count_and_file_size_are_bounded(tmp_path):
    with pytest.raises(WorldFileError, match="more than 5 XML elements .*limit max_elements = 5") as info:
        load_world_string(world('<a z="1<2"/>\n<a/><a/><a/>\n<a/>'), file="w.xml", limits=LoadLimits(max_elements=5))
    assert (info.value.line, info.value.tag) == (4, "a")
    small = LoadLimits(max_file_bytes=100)
    path = tmp_path / "w.world.xml"
    path.write_text(world("<!--" + "x" * 100 + "-->"))
    with pytest.raises(WorldFileError, match=r"over the limit of 100 bytes \(limit max_file_bytes = 100"):
        load_world(path, limits=small)
    with pytest.raises(WorldFileError, match=r"over the limit of 100 bytes"):
        load_world_string(world("<!--" + "x" * 100 + "-->"), limits=small)


# -- what stays refused, with its line ---------------------------------------------------------------------------

@pytest.mark.parametrize("body, line, message", [
    ('<block name="a">\n<mass>1</mass>\n', 3, "<block> is not closed before the end of the file; also open: "
                                              "<mvsim_world> (line 1)"),
    ('<block name="a"/>\n<mass>1 < 2</mass>', 4, "'<' not followed by a tag name"),
    ("<!-- no end\n<block/>", 3, "comment not terminated"),
    ("<!-- a -- b -->", 3, "'--' inside a comment"),
    ('<block name="a\n/>', 3, "the value of attribute 'name' of <block> has no closing quote"),
    ('<block name=a/>', 3, "must be quoted"),
    ('<block name="a" name="b"/>', 3, "attribute 'name' repeated"),
    ('<block name="a"x="b"/>', 3, "unexpected 'x' in the start tag <block>"),
    ("<block>]]></block>", 3, "']]>' in text"),
    ("<![CDATA[x", 3, "CDATA section not terminated"),
    ("<block>&#0;</block>", 3, "reference &#0; to a character XML does not allow"),
    ("<?xml version='1.0'?>", 3, "XML declaration <?xml ...?> not at the start"),
    ("</>", 3, "'</' not followed by a tag name"),
])
def test_what_the_lenient_reader_still_refuses_is_located(body, line, message):
    text = '<mvsim_world a="1<2">\n\n' + body
    if "not closed" not in message:
        text += "\n</mvsim_world>"
    with pytest.raises(WorldFileError) as info:
        load_world_string(text, file="w.xml")
    assert (info.value.file, info.value.line) == ("w.xml", line)
    assert message in str(info.value) and str(info.value).startswith(f"w.xml:{line}: malformed XML at column ")


def test_a_closing_tag_that_closes_too_early_is_named_when_the_file_ends_open():
    text = '<mvsim_world>\n<simul_timestep>0.01</simul_timestep>\n<vehicle name="a">\n</mvsim_world>'
    with pytest.raises(WorldFileError) as info:
        load_world_string(text, file="w.xml")
    assert str(info.value) == (
        "w.xml:4: malformed XML at column 0: mismatched tag </mvsim_world>: it closed <vehicle> (line 3) as MVSim "
        "does, which leaves <mvsim_world> (line 1) unclosed at the end of the file")


@pytest.mark.parametrize("data, message", [
    (b"", "the file is empty"), (b" \n\t", "the file is empty"), (b"  \n<!-- c -->\n", "the file holds no XML element"),
    (b'<a x="1<2"/>\x00', r"character U\+0000 is not allowed"),
    (b'<a x="1<2">\xff</a>', "not valid UTF-8"),
    (b'<?xml version="1.0" encoding="EBCDIC-XYZ"?><a x="1<2"/>', "unsupported encoding"),
    (b'<a x="1<2"/>text', "text outside the root element"),
])
def test_other_refusals(data, message):
    with pytest.raises(WorldFileError, match=message):
        parse_xml_document(data, "w.xml")


def test_latin1_and_utf16_files_decode_on_the_lenient_path():
    latin = '<?xml version="1.0" encoding="ISO-8859-1"?>\n<a n="caf\u00e9" x="1<2"/>'.encode("latin-1")
    utf16 = '<a n="caf\u00e9" x="1<2"/>'.encode("utf-16")
    for data in (latin, utf16):
        document = parse_xml_document(data, "w.xml")
        assert document.lenient and document.roots[0].attrib == {"n": "caf\u00e9", "x": "1<2"}


# -- properties ----------------------------------------------------------------------------------------------------

_PIECES = ["<a>", "</a>", "<b x='1'>", "</b>", "<c/>", "<a y=\"1<2\">", "</c>", "&", "&amp;", "&lt;", "&#65;",
           "&#x;", "&foo;", "<", ">", "text", " ", "\n", "\r\n", "<!-- c -->", "<!--", "-->", "<![CDATA[", "]]>",
           "<?p x?>", "<?xml version='1.0'?>", "<!DOCTYPE a>", "<!DOCTYPE a [", "\"", "'", "=", "/>", "</", "\x00",
           "\u00e9", "\U0001f600"]


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30))
def test_only_world_file_errors_escape_and_strict_files_read_the_same(pieces):
    data = "".join(pieces).encode("utf-8")
    try:
        roots, _ = lenient_tree(data, "f")
    except WorldFileError as exc:
        assert str(exc).startswith("f")
        return
    try:
        strict = parse_xml_document(data, "f")
    except WorldFileError:
        return
    if not strict.lenient:
        assert [shape(r) for r in roots] == [shape(r) for r in strict.roots]
