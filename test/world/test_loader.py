"""Loading MVSim world files: values, includes, variables, and errors that name file, line and tag."""

import math

import numpy as np
import pytest
from PIL import Image

from conftest import DEMO_WORLD, robot_world_xml
from mvsim_ros.world import WorldFileError, load_world, load_world_string


def test_demo_world_loads_with_its_values():
    world = load_world(DEMO_WORLD)
    assert world.timestep == 0.005
    assert (world.b2d_vel_iters, world.b2d_pos_iters) == (6, 3)
    assert [v.name for v in world.vehicles] == ["r1", "r2"]
    r2 = world.vehicles[1]
    assert (r2.init_pose.x, r2.init_pose.y) == (-8.0, -4.0)
    assert r2.init_pose.yaw == pytest.approx(math.pi / 2)
    assert r2.dynamics == "differential" and r2.class_name == "demo_diff_robot"
    assert [(w.name, w.x, w.y, w.diameter, w.mass) for w in r2.wheels] == [
        ("l_wheel", 0.0, 0.25, 0.20, 1.0), ("r_wheel", 0.0, -0.25, 0.20, 1.0)]
    assert r2.chassis.mass == 15.0 and len(r2.chassis.shape) == 5
    assert r2.friction.model == "default"
    assert r2.friction.params == {"mu": 0.8, "C_damping": 0.05, "C_rr": 0.01}
    assert r2.controller.kind == "twist_pid" and r2.controller.params["max_torque"] == 6.5
    assert [b.name for b in world.blocks] == ["box1", "box2", "box3"]
    assert world.blocks[1].init_pose.yaw == pytest.approx(math.radians(30))
    # MVSim anchors a <geometry type="box"> at its corner: (0, 0) .. (lx, ly) in the block frame.
    assert world.blocks[0].shape == [(0.0, 0.0), (0.8, 0.0), (0.8, 0.8), (0.0, 0.8)]
    assert (world.blocks[0].zmin, world.blocks[0].zmax) == (0.0, 0.8)
    grid = world.occupancy_grids[0]
    assert grid.occupied.shape == (160, 240) and grid.resolution == 0.1
    assert (grid.x_min, grid.y_min) == pytest.approx((-12.0, -8.0))
    assert world.warnings == []


def test_occupancy_image_rows_run_north_to_south(tmp_path, write_world):
    img = np.full((10, 20), 255, np.uint8)
    img[0, 19] = 0  # top-right pixel: the north-east corner cell
    Image.fromarray(img).save(tmp_path / "m.png")
    world = load_world(write_world(robot_world_xml(grid_file="m.png")))
    grid = world.occupancy_grids[0]
    rows, cols = np.nonzero(grid.occupied)
    assert (rows.tolist(), cols.tolist()) == ([9], [19])
    cell_x = grid.x_min + (cols[0] + 0.5) * grid.resolution
    cell_y = grid.y_min + (rows[0] + 0.5) * grid.resolution
    assert (cell_x, cell_y) == pytest.approx((0.95, 0.45))


def test_init_vel_and_controller_setpoints_convert_degrees_to_radians():
    text = robot_world_xml().replace(
        "<KD>0</KD>", "<KD>0</KD><V>0.3</V><W>90</W>").replace(
        "<init_pose>0 0 0</init_pose>", "<init_pose>1 2 45</init_pose><init_vel>0.5 0 180</init_vel>")
    vehicle = load_world_string(text).vehicles[0]
    assert vehicle.controller.params["V"] == 0.3
    assert vehicle.controller.params["W"] == pytest.approx(math.pi / 2)
    assert vehicle.init_vel.omega == pytest.approx(math.pi)
    assert vehicle.init_pose.yaw == pytest.approx(math.pi / 4)


def test_include_with_variables_and_name_substitution(tmp_path):
    (tmp_path / "defs").mkdir()
    (tmp_path / "defs" / "crate.block.xml").write_text(
        '<block:class name="crate_${size}">\n  <mass>${mass|12}</mass>\n'
        '  <geometry type="box" lx="${size}" ly="${size}" lz="1"/>\n</block:class>\n')
    world_file = tmp_path / "w.world.xml"
    world_file.write_text(
        '<mvsim_world version="1.0">\n  <variable name="side" value="0.5"/>\n'
        '  <include file="defs/crate.block.xml" size="${side}"/>\n'
        '  <block class="crate_0.5" name="c1"><init_pose>1 1 0</init_pose></block>\n</mvsim_world>\n')
    block = load_world(world_file).blocks[0]
    assert block.name == "c1" and block.mass == 12.0
    assert block.shape[2] == (0.5, 0.5)


