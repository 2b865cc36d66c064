"""<visual> parsing and footprints of local 3D models (trimesh): scale, MVSim rotation order, offsets, warnings."""

import math
from pathlib import Path

import numpy as np
import pytest

from mvsim_ros.world import load_world
from mvsim_ros.world.elements.block_geometry import point_in_convex_polygon
from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.xml.limits import WorldLimits
from mvsim_ros.world.files.mesh_size import BYTES_PER_FILE_BYTE, SCAN_CHUNK_BYTES, mesh_size
from mvsim_ros.world.files.resource_uris import is_remote_uri
from mvsim_ros.world.files.visual_models import (clear_model_cache, load_model_footprint, parse_visual,
                                                 rotation_matrix)
from mvsim_ros.world.specs import VisualSpec, polygon_area
from mvsim_ros.world.warning_summary import without_fetch_hint
from mvsim_ros.world.xml.xml_tree import parse_xml_bytes

trimesh = pytest.importorskip("trimesh")
try:
    import collada  # noqa: F401

    HAVE_COLLADA = True
except ImportError:  # pragma: no cover - pycollada is pinned in requirements.txt
    HAVE_COLLADA = False

FORMATS = ["stl", "obj", "ply", "off", "glb", "gltf"] + (["dae"] if HAVE_COLLADA else [])
TOL = 1e-9


def node(text: str, line_offset: int = 0):
    return parse_xml_bytes(("\n" * line_offset + text).encode(), "w.xml")


def write_box(directory: Path, ext: str, name: str = "box") -> Path:
    """A 2 x 1 x 0.5 m box centred on the origin, written with trimesh."""
    path = directory / f"{name}.{ext}"
    trimesh.creation.box(extents=(2.0, 1.0, 0.5)).export(path)
    return path


def rect_corners(footprint):
    """Footprint as a sorted list of rounded corners, to compare regardless of the start corner."""
    return sorted((round(x, 9) + 0.0, round(y, 9) + 0.0) for x, y in footprint)


def assert_rect(g, x0, y0, x1, y1, z0, z1):
    assert g is not None and g.kind == "mesh"
    assert len(g.footprint) == 4
    assert polygon_area(g.footprint) > 0  # counter-clockwise
    expected = sorted([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    for (ax, ay), (bx, by) in zip(rect_corners(g.footprint), expected):
        assert ax == pytest.approx(bx, abs=TOL) and ay == pytest.approx(by, abs=TOL)
    assert g.zmin == pytest.approx(z0, abs=TOL) and g.zmax == pytest.approx(z1, abs=TOL)
    assert g.params["lx"] == pytest.approx(x1 - x0, abs=TOL)
    assert g.params["ly"] == pytest.approx(y1 - y0, abs=TOL)
    assert g.params["lz"] == pytest.approx(z1 - z0, abs=TOL)


@pytest.fixture(autouse=True)
def fresh_cache():
    clear_model_cache()
    yield
    clear_model_cache()


# ---------------------------------------------------------------------------------------- parse_visual


def test_parse_visual_reads_every_field_in_si_units():
    v = parse_visual(node(
        "<visual><model_uri> models/tote.dae </model_uri><model_scale>0.5</model_scale>"
        "<model_offset_x>1</model_offset_x><model_offset_y>-2</model_offset_y><model_offset_z>0.25</model_offset_z>"
        "<model_yaw>90</model_yaw><model_pitch>-45</model_pitch><model_roll>180</model_roll>"
        "<show_bounding_box>true</show_bounding_box><model_color>#ff0000</model_color>"
        "<model_cull_faces>BACK</model_cull_faces></visual>"))
    assert v.model_uri == "models/tote.dae"
    assert v.model_scale == 0.5
    assert v.offset == (1.0, -2.0, 0.25)
    assert v.yaw_pitch_roll_rad == pytest.approx((math.pi / 2, -math.pi / 4, math.pi), abs=1e-15)
    assert v.show_bounding_box is True and v.enabled is True


def test_parse_visual_defaults_and_last_value_wins():
    assert parse_visual(node("<visual/>")) == VisualSpec()
    v = parse_visual(node("<visual><model_scale>2</model_scale><model_scale>3</model_scale></visual>"))
    assert v.model_scale == 3.0


def test_parse_visual_enabled_attribute():
    assert parse_visual(node('<visual enabled="false"><model_uri>a.stl</model_uri></visual>')).enabled is False


def test_parse_visual_errors_are_located():
    with pytest.raises(WorldFileError) as err:
        parse_visual(node("<visual>\n<model_scale>0</model_scale></visual>", line_offset=3))
    assert (err.value.file, err.value.line, err.value.tag) == ("w.xml", 5, "model_scale")
    assert "model_scale must be > 0" in str(err.value)
    with pytest.raises(WorldFileError, match=r"w.xml:1: <model_yaw>: .*expected a number"):
        parse_visual(node("<visual><model_yaw>ninety</model_yaw></visual>"))
    with pytest.raises(WorldFileError, match=r"show_bounding_box: expected true or false"):
        parse_visual(node("<visual><show_bounding_box>maybe</show_bounding_box></visual>"))


def test_parse_visual_warns_about_unknown_tags():
    heard = []
    parse_visual(node("<visual><model_uri>a.stl</model_uri><model_colour>red</model_colour></visual>"),
                 warn=lambda n, m: heard.append((n.tag, m)))
    assert len(heard) == 1 and heard[0][0] == "model_colour"
    assert heard[0][1].startswith("unknown parameter <model_colour> for <visual>; skipped (known: model_uri,")


def test_rotation_matrix_is_rz_ry_rx():
    y, p, r = 0.3, -0.7, 1.1

    def rz(a):
        return np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])

    def ry(a):
        return np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])

    def rx(a):
        return np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])

    assert np.allclose(rotation_matrix(y, p, r), rz(y) @ ry(p) @ rx(r), atol=1e-15)


