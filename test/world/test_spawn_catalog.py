"""The spawn catalog (world/spawn_catalog.py): instances of a world's classes built as the loader builds them,
from a class name or from untrusted XML text, with clear errors."""

import dataclasses
import math
import re

import pytest

from conftest import DEMO_WORLD
from mvsim_ros.world import load_world, load_world_string
from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.specs import BlockSpec, VehicleSpec


@pytest.fixture(scope="module")
def demo():
    return load_world(DEMO_WORLD)


def test_the_catalog_lists_the_world_classes(demo):
    assert demo.catalog.vehicle_classes() == ["demo_diff_robot"]
    assert demo.catalog.block_classes() == ["box_small"]
    assert dataclasses.replace(demo, catalog=None) == demo  # not part of the world's value


def test_an_instance_from_a_class_is_the_loaders_instance_at_the_given_pose(demo):
    loaded = demo.vehicles[0]
    spawned = demo.catalog.from_class("demo_diff_robot", "r7", 3.5, -2.0, math.radians(30.0))
    assert isinstance(spawned, VehicleSpec) and spawned.name == "r7"
    assert (spawned.init_pose.x, spawned.init_pose.y) == (3.5, -2.0)
    assert spawned.init_pose.yaw == pytest.approx(math.radians(30.0), abs=1e-15)
    for part in ("class_name", "dynamics", "chassis", "wheels", "friction", "controller", "dynamics_params"):
        assert getattr(spawned, part) == getattr(loaded, part), part
    assert [s.kind for s in spawned.sensors] == [s.kind for s in loaded.sensors] and spawned.sensors
    assert spawned.sensors[0].params == loaded.sensors[0].params


def test_a_block_class_instance(demo):
    block = demo.catalog.from_class("box_small", "crate9", 1.0, 2.0, -0.5)
    assert isinstance(block, BlockSpec) and block.name == "crate9"
    assert (block.init_pose.x, block.init_pose.y, block.init_pose.yaw) == (1.0, 2.0, -0.5)
    assert block.shape == demo.blocks[0].shape and block.mass == demo.blocks[0].mass


def test_xml_text_uses_the_world_classes_and_its_own_pose_in_degrees(demo):
    text = '<vehicle name="r8" class="demo_diff_robot"><init_pose>1 2 90</init_pose></vehicle>'
    vehicle = demo.catalog.from_xml(text, None, None, None, None)
    assert vehicle.name == "r8"
    assert (vehicle.init_pose.x, vehicle.init_pose.y) == (1.0, 2.0)
    assert vehicle.init_pose.yaw == pytest.approx(math.pi / 2, abs=1e-12)
    moved = demo.catalog.from_xml(text, "r9", 5.0, None, 0.25)  # given values override, the others stay
    assert (moved.name, moved.init_pose.x, moved.init_pose.y, moved.init_pose.yaw) == ("r9", 5.0, 2.0, 0.25)


def test_xml_text_can_describe_a_new_block_with_expressions(demo):
    text = """<block name="plank">
      <mass>$f{2*3}</mass>
      <shape><pt>0 0</pt><pt>2 0</pt><pt>2 0.2</pt><pt>0 0.2</pt></shape>
    </block>"""
    block = demo.catalog.from_xml(text, None, 4.0, 4.0, 0.0)
    assert block.mass == 6.0 and len(block.shape) == 4


