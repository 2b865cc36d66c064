"""World elements and world option blocks: exact field values, MVSim defaults, units, errors and warnings."""

import math
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mvsim_ros.world.elements.scenery.element_classes import ALL_ELEMENT_CLASSES, ELEMENT_CLASSES, parse_element
from mvsim_ros.world.elements.scenery.markers import parse_marker
from mvsim_ros.world.elements.scenery.walls import parse_walls
from mvsim_ros.world.elements.world_options import WorldFileWarning, parse_georeference, parse_gui, parse_lights
from mvsim_ros.world.specs import (ElevationMapSpec, GroundGridSpec, HorizontalPlaneSpec, PointCloudSpec, Pose3,
                                   PropertyRegionSpec, SkyBoxSpec, VerticalPlaneSpec, WallOpening)
from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.xml.xml_tree import parse_xml_bytes


class Warnings(list):
    """A warn callback that records (tag, line, message)."""

    def __call__(self, node, message):
        self.append((node.tag, node.line, message))

    def messages(self):
        return [m for _, _, m in self]


@pytest.fixture
def xml(tmp_path):
    def parse(text: str):
        return parse_xml_bytes(text.encode(), str(tmp_path / "w.xml"))
    return parse


def element(xml, text, warns=None):
    return parse_element(xml(text), warns if warns is not None else Warnings())


def grey_png(path: Path, rows) -> Path:
    Image.fromarray(np.array(rows, dtype=np.uint8)).save(path)
    return path


# ------------------------------------------------------------------------------------------------ dispatch

def test_element_classes_exclude_occupancy_grid():
    assert ELEMENT_CLASSES == ("ground_grid", "elevation_map", "horizontal_plane", "vertical_plane",
                               "property_region", "skybox", "pointcloud")
    assert "occupancy_grid" in ALL_ELEMENT_CLASSES and "occupancy_grid" not in ELEMENT_CLASSES


def test_unknown_element_class_lists_the_valid_ones(xml, tmp_path):
    with pytest.raises(WorldFileError) as err:
        element(xml, '<element class="lava_lake"/>')
    message = str(err.value)
    assert "lava_lake" in message and "occupancy_grid" in message
    assert all(name in message for name in ELEMENT_CLASSES)
    assert (err.value.file, err.value.line, err.value.tag) == (str(tmp_path / "w.xml"), 1, "element")


def test_missing_class_attribute_is_an_error(xml):
    with pytest.raises(WorldFileError, match="class="):
        element(xml, "<element><x_min>1</x_min></element>")


def test_occupancy_grid_is_not_parsed_here(xml):
    with pytest.raises(WorldFileError, match="occupancy-grid loader"):
        element(xml, '<element class="occupancy_grid"><file>m.png</file></element>')


def test_without_a_warn_callback_warnings_go_to_python_warnings(xml):
    with pytest.warns(WorldFileWarning, match=r"w\.xml:1: <bogus>: unknown parameter"):
        parse_element(xml('<element class="ground_grid"><bogus>1</bogus></element>'))


# ------------------------------------------------------------------------------------------------ ground_grid

def test_ground_grid_fields(xml):
    spec = element(xml, """<element class="ground_grid" name="g">
        <floating>false</floating><color>#102030</color><line_width>2.5</line_width>
        <x_min>-3</x_min><x_max>4</x_max><y_min>-5</y_min><y_max>6</y_max><interval>0.5</interval>
    </element>""")
    assert isinstance(spec, GroundGridSpec)
    assert (spec.name, spec.floating, spec.floating_focus, spec.color, spec.line_width) == (
        "g", False, "", "#102030", 2.5)
    assert (spec.x_min, spec.x_max, spec.y_min, spec.y_max, spec.interval) == (-3.0, 4.0, -5.0, 6.0, 0.5)
    assert (spec.source.tag, spec.source.line) == ("element", 1)


def test_ground_grid_defaults_and_focus_forces_floating(xml):
    spec = element(xml, '<element class="ground_grid"/>')
    assert (spec.floating, spec.color, spec.line_width, spec.interval) == (True, "#e0e0e0", 1.0, 5.0)
    assert (spec.x_min, spec.x_max, spec.y_min, spec.y_max) == (-25.0, 25.0, -25.0, 25.0)
    spec = element(xml, '<element class="ground_grid"><floating>false</floating>'
                        '<floating_focus>r1</floating_focus></element>')
    assert (spec.floating, spec.floating_focus) == (True, "r1")


def test_bad_values_name_file_line_and_tag(xml, tmp_path):
    with pytest.raises(WorldFileError) as err:
        element(xml, '<element class="ground_grid">\n  <interval>-5</interval>\n</element>')
    assert (err.value.file, err.value.line, err.value.tag) == (str(tmp_path / "w.xml"), 2, "interval")
    assert f"{tmp_path / 'w.xml'}:2: <interval>" in str(err.value) and "outside the accepted range" in str(err.value)
    with pytest.raises(WorldFileError) as err:
        element(xml, '<element class="ground_grid">\n\n  <x_min>abc</x_min>\n</element>')
    assert (err.value.line, err.value.tag) == (3, "x_min") and "expected a number" in str(err.value)
    with pytest.raises(WorldFileError, match="x_max .* smaller than x_min"):
        element(xml, '<element class="ground_grid"><x_min>2</x_min><x_max>1</x_max></element>')


