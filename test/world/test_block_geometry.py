"""MVSim <geometry> primitives: footprints, height spans, defaults, located errors, scaling, hull helpers."""

import math

import numpy as np
import pytest

from mvsim_ros.world.elements.block_geometry import (GEOMETRY_TYPES, convex_hull_2d, merge_geometries, parse_geometry,
                                                     point_in_convex_polygon, polygon_geometry, regular_polygon,
                                                     scale_geometry, simplify_hull_outer, surface_height)
from mvsim_ros.world.specs import Geometry, polygon_area
from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.xml.xml_tree import parse_xml_bytes


def geom_node(attrs: str, line_offset: int = 0):
    """A <geometry .../> node parsed from text; it sits on line 1 + line_offset of 'w.xml'."""
    text = "\n" * line_offset + f"<geometry {attrs}/>"
    return parse_xml_bytes(text.encode(), "w.xml")


def regular_polygon_area(radius: float, n: int) -> float:
    return 0.5 * n * radius**2 * math.sin(2 * math.pi / n)


def assert_ccw_convex(points):
    n = len(points)
    assert polygon_area(points) > 0
    for i in range(n):
        (ax, ay), (bx, by), (cx, cy) = points[i], points[(i + 1) % n], points[(i + 2) % n]
        assert (bx - ax) * (cy - by) - (by - ay) * (cx - bx) > 0