@pytest.mark.parametrize("text, message", [
    ('<vehicle name="x" class="demo_diff_robot">\n\n<init_pose>1 2 3</init_pose>', r"<spawn>:\d+: .*not closed"),
    ('<actor name="x"/>', "expected one <vehicle> or <block> element"),
    ('<vehicle class="demo_diff_robot"/>', 'expected attribute name'),
    ('<vehicle name="x" class="demo_diff_robot">\n<init_pose>1 2</init_pose></vehicle>', r"<spawn>:2: "),
    ('<vehicle name="x" class="no_such_class"/>', "no_such_class"),
    ('<!DOCTYPE v [<!ENTITY a "aaaa">]><vehicle name="&a;"/>', "<spawn>"),
    ('<block name="b"><mass>$(touch /tmp/spawn_ran)</mass></block>', "allow_shell"),
])
def test_broken_or_hostile_text_is_a_world_file_error_with_a_location(demo, text, message):
    with pytest.raises(WorldFileError, match=message) as error:
        demo.catalog.from_xml(text, None, 0.0, 0.0, 0.0)
    assert "\n" not in str(error.value)


def test_text_over_the_load_budget_is_refused(demo):
    huge = '<block name="b">' + "<x/>" * 200_000 + "</block>"  # more elements than DEFAULT_LIMITS allow
    with pytest.raises(WorldFileError, match="element"):
        demo.catalog.from_xml(huge, None, 0.0, 0.0, 0.0)


@pytest.mark.parametrize("call, message", [
    (lambda c: c.from_class("tank", "t", 0.0, 0.0, 0.0), "vehicle classes: demo_diff_robot; block classes: box_small"),
    (lambda c: c.from_class("box_small", " ", 0.0, 0.0, 0.0), "non-empty name"),
    (lambda c: c.from_class("box_small", "b", math.nan, 0.0, 0.0), "finite"),
    (lambda c: c.from_class("box_small", "b", 0.0, 3e5, 0.0), "outside the world bounds"),
    (lambda c: c.from_xml('<block name="b" class="box_small"/>', None, None, math.inf, None), "finite"),
])
def test_bad_requests_are_value_errors_naming_the_problem(demo, call, message):
    with pytest.raises(ValueError, match=message):
        call(demo.catalog)


def test_a_world_without_classes_has_an_empty_catalog():
    world = load_world_string('<mvsim_world version="1.0"></mvsim_world>')
    assert world.catalog.vehicle_classes() == [] and world.catalog.block_classes() == []
    with pytest.raises(ValueError, match="vehicle classes: none; block classes: none"):
        world.catalog.from_class("x", "y", 0.0, 0.0, 0.0)


@pytest.mark.parametrize("text, extra, line", [
    ('<block name="b1"/><block name="b2"/>', '<block name="b2"> at line 1', 1),
    ('<vehicle name="v1" class="demo_diff_robot"/>\n<block name="b2" class="box_small"/>\n<vehicle name="v3"/>',
     '<block name="b2"> at line 2, <vehicle name="v3"> at line 3', 2),
])
def test_a_text_with_several_top_level_elements_is_refused_naming_the_extra_ones(demo, text, extra, line):
    with pytest.raises(WorldFileError, match="found [23] top-level elements: extra " + re.escape(extra)) as error:
        demo.catalog.from_xml(text, None, 0.0, 0.0, 0.0)
    assert error.value.line == line and "\n" not in str(error.value)


def test_many_extra_top_level_elements_are_counted_not_all_named(demo):
    text = '<block name="b0"/>' + "".join(f'<block name="b{k}"/>' for k in range(1, 1001))
    with pytest.raises(WorldFileError, match=r"found 1001 top-level elements: extra <block name=\"b1\"> at line 1, "
                                             r".*<block name=\"b5\"> at line 1 and 995 more") as error:
        demo.catalog.from_xml(text, None, 0.0, 0.0, 0.0)
    assert len(str(error.value)) < 500


def test_a_spawned_sensor_name_that_cannot_go_into_topics_is_refused(demo):
    text = ('<vehicle name="v" class="demo_diff_robot">\n'
            f'<sensor class="laser" name="{"s" * 500}"/></vehicle>')
    with pytest.raises(WorldFileError, match=r"<spawn>:2: <sensor>: sensor name 's{40}\.\.\.' \(500 characters\)"):
        demo.catalog.from_xml(text, None, 0.0, 0.0, 0.0)