def test_unknown_child_tag_is_warned_and_skipped(xml):
    warns = Warnings()
    element(xml, '<element class="ground_grid">\n<color>#ffffff</color>\n<colour>#000000</colour></element>', warns)
    assert warns[0][:2] == ("colour", 3) and warns[0][2].startswith(
        'unknown parameter <colour> for <element class="ground_grid">; skipped (known: floating,')
    # MVSim draws the grid in its GUI only: its settings are named once, at the first of them.
    assert warns[1:] == [("color", 2, '<element class="ground_grid">: accepted but not used here: color (drawn by '
                                      "MVSim's GUI only; the browser viewer draws its own grid)")]


# ------------------------------------------------------------------------------------------------ elevation_map

def test_elevation_image_grey_levels_map_onto_min_max_z(xml, tmp_path):
    grey_png(tmp_path / "elev.png", [[0, 128, 255, 64], [10, 20, 30, 40], [50, 60, 70, 80]])
    spec = element(xml, """<element class="elevation_map">
        <elevation_image>elev.png</elevation_image>
        <elevation_image_min_z>-1.0</elevation_image_min_z><elevation_image_max_z>3.0</elevation_image_max_z>
        <resolution>0.5</resolution>
    </element>""")
    assert isinstance(spec, ElevationMapSpec)
    assert spec.elevation_image == (tmp_path / "elev.png").resolve()
    assert spec.heights.shape == (3, 4)  # [image row -> x, image column -> y]
    assert spec.heights[0, 0] == -1.0
    assert spec.heights[0, 2] == 3.0
    assert spec.heights[0, 1] == pytest.approx(-1.0 + 128 / 255 * 4.0, abs=1e-12)
    assert spec.heights[1, 2] == pytest.approx(-1.0 + 30 / 255 * 4.0, abs=1e-12)
    # Centred mesh: 3 rows span 2 * 0.5 m along x, 4 columns span 3 * 0.5 m along y.
    assert (spec.corner_min_x, spec.corner_min_y) == (-0.5, -0.75)
    assert (spec.corner_max_x, spec.corner_max_y) == (0.5, 0.75)
    assert spec.elevation_at(-0.5, -0.75) == -1.0
    assert spec.elevation_at(0.0, 0.25) == pytest.approx(spec.heights[1, 2], abs=1e-12)
    assert spec.elevation_at(0.5, 0.0) is None and spec.elevation_at(-0.6, 0.0) is None


def test_elevation_image_stretches_its_own_grey_range(xml, tmp_path):
    grey_png(tmp_path / "e.png", [[100, 150], [200, 125]])
    spec = element(xml, '<element class="elevation_map"><elevation_image>e.png</elevation_image></element>')
    assert (spec.elevation_image_min_z, spec.elevation_image_max_z, spec.resolution) == (0.0, 5.0, 1.0)
    assert spec.heights == pytest.approx(np.array([[0.0, 2.5], [5.0, 1.25]]), abs=1e-12)


def test_sixteen_bit_elevation_image_uses_the_high_byte(xml, tmp_path):
    Image.fromarray(np.array([[0, 128 * 256 + 77], [65535, 255]], dtype=np.uint16)).save(tmp_path / "e16.png")
    spec = element(xml, '<element class="elevation_map"><elevation_image>e16.png</elevation_image>'
                        '<elevation_image_max_z>255</elevation_image_max_z></element>')
    assert spec.heights == pytest.approx(np.array([[0.0, 128.0], [255.0, 0.0]]), abs=1e-9)


def test_elevation_map_defaults_texture_and_corners(xml, tmp_path):
    grey_png(tmp_path / "e.png", [[0, 255], [255, 0]])
    spec = element(xml, '<element class="elevation_map"><elevation_image>e.png</elevation_image></element>')
    assert (spec.mesh_color, spec.texture_image, spec.texture_image_rotate_rad) == ("#a0e0a0", None, 0.0)
    assert (spec.texture_extension_x, spec.texture_extension_y, spec.model_split_size) == (0.0, 0.0, 0.0)
    assert (spec.corner_min_x, spec.corner_min_y, spec.apply_kernel) == (-0.5, -0.5, None)
    warns = Warnings()
    spec = element(xml, """<element class="elevation_map"><elevation_image>e.png</elevation_image>
        <texture_image>https://example.org/t.png</texture_image><texture_image_rotate>90</texture_image_rotate>
        <texture_extension_x>2</texture_extension_x><texture_extension_y>3</texture_extension_y>
        <corner_min_x>10</corner_min_x><corner_min_y>-20</corner_min_y><mesh_color>#112233</mesh_color>
        <model_split_size>4</model_split_size></element>""", warns)
    assert spec.texture_image == "https://example.org/t.png"
    assert spec.texture_image_rotate_rad == pytest.approx(math.pi / 2)
    assert (spec.texture_extension_x, spec.texture_extension_y, spec.model_split_size) == (2.0, 3.0, 4.0)
    assert (spec.corner_min_x, spec.corner_min_y, spec.mesh_color) == (10.0, -20.0, "#112233")
    assert warns == []
    spec = element(xml, '<element class="elevation_map"><elevation_image>e.png</elevation_image>'
                        '<texture_image>tex/t.png</texture_image></element>', warns)
    assert spec.texture_image == (tmp_path / "tex" / "t.png").resolve()
    assert warns.messages() == [f"texture file not found: {(tmp_path / 'tex' / 't.png').resolve()}"]


