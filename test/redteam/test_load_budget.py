"""Red team, the world loader's budget (issue 11: "the loader is bounded in time and memory, whatever the file").

Each hostile input found by the red team is written here, small, by the test itself; loading it must be refused
with a WorldFileError naming the limit (its LoadLimits field and value) and the file:line where it was reached,
within 2 s and 500 MB of peak memory (measured in a fresh process), never another exception. A world using exactly
each limit loads, one unit more is refused, and limits passed explicitly are honoured.
"""

from __future__ import annotations

import io
import json
import re
import struct
import subprocess
import sys
import time
import warnings
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from conftest import DEMO_WORLD, REPO
from mvsim_ros.world import WorldFileError, load_world, load_world_string
from mvsim_ros.world.xml.budget import EXPRESSION_CHARS_PER_LOOP_ELEMENT, LoadBudget, budget_scope
from mvsim_ros.world.xml.limits import DEFAULT_LIMITS, LoadLimits
from mvsim_ros.world.files.occupancy.mrpt_gridmap import mrpt_gridmap_bytes
from mvsim_ros.world.files.resources import resolve_uri

MAX_SECONDS = 2.0
MAX_RSS_MB = 500

_MEASURE = """
import json, sys, time
sys.path.insert(0, sys.argv[2])
from mvsim_ros.world import WorldFileError, load_world
start = time.monotonic()
try:
    load_world(sys.argv[1])
    result = {"kind": "loaded"}
except WorldFileError as exc:
    result = {"kind": "WorldFileError", "message": str(exc), "file": exc.file, "line": exc.line}
except BaseException as exc:
    result = {"kind": type(exc).__name__, "message": str(exc)[:500]}
result["seconds"] = time.monotonic() - start
# This process's own high-water mark (VmHWM): getrusage's ru_maxrss would include the pages of the (large)
# process this one was forked from.
with open("/proc/self/status") as status:
    result["rss_mb"] = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024
print(json.dumps(result))
"""


def world(body: str) -> str:
    """A world file: the root on line 1, `body` from line 2."""
    return f"<mvsim_world>\n{body}\n</mvsim_world>\n"


def measured_load(path: Path) -> dict:
    """Load `path` in a fresh Python process: outcome, load time [s] and the process's peak RSS [MB]."""
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(path), str(REPO)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def png_header(width: int, height: int) -> bytes:
    """A PNG declaring `width` x `height` grey pixels, with almost no pixel data (what a bomb's header says)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
            + chunk(b"IEND", b""))


def gzip_bomb(inflated_mib: int, head: bytes = b"") -> bytes:
    """gzip data inflating to `head` followed by `inflated_mib` MiB of zeros (about 1 KiB per MiB)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(1 << 20)
    return packer.compress(head) + b"".join(packer.compress(zeros) for _ in range(inflated_mib)) + packer.flush()


def _nested_loops(body: str) -> str:
    # 10^4 iterations at each of four levels: 10^16 in all, each level on its own line
    return world("\n".join(['<for var="a" from="1" to="10000">', '<for var="b" from="1" to="10000">',
                            '<for var="c" from="1" to="10000">', '<for var="d" from="1" to="10000">', body,
                            "</for>", "</for>", "</for>", "</for>"]))


def _variable_chain() -> str:
    # each variable doubles the previous one: v30 would be 2^30 * 32 characters (32 GiB) from ~1.5 KB of XML
    lines = ['<variable name="v0" value="xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"/>']
    lines += [f'<variable name="v{k + 1}" value="${{v{k}}}${{v{k}}}"/>' for k in range(30)]
    return world("\n".join([*lines, '<a x="${v30}"/>']))


