"""A world full of mistakes gives a few warning lines, not one per mistake: the first SHOWN_PER_KIND of each kind
in full (file:line), then one line counting the rest and naming the most frequent names; the world itself loads
as it would without them."""

from __future__ import annotations

import re

from conftest import robot_world_xml
from mvsim_ros.world import load_world, load_world_string
from mvsim_ros.world.files.visual_models import REMOTE_MODEL_WARNING
from mvsim_ros.world.warning_summary import (NAMES_LISTED, SHOWN_PER_KIND, summarize_warnings,
                                             unavailable_remote_models,
                                             warning_kind)

BLOCK_SHAPE = "<shape><pt>0 0</pt><pt>1 0</pt><pt>1 1</pt></shape>"
#: Most warning lines one kind may give: the shown ones and the summary line.
MOST_LINES_PER_KIND = SHOWN_PER_KIND + 1


def _summary(warnings: list[str]) -> list[str]:
    return [w for w in warnings if w.startswith("... and ")]


def _count(summary: str) -> int:
    return int(re.match(r"\.\.\. and ([\d,]+) more", summary).group(1).replace(",", ""))


def test_100000_unknown_attributes_on_one_element_give_four_lines(tmp_path):
    names = ["foo"] * 50_000 + ["bar"] * 49_997 + ["baz", "qux", "zap"]
    attributes = " ".join(f'{name}{k}="1"' for k, name in enumerate(names))
    path = tmp_path / "attrs.world.xml"
    path.write_text(f'<mvsim_world version="1.0">\n<block name="b1" {attributes}>{BLOCK_SHAPE}</block>\n'
                    f'</mvsim_world>\n')

    world = load_world(path)

    assert len(world.warnings) == MOST_LINES_PER_KIND, world.warnings[:10]
    for k, warning in enumerate(world.warnings[:SHOWN_PER_KIND]):
        assert warning.startswith(f"{path}:2: <block>: unknown attribute foo{k}=\"1\" for block 'b1'; skipped")
    summary = world.warnings[-1]
    assert _count(summary) == 100_000 - SHOWN_PER_KIND and "more unknown attributes (names: " in summary
    assert [b.name for b in world.blocks] == ["b1"] and world.blocks[0].shape == [(0, 0), (1, 0), (1, 1)]


def test_unknown_attributes_spread_over_many_elements_are_counted_by_name(tmp_path):
    blocks = "\n".join(f'<block name="b{k}" foo="1" bar="2">{BLOCK_SHAPE}</block>' for k in range(1000))
    path = tmp_path / "spread.world.xml"
    path.write_text(f'<mvsim_world version="1.0">\n{blocks}\n</mvsim_world>\n')

    world = load_world(path)

    assert len(world.warnings) == MOST_LINES_PER_KIND, world.warnings[:10]
    assert world.warnings[0].startswith(f"{path}:2: <block>: unknown attribute foo=\"1\" for block 'b0'")
    assert world.warnings[2].startswith(f"{path}:3: <block>: unknown attribute foo=\"1\" for block 'b1'")
    # 2,000 in all, 3 shown (foo, bar of b0; foo of b1): 998 foo and 999 bar left
    assert world.warnings[3] == "... and 1,997 more unknown attributes (names: bar ×999, foo ×998)"
    assert len(world.blocks) == 1000 and world.blocks[-1].name == "b999"


def test_40000_unknown_tags_give_four_lines_with_counts_per_tag(tmp_path):
    tags = "\n".join(f"<tag{k % 4}/>" if k % 2 else f"<tag{k % 4}>1</tag{k % 4}>" for k in range(40_000))
    path = tmp_path / "tags.world.xml"
    path.write_text(robot_world_xml(extra=tags))

    world = load_world(path)

    assert [w.split(": ", 1)[1] for w in world.warnings[:SHOWN_PER_KIND]] == [
        "<tag0>: unknown world parameter; kept but not used",
        "<tag1>: unknown tag; skipped",
        "<tag2>: unknown world parameter; kept but not used",
    ]
    assert all(w.startswith(f"{path}:") for w in world.warnings[:SHOWN_PER_KIND])
    assert world.warnings[SHOWN_PER_KIND:] == [
        "... and 39,997 more unknown tags (names: <tag3> ×10,000, <tag0> ×9,999, <tag1> ×9,999, <tag2> ×9,999)"]
    assert [v.name for v in world.vehicles] == ["r1"]