def test_elevation_matrix_interpolates_like_mvsim(xml):
    spec = element(xml, '<element class="elevation_map"><elevation_data_matrix>[0 1; 2 5]'
                        '</elevation_data_matrix></element>')
    assert spec.heights.tolist() == [[0.0, 1.0], [2.0, 5.0]]
    x0, y0 = spec.corner_min_x, spec.corner_min_y
    assert (x0, y0) == (-0.5, -0.5)
    assert spec.elevation_at(x0 + 0.25, y0 + 0.75) == pytest.approx(0.25 * 4 + 0.75 * 1)  # upper-left triangle
    assert spec.elevation_at(x0 + 0.75, y0 + 0.25) == pytest.approx(0.75 * 2 + 0.25 * 3)  # lower-right triangle


def test_elevation_kernel_is_applied_with_zero_padding(xml):
    spec = element(xml, """<element class="elevation_map">
        <elevation_data_matrix>[1 1 1; 1 1 1; 1 1 1]</elevation_data_matrix>
        <apply_kernel>
          0.111111111111 0.111111111111 0.111111111111
          0.111111111111 0.111111111111 0.111111111111
          0.111111111111 0.111111111111 0.111111111112
        </apply_kernel></element>""")
    assert spec.apply_kernel.shape == (3, 3)
    assert spec.heights[0, 0] == pytest.approx(4 / 9, abs=1e-9)
    assert spec.heights[0, 1] == pytest.approx(6 / 9, abs=1e-9)
    assert spec.heights[1, 1] == pytest.approx(1.0, abs=1e-9)


def test_dem_file_is_resampled_at_its_minimum_corner(xml, tmp_path):
    (tmp_path / "dem.txt").write_text("# x y z r g b\n10 20 1 0 0 0\n12 20 2 0 0 0\n10 22 3 0 0 0\n12 22 4 0 0 0\n")
    warns = Warnings()
    spec = element(xml, '<element class="elevation_map"><dem_xyzrgb_file>dem.txt</dem_xyzrgb_file>'
                        '<corner_min_x>0</corner_min_x></element>', warns)
    assert spec.dem_xyzrgb_file == (tmp_path / "dem.txt").resolve()
    assert spec.heights.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert (spec.corner_min_x, spec.corner_min_y) == (10.0, 20.0)
    assert warns.messages() == ["<corner_min_x> ignored: MVSim places a DEM at its own minimum corner"]


def test_elevation_map_errors(xml, tmp_path):
    with pytest.raises(WorldFileError, match="elevation image not found") as err:
        element(xml, '<element class="elevation_map">\n<elevation_image>nope.png</elevation_image></element>')
    assert (err.value.line, err.value.tag) == (2, "elevation_image")
    with pytest.raises(WorldFileError, match="needs <elevation_image>"):
        element(xml, '<element class="elevation_map"><resolution>1</resolution></element>')
    grey_png(tmp_path / "flat.png", [[7, 7], [7, 7]])
    with pytest.raises(WorldFileError, match="single grey level"):
        element(xml, '<element class="elevation_map"><elevation_image>flat.png</elevation_image></element>')
    grey_png(tmp_path / "e.png", [[0, 255], [255, 0]])
    with pytest.raises(WorldFileError, match="must differ"):
        element(xml, '<element class="elevation_map"><elevation_image>e.png</elevation_image>'
                     '<elevation_image_min_z>2</elevation_image_min_z>'
                     '<elevation_image_max_z>2</elevation_image_max_z></element>')
    with pytest.raises(WorldFileError, match="texture_image_rotate can only be") as err:
        element(xml, '<element class="elevation_map"><elevation_image>e.png</elevation_image>'
                     '<texture_image_rotate>45</texture_image_rotate></element>')
    assert err.value.tag == "texture_image_rotate"
    with pytest.raises(WorldFileError, match="resolution: 0 is outside the accepted range"):
        element(xml, '<element class="elevation_map"><elevation_image>e.png</elevation_image>'
                     '<resolution>0</resolution></element>')
    with pytest.raises(WorldFileError, match="normalised"):
        element(xml, '<element class="elevation_map"><elevation_image>e.png</elevation_image>'
                     '<apply_kernel>1 1 1\n1 1 1\n1 1 1</apply_kernel></element>')


def test_elevation_map_old_and_unknown_tags_are_warned(xml, tmp_path):
    grey_png(tmp_path / "e.png", [[0, 255], [255, 0]])
    warns = Warnings()
    spec = element(xml, """<element class="elevation_map"><elevation_image>e.png</elevation_image>
        <debug_show_contact_points>true</debug_show_contact_points>
        <texture_sise_x>1.5</texture_sise_x></element>""", warns)
    assert [(tag, line) for tag, line, _ in warns] == [("texture_sise_x", 3), ("debug_show_contact_points", 2)]
    assert warns[0][2].startswith('unknown parameter <texture_sise_x> for <element class="elevation_map">; skipped')
    assert warns[1][2] == ('<element class="elevation_map">: accepted but not used here: debug_show_contact_points '
                           "(not read by MVSim (audited version); read here for worlds written for other MVSim "
                           "versions)")
    assert [k.tag for k in spec.kept] == ["debug_show_contact_points"] and spec.kept[0].text == "true"