# ---------------------------------------------------------------------------------- load_model_footprint


@pytest.mark.parametrize("ext", FORMATS)
def test_box_footprint_identity(tmp_path, ext):
    write_box(tmp_path, ext)
    g = load_model_footprint(VisualSpec(model_uri=f"box.{ext}"), tmp_path, pytest.fail)
    assert_rect(g, -1.0, -0.5, 1.0, 0.5, -0.25, 0.25)


@pytest.mark.parametrize("ext", FORMATS)
def test_box_footprint_scale_yaw90_offset(tmp_path, ext):
    write_box(tmp_path, ext)
    v = VisualSpec(model_uri=f"box.{ext}", model_scale=2.0, offset=(1.0, 2.0, 3.0),
                   yaw_pitch_roll_rad=(math.pi / 2, 0.0, 0.0))
    g = load_model_footprint(v, tmp_path, pytest.fail)
    # scaled: [-2,2] x [-1,1] x [-0.5,0.5]; yaw 90: (x, y) -> (-y, x); then the offset
    assert_rect(g, 0.0, 0.0, 2.0, 4.0, 2.5, 3.5)


def test_pitch_then_yaw_order_matches_mrpt(tmp_path):
    write_box(tmp_path, "stl")
    # pitch 90 about y: (x, y, z) -> (z, y, -x): x in [-0.25, 0.25], z in [-1, 1]
    g = load_model_footprint(VisualSpec(model_uri="box.stl", yaw_pitch_roll_rad=(0.0, math.pi / 2, 0.0)),
                             tmp_path, pytest.fail)
    assert_rect(g, -0.25, -0.5, 0.25, 0.5, -1.0, 1.0)
    # yaw 90 and pitch 90: R = Rz Ry: first pitch, then yaw: x in [-0.5, 0.5], y in [-0.25, 0.25]
    g = load_model_footprint(VisualSpec(model_uri="box.stl", yaw_pitch_roll_rad=(math.pi / 2, math.pi / 2, 0.0)),
                             tmp_path, pytest.fail)
    assert_rect(g, -0.5, -0.25, 0.5, 0.25, -1.0, 1.0)
    # roll 90 about x: (x, y, z) -> (x, -z, y)
    g = load_model_footprint(VisualSpec(model_uri="box.stl", yaw_pitch_roll_rad=(0.0, 0.0, math.pi / 2)),
                             tmp_path, pytest.fail)
    assert_rect(g, -1.0, -0.25, 1.0, 0.25, -0.5, 0.5)


def test_path_forms_absolute_relative_and_file_uri(tmp_path):
    sub = tmp_path / "models"
    sub.mkdir()
    path = write_box(sub, "ply")
    for uri in (str(path), "models/box.ply", f"file://{path}"):
        g = load_model_footprint(VisualSpec(model_uri=uri), tmp_path, pytest.fail)
        assert_rect(g, -1.0, -0.5, 1.0, 0.5, -0.25, 0.25)


