"""World and object contexts read through their parameter tables: a world written with MVSim's names gives MVSim's
values (test/worlds/mvsim_names.world.xml), MVSim's defaults when absent, and one located warning for each tag or
attribute a context does not know."""

import math
from pathlib import Path

import pytest

from mvsim_ros.world import load_world, load_world_string
from mvsim_ros.world.specs import (ElevationMapSpec, HorizontalPlaneSpec, PointCloudSpec, PropertyRegionSpec,
                                   SkyBoxSpec, VerticalPlaneSpec)
from mvsim_ros.world.params.world_tables import TABLES
from mvsim_ros.world.elements.world_options import geodetic_to_utm

WORLD = Path(__file__).resolve().parents[1] / "worlds" / "mvsim_names.world.xml"
ROBOT = '<include file="{defs}/diff_robot.vehicle.xml"/><vehicle name="r1" class="diff_robot"/>'
DEFINITIONS = Path(__file__).resolve().parents[2] / "worlds" / "definitions"


def world_text(body: str) -> str:
    return f'<mvsim_world version="1.0">\n{body}\n</mvsim_world>'


def load(body: str, tmp_path: Path):
    path = tmp_path / "w.world.xml"
    path.write_text(world_text(body))
    return load_world(path)


@pytest.fixture(scope="module")
def world():
    return load_world(WORLD)


def test_world_parameters_by_mvsim_name(world):
    assert (world.gravity, world.b2d_vel_iters, world.b2d_pos_iters) == (9.5, 11, 5)
    assert world.collision_threshold == 0.07  # metres, MVSim's gap
    assert world.timestep == 0.004  # <simul_timestep>0: the laser's 4 ms period is shorter than 5 ms
    assert (world.ground_truth_trajectory, world.ground_truth_rate) == ("gt_out.txt", 25.0)


def test_gui_and_georeference_by_mvsim_name(world):
    gui = world.gui
    assert (gui.cam_distance, gui.follow_vehicle, gui.cam_point_to) == (12.0, "r1", (1.0, 2.0, 3.0))
    assert (gui.cam_azimuth_rad, gui.cam_elevation_rad, gui.fov_rad) == pytest.approx(
        (math.radians(30), math.radians(20), math.radians(70)))
    geo = world.georeference
    assert (geo.latitude_deg, geo.longitude_deg, geo.height, geo.world_is_utm) == (-33.8688, 151.2093, 40.0, True)
    assert (geo.utm_zone, geo.utm_band) == (56, "H")
    # Sydney's UTM coordinates (zone 56H), as any UTM converter gives them:
    assert (geo.utm_easting, geo.utm_northing) == pytest.approx((334368.6, 6250948.3), abs=0.1)
    assert geo.world_to_local(geo.utm_easting + 5.0, geo.utm_northing - 2.0, 41.0) == pytest.approx((5.0, -2.0, 1.0))


def test_block_parameters_by_mvsim_name(world):
    crate, post = world.blocks
    assert (crate.mass, crate.ground_friction, crate.lateral_friction, crate.restitution) == (12.0, 0.3, 0.7, 0.4)
    assert (crate.linear_damping, crate.angular_damping, crate.color) == (0.25, 0.35, "#112233")
    assert (crate.zmin, crate.zmax, crate.static, crate.intangible) == (0.1, 0.9, False, False)
    assert crate.shape == [(0.0, 0.0), (0.5, 0.0), (0.5, 0.5), (0.0, 0.5)]  # ${SIDE} from a <variable>
    assert (crate.init_pose.x, crate.init_pose.y, crate.init_pose.yaw) == pytest.approx((4.0, 1.0, math.pi / 2))
    assert (crate.init_vel.vx, crate.init_vel.vy, crate.init_vel.omega) == pytest.approx((1.0, 0.5, math.pi / 6))
    # MVSim's box geometry spans (0, 0)..(lx, ly) from the block's origin: not centred.
    assert post.static and sorted(post.shape) == [(0.0, 0.0), (0.0, 0.2), (0.4, 0.0), (0.4, 0.2)]
    assert (post.zmin, post.zmax) == (0.0, 1.5)