def test_elevation_map_texture_size_is_its_texture_extension(xml, tmp_path):
    """MVSim's planes name the texture tiling texture_size_x/y; worlds use it on elevation maps too."""
    grey_png(tmp_path / "e.png", [[0, 255], [255, 0]])
    warns = Warnings()
    spec = element(xml, """<element class="elevation_map"><elevation_image>e.png</elevation_image>
        <texture_size_x>1.5</texture_size_x><texture_size_y>2.5</texture_size_y></element>""", warns)
    assert warns == [] and (spec.texture_extension_x, spec.texture_extension_y) == (1.5, 2.5)


# ------------------------------------------------------------------------------------------------ horizontal_plane

def test_horizontal_plane_fields_and_pose(xml, tmp_path):
    (tmp_path / "floor.png").write_bytes(b"")
    spec = element(xml, """<element class="horizontal_plane" name="floor">
        <x_min>-2</x_min><x_max>3</x_max><y_min>-4</y_min><y_max>5</y_max><z>0.25</z>
        <color>#010203</color><enable_shadows>false</enable_shadows><texture>floor.png</texture>
        <texture_size_x>2</texture_size_x><texture_size_y>4</texture_size_y><cull_face>BACK</cull_face>
        <init_pose>1 2 90</init_pose>
    </element>""")
    assert isinstance(spec, HorizontalPlaneSpec)
    assert (spec.name, spec.x_min, spec.x_max, spec.y_min, spec.y_max, spec.z) == (
        "floor", -2.0, 3.0, -4.0, 5.0, 0.25)
    assert (spec.color, spec.enable_shadows, spec.cull_face) == ("#010203", False, "BACK")
    assert spec.texture == (tmp_path / "floor.png").resolve()
    assert (spec.texture_size_x, spec.texture_size_y) == (2.0, 4.0)
    assert (spec.init_pose.x, spec.init_pose.y, spec.init_pose.z) == (1.0, 2.0, 0.0)
    assert spec.init_pose.yaw == pytest.approx(math.pi / 2)
    # Turned 90 degrees: world (2, 4.5) is local (2.5, -1), inside; world (1, 5.5) is local (3.5, 0), outside.
    assert spec.elevation_at(2.0, 4.5) == pytest.approx(0.25)
    assert spec.elevation_at(1.0, 5.5) is None


def test_horizontal_plane_defaults(xml):
    spec = element(xml, '<element class="horizontal_plane"/>')
    assert (spec.x_min, spec.x_max, spec.y_min, spec.y_max, spec.z) == (-10.0, 10.0, -10.0, 10.0, 0.0)
    assert (spec.color, spec.enable_shadows, spec.texture, spec.cull_face) == ("#a0a0a0", True, None, "NONE")
    assert (spec.texture_size_x, spec.texture_size_y, spec.init_pose) == (1.0, 1.0, None)
    assert spec.elevation_at(10.0, -10.0) == 0.0 and spec.elevation_at(10.01, 0.0) is None


def test_horizontal_plane_pose3d_kept_tags_and_errors(xml):
    warns = Warnings()
    spec = element(xml, """<element class="horizontal_plane">
        <init_pose3d>1 2 3 90 0 180</init_pose3d><z>0.5</z>
        <publish><publish_pose_topic>/p</publish_pose_topic></publish>
        <geo_corner_sw>36.0 -2.0</geo_corner_sw>
    </element>""", warns)
    assert spec.init_pose.z == 3.0 and spec.init_pose.roll == pytest.approx(math.pi)
    assert spec.elevation_at(1.0, 2.0) == pytest.approx(3.0 - 0.5)  # upside-down plane: 0.5 m below the origin
    assert warns.messages() == [
        '<element class="horizontal_plane">: accepted but not used here: publish (MVSim\'s ZMQ communication server; '
        'this simulator talks ROS 2 only); geo_corner_sw (not read by MVSim (audited version); read here for worlds '
        'written for other MVSim versions)',
    ]
    assert [k.tag for k in spec.kept] == ["publish", "geo_corner_sw"]
    assert spec.kept[0].children[0].text == "/p"
    with pytest.raises(WorldFileError, match="cull_face must be one of NONE, BACK, FRONT"):
        element(xml, '<element class="horizontal_plane"><cull_face>BOTH</cull_face></element>')
    with pytest.raises(WorldFileError, match="texture_size_x: 0 is outside the accepted range"):
        element(xml, '<element class="horizontal_plane"><texture_size_x>0</texture_size_x></element>')
    with pytest.raises(WorldFileError, match="init_pose 'x y yaw_deg': expected 3 numbers"):
        element(xml, '<element class="horizontal_plane"><init_pose>1 2</init_pose></element>')


# ------------------------------------------------------------------------------------------------ vertical_plane