@pytest.mark.skipif(not HAVE_COLLADA, reason="pycollada not installed")
def test_collada_unit_and_z_up_follow_assimp(tmp_path):
    path = write_box(tmp_path, "dae")
    text = path.read_text()
    assert "<up_axis>Y_UP</up_axis>" in text
    path.write_text(text.replace("<up_axis>Y_UP</up_axis>", '<unit meter="0.01" name="cm"/><up_axis>Z_UP</up_axis>'))
    # Z_UP -> Y_UP: (x, y, z) -> (x, z, -y), times 0.01
    g = load_model_footprint(VisualSpec(model_uri="box.dae"), tmp_path, pytest.fail)
    assert_rect(g, -0.01, -0.0025, 0.01, 0.0025, -0.005, 0.005)
    # ... and <model_roll>90</model_roll>, as in every MVSim tutorial .dae, turns it back upright
    g = load_model_footprint(VisualSpec(model_uri="box.dae", yaw_pitch_roll_rad=(0.0, 0.0, math.pi / 2)),
                             tmp_path, pytest.fail)
    assert_rect(g, -0.01, -0.005, 0.01, 0.005, -0.0025, 0.0025)


def test_many_sided_hull_is_simplified_outward(tmp_path):
    n = 200
    ang = 2 * math.pi * np.arange(n) / n
    ring = np.column_stack([np.cos(ang), np.sin(ang)])
    vertices = np.vstack([np.column_stack([ring, np.zeros(n)]), np.column_stack([ring, np.full(n, 2.0)])])
    sides = [[i, (i + 1) % n, n + i] for i in range(n)]
    sides += [[(i + 1) % n, n + (i + 1) % n, n + i] for i in range(n)]
    faces = np.array(sides)
    trimesh.Trimesh(vertices, faces, process=False).export(tmp_path / "tube.ply")
    g = load_model_footprint(VisualSpec(model_uri="tube.ply"), tmp_path, pytest.fail)
    assert 4 <= len(g.footprint) <= 64
    assert polygon_area(g.footprint) > 0
    stored = ring.astype(np.float32).astype(float)  # the PLY holds float32 coordinates
    assert all(point_in_convex_polygon(g.footprint, x, y, tol=1e-12) for x, y in stored)
    assert polygon_area(g.footprint) < 1.01 * math.pi
    assert (g.zmin, g.zmax) == (0.0, 2.0)
    exact = load_model_footprint(VisualSpec(model_uri="tube.ply"), tmp_path, pytest.fail, max_vertices=256)
    assert len(exact.footprint) == n


def test_z_slice_keeps_only_triangles_in_range(tmp_path):
    low = trimesh.creation.box(extents=(2.0, 1.0, 0.5))
    low.apply_translation((0.0, 0.0, 0.25))
    top = trimesh.creation.box(extents=(4.0, 4.0, 0.25))  # z in [1.875, 2.125]: exact in float32 STL
    top.apply_translation((0.0, 0.0, 2.0))
    trimesh.util.concatenate([low, top]).export(tmp_path / "shelf.stl")
    v = VisualSpec(model_uri="shelf.stl")
    assert_rect(load_model_footprint(v, tmp_path, pytest.fail), -2.0, -2.0, 2.0, 2.0, 0.0, 2.125)
    assert_rect(load_model_footprint(v, tmp_path, pytest.fail, z_slice=(0.0, 1.0)), -1.0, -0.5, 1.0, 0.5, 0.0, 0.5)
    heard = []
    assert load_model_footprint(v, tmp_path, heard.append, z_slice=(5.0, 6.0)) is None
    assert len(heard) == 1 and "nothing of it lies within z" in heard[0]


# ------------------------------------------------------------------------------------------- warnings


def test_remote_uri_offline_and_not_cached_warns(tmp_path, monkeypatch):
    # conftest makes the session offline; the cache is this test's own empty folder.
    monkeypatch.setenv("MVSIM_STORAGE_DIR", str(tmp_path / "cache"))
    uri = "https://mrpt.github.io/mvsim-models/test-only-once.zip/pallet/pallet.dae"
    heard = []
    assert load_model_footprint(VisualSpec(model_uri=uri), tmp_path, heard.append) is None
    assert heard == [f"remote model unavailable: {uri} (offline (MVSIM_OFFLINE=1) and not in the cache: "
                     f"{tmp_path / 'cache' / 'test-only-once.zip'}); using the declared shape/bounding box"]
    assert is_remote_uri("HTTPS://x/y.dae") and not is_remote_uri("file:///x/y.dae")