def test_block_defaults_are_mvsim_defaults():
    block = load_world_string(world_text('<block name="b"/>')).blocks[0]
    assert (block.mass, block.ground_friction, block.lateral_friction, block.restitution) == (30.0, 0.5, 0.5, 0.01)
    assert (block.linear_damping, block.angular_damping, block.color) == (0.1, 0.1, "#0000ff")
    assert (block.zmin, block.zmax) == (0.0, 1.0)
    assert block.shape == [(-0.5, -0.5), (-0.5, 0.5), (0.5, 0.5), (0.5, -0.5)]


def test_joint_parameters_by_mvsim_name(world):
    rod, pin = world.joints
    assert (rod.kind, rod.anchor_a, rod.anchor_b) == ("distance", (-0.3, 0.0), (0.0, 0.25))
    assert (rod.min_length, rod.max_length, rod.stiffness, rod.damping) == (2.5, 2.5, 150.0, 12.0)  # N/m, N s/m
    assert (pin.kind, pin.enable_limit) == ("revolute", True)
    assert (pin.lower_angle, pin.upper_angle) == pytest.approx((math.radians(-30), math.radians(45)))
    assert pin.max_length == 5.0  # MVSim's default


def test_walls_and_marker_by_mvsim_name(world):
    walls = world.walls[0]
    assert (walls.wall_thickness, walls.wall_height, walls.color) == (0.2, 1.2, "#445566")
    assert (walls.segments[0].x0, walls.segments[0].x1) == (10.0, 13.0)  # moved by <transformation>
    marker = next(e for e in world.elements if type(e).__name__ == "MarkerSpec")
    assert marker.points == [(0.0, 0.0, 0.0), (1.0, 1.0, 0.0)]


def test_elements_by_mvsim_name(world):
    emap = next(e for e in world.elements if isinstance(e, ElevationMapSpec))
    assert emap.heights.tolist() == [[0.0, 0.5], [1.0, 1.5]]  # elevation_data_matrix x its scale 0.5
    assert (emap.resolution, emap.corner_min_x, emap.corner_min_y, emap.mesh_color) == (2.0, 20.0, 30.0, "#102030")
    assert (emap.texture_extension_x, emap.texture_extension_y, emap.model_split_size) == (4.0, 6.0, 8.0)
    hplane = next(e for e in world.elements if isinstance(e, HorizontalPlaneSpec))
    assert (hplane.x_min, hplane.x_max, hplane.y_min, hplane.y_max, hplane.z) == (-1.0, 2.0, -3.0, 4.0, 0.25)
    assert (hplane.color, hplane.cull_face, hplane.texture_size_x, hplane.texture_size_y) == (
        "#aabbcc", "BACK", 2.0, 3.0)
    vplane = next(e for e in world.elements if isinstance(e, VerticalPlaneSpec))
    assert (vplane.x0, vplane.y0, vplane.x1, vplane.y1, vplane.z, vplane.height) == (0.0, -5.0, 4.0, -5.0, 0.1, 2.5)
    assert (vplane.thickness, vplane.color, vplane.cull_face) == (0.02, "#ccbbaa", "FRONT")
    door, window = vplane.openings
    assert (door.kind, door.position, door.width, door.z_min, door.z_max) == ("door", 0.25, 0.8, 0.0, 2.0)
    assert (window.kind, window.position, window.width, window.z_min, window.z_max, window.name) == (
        "window", 0.75, 0.6, 1.0, 1.8, "w1")
    region = next(e for e in world.elements if isinstance(e, PropertyRegionSpec))
    assert (region.property_name, region.value, region.x_min, region.z_max) == ("friction_mu", 0.2, 1.0, 1.0)
    cloud = next(e for e in world.elements if isinstance(e, PointCloudSpec))
    assert (cloud.dimensions, cloud.points_size, cloud.pose.z) == (2, 5.0, 3.0)
    assert cloud.pose.yaw == pytest.approx(math.pi / 2)
    sky = next(e for e in world.elements if isinstance(e, SkyBoxSpec))
    assert sky.faces()["Up"] == "https://example.org/sky/Up.jpg"
    grid = world.occupancy_grids[0]
    assert (grid.resolution, grid.restitution, grid.lateral_friction) == (0.05, 0.3, 0.9)