def test_vertical_plane_fields_openings_and_collision(xml):
    warns = Warnings()
    spec = element(xml, """<element class="vertical_plane">
        <x0>0</x0><y0>0</y0><x1>10</x1><y1>0</y1><z>0.1</z><height>2.5</height><thickness>0.2</thickness>
        <color>#aabbcc</color><texture>https://example.org/w.png</texture><cull_face>FRONT</cull_face>
        <door position="0.5" width="2" z_start="0" z_end="2.2" name="d1"/>
        <window><position>0.15</position><width>1.0</width><z_min>1</z_min><z_max>2</z_max><name>w1</name></window>
        <door position="0.55" width="2"/>
    </element>""", warns)
    assert isinstance(spec, VerticalPlaneSpec) and warns == []
    assert (spec.x0, spec.y0, spec.x1, spec.y1, spec.z, spec.height, spec.thickness) == (
        0.0, 0.0, 10.0, 0.0, 0.1, 2.5, 0.2)
    assert (spec.color, spec.texture, spec.cull_face, spec.length) == (
        "#aabbcc", "https://example.org/w.png", "FRONT", 10.0)
    assert spec.openings == [
        WallOpening("door", 0.5, 2.0, 0.0, 2.2, "d1"),
        WallOpening("window", 0.15, 1.0, 1.0, 2.0, "w1"),
        WallOpening("door", 0.55, 2.0, 0.0, 2.1, ""),
    ]
    # Doors [4, 6] and [4.5, 6.5] merge; the window keeps its collision.
    assert spec.solid_spans() == [(0.0, 4.0), (6.5, 10.0)]
    assert np.array(spec.collision_polygons()[1]) == pytest.approx(
        np.array([(6.5, 0.1), (6.5, -0.1), (10.0, -0.1), (10.0, 0.1)]))


def test_vertical_plane_defaults_and_problems(xml):
    spec = element(xml, '<element class="vertical_plane"/>')
    assert (spec.x0, spec.y0, spec.x1, spec.y1, spec.z, spec.height) == (-10.0, -10.0, -10.0, 10.0, 0.0, 3.0)
    assert (spec.thickness, spec.color, spec.enable_shadows, spec.cull_face, spec.openings) == (
        0.02, "#a0a0a0", True, "NONE", [])  # MVSim's thickness: 2 cm
    assert spec.solid_spans() == [(0.0, 20.0)]
    warns = Warnings()
    spec = element(xml, """<element class="vertical_plane"><x0>0</x0><x1>4</x1><y0>0</y0><y1>0</y1>
        <door position="1.5" width="1"/><door width="0"/><window position="0.5"><n>w</n></window></element>""",
                   warns)
    assert [o.position for o in spec.openings] == [1.0, 0.5]
    assert warns.messages() == [
        "door position must be within [0, 1] (a fraction of the wall length), got 1.5; clamped to 1 as MVSim does",
        "door width must be > 0, got 0; opening ignored as MVSim does",
        "unknown parameter <n> for <window> in a vertical_plane; skipped (known: position, width, z_min, z_max, "
        "name)",
    ]
    with pytest.raises(WorldFileError, match="end points .* are the same"):
        element(xml, '<element class="vertical_plane"><x0>1</x0><y0>1</y0><x1>1</x1><y1>1</y1></element>')
    with pytest.raises(WorldFileError, match="thickness: -0.1 is outside the accepted range"):
        element(xml, '<element class="vertical_plane"><thickness>-0.1</thickness></element>')


# ------------------------------------------------------------------------------------------------ property_region

def test_property_region_friction_zone(xml):
    spec = element(xml, """<element class="property_region">
        <property_name>friction_mu</property_name><value_double>0.15</value_double>
        <x_min>-7</x_min><y_min>-2</y_min><z_min>-1.0</z_min><x_max>1</x_max><y_max>6</y_max><z_max>2.0</z_max>
    </element>""")
    assert isinstance(spec, PropertyRegionSpec)
    assert (spec.property_name, spec.value) == ("friction_mu", 0.15)
    assert (spec.x_min, spec.y_min, spec.z_min, spec.x_max, spec.y_max, spec.z_max) == (
        -7.0, -2.0, -1.0, 1.0, 6.0, 2.0)
    assert spec.contains(1.0, 6.0, 2.0) and spec.contains(-7.0, -2.0)
    assert not spec.contains(1.01, 0.0) and not spec.contains(0.0, 0.0, 2.5)


def test_property_region_defaults_bool_and_priority(xml):
    spec = element(xml, '<element class="property_region"><property_name>gps_no_coverage</property_name>'
                        '<value_bool>true</value_bool></element>')
    assert (spec.value, spec.x_min, spec.y_min, spec.z_min, spec.x_max, spec.y_max, spec.z_max) == (
        True, -1.0, -1.0, -1000.0, 1.0, 1.0, 1000.0)
    warns = Warnings()
    spec = element(xml, '<element class="property_region"><property_name>zone</property_name>'
                        '<value_string>mud</value_string><value_double>2</value_double></element>', warns)
    assert spec.value == 2.0 and type(spec.value) is float
    assert warns.messages() == ["<value_string> ignored: MVSim uses <value_double> when both are given"]
    warns = Warnings()
    spec = element(xml, '<element class="property_region"><value_bool>0</value_bool></element>', warns)
    assert (spec.property_name, spec.value) == ("", False)
    assert warns.messages() == ["property_region has no <property_name>; it will never match any query"]