def test_world_warns_once_per_remote_uri_and_on_every_load(tmp_path, monkeypatch):
    from mvsim_ros.world import load_world_string

    monkeypatch.setenv("MVSIM_STORAGE_DIR", str(tmp_path))
    uri = "https://example.org/m/crate.dae"
    block = ('<block name="{}"><geometry type="box" lx="1" ly="1" lz="1"/><shape_from_visual/>'
             f'<visual><model_uri>{uri}</model_uri></visual></block>')
    text = "<mvsim_world>" + block.format("a") + block.format("b") + "</mvsim_world>"
    for _ in range(2):
        world = load_world_string(text)
        assert [without_fetch_hint(w) for w in world.warnings if uri in w] == [
            f"<string>:1: <block>: remote model unavailable: {uri} (offline (MVSIM_OFFLINE=1) and not in the "
            f"cache: {tmp_path / 'crate.dae'}); using the declared shape/bounding box"]
        assert world.blocks[1].shape == [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]


def test_missing_file_warns_and_returns_none(tmp_path):
    heard = []
    v = VisualSpec(model_uri="does/not/exist-for-this-test.stl")
    assert load_model_footprint(v, tmp_path, heard.append) is None
    assert len(heard) == 1
    assert "not found" in heard[0] and str(tmp_path / "does/not/exist-for-this-test.stl") in heard[0]


def test_unsupported_and_unreadable_files_warn(tmp_path):
    (tmp_path / "model.3ds").write_bytes(b"\x00" * 64)
    (tmp_path / "broken.obj").write_text("v 0 0 0\nf 1 2 3\nthis is not obj\n")
    (tmp_path / "garbage.glb").write_bytes(b"not a glb file at all")
    heard = []
    assert load_model_footprint(VisualSpec(model_uri="model.3ds"), tmp_path, heard.append) is None
    assert "'.3ds' not supported" in heard[-1]
    assert load_model_footprint(VisualSpec(model_uri="garbage.glb"), tmp_path, heard.append) is None
    assert "could not be read" in heard[-1]
    count = len(heard)
    assert load_model_footprint(VisualSpec(model_uri="broken.obj"), tmp_path, heard.append) is None
    assert len(heard) == count + 1  # a lone point has no footprint: warned, never raised


def test_flat_model_has_no_footprint(tmp_path):
    # a vertical wall: all its vertices lie on one line seen from above
    vertices = np.array([[0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1]], dtype=float)
    trimesh.Trimesh(vertices, [[0, 1, 2], [0, 2, 3]], process=False).export(tmp_path / "wall.stl")
    heard = []
    assert load_model_footprint(VisualSpec(model_uri="wall.stl"), tmp_path, heard.append) is None
    assert len(heard) == 1 and "no area seen from above" in heard[0]


def test_empty_uri_and_disabled_visual_are_silent(tmp_path):
    write_box(tmp_path, "stl")
    assert load_model_footprint(VisualSpec(), tmp_path, pytest.fail) is None
    assert load_model_footprint(VisualSpec(model_uri="   "), tmp_path, pytest.fail) is None
    assert load_model_footprint(VisualSpec(model_uri="box.stl", enabled=False), tmp_path, pytest.fail) is None


def test_changed_file_is_reloaded(tmp_path):
    write_box(tmp_path, "stl", name="m")
    v = VisualSpec(model_uri="m.stl")
    assert_rect(load_model_footprint(v, tmp_path, pytest.fail), -1.0, -0.5, 1.0, 0.5, -0.25, 0.25)
    trimesh.creation.box(extents=(4.0, 2.0, 1.0)).export(tmp_path / "m.stl", file_type="stl_ascii")
    assert_rect(load_model_footprint(v, tmp_path, pytest.fail), -2.0, -1.0, 2.0, 1.0, -0.5, 0.5)


# ---------------------------------------------------------------------------------- mesh budgets

DECLARED_BOX = [(0.0, 0.0), (3.0, 0.0), (3.0, 2.0), (0.0, 2.0)]  # <geometry type="box" lx="3" ly="2" lz="1"/>
FALLBACK = "using the declared shape/bounding box"