def test_actor_and_visual_by_mvsim_name(world):
    actor = world.actors[0]
    assert (actor.walking_speed, actor.running_speed, actor.height) == (1.1, 2.9, 1.6)
    assert (actor.collision_radius, actor.collision_height) == (0.25, 1.5)
    assert actor.clips == {"idle": "stand", "walk": "stroll", "run": "sprint"}
    assert actor.loop is False and len(actor.path) == 1
    assert (actor.path[0].pause, actor.path[0].animation, actor.path[0].pose.x) == (1.5, "run", 8.0)
    visual = actor.visual
    assert (visual.model_uri, visual.model_scale, visual.offset) == (
        "https://example.org/walker.dae", 2.0, (0.1, 0.2, 0.3))
    assert visual.yaw_pitch_roll_rad == pytest.approx((math.pi / 2, math.radians(10), math.radians(20)))


def test_only_the_gui_only_marker_is_warned_about(world):
    warnings = [w for w in world.warnings if "https://example.org/walker.dae" not in w]  # the actor's model: offline
    assert len(warnings) == 1 and ":72: <points>: <marker type=\"line_strip\">: accepted but not used here: " \
        "points (drawn by MVSim's GUI only)" in warnings[0]


def test_world_defaults_are_mvsim_defaults():
    world = load_world_string(world_text(""))
    assert (world.gravity, world.b2d_vel_iters, world.b2d_pos_iters) == (9.81, 8, 3)
    assert (world.collision_threshold, world.timestep) == (0.03, 0.005)
    assert (world.ground_truth_trajectory, world.ground_truth_rate) == ("", 50.0)


def test_vertical_plane_thickness_default_is_two_centimetres():
    plane = load_world_string(world_text('<element class="vertical_plane"><x0>0</x0><y0>0</y0><x1>2</x1>'
                                         '<y1>0</y1></element>')).elements[0]
    xs, ys = zip(*plane.collision_polygons()[0])
    assert (max(ys) - min(ys), max(xs) - min(xs)) == pytest.approx((0.02, 2.0))


def test_elevation_map_dem_offsets_shift_the_samples(tmp_path):
    rows = [f"{x} {y} {x + y} 0 0 0" for x in range(3) for y in range(3)]
    (tmp_path / "dem.txt").write_text("\n".join(rows))
    world = load(('<element class="elevation_map"><dem_xyzrgb_file>dem.txt</dem_xyzrgb_file>'
                  '<resolution>1</resolution><dem_offset_x>100</dem_offset_x><dem_offset_y>-50</dem_offset_y>'
                  '<dem_offset_z>2</dem_offset_z></element>'), tmp_path)
    emap = world.elements[0]
    assert (emap.corner_min_x, emap.corner_min_y) == (100.0, -50.0)
    # Sample [i, j] is the point nearest to corner + (i + 0.5, j + 0.5): the DEM point (i, j), its z raised by 2 m.
    assert emap.heights.tolist() == [[2.0, 3.0], [3.0, 4.0]]


# ---------------------------------------------------------------------------------------- automatic time step

def sensor_world(period: str | None, step: str | None) -> str:
    sensor = "" if period is None else \
        f'<sensor class="laser" name="s"><sensor_period>{period}</sensor_period></sensor>'
    head = "" if step is None else f"<simul_timestep>{step}</simul_timestep>"
    return world_text(f'{head}<include file="{DEFINITIONS}/diff_robot.vehicle.xml"/>'
                      f'<vehicle name="r1" class="diff_robot">{sensor}</vehicle>')


@pytest.mark.parametrize("period, step, expected", [
    (None, None, 0.005),  # no sensor: MVSim's 5 ms
    ("0.002", None, 0.002),  # absent: as 0
    ("0.002", "0", 0.002),  # the shortest sensor period when it is below 5 ms
    ("0.05", "0", 0.005),  # else 5 ms
    ("0.05", "0.01", 0.01),  # a given step is kept
])
def test_automatic_timestep_is_the_shorter_of_5ms_and_the_shortest_sensor_period(period, step, expected):
    world = load_world_string(sensor_world(period, step))
    assert world.timestep == expected
    assert not [w for w in world.warnings if "simul_timestep" in w]