def test_property_region_errors(xml):
    with pytest.raises(WorldFileError, match="'gps_no_coverage' needs a <value_bool>") as err:
        element(xml, '<element class="property_region"><property_name>gps_no_coverage</property_name>\n'
                     '<value_double>1</value_double></element>')
    assert (err.value.line, err.value.tag) == (2, "value_double")
    with pytest.raises(WorldFileError, match="must be >= 0"):
        element(xml, '<element class="property_region"><property_name>friction_C_rr</property_name>'
                     '<value_double>-0.1</value_double></element>')
    with pytest.raises(WorldFileError, match="z_max .* smaller than z_min"):
        element(xml, '<element class="property_region"><z_min>3</z_min><z_max>2</z_max></element>')
    with pytest.raises(WorldFileError, match="value_bool: expected true or false"):
        element(xml, '<element class="property_region"><value_bool>maybe</value_bool></element>')


# ------------------------------------------------------------------------------------------------ skybox

def test_skybox_remote_and_local_patterns(xml, tmp_path):
    url = "https://mrpt.github.io/mvsim-models/skyboxes/SunSet.zip/SunSet/SunSet%s.jpg"
    spec = element(xml, f"<element class='skybox'><textures>{url}</textures></element>")
    assert isinstance(spec, SkyBoxSpec) and spec.textures == url
    assert spec.faces()["Up"] == url.replace("%s", "Up")
    (tmp_path / "sky").mkdir()
    for face in ("Up", "Right", "Left", "Front", "Down", "Back"):
        (tmp_path / "sky" / f"b{face}.png").write_bytes(b"")
    spec = element(xml, "<element class='skybox'><textures>sky/b%s.png</textures></element>")
    assert spec.textures == str((tmp_path / "sky").resolve() / "b%s.png")
    assert spec.faces()["Back"] == (tmp_path / "sky" / "bBack.png").resolve()


def test_skybox_errors(xml):
    with pytest.raises(WorldFileError, match="needs <textures>"):
        element(xml, "<element class='skybox'/>")
    with pytest.raises(WorldFileError, match="exactly one '%s'"):
        element(xml, "<element class='skybox'><textures>https://x/sky.jpg</textures></element>")
    with pytest.raises(WorldFileError, match="face 'Up' not found") as err:
        element(xml, "<element class='skybox'>\n<textures>none_%s.jpg</textures></element>")
    assert (err.value.line, err.value.tag) == (2, "textures")


# ------------------------------------------------------------------------------------------------ pointcloud

def test_pointcloud_fields_and_defaults(xml, tmp_path):
    (tmp_path / "pts3.txt").write_text("1 2 3\n")
    (tmp_path / "pts2.txt").write_text("1 2\n")
    spec = element(xml, """<element class="pointcloud"><file_txt_3d>pts3.txt</file_txt_3d>
        <points_size>5</points_size><pose_3d>1 2 3 90 45 -30</pose_3d></element>""")
    assert isinstance(spec, PointCloudSpec)
    assert (spec.file, spec.dimensions, spec.points_size) == ((tmp_path / "pts3.txt").resolve(), 3, 5.0)
    assert (spec.pose.x, spec.pose.y, spec.pose.z) == (1.0, 2.0, 3.0)
    assert (spec.pose.yaw, spec.pose.pitch, spec.pose.roll) == pytest.approx(
        (math.pi / 2, math.pi / 4, -math.pi / 6))
    warns = Warnings()
    spec = element(xml, '<element class="pointcloud"><file_txt_3d>pts3.txt</file_txt_3d>'
                        '<file_txt_2d>pts2.txt</file_txt_2d></element>', warns)
    assert (spec.file.name, spec.dimensions, spec.points_size, spec.pose) == ("pts2.txt", 2, 3.0, Pose3())
    assert warns.messages() == ["<file_txt_3d> ignored: MVSim uses <file_txt_2d> when both are given"]


def test_pointcloud_errors(xml):
    with pytest.raises(WorldFileError, match="needs a <file_txt_2d> or <file_txt_3d>"):
        element(xml, '<element class="pointcloud"><points_size>2</points_size></element>')
    with pytest.raises(WorldFileError, match="point cloud file not found") as err:
        element(xml, '<element class="pointcloud">\n<file_txt_2d>missing.txt</file_txt_2d></element>')
    assert (err.value.line, err.value.tag) == (2, "file_txt_2d")


# ------------------------------------------------------------------------------------------------ <gui>

def test_gui_options(xml):
    gui = parse_gui(xml("""<gui><win_w>1024</win_w><win_h>768</win_h><start_maximized>false</start_maximized>
        <refresh_fps>40</refresh_fps><ortho>true</ortho><show_forces>true</show_forces>
        <show_sensor_points>false</show_sensor_points><show_sensor_previews>false</show_sensor_previews>
        <show_gui_panels>false</show_gui_panels><show_trajectories>true</show_trajectories>
        <force_scale>0.02</force_scale><cam_distance>35</cam_distance><cam_azimuth>150</cam_azimuth>
        <cam_elevation>15</cam_elevation><fov_deg>80</fov_deg><clip_plane_min>0.1</clip_plane_min>
        <clip_plane_max>500</clip_plane_max><cam_point_to>1 2</cam_point_to>
        <follow_vehicle>r1</follow_vehicle><headless>true</headless></gui>"""), Warnings())
    assert (gui.win_w, gui.win_h, gui.start_maximized, gui.refresh_fps) == (1024, 768, False, 40)
    assert (gui.ortho, gui.show_forces, gui.show_sensor_points, gui.show_sensor_previews) == (
        True, True, False, False)
    assert (gui.show_gui_panels, gui.show_trajectories, gui.force_scale, gui.cam_distance) == (
        False, True, 0.02, 35.0)
    assert (gui.cam_azimuth_rad, gui.cam_elevation_rad, gui.fov_rad) == pytest.approx(
        (math.radians(150), math.radians(15), math.radians(80)))
    assert (gui.clip_plane_min, gui.clip_plane_max, gui.cam_point_to) == (0.1, 500.0, (1.0, 2.0, 0.0))
    assert (gui.follow_vehicle, gui.headless, gui.source.tag) == ("r1", True, "gui")