def write_grid_obj(path: Path, vertices: int) -> Path:
    """An OBJ of `vertices` vertices on a wavy sheet and as many triangles (a few MB for 10^5 vertices)."""
    rng = np.random.default_rng(1)
    xyz = rng.random((vertices, 3))
    faces = (np.arange(vertices)[:, None] + np.array([0, 1, 2])) % vertices + 1
    with open(path, "w") as out:
        np.savetxt(out, xyz, fmt="v %.5f %.5f %.5f")
        np.savetxt(out, faces, fmt="f %d %d %d")
    return path


def write_instanced_dae(path: Path, copies: int) -> Path:
    """A COLLADA file whose scene places one unit cube (8 vertices, 12 triangles) `copies` times, 2 m apart."""
    verts = "0 0 0 1 0 0 1 1 0 0 1 0 0 0 1 1 0 1 1 1 1 0 1 1"
    tris = "0 2 1 0 3 2 4 5 6 4 6 7 0 1 5 0 5 4 1 2 6 1 6 5 2 3 7 2 7 6 3 0 4 3 4 7"
    nodes = "".join(f'<node id="n{k}"><translate>{2 * k} 0 0</translate><instance_geometry url="#g"/></node>'
                    for k in range(copies))
    path.write_text(f"""<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
<asset><unit meter="1"/><up_axis>Y_UP</up_axis></asset>
<library_geometries><geometry id="g"><mesh>
<source id="p"><float_array id="pa" count="24">{verts}</float_array><technique_common>
<accessor source="#pa" count="8" stride="3"><param name="X" type="float"/><param name="Y" type="float"/>
<param name="Z" type="float"/></accessor></technique_common></source>
<vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
<triangles count="12"><input semantic="VERTEX" source="#v" offset="0"/><p>{tris}</p></triangles>
</mesh></geometry></library_geometries>
<library_visual_scenes><visual_scene id="s">{nodes}</visual_scene></library_visual_scenes>
<scene><instance_visual_scene url="#s"/></scene>
</COLLADA>""")
    return path


def model_world(folder: Path, *models: str) -> Path:
    """A world with one block per model file, each shaped from its model (the load reads the models)."""
    blocks = "".join(f'<block name="b{k}"><geometry type="box" lx="3" ly="2" lz="1"/><shape_from_visual/>\n'
                     f"<visual><model_uri>{model}</model_uri></visual></block>\n" for k, model in enumerate(models))
    path = folder / "w.world.xml"
    path.write_text(f'<mvsim_world version="1.0">\n{blocks}</mvsim_world>\n')
    return path


@pytest.mark.parametrize("ext, vertices, faces", [
    ("obj", 8, 12), ("ply", 8, 12), ("off", 8, 12), ("glb", 8, 12), ("gltf", 8, 12), ("stl", 36, 12)])
def test_mesh_size_reads_the_counts_before_parsing(tmp_path, ext, vertices, faces):
    size = mesh_size(write_box(tmp_path, ext))
    assert (size.vertices, size.faces) == (vertices, faces)
    assert size.memory_bytes >= size.file_bytes


def test_mesh_size_of_ascii_stl_and_collada(tmp_path):
    box = trimesh.creation.box(extents=(1.0, 1.0, 1.0))
    box.export(tmp_path / "a.stl", file_type="stl_ascii")
    assert (mesh_size(tmp_path / "a.stl").vertices, mesh_size(tmp_path / "a.stl").faces) == (36, 12)
    dae = mesh_size(write_instanced_dae(tmp_path / "m.dae", 3))
    assert (dae.vertices, dae.faces) == (None, None)  # weighed by its size alone
    assert dae.memory_bytes == BYTES_PER_FILE_BYTE[".dae"] * dae.file_bytes


def test_a_model_over_the_vertex_budget_is_not_parsed_and_costs_little_memory(tmp_path, monkeypatch):
    import tracemalloc

    model = write_grid_obj(tmp_path / "big.obj", 300_000)  # about 13 MB; parsing it would take ~120 MB
    world_file = model_world(tmp_path, "big.obj")
    monkeypatch.setattr(trimesh, "load_scene", lambda *a, **k: pytest.fail("the model was parsed"))
    tracemalloc.start()
    try:
        world = load_world(world_file, limits=WorldLimits(max_mesh_vertices=5000))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * SCAN_CHUNK_BYTES < model.stat().st_size / 3, peak  # counted in pieces, never held whole
    assert world.blocks[0].shape == DECLARED_BOX
    heard = [w for w in world.warnings if str(model) in w]
    assert heard == [f"{world_file}:2: <block>: 3D model {model} (model_uri big.obj) is too large to read: 300000 "
                     "vertices, more than 5000 (limit max_mesh_vertices = 5000, node parameter "
                     f"load_max_mesh_vertices); {FALLBACK}"]