def _hostile(tmp_path: Path, case: str) -> tuple[Path, str, set[int]]:
    """(world file, the limit that must be named, the lines of that file where it may be reached)."""
    path = tmp_path / "hostile.world.xml"
    if case.startswith("nested"):
        body = {"nested loops of <variable>": '<variable name="x" value="${d}"/>',
                "nested loops of a false <if>": '<if condition="0"><block/></if>',
                "nested empty loops": ""}[case]
        path.write_text(_nested_loops(body))
        return path, "max_(loop_iterations|elements)", {2, 3, 4, 5, 6}
    if case == "variable chain":
        path.write_text(_variable_chain())
        return path, "max_expanded_chars", set(range(2, 34))
    if case == "gridmap.gz bomb":
        (tmp_path / "bomb.gridmap.gz").write_bytes(gzip_bomb(100, b"\x9fmrpt::maps::COccupancyGridMap2D\x06"))
        path.write_text(world('<element class="occupancy_grid">\n<file>bomb.gridmap.gz</file>\n</element>'))
        return path, "max_decompressed_bytes", {3}
    if case == "4 GB sparse include":
        with open(tmp_path / "huge.xml", "wb") as handle:
            handle.truncate(4 << 30)
        path.write_text(world('<include file="huge.xml"/>'))
        return path, "max_file_bytes", {2}
    if case == "15000 x 15000 PNG":
        (tmp_path / "bomb.png").write_bytes(png_header(15000, 15000))
        path.write_text(world('<element class="occupancy_grid">\n<file>bomb.png</file>\n</element>'))
        return path, "max_image_pixels", {3}
    if case == "deep nesting across includes":
        for k in range(5):  # 5 files of 120 levels each: 600 levels, the first file being only 120 deep
            inner = f'<include file="deep{k + 1}.xml"/>' if k < 4 else "<b/>"
            (tmp_path / f"deep{k}.xml").write_text("<a>" * 120 + inner + "</a>" * 120)
        path.write_text(world('<include file="deep0.xml"/>'))
        return tmp_path / "deep2.xml", "max_nesting_depth", {1}
    if case == "100,000 parentheses in $f{}":
        path.write_text(world('<a x="$f{' + "(" * 100_000 + "1" + ")" * 100_000 + '}"/>'))
        return path, "max_expression_chars", {2}
    raise AssertionError(case)


HOSTILE = ["nested loops of <variable>", "nested loops of a false <if>", "nested empty loops", "variable chain",
           "gridmap.gz bomb", "4 GB sparse include", "15000 x 15000 PNG", "deep nesting across includes",
           "100,000 parentheses in $f{}"]


@pytest.mark.parametrize("case", HOSTILE)
def test_each_hostile_world_is_refused_quickly_and_small_naming_the_limit_and_place(tmp_path, case):
    path, limit, lines = _hostile(tmp_path, case)
    result = measured_load(tmp_path / "hostile.world.xml")
    assert result["kind"] == "WorldFileError", result
    assert re.search(rf"\(limit {limit} = \d+, node parameter load_{limit}\)$", result["message"]), result
    assert result["file"] == str(path) and result["line"] in lines, result
    assert result["seconds"] < MAX_SECONDS, result
    assert result["rss_mb"] < MAX_RSS_MB, result


def test_a_megabyte_long_include_name_and_os_refused_names_are_clean_errors(tmp_path):
    path = tmp_path / "w.world.xml"
    path.write_text(world(f'<include file="{"a" * 1_000_000}.xml"/>'))
    result = measured_load(path)
    assert result["kind"] == "WorldFileError" and "File name too long" in result["message"], result
    assert (result["file"], result["line"]) == (str(path), 2)
    assert len(result["message"]) < 1000 and result["seconds"] < MAX_SECONDS and result["rss_mb"] < MAX_RSS_MB
    with pytest.raises(WorldFileError, match="File name too long"):
        load_world("x" * 100_000 + ".xml")
    with pytest.raises(WorldFileError, match="null"):
        load_world(str(tmp_path / "a\0b.xml"))