def test_a_world_sensor_does_not_shorten_the_automatic_step_but_a_long_step_is_warned_about():
    world = load_world_string(world_text('<sensor class="laser" name="fixed"><sensor_period>0.001</sensor_period>'
                                         '</sensor>'))
    assert world.timestep == 0.005  # as MVSim: only sensors on vehicles count
    world = load_world_string(sensor_world("0.002", "0.01"))
    assert world.timestep == 0.01
    assert len(world.warnings) == 1 and "<simul_timestep>: simul_timestep 0.01 s is longer than the sensor_period " \
        "0.002 s of sensor 'r1/s'" in world.warnings[0]


# ---------------------------------------------------------------------------------- unknown tags and attributes

BOGUS_CASES = {
    "world tag": ("<bogus_tag>1</bogus_tag>", "bogus_tag"),
    "world attribute": None,  # on the root: see test_an_unknown_root_attribute_is_warned_once
    "gui": ("<gui><bogus_tag>1</bogus_tag></gui>", "bogus_tag"),
    "lights": ("<lights><bogus_tag>1</bogus_tag></lights>", "bogus_tag"),
    "georeference": ("<georeference><bogus_tag>1</bogus_tag></georeference>", "bogus_tag"),
    "variable": ('<variable name="A" value="1" bogus_attr="2"/>', "variable"),
    "for": ('<for var="i" from="1" to="1" bogus_attr="2"></for>', "for"),
    "if": ('<if condition="false" bogus_attr="2"></if>', "if"),
    "class_def": ('<block:class name="c" bogus_attr="2"/>', "block:class"),
    "marker": ('<marker type="line_strip" bogus_attr="2"><points>0 0 0</points></marker>', "marker"),
    "walls": ("<walls><bogus_tag>1</bogus_tag><shape><pt>0 0</pt><pt>1 0</pt><pt>1 0</pt><pt>1 1</pt></shape>"
              "</walls>", "bogus_tag"),
    "joint": (ROBOT + '<block name="b"/><joint type="pin" body_a="r1" body_b="b" anchor_a="0 0" anchor_b="0 0" '
              'bogus_attr="1"/>', "joint"),
    "block tag": ('<block name="b"><bogus_tag>1</bogus_tag></block>', "bogus_tag"),
    "block attribute": ('<block name="b" bogus_attr="1"/>', "block"),
    "block animation": ('<block name="b"><animation type="keyframes" bogus_attr="1"><time_pose>0 0 0 0</time_pose>'
                        '</animation></block>', "animation"),
    "block geometry": ('<block name="b"><geometry type="box" lx="1" ly="1" lz="1" bogus_attr="1"/></block>',
                       "geometry"),
    "element attribute": ('<element class="property_region" bogus_attr="1"><property_name>p</property_name>'
                          '<value_bool>true</value_bool></element>', "element"),
    "occupancy_grid": ('<element class="occupancy_grid"><file>{maps}/demo_room.png</file>'
                       '<bogus_tag>1</bogus_tag></element>', "bogus_tag"),
    "elevation_map": ('<element class="elevation_map"><elevation_data_matrix>[0 1; 1 0]</elevation_data_matrix>'
                      '<bogus_tag>1</bogus_tag></element>', "bogus_tag"),
    "horizontal_plane": ('<element class="horizontal_plane"><bogus_tag>1</bogus_tag></element>', "bogus_tag"),
    "vertical_plane": ('<element class="vertical_plane"><bogus_tag>1</bogus_tag></element>', "bogus_tag"),
    "opening attribute": ('<element class="vertical_plane"><door bogus_attr="1"/></element>', "door"),
    "opening tag": ('<element class="vertical_plane"><window><bogus_tag>1</bogus_tag></window></element>',
                    "bogus_tag"),
    "ground_grid": ('<element class="ground_grid"><bogus_tag>1</bogus_tag></element>', "bogus_tag"),
    "pointcloud": ('<element class="pointcloud"><file_txt_2d>{maps}/maps/yard_points.txt</file_txt_2d>'
                   '<bogus_tag>1</bogus_tag></element>', "bogus_tag"),
    "skybox": ('<element class="skybox"><textures>https://h/%s.jpg</textures><bogus_tag>1</bogus_tag></element>',
               "bogus_tag"),
    "property_region": ('<element class="property_region"><property_name>p</property_name>'
                        '<value_bool>true</value_bool><bogus_tag>1</bogus_tag></element>', "bogus_tag"),
    "actor": ('<actor name="a"><bogus_tag>1</bogus_tag></actor>', "bogus_tag"),
    "actor path": ('<actor name="a"><path bogus_attr="1"><waypoint>1 1 0</waypoint></path></actor>', "path"),
    "waypoint": ('<actor name="a"><path><waypoint bogus_attr="1">1 1 0</waypoint></path></actor>', "waypoint"),
    "visual tag": ('<block name="b"><visual><bogus_tag>1</bogus_tag></visual></block>', "bogus_tag"),
    "visual attribute": ('<block name="b"><visual bogus_attr="1"/></block>', "visual"),
}