def test_unknown_tags_inside_an_element_are_one_kind_with_those_at_the_top():
    tags = "\n".join(f"<x{k % 2}>1</x{k % 2}>" for k in range(10))
    world = load_world_string(robot_world_xml(extra=f'<block name="b">{BLOCK_SHAPE}\n{tags}</block>\n<y/>'))
    assert len(world.warnings) == MOST_LINES_PER_KIND, world.warnings
    assert "<x0>: unknown parameter <x0> for block 'b'" in world.warnings[0]
    assert world.warnings[-1] == "... and 8 more unknown tags (names: <x1> ×4, <x0> ×3, <y>)"


def test_a_warning_repeated_at_many_places_is_one_kind_whatever_names_it_quotes():
    vehicles = "\n".join(f'<vehicle name="v{k}" class="bot"><init_pose>{k} 0 0</init_pose>'
                         f'<log_path>/tmp</log_path></vehicle>' for k in range(8))
    world = load_world_string(robot_world_xml(extra=vehicles))
    (summary,) = _summary(world.warnings)
    shown = [w for w in world.warnings if "log_path" in w and w != summary]
    assert len(shown) == SHOWN_PER_KIND and "<log_path>: log_path of vehicle 'v0' is accepted but not used" in shown[0]
    assert summary.startswith("... and 5 more at other places of: <log_path>: log_path of vehicle '…' is accepted "
                              "but not used: ")
    assert len(world.vehicles) == 9


def test_each_kind_keeps_its_first_lines_in_order_and_its_summary_after_them():
    lines = ([f"w.xml:{k}: <a>: unknown attribute p{k}=\"1\" for <a>; skipped" for k in range(1, 6)]
             + ["w.xml:9: <b>: unknown tag; skipped"] * 1
             + [f"w.xml:{k}: <c{k}>: unknown tag; skipped" for k in range(10, 14)])
    lines.insert(2, "w.xml:7: <z>: something else")
    out = summarize_warnings(lines)
    assert out == [lines[0], lines[1], "w.xml:7: <z>: something else", lines[3],
                   "... and 2 more unknown attributes (names: p4, p5)",
                   "w.xml:9: <b>: unknown tag; skipped", lines[7], lines[8],
                   "... and 2 more unknown tags (names: <c12>, <c13>)"]


def test_few_warnings_stay_as_they_are_and_remote_models_are_one_line():
    few = [f"w.xml:{k}: <a>: unknown attribute p=\"1\" for <a>; skipped" for k in range(SHOWN_PER_KIND)]
    assert summarize_warnings(few) == few
    remote = [f"w.xml:{k}: <model_uri>: {REMOTE_MODEL_WARNING}: https://h/m{k}.dae (offline)" for k in range(10)]
    (line,) = summarize_warnings(remote)
    assert line.startswith("remote models unavailable (10, drawn as stand-ins): offline: https://h/m0.dae, "), line
    assert unavailable_remote_models([line]) == {f"https://h/m{k}.dae" for k in range(10)}, \
        "the GL scene reads which URIs were told"


def test_a_summary_lists_the_most_frequent_names_and_how_many_there_are():
    lines = [f"w.xml:{k}: <a>: unknown attribute n{k % 9}=\"1\" for <a>; skipped" for k in range(100)]
    summary = summarize_warnings(lines)[-1]
    listed = re.findall(r"n\d ×\d+", summary)
    assert len(listed) == NAMES_LISTED and summary.endswith("... 9 different names)"), summary
    assert _count(summary) == 97
    assert warning_kind(lines[0]) == ("unknown attributes", "n0")


def test_a_spawned_element_with_many_unknown_attributes_gives_four_lines():
    world = load_world_string(robot_world_xml())
    attributes = " ".join(f'a{k}="1"' for k in range(5000))
    warnings: list[str] = []
    spec = world.catalog.from_xml(f'<vehicle name="r9" class="bot" {attributes}/>', warnings=warnings)
    assert spec.name == "r9"
    assert len(warnings) == MOST_LINES_PER_KIND and _count(warnings[-1]) == 5000 - SHOWN_PER_KIND, warnings
