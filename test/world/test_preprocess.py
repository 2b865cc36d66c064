"""Includes, variables, loops, conditions and inline expressions, as world files use them."""

import math
import os

import pytest

from conftest import robot_world_xml
from mvsim_ros.world import WorldFileError, load_world, load_world_string


def blocks_world(body: str) -> str:
    return f'<mvsim_world version="1.0">\n{body}\n</mvsim_world>\n'


def test_for_loop_is_inclusive_and_expressions_use_the_loop_variable():
    world = load_world_string(blocks_world(
        '<for var="i" from="1" to="4"><block name="b${i}"><init_pose>$f{2*${i}+0.5} $f{${i}^2} 0</init_pose>'
        '</block></for>'))
    assert [b.name for b in world.blocks] == ["b1", "b2", "b3", "b4"]
    assert [(b.init_pose.x, b.init_pose.y) for b in world.blocks] == [(2.5, 1), (4.5, 4), (6.5, 9), (8.5, 16)]


def test_expression_values_are_exact():
    world = load_world_string(blocks_world(
        '<variable name="a" value="$f{1/3}"/><block name="b"><mass>$f{0.1+0.2}</mass>'
        '<init_pose>${a} $f{atan2(1,1)*4} $f{-2^2}</init_pose></block>'))
    block = world.blocks[0]
    assert block.mass == 0.1 + 0.2
    assert block.init_pose.x == 1 / 3
    assert block.init_pose.y == math.pi
    assert block.init_pose.yaw == math.radians(-4)


def test_if_keeps_or_drops_its_children():
    world = load_world_string(blocks_world(
        '<variable name="n" value="3"/>'
        '<if condition="${n} > 2 and not 0"><block name="kept"/></if>'
        '<if condition="${n} == 2"><block name="dropped"/></if>'
        '<if condition="false"><block name="dropped2"/></if>'))
    assert [b.name for b in world.blocks] == ["kept"]


def test_default_values_environment_and_current_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("MVSIM_TEST_MASS", "42.5")
    path = tmp_path / "w.world.xml"
    path.write_text(blocks_world(
        '<block name="b"><mass>$env{MVSIM_TEST_MASS}</mass><zmax>${height|2.5}</zmax></block>'
        '<variable name="dir" value="${MVSIM_CURRENT_FILE_DIRECTORY}"/>'
        '<block name="${dir}"/>'))
    world = load_world(path)
    assert world.blocks[0].mass == 42.5 and world.blocks[0].zmax == 2.5
    assert world.blocks[1].name == str(tmp_path)


def test_undefined_environment_variable_and_variable_are_errors():
    os.environ.pop("MVSIM_SURELY_UNDEFINED", None)
    with pytest.raises(WorldFileError, match=r"undefined environment variable \$env\{MVSIM_SURELY_UNDEFINED\}"):
        load_world_string(blocks_world('<block name="$env{MVSIM_SURELY_UNDEFINED}"/>'))
    with pytest.raises(WorldFileError, match=r"undefined variable \$\{nope\}"):
        load_world_string(blocks_world('<block name="${nope}"/>'))


def test_shell_commands_are_refused_unless_allowed():
    text = blocks_world('<block name="$(echo crate)"/>')
    with pytest.raises(WorldFileError, match="allow_shell_in_world"):
        load_world_string(text)
    assert load_world_string(text, allow_shell=True).blocks[0].name == "crate"


def test_expression_errors_name_the_expression():
    with pytest.raises(WorldFileError, match=r"in \$f\{__import__\('os'\)\}"):
        load_world_string(blocks_world('<block name="b"><mass>$f{__import__(\'os\')}</mass></block>'))
    with pytest.raises(WorldFileError, match="division by zero"):
        load_world_string(blocks_world('<block name="b"><mass>$f{1/0}</mass></block>'))


def test_random_values_follow_the_seed():
    text = blocks_world('<for var="i" from="1" to="3"><block name="b${i}"><mass>$f{1+rand()}</mass></block></for>')
    first = [b.mass for b in load_world_string(text, random_seed=7).blocks]
    again = [b.mass for b in load_world_string(text, random_seed=7).blocks]
    other = [b.mass for b in load_world_string(text, random_seed=8).blocks]
    assert first == again and first != other
    assert all(1.0 <= m < 2.0 for m in first) and len(set(first)) == 3


def test_name_and_parent_name_inside_vehicles_and_sensors():
    sensor = ('<sensor class="laser" name="${NAME}_laser"><publish><publish_topic>/${PARENT_NAME}/${NAME}'
              '</publish_topic></publish><pose>0.1 0 0</pose></sensor>')
    text = robot_world_xml().replace('<init_pose>0 0 0</init_pose>', f'<init_pose>0 0 0</init_pose>{sensor}')
    vehicle = load_world_string(text).vehicles[0]
    assert vehicle.sensors[0].name == "r1_laser"
    assert vehicle.sensors[0].publish["publish_topic"] == "/r1/r1_laser"


def test_include_depth_is_limited(tmp_path):
    (tmp_path / "deep.xml").write_text('<mvsim_world><include file="deep.xml" x="1"/></mvsim_world>')
    with pytest.raises(WorldFileError, match="include cycle"):
        load_world(tmp_path / "deep.xml")
    for k in range(20):
        (tmp_path / f"d{k}.xml").write_text(f'<mvsim_world><include file="d{k + 1}.xml"/></mvsim_world>')
    (tmp_path / "d20.xml").write_text("<mvsim_world/>")
    with pytest.raises(WorldFileError, match="nested deeper than 16"):
        load_world(tmp_path / "d0.xml")


def test_huge_loops_are_refused():
    with pytest.raises(WorldFileError, match="limit max_loop_iterations = "):
        load_world_string(blocks_world('<for var="i" from="1" to="1000000000"><block/></for>'))