def test_gui_defaults_and_problems(xml):
    warns = Warnings()
    gui = parse_gui(xml("<gui><light_azimuth>1</light_azimuth></gui>"), warns)
    assert (gui.win_w, gui.win_h, gui.start_maximized, gui.refresh_fps, gui.ortho) == (800, 600, True, 20, False)
    assert (gui.show_forces, gui.show_sensor_points, gui.show_sensor_previews, gui.show_gui_panels) == (
        False, True, True, True)
    assert (gui.show_trajectories, gui.force_scale, gui.cam_distance, gui.headless) == (False, 0.01, 80.0, False)
    assert (gui.cam_azimuth_rad, gui.cam_elevation_rad, gui.fov_rad) == pytest.approx(
        (math.pi / 4, math.radians(40), math.pi / 3))
    assert (gui.clip_plane_min, gui.clip_plane_max, gui.cam_point_to, gui.follow_vehicle) == (
        0.05, 10e3, (0.0, 0.0, 0.0), "")
    assert len(warns) == 1 and warns.messages()[0].startswith("unknown parameter <light_azimuth> for <gui>; skipped")
    with pytest.raises(WorldFileError, match="refresh_fps: expected a whole number"):
        parse_gui(xml("<gui><refresh_fps>2.5</refresh_fps></gui>"), warns)
    with pytest.raises(WorldFileError, match="win_w: 0 is outside the accepted range"):
        parse_gui(xml("<gui><win_w>0</win_w></gui>"), warns)


# ------------------------------------------------------------------------------------------------ <georeference>

def test_georeference(xml):
    node = xml("""<georeference><latitude>36.894718</latitude><longitude>-2.316988</longitude>
        <height>100.0</height><world_to_enu_rotation_deg>30</world_to_enu_rotation_deg></georeference>""")
    geo = parse_georeference(node, Warnings())
    assert (geo.latitude_deg, geo.longitude_deg, geo.height, geo.world_is_utm) == (
        36.894718, -2.316988, 100.0, False)
    assert geo.world_to_enu_rotation_rad == pytest.approx(math.pi / 6)
    geo = parse_georeference(xml("<georeference/>"), Warnings())
    assert (geo.latitude_deg, geo.longitude_deg, geo.height, geo.world_to_enu_rotation_rad) == (0.0, 0.0, 0.0, 0.0)


def test_georeference_errors(xml):
    with pytest.raises(WorldFileError, match="both <world_to_enu_rotation_deg> and <world_is_utm>"):
        parse_georeference(xml("<georeference><latitude>36</latitude><world_to_enu_rotation_deg>5"
                               "</world_to_enu_rotation_deg><world_is_utm>true</world_is_utm></georeference>"))
    with pytest.raises(WorldFileError, match="needs the reference"):
        parse_georeference(xml("<georeference><world_is_utm>true</world_is_utm></georeference>"))
    with pytest.raises(WorldFileError, match="latitude must be within"):
        parse_georeference(xml("<georeference><latitude>95</latitude></georeference>"))


# ------------------------------------------------------------------------------------------------ <lights>

def test_lights(xml):
    warns = Warnings()
    lights = parse_lights(xml("""<lights>
        <enable_shadows>false</enable_shadows><shadow_map_size>1024</shadow_map_size>
        <light_azimuth_deg>-75.0</light_azimuth_deg><light_elevation_deg>50.0</light_elevation_deg>
        <light_color>#ffeedd</light_color><light_ambient>0.5</light_ambient><shadow_cascades>9</shadow_cascades>
        <point_light><position>1 2 3</position></point_light>
    </lights>"""), warns)
    assert (lights.enable_shadows, lights.shadow_map_size, lights.light_color, lights.light_ambient) == (
        False, 1024, "#ffeedd", 0.5)
    assert (lights.light_azimuth_rad, lights.light_elevation_rad) == pytest.approx(
        (math.radians(-75), math.radians(50)))
    assert lights.shadow_cascades == 4  # clamped into 1..4, as MVSim does
    assert [k.tag for k in lights.extra_lights] == ["point_light"]
    assert [(tag, line) for tag, line, _ in warns] == [("enable_shadows", 2), ("point_light", 5)]
    assert warns[0][2].startswith("<lights>: accepted but not used here: enable_shadows, shadow_map_size, "
                                  "light_azimuth_deg, light_elevation_deg, light_color, light_ambient (lighting of ")
    lights = parse_lights(xml("<lights/>"), warns)
    assert (lights.enable_shadows, lights.shadow_map_size, lights.shadow_cascades,
            lights.sensor_shadow_cascades) == (True, 2048, 4, 1)
    assert (lights.light_azimuth_rad, lights.light_elevation_rad) == pytest.approx(
        (math.radians(45), math.radians(70)))
    assert (lights.light_clip_plane_min, lights.light_clip_plane_max, lights.light_ambient,
            lights.light_diffuse, lights.light_specular) == (0.1, 900.0, 0.5, 0.8, 0.6)  # MVSim's ambient: 0.5
    assert (lights.ambient_sky_color, lights.ambient_ground_color) == ("#e0e8ff", "#403a30")


