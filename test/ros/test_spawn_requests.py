"""SpawnEntity requests checked by plan_spawn (ros/spawn_requests.py), without a node: the standard's codes for
descriptions holding several elements and for names too long to become topic namespaces."""

from __future__ import annotations

import pytest
from simulation_interfaces.srv import SpawnEntity

from conftest import DEMO_WORLD
from mvsim_ros.ros.services.spawn_requests import SpawnError, plan_spawn
from mvsim_ros.world import load_world
from mvsim_ros.world.elements.vehicles import MAX_TOPIC_NAME_CHARS

R = SpawnEntity.Response


@pytest.fixture(scope="module")
def catalog():
    return load_world(DEMO_WORLD).catalog


def request(text: str = "", uri: str = "", name: str = "", namespace: str = "") -> SpawnEntity.Request:
    req = SpawnEntity.Request(name=name, entity_namespace=namespace)
    req.entity_resource.resource_string = text
    req.entity_resource.uri = uri
    return req


def plan_error(catalog, req: SpawnEntity.Request) -> SpawnError:
    with pytest.raises(SpawnError) as info:
        plan_spawn(req, catalog, {"r1", "r2"}, {"r1/", "r2/"})
    return info.value


def test_a_description_with_two_top_level_elements_is_a_parse_error_naming_the_extra_one(catalog):
    error = plan_error(catalog, request('<block name="b1" class="box_small"/><block name="b2" class="box_small"/>'))
    assert error.code == R.RESOURCE_PARSE_ERROR
    assert 'found 2 top-level elements: extra <block name="b2"> at line 1' in str(error)
    assert plan_spawn(request('<block name="b1" class="box_small"/>'), catalog, set(), set()).entity.name == "b1"


def test_names_and_namespaces_longer_than_a_topic_namespace_may_be_are_refused(catalog):
    longest = "v" * MAX_TOPIC_NAME_CHARS
    plan = plan_spawn(request(uri="demo_diff_robot", name=longest), catalog, set(), set())
    assert plan.prefix == longest + "/"
    error = plan_error(catalog, request(uri="demo_diff_robot", name="v" * 10_000))
    assert error.code == R.NAME_INVALID and "10000 characters long" in str(error) and len(str(error)) < 300
    error = plan_error(catalog, request(f'<vehicle name="{"w" * 200}" class="demo_diff_robot"/>'))
    assert error.code == R.NAME_INVALID and "200 characters long" in str(error)
    error = plan_error(catalog, request(uri="demo_diff_robot", name="v9", namespace="/".join(["fleet"] * 20)))
    assert error.code == R.NAMESPACE_INVALID and "119 characters long" in str(error)