def test_unary_minus_and_parenthesis_floods_end_quickly_without_recursion_error():
    generous = LoadLimits(max_expression_chars=10_000_000)
    floods = [("(" * n + "1" + ")" * n, "-" * n + "1", "not " * (n // 4) + "1", "2^" * (n // 2) + "1",
               "-(" * (n // 2) + "1" + ")" * (n // 2)) for n in (100_000, 4_990)]
    for text in [t for group in floods for t in group]:
        start = time.monotonic()
        try:
            loaded = load_world_string(world(f'<a x="$f{{{text}}}"/>'), limits=generous)
            assert loaded.other_params == {} and text.startswith("-" * 100)  # only the unary minus chain is valid
        except WorldFileError as exc:
            assert re.match(r"<string>:2: <a>: in \$f\{.*\}: column \d+: expression is (longer than 10000 "
                            r"characters|nested more than 100 levels deep)$", str(exc), re.S), str(exc)[-200:]
        assert time.monotonic() - start < 1.0
    with pytest.raises(WorldFileError, match=r"limit max_expression_chars = 100000"):
        load_world_string(world('<a x="$f{' + "-" * 100_000 + '1}"/>'))


def test_allowed_deep_nesting_loads_even_from_a_deep_call_stack(tmp_path):
    for k in range(2):  # 2 x 126 levels + the root + the include's parent: 254 levels in all
        inner = '<include file="d1.xml"/>' if k == 0 else "<b/>"
        (tmp_path / f"d{k}.xml").write_text("<a>" * 126 + inner + "</a>" * 126)
    path = tmp_path / "w.world.xml"
    path.write_text(world('<include file="d0.xml"/>'))

    def at_depth(frames: int):
        return load_world(path) if frames == 0 else at_depth(frames - 1)

    limit = sys.getrecursionlimit()
    loaded = at_depth(limit - 150)  # the caller has used nearly all of the stack already
    assert loaded.warnings and sys.getrecursionlimit() == limit


def test_images_are_refused_from_their_header_and_pil_never_warns_or_raises(tmp_path):
    (tmp_path / "warn.png").write_bytes(png_header(10_000, 10_000))  # PIL warns above 89 M pixels
    (tmp_path / "big.png").write_bytes(png_header(5000, 5000))  # under PIL's limits, over ours
    (tmp_path / "map.yaml").write_text("image: big.png\nresolution: 0.1\norigin: [0, 0, 0]\noccupied_thresh: 0.65\n"
                                       "free_thresh: 0.2\nnegate: 0\n")
    worlds = [world('<element class="occupancy_grid"><file>warn.png</file></element>'),
              world('<element class="occupancy_grid"><file>big.png</file></element>'),
              world('<element class="occupancy_grid"><file>map.yaml</file></element>'),
              world('<element class="elevation_map"><elevation_image>big.png</elevation_image>'
                    "<resolution>1</resolution></element>")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for text in worlds:
            with pytest.raises(WorldFileError, match=r"\(limit max_image_pixels = 16777216, ") as info:
                load_world_string(text, file=str(tmp_path / "w.world.xml"))
            assert info.value.line == 2


# -- each limit: exactly its value loads, one less refuses, naming it --------------------------------------------

def _gridmap(tmp_path: Path, compress: bool) -> int:
    raw = mrpt_gridmap_bytes(np.zeros((4, 5)), 0.5, 0.0, 0.0)
    data = gzip_bomb(0, raw) if compress else raw
    (tmp_path / ("m.gridmap.gz" if compress else "m.gridmap")).write_bytes(data)
    return len(raw)


def _limit_case(tmp_path: Path, field: str) -> tuple[Path, int]:
    """A world (file) and the exact amount of `field` its load uses."""
    path = tmp_path / "w.world.xml"
    if field == "max_file_bytes":
        path.write_text(world("<a/>"))
        return path, path.stat().st_size
    if field == "max_include_bytes":
        (tmp_path / "inc.xml").write_text("<a/>")
        path.write_text(world('<include file="inc.xml"/>'))
        return path, path.stat().st_size + 4
    if field == "max_nesting_depth":
        path.write_text(world("<a><b/></a>"))
        return path, 3
    if field == "max_elements":  # read: root, a, a; expanded: root, a, a
        path.write_text(world("<a/>\n<a/>"))
        return path, 6
    if field == "max_loop_iterations":
        path.write_text(world('<for var="i" from="1" to="3">\n<for var="j" from="1" to="2"/>\n</for>'))
        return path, 3 + 3 * 2
    if field == "max_expanded_chars":  # 'abc' as the variable's value, then '${v}' and its expansion 'abc'
        path.write_text(world('<variable name="v" value="abc"/>\n<a x="${v}"/>'))
        return path, 3 + 4 + 3
    if field == "max_expression_chars":
        path.write_text(world('<a x="$f{1+2}"/>\n<if condition="1 &lt; 2"/>'))
        return path, 3 + 5
    if field == "max_decompressed_bytes":
        size = _gridmap(tmp_path, compress=True)
        path.write_text(world('<element class="occupancy_grid">\n<file>m.gridmap.gz</file>\n</element>'))
        return path, size
    if field == "max_image_pixels":
        Image.new("L", (20, 10), 255).save(tmp_path / "m.png")
        path.write_text(world('<element class="occupancy_grid">\n<file>m.png</file>\n</element>'))
        return path, 200
    raise AssertionError(field)


@pytest.mark.parametrize("field", [f for f in DEFAULT_LIMITS.__dataclass_fields__])
def test_a_world_using_exactly_a_limit_loads_and_one_more_is_refused(tmp_path, field):
    path, used = _limit_case(tmp_path, field)
    load_world(path, limits=LoadLimits(**{field: used}))
    with pytest.raises(WorldFileError, match=rf"\(limit {field} = {used - 1}, node parameter load_{field}\)$") as info:
        load_world(path, limits=LoadLimits(**{field: used - 1}))
    assert info.value.file in (str(path), str(tmp_path / "inc.xml"))


def test_gridmaps_count_their_cells_as_pixels(tmp_path):
    _gridmap(tmp_path, compress=False)
    path = tmp_path / "w.world.xml"
    path.write_text(world('<element class="occupancy_grid">\n<file>m.gridmap</file>\n</element>'))
    load_world(path, limits=LoadLimits(max_image_pixels=20))
    with pytest.raises(WorldFileError, match=r"5 x 4 = 20 pixels, more than 19 \(limit max_image_pixels = 19") as info:
        load_world(path, limits=LoadLimits(max_image_pixels=19))
    assert (info.value.file, info.value.line) == (str(path), 3)


def test_limits_passed_explicitly_are_honoured_on_a_normal_world():
    load_world(DEMO_WORLD)
    with pytest.raises(WorldFileError, match=r"\(limit max_elements = 10, node parameter load_max_elements\)$"):
        load_world(DEMO_WORLD, limits=LoadLimits(max_elements=10))
    with pytest.raises(WorldFileError, match=r"limit max_file_bytes = 100,"):
        load_world_string(DEMO_WORLD.read_text(), limits=LoadLimits(max_file_bytes=100))


def test_zip_extraction_in_a_load_is_bounded_by_what_is_left_of_the_decompression_budget(tmp_path, monkeypatch):
    monkeypatch.setenv("MVSIM_STORAGE_DIR", str(tmp_path / "cache"))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("model.obj", bytes(5000))
    (tmp_path / "pack.zip").write_bytes(buffer.getvalue())
    budget = LoadBudget(LoadLimits(max_decompressed_bytes=4999))
    with budget_scope(budget):
        refused = resolve_uri("pack.zip/model.obj", tmp_path)
    assert refused.path is None
    assert "limit max_decompressed_bytes = 4999, node parameter load_max_decompressed_bytes" in refused.reason
    budget = LoadBudget(LoadLimits(max_decompressed_bytes=5000))
    with budget_scope(budget):
        assert resolve_uri("pack.zip/model.obj", tmp_path).ok
    assert budget.decompressed_bytes == 5000


# -- the expression budget grows with what <for> loops produce --------------------------------------------------

def _fleet(count: int, columns: int = 100) -> str:
    """A world laying out `count` robots of one class on a grid by one <for> loop, two $f{} per robot."""
    return world(f"""<vehicle:class name="bot">
  <dynamics class="differential"><chassis mass="15"/>
    <l_wheel pos="0 0.25" diameter="0.2"/><r_wheel pos="0 -0.25" diameter="0.2"/></dynamics>
</vehicle:class>
<for var="k" from="0" to="{count - 1}">
  <vehicle name="robot_${{k}}" class="bot">
    <init_pose>$f{{2.0*(${{k}} % {columns})}} $f{{2.0*floor(${{k}} / {columns})}} 0</init_pose>
  </vehicle>
</for>""")


def test_ten_thousand_vehicles_laid_out_by_a_loop_load_with_the_default_limits():
    loaded = load_world_string(_fleet(10_000))
    assert len(loaded.vehicles) == 10_000
    last = loaded.vehicles[-1]
    assert last.name == "robot_9999" and (last.init_pose.x, last.init_pose.y) == (198.0, 198.0)


def test_loop_elements_widen_the_expression_budget_by_a_bounded_amount_each():
    per = EXPRESSION_CHARS_PER_LOOP_ELEMENT
    limits = LoadLimits(max_expression_chars=10)
    fits = "-" * (per - 1) + "1"  # exactly the allowance of the element holding it
    loaded = load_world_string(world(f'<for var="i" from="1" to="500">\n<a x="$f{{{fits}}}"/>\n</for>'),
                               limits=limits)
    assert loaded.warnings  # unknown tag <a>, kept: the loop ran
    over = "-" + fits  # one character more per element: over once the fixed 10 are used up
    with pytest.raises(WorldFileError, match=rf"hold more than \d+ characters in all \(10 plus {per} for each of the "
                                             r"\d+ elements <for> loops produced\) \(limit max_expression_chars = 10, "
                                             r"node parameter load_max_expression_chars\)$") as info:
        load_world_string(world(f'<for var="i" from="1" to="500">\n<a x="$f{{{over}}}"/>\n</for>'), limits=limits)
    assert info.value.line == 3
    outside = "\n".join(f'<a x="$f{{{fits}}}"/>' for _ in range(2))  # elements outside loops widen nothing
    with pytest.raises(WorldFileError, match=r"hold more than 10 characters in all \(limit max_expression_chars"):
        load_world_string(world(outside), limits=limits)


def test_a_loop_of_elements_with_long_expressions_is_still_refused_by_the_expression_budget(tmp_path):
    path = tmp_path / "hostile.world.xml"
    expression = "-" * 999 + "1"  # 1,000 characters for each element's 20 of allowance
    path.write_text(world(f'<for var="i" from="1" to="50000">\n<a x="$f{{{expression}}}"/>\n</for>'))
    result = measured_load(path)
    assert result["kind"] == "WorldFileError", result
    assert re.search(r"\(limit max_expression_chars = 100000, node parameter load_max_expression_chars\)$",
                     result["message"]), result
    assert (result["file"], result["line"]) == (str(path), 3)
    assert result["seconds"] < MAX_SECONDS and result["rss_mb"] < MAX_RSS_MB, result