# ------------------------------------------------------------------------------------------------ <walls>

def test_walls_from_shape_close_their_corners(xml):
    walls = parse_walls(xml("""<walls><color>#505050</color><wallThickness>0.1</wallThickness>
        <wallHeight>2.5</wallHeight>
        <shape><pt>0 0</pt><pt>4 0</pt><pt>4 0</pt><pt>4 3</pt></shape></walls>"""), Warnings())
    assert (walls.color, walls.wall_thickness, walls.wall_height, walls.model_uri) == ("#505050", 0.1, 2.5, None)
    assert walls.shape == [(0.0, 0.0), (4.0, 0.0), (4.0, 0.0), (4.0, 3.0)]
    first, second = walls.segments
    assert (first.center_x, first.center_y, first.yaw, first.length) == (2.0, 0.0, 0.0, 4.0)
    # The second wall starts where the first ends: it is pushed back by thickness / 2 to close the corner.
    assert (second.x0, second.y0, second.x1, second.y1) == (4.0, 0.0, 4.0, 3.0)
    assert (second.center_x, second.center_y, second.length) == pytest.approx((4.0, 1.475, 3.05))
    assert second.yaw == pytest.approx(math.pi / 2)
    assert (second.thickness, second.height) == (0.1, 2.5)
    assert np.array(first.polygon()) == pytest.approx(
        np.array([(0.0, -0.05), (4.0, -0.05), (4.0, 0.05), (0.0, 0.05)]))


def test_walls_transformation_defaults_and_problems(xml, tmp_path):
    walls = parse_walls(xml("""<walls><transformation>[0 -1 0 1; 1 0 0 2; 0 0 1 0; 0 0 0 1]</transformation>
        <shape><pt>0 0</pt><pt>2 0</pt><pt>5 5</pt><pt>5 6</pt></shape></walls>"""), Warnings())
    assert (walls.color, walls.wall_thickness, walls.wall_height, walls.scale) == ("#323232", 0.10, 2.0, 1.0)
    assert (walls.segments[0].x0, walls.segments[0].y0, walls.segments[0].x1, walls.segments[0].y1) == (
        1.0, 2.0, 1.0, 4.0)
    warns = Warnings()
    (tmp_path / "walls.dae").write_text("")
    walls = parse_walls(xml("<walls><model_uri>walls.dae</model_uri><scale>2</scale></walls>"), warns)
    assert walls.model_uri == (tmp_path / "walls.dae").resolve() and walls.segments == []
    assert warns.messages() == [
        "<walls>: accepted but not used here: model_uri (walls from a 3D model are not built here: give a <shape>); "
        "scale (MVSim reads it and never applies it)",
    ]
    with pytest.raises(WorldFileError, match="even number of <pt>"):
        parse_walls(xml("<walls><shape><pt>0 0</pt><pt>1 0</pt><pt>1 1</pt></shape></walls>"), warns)
    with pytest.raises(WorldFileError, match="needs a <shape>"):
        parse_walls(xml("<walls><color>#000000</color></walls>"), warns)
    with pytest.raises(WorldFileError, match="walls model file not found"):
        parse_walls(xml("<walls><model_uri>nope.dae</model_uri></walls>"), warns)
    with pytest.raises(WorldFileError, match="4x4 matrix"):
        parse_walls(xml("<walls><transformation>[1 0; 0 1]</transformation><shape><pt>0 0</pt><pt>1 0</pt>"
                        "<pt>2 0</pt><pt>3 0</pt></shape></walls>"), warns)
    with pytest.raises(WorldFileError, match="zero length"):
        parse_walls(xml("<walls><shape><pt>0 0</pt><pt>0 0</pt><pt>2 0</pt><pt>3 0</pt></shape></walls>"), warns)


# ------------------------------------------------------------------------------------------------ <marker>

def test_marker_line_strip(xml):
    marker = parse_marker(xml("""<marker type="line_strip"><color>#ff0000</color>
        <translation>1 2 3</translation>
        <points>
          0 0 0
          1 0 0.5
        </points></marker>"""), Warnings())
    assert (marker.type, marker.color, marker.translation) == ("line_strip", "#ff0000", (1.0, 2.0, 3.0))
    assert marker.points == [(0.0, 0.0, 0.0), (1.0, 0.0, 0.5)]
    with pytest.raises(WorldFileError, match="type="):
        parse_marker(xml("<marker><points>0 0 0</points></marker>"))
    with pytest.raises(WorldFileError, match="unknown <marker> type 'arrow'"):
        parse_marker(xml('<marker type="arrow"/>'))
    with pytest.raises(WorldFileError, match="needs <points>"):
        parse_marker(xml('<marker type="line_strip"/>'))