def test_box_starts_at_the_origin_like_mrpt_cbox():
    g = parse_geometry(geom_node('type="box" lx="2.0" ly="1.0" lz="1.5"'))
    assert g.kind == "box"
    assert g.footprint == [(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (0.0, 1.0)]
    assert (g.zmin, g.zmax) == (0.0, 1.5)
    assert g.params == {"lx": 2.0, "ly": 1.0, "lz": 1.5}
    assert g.area == pytest.approx(2.0, abs=1e-12)


def test_cylinder_16_vertices_lie_on_the_radius():
    g = parse_geometry(geom_node('type="cylinder" radius="0.5" length="2.0" vertex_count="16"'))
    assert g.kind == "cylinder"
    assert len(g.footprint) == 16
    for x, y in g.footprint:
        assert math.hypot(x, y) == pytest.approx(0.5, abs=1e-12)
    assert g.footprint[0] == (0.5, 0.0)
    for k, (x, y) in enumerate(g.footprint):
        assert math.atan2(y, x) % (2 * math.pi) == pytest.approx(2 * math.pi * k / 16, abs=1e-12)
    assert g.area == pytest.approx(regular_polygon_area(0.5, 16), abs=1e-12)
    assert (g.zmin, g.zmax) == (0.0, 2.0)
    assert g.params == {"radius": 0.5, "length": 2.0, "vertex_count": 16.0}
    assert_ccw_convex(g.footprint)


@pytest.mark.parametrize("attr", ["", 'vertex_count="0"'])
def test_vertex_count_defaults_to_10_as_in_mvsim(attr):
    g = parse_geometry(geom_node(f'type="cylinder" radius="1" length="1" {attr}'))
    assert len(g.footprint) == 10 and g.params["vertex_count"] == 10.0
    assert g.area == pytest.approx(regular_polygon_area(1.0, 10), abs=1e-12)


def test_cylinder_above_max_vertices_circumscribes_the_circle():
    g = parse_geometry(geom_node('type="cylinder" radius="0.5" length="1" vertex_count="100"'), max_vertices=8)
    assert len(g.footprint) == 8
    big = 0.5 / math.cos(math.pi / 8)
    for x, y in g.footprint:
        assert math.hypot(x, y) == pytest.approx(big, abs=1e-12)
    # every edge's mid-point touches the circle: the polygon contains it
    for (x0, y0), (x1, y1) in zip(g.footprint, g.footprint[1:] + g.footprint[:1]):
        assert math.hypot((x0 + x1) / 2, (y0 + y1) / 2) == pytest.approx(0.5, abs=1e-12)
    assert g.params["vertex_count"] == 100.0


def test_sphere_is_centred_on_the_origin():
    g = parse_geometry(geom_node('type="sphere" radius="0.3" vertex_count="12"'))
    assert g.kind == "sphere"
    assert (g.zmin, g.zmax) == (-0.3, 0.3)
    assert len(g.footprint) == 12
    assert all(math.hypot(x, y) == pytest.approx(0.3, abs=1e-12) for x, y in g.footprint)
    assert g.area == pytest.approx(regular_polygon_area(0.3, 12), abs=1e-12)
    assert g.params == {"radius": 0.3, "vertex_count": 12.0}


def test_ramp_rises_along_plus_x_from_the_origin():
    g = parse_geometry(geom_node('type="ramp" lx="2.0" ly="1.0" lz="0.5"'))
    assert g.footprint == [(0.0, -0.5), (2.0, -0.5), (2.0, 0.5), (0.0, 0.5)]
    assert (g.zmin, g.zmax) == (0.0, 0.5)
    assert surface_height(g, 0.0, 0.0) == 0.0
    assert surface_height(g, 1.0, 0.3) == pytest.approx(0.25, abs=1e-12)
    assert surface_height(g, 2.0, -0.5) == pytest.approx(0.5, abs=1e-12)
    assert surface_height(g, -0.1, 0.0) is None
    assert surface_height(g, 1.0, 0.6) is None


def test_semi_cylinder_bump_is_centred_with_its_axis_along_x():
    g = parse_geometry(geom_node('type="semi_cylinder_bump" lx="1.0" ly="0.5" lz="0.2" vertex_count="10"'))
    assert g.footprint == [(-0.5, -0.25), (0.5, -0.25), (0.5, 0.25), (-0.5, 0.25)]
    assert (g.zmin, g.zmax) == (0.0, 0.2)
    assert g.params == {"lx": 1.0, "ly": 0.5, "lz": 0.2, "vertex_count": 10.0}
    # the profile varies across y only (MVSim Block::getElevationAt)
    assert surface_height(g, 0.3, 0.0) == pytest.approx(0.2, abs=1e-12)
    assert surface_height(g, -0.4, 0.125) == pytest.approx(0.2 * math.sqrt(0.75), abs=1e-12)
    assert surface_height(g, 0.0, 0.25) == pytest.approx(0.0, abs=1e-12)
    assert surface_height(g, 0.0, 0.3) is None


def test_box_and_cylinder_heights_are_flat():
    box = parse_geometry(geom_node('type="box" lx="1" ly="1" lz="0.7"'))
    assert surface_height(box, 0.5, 0.5) == 0.7
    cyl = parse_geometry(geom_node('type="cylinder" radius="1" length="3"'))
    assert surface_height(cyl, 0.0, 0.0) == 3.0
    assert surface_height(cyl, 1.0, 1.0) is None


def test_every_type_is_covered():
    assert set(GEOMETRY_TYPES) == {"box", "cylinder", "sphere", "ramp", "semi_cylinder_bump"}


def test_unknown_type_names_the_valid_ones_and_the_location():
    with pytest.raises(WorldFileError) as err:
        parse_geometry(geom_node('type="cone" radius="1"', line_offset=6))
    e = err.value
    assert (e.file, e.line, e.tag) == ("w.xml", 7, "geometry")
    assert "w.xml:7: <geometry>" in str(e)
    assert "'cone'" in str(e)
    for kind in GEOMETRY_TYPES:
        assert kind in str(e)


def test_missing_type():
    with pytest.raises(WorldFileError, match=r"w.xml:3: <geometry>: .*type=.*box, cylinder"):
        parse_geometry(geom_node('lx="1"', line_offset=2))


@pytest.mark.parametrize(
    "attrs, message",
    [
        ('type="box" lx="1" ly="1"', r"box geometry: missing attribute lz="
                                     r".*needs lx, ly, lz"),
        ('type="cylinder" radius="1"', r"cylinder geometry: missing attribute length="),
        ('type="sphere"', r"sphere geometry: missing attribute radius="),
        ('type="ramp" lx="1" ly="-1" lz="1"', r"ramp geometry: ly must be > 0, got -1"),
        ('type="semi_cylinder_bump" lx="1" ly="1" lz="0"', r"lz must be > 0, got 0"),
        ('type="box" lx="abc" ly="1" lz="1"', r"expected a number, got 'abc'"),
        ('type="box" lx="nan" ly="1" lz="1"', r"expected a finite number"),
        ('type="cylinder" radius="1" length="1" vertex_count="2"', r"vertex_count must be >= 3"),
        ('type="cylinder" radius="1" length="1" vertex_count="-5"', r"vertex_count must be >= 3"),
        ('type="sphere" radius="1" vertex_count="7.5"', r"vertex_count must be an integer"),
    ],
)
def test_bad_dimensions_are_located_errors(attrs, message):
    with pytest.raises(WorldFileError, match=message) as err:
        parse_geometry(geom_node(attrs, line_offset=4))
    assert (err.value.file, err.value.line, err.value.tag) == ("w.xml", 5, "geometry")


def test_unknown_attributes_are_warned_about_not_fatal():
    heard = []
    g = parse_geometry(geom_node('type="box" lx="1" ly="2" lz="3" colour="red"'),
                       warn=lambda node, msg: heard.append((node.line, msg)))
    assert g.footprint == [(0.0, 0.0), (1.0, 0.0), (1.0, 2.0), (0.0, 2.0)]
    assert len(heard) == 1 and heard[0][0] == 1 and "'colour'" in heard[0][1]
    # attributes of other types (here vertex_count on a box) are ignored, as MVSim does
    g = parse_geometry(geom_node('type="box" lx="1" ly="2" lz="3" vertex_count="5"'), warn=heard.append)
    assert g.params == {"lx": 1.0, "ly": 2.0, "lz": 3.0}


def test_scale_box_per_axis():
    g = parse_geometry(geom_node('type="box" lx="2" ly="1" lz="0.5"'))
    s = scale_geometry(g, (2.0, 3.0, 4.0))
    assert s.kind == "box"
    assert s.footprint == [(0.0, 0.0), (4.0, 0.0), (4.0, 3.0), (0.0, 3.0)]
    assert (s.zmin, s.zmax) == (0.0, 2.0)
    assert s.params == {"lx": 4.0, "ly": 3.0, "lz": 2.0}
    assert g.params == {"lx": 2.0, "ly": 1.0, "lz": 0.5}  # the input is left alone


def test_scale_cylinder_uniform_and_uneven():
    g = parse_geometry(geom_node('type="cylinder" radius="0.5" length="2" vertex_count="16"'))
    s = scale_geometry(g, (2.0, 2.0, 0.5))
    assert s.kind == "cylinder" and s.params == {"radius": 1.0, "length": 1.0, "vertex_count": 16.0}
    assert all(math.hypot(x, y) == pytest.approx(1.0, abs=1e-12) for x, y in s.footprint)
    assert (s.zmin, s.zmax) == (0.0, 1.0)
    e = scale_geometry(g, (2.0, 1.0, 1.0))
    assert e.kind == "polygon" and e.params == {}
    assert e.area == pytest.approx(2.0 * regular_polygon_area(0.5, 16), abs=1e-12)


def test_scale_sphere_scales_its_z_span():
    g = parse_geometry(geom_node('type="sphere" radius="1"'))
    s = scale_geometry(g, (0.5, 0.5, 0.5))
    assert s.kind == "sphere" and s.params["radius"] == 0.5 and (s.zmin, s.zmax) == (-0.5, 0.5)
    assert scale_geometry(g, (1.0, 1.0, 2.0)).kind == "polygon"


@pytest.mark.parametrize("bad", [(0.0, 1.0, 1.0), (1.0, -1.0, 1.0), (1.0, 1.0, math.inf), (math.nan, 1, 1)])
def test_scale_rejects_non_positive_factors(bad):
    g = parse_geometry(geom_node('type="box" lx="1" ly="1" lz="1"'))
    with pytest.raises(ValueError):
        scale_geometry(g, bad)


def test_polygon_geometry_makes_points_counter_clockwise():
    g = polygon_geometry([(0, 0), (0, 1), (1, 1), (1, 0)], 0.1, 0.9)
    assert g.kind == "polygon" and g.footprint == [(1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (0.0, 0.0)]
    assert g.area == pytest.approx(1.0)
    with pytest.raises(ValueError):
        polygon_geometry([(0, 0), (1, 1), (2, 2)], 0, 1)


def test_regular_polygon_keeps_exact_count_up_to_the_cap():
    assert len(regular_polygon(1.0, 64)) == 64
    assert len(regular_polygon(1.0, 65)) == 64


def test_convex_hull_drops_interior_collinear_and_duplicate_points():
    pts = np.array([[0, 0], [1, 0], [2, 0], [2, 1], [2, 2], [1, 1], [0, 2], [0, 2], [0, 1], [1, 0.5]])
    assert convex_hull_2d(pts) == [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)]
    assert len(convex_hull_2d(np.array([[0, 0], [1, 1], [2, 2]]))) == 2


def test_convex_hull_of_a_large_cloud_matches_brute_force_containment():
    rng = np.random.default_rng(7)
    pts = rng.normal(size=(20000, 2))
    hull = convex_hull_2d(pts)
    assert_ccw_convex(hull)
    hull_set = set(hull)
    assert all(tuple(p) in {tuple(q) for q in pts} for p in hull_set)
    assert all(point_in_convex_polygon(hull, x, y, tol=1e-9) for x, y in pts)


def test_simplify_hull_is_exact_when_small_and_contains_the_hull_when_large():
    circle = regular_polygon(1.0, 50, max_vertices=1000)
    assert simplify_hull_outer(circle, 64) == circle
    big = regular_polygon(1.0, 400, max_vertices=1000)
    small = simplify_hull_outer(big, 64)
    assert len(small) <= 64
    assert_ccw_convex(small)
    assert all(point_in_convex_polygon(small, x, y, tol=1e-9) for x, y in big)
    # and it stays tight: within 1 % of the circle's area
    assert polygon_area(small) < 1.01 * math.pi
    rng = np.random.default_rng(3)
    cloud = rng.uniform(-1, 1, size=(5000, 2)) * [3.0, 0.5]
    hull = convex_hull_2d(cloud)
    for cap in (4, 5, 8, 16):
        poly = simplify_hull_outer(hull, cap)
        assert 3 <= len(poly) <= cap
        assert all(point_in_convex_polygon(poly, x, y, tol=1e-9) for x, y in cloud)


def test_merge_geometries_hulls_footprints_and_unions_heights():
    a = Geometry("box", [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)], 0.0, 1.0)
    b = Geometry("box", [(2.0, 0.0), (3.0, 0.0), (3.0, 1.0), (2.0, 1.0)], -0.5, 0.5)
    m = merge_geometries([a, b])
    assert m.kind == "mesh"
    assert m.footprint == [(0.0, 0.0), (3.0, 0.0), (3.0, 1.0), (0.0, 1.0)]
    assert (m.zmin, m.zmax) == (-0.5, 1.0)
    assert m.params == {"lx": 3.0, "ly": 1.0, "lz": 1.5}