@pytest.mark.parametrize("field, used", [("max_mesh_vertices", 8), ("max_mesh_faces", 12), ("max_mesh_bytes", None)])
def test_a_model_at_a_mesh_limit_loads_and_one_over_is_refused(tmp_path, field, used):
    trimesh.creation.box(extents=(2.0, 1.0, 0.5)).export(tmp_path / "box.obj")
    used = used if used is not None else mesh_size(tmp_path / "box.obj").memory_bytes
    world_file = model_world(tmp_path, "box.obj")
    fits = load_world(world_file, limits=WorldLimits(**{field: used}))
    assert rect_corners(fits.blocks[0].shape) == rect_corners([(-1.0, -0.5), (1.0, -0.5), (1.0, 0.5), (-1.0, 0.5)])
    assert not [w for w in fits.warnings if "box.obj" in w]
    over = load_world(world_file, limits=WorldLimits(**{field: used - 1}))
    assert over.blocks[0].shape == DECLARED_BOX
    heard = [w for w in over.warnings if "box.obj" in w]
    assert len(heard) == 1 and f"(limit {field} = {used - 1}, node parameter load_{field}); {FALLBACK}" in heard[0]


def test_a_model_placed_many_times_is_stopped_while_its_geometry_is_gathered(tmp_path):
    if not HAVE_COLLADA:
        pytest.skip("pycollada is not installed")
    write_instanced_dae(tmp_path / "many.dae", 100)  # 800 vertices in all, its file says nothing of it
    world_file = model_world(tmp_path, "many.dae")
    world = load_world(world_file, limits=WorldLimits(max_mesh_vertices=500))
    assert world.blocks[0].shape == DECLARED_BOX
    heard = [w for w in world.warnings if "many.dae" in w]
    assert len(heard) == 1 and "vertices, more than 500 (limit max_mesh_vertices = 500" in heard[0]
    clear_model_cache()
    whole = load_world(world_file)  # within the default budgets: all 100 cubes, 199 m long
    assert whole.blocks[0].shape != DECLARED_BOX and not [w for w in whole.warnings if "many.dae" in w]
    assert max(x for x, _ in whole.blocks[0].shape) - min(x for x, _ in whole.blocks[0].shape) == pytest.approx(199)


def test_a_refused_model_is_warned_about_once_per_load_and_read_again_under_other_limits(tmp_path):
    write_grid_obj(tmp_path / "big.obj", 2000)
    world_file = model_world(tmp_path, "big.obj", "big.obj")  # two blocks, one model
    small = WorldLimits(max_mesh_vertices=1000)
    for _ in range(2):
        world = load_world(world_file, limits=small)
        assert [b.shape for b in world.blocks] == [DECLARED_BOX, DECLARED_BOX]
        assert len([w for w in world.warnings if "big.obj" in w]) == 1
    roomy = load_world(world_file, limits=WorldLimits(max_mesh_vertices=2000))
    assert roomy.blocks[0].shape != DECLARED_BOX and not [w for w in roomy.warnings if "big.obj" in w]
    again = load_world(world_file, limits=small)  # read under other limits: the counts refuse it again
    assert again.blocks[0].shape == DECLARED_BOX and len([w for w in again.warnings if "big.obj" in w]) == 1


def test_a_header_that_declares_too_many_vertices_is_refused_before_parsing(tmp_path, monkeypatch):
    (tmp_path / "liar.ply").write_text("ply\nformat ascii 1.0\nelement vertex 4000000000\nproperty float x\n"
                                       "property float y\nproperty float z\nelement face 0\n"
                                       "property list uchar int vertex_indices\nend_header\n0 0 0\n")
    monkeypatch.setattr(trimesh, "load_scene", lambda *a, **k: pytest.fail("the model was parsed"))
    heard = []
    assert load_model_footprint(VisualSpec(model_uri="liar.ply"), tmp_path, heard.append) is None
    assert len(heard) == 1 and "4000000000 vertices, more than 1000000 (limit max_mesh_vertices" in heard[0]