def test_include_cycle_is_reported_with_the_chain(tmp_path):
    (tmp_path / "a.xml").write_text('<mvsim_world><include file="b.xml"/></mvsim_world>')
    (tmp_path / "b.xml").write_text('<mvsim_world><include file="a.xml"/></mvsim_world>')
    with pytest.raises(WorldFileError, match=r"include cycle: .*a\.xml -> .*b\.xml -> .*a\.xml"):
        load_world(tmp_path / "a.xml")


@pytest.mark.parametrize("old, new, line, tag, message", [
    ('class="differential"', 'class="hovercraft"', 5, "dynamics",
     "unknown dynamics class 'hovercraft'; valid: differential"),
    ('<friction class="default">', '<friction class="sandpaper">', 14, "friction",
     "unknown friction class 'sandpaper'; valid: default"),
    ('<controller class="twist_pid">', '<controller class="magic">', 10, "controller",
     "unknown controller class 'magic' for this dynamics; valid: raw, twist_pid, twist_ideal"),
    ('<KP>60.0</KP>', '<KP>fast</KP>', 11, "KP", "KP: expected a number, got 'fast'"),
    ('mass="1.0" width', 'mass="-1" width', 8, "l_wheel", "wheel mass: must be > 0"),
    ('<init_pose>0 0 0</init_pose>', '<init_pose>0 0</init_pose>', 16, "init_pose", "expected 3 numbers"),
    ('class="bot"><init', 'class="robot"><init', 16, "vehicle", "unknown vehicle class 'robot'"),
])
def test_errors_name_file_line_and_tag(write_world, old, new, line, tag, message):
    text = robot_world_xml()
    assert old in text
    path = write_world(text.replace(old, new, 1))
    with pytest.raises(WorldFileError) as info:
        load_world(path)
    err = info.value
    assert (err.file, err.line, err.tag) == (str(path), line, tag)
    assert message in str(err)
    assert str(err).startswith(f"{path}:{line}: <{tag}>: ")


def test_malformed_xml_names_file_and_line(write_world):
    path = write_world('<mvsim_world>\n<simul_timestep>0.01</simul_timestep>\n<vehicle name="a">\n</mvsim_world>')
    with pytest.raises(WorldFileError, match=rf"^{path}:4: malformed XML .*mismatched tag"):
        load_world(path)


def test_missing_world_and_missing_image_are_reported(tmp_path, write_world):
    with pytest.raises(WorldFileError, match="world file not found"):
        load_world(tmp_path / "absent.xml")
    with pytest.raises(WorldFileError, match=r"occupancy image not found: .*nope\.png"):
        load_world(write_world(robot_world_xml(grid_file="nope.png")))


def test_unknown_tags_warn_with_location_and_the_world_still_loads():
    text = robot_world_xml(extra='<ghost_tag><a>1</a></ghost_tag>\n<element class="ground_grid"><bogus>1</bogus>'
                                 '</element>')
    world = load_world_string(text, file="w.xml")
    assert len(world.vehicles) == 1 and len(world.elements) == 1
    assert any(w.startswith("w.xml:17: <ghost_tag>: unknown tag") for w in world.warnings)
    assert any(w.startswith("w.xml:18: <bogus>: unknown parameter") for w in world.warnings)


@pytest.mark.parametrize("payload, reason", [
    ('<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>'
     '<mvsim_world>&lol2;</mvsim_world>', "EntitiesForbidden"),
    ('<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><mvsim_world>&xxe;</mvsim_world>',
     "EntitiesForbidden"),
])
def test_entity_attacks_are_refused(payload, reason):
    with pytest.raises(WorldFileError, match=reason):
        load_world_string(payload, file="evil.xml")


def test_expressions_in_vehicle_parameters():
    text = robot_world_xml().replace("<KP>60.0</KP>", "<KP>$f{30*2.5}</KP>")
    assert load_world_string(text).vehicles[0].controller.params["KP"] == 75.0


def test_twist_ideal_ignores_the_pid_gains_mvsim_definitions_give_it():
    """MVSim's jackal and turtlebot definitions keep twist_pid gains under a twist_ideal controller: ignored
    quietly, as MVSim does; a tag no controller knows is still reported."""
    spec = load_world_string('''<mvsim_world version="1.0"><vehicle name="v"><dynamics class="differential">
      <controller class="twist_ideal"><KP>10</KP><KI>1</KI><KD>0</KD><I_MAX>5</I_MAX><max_torque>30</max_torque>
        <V>0.5</V><foo>1</foo></controller></dynamics></vehicle></mvsim_world>''')
    controller = spec.vehicles[0].controller
    assert controller.kind == "twist_ideal" and controller.params == {"V": 0.5, "W": 0.0}
    assert len(spec.warnings) == 1 and "<foo>: unknown parameter <foo> for controller 'twist_ideal'" in spec.warnings[0]