@pytest.mark.parametrize("context", [k for k, v in BOGUS_CASES.items() if v is not None])
def test_an_unknown_tag_or_attribute_is_warned_once_with_its_line(context, tmp_path):
    body, tag = BOGUS_CASES[context]
    body = body.replace("{maps}", str(Path(__file__).resolve().parents[2] / "worlds"))
    body = body.replace(ROBOT, ROBOT.format(defs=DEFINITIONS))
    world = load(body, tmp_path)
    bogus = [w for w in world.warnings if "bogus" in w]
    assert len(bogus) == 1, world.warnings
    assert bogus[0].startswith(f"{tmp_path / 'w.world.xml'}:2: <{tag}>: ")


def test_an_unknown_root_attribute_is_warned_once():
    world = load_world_string('<mvsim_world version="1.0" bogus_attr="1"></mvsim_world>', file="r.xml")
    assert world.warnings == ['r.xml:1: <mvsim_world>: unknown attribute bogus_attr="1" for <mvsim_world>; skipped '
                              '(known: version)']


def test_not_simulated_world_parameters_are_named_once():
    world = load_world_string(world_text("<save_to_rawlog>a.rawlog</save_to_rawlog>\n"
                                         "<rawlog_odometry_rate>5</rawlog_odometry_rate>\n"
                                         "<server_address>h</server_address>"), file="n.xml")
    assert world.warnings == [
        "n.xml:2: <save_to_rawlog>: <mvsim_world>: accepted but not used here: save_to_rawlog, rawlog_odometry_rate "
        "(MVSim's MRPT .rawlog output; record with the CSV logs or MCAP recording here); server_address (MVSim's "
        "ZMQ communication server; this simulator talks ROS 2 only)"]


def test_every_json_context_of_the_world_group_has_a_table():
    contexts = {t.context for t in TABLES}
    for context in ("world", "world.include", "world.variable", "world.for", "world.if", "world.class_def", "marker",
                    "walls", "joint", "block", "element.common", "element.occupancy_grid", "element.elevation_map",
                    "element.horizontal_plane", "element.vertical_plane", "element.vertical_plane.opening",
                    "element.ground_grid", "element.pointcloud", "element.skybox", "element.property_region", "actor",
                    "visual"):
        assert context in contexts


def test_utm_reference_points():
    assert geodetic_to_utm(0.0, -3.0) == pytest.approx((500000.0, 0.0, 30, "N"))  # on zone 30's central meridian
    easting, northing, zone, band = geodetic_to_utm(0.0, 0.0)  # the textbook value of (0, 0): 31N 166021.44 E
    assert (easting, northing, zone, band) == (pytest.approx(166021.44, abs=0.01), pytest.approx(0.0), 31, "N")
    assert geodetic_to_utm(60.0, 5.0)[2] == 32  # south-west Norway's exception
