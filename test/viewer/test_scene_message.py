"""The viewer's scene message: vehicles, wheels, sensors, gui hints and meshes against the world's specs."""

import base64
import json
import math

import numpy as np
import pytest

from mvsim_ros.physics import Simulation
from mvsim_ros.sensors.scene_meshes import SceneMeshes
from mvsim_ros.sensors.suite import build_sensors
from mvsim_ros.viewer.protocol import MESH_GROUPS
from mvsim_ros.viewer.scene_message import scene_message
from mvsim_ros.world import load_world
from viewer_worlds import TEST_WORLDS, WORLDS, robot_world

ALL_WORLDS = ["demo_2robots.world.xml", "car_trailer.world.xml", "articulated.world.xml", "moving_things.world.xml",
              "elevation_car.world.xml", "warehouse.world.xml"]


def message(path, sensors=True, **kwargs):
    world = load_world(path)
    sim = Simulation(world)
    return sim, scene_message(sim, build_sensors(world) if sensors else None, 4, **kwargs)


def vertices(mesh) -> np.ndarray:
    return np.frombuffer(base64.b64decode(mesh["vertices"]), "<f4").reshape(-1, 9)


def test_demo_world_lists_its_robots_wheels_and_lidars():
    sim, msg = message(WORLDS / "demo_2robots.world.xml")
    assert json.loads(json.dumps(msg)) == msg
    assert msg["type"] == "scene" and msg["version"] == 4 and msg["dt"] == pytest.approx(0.005)
    assert msg["world"] == "demo_2robots.world.xml"
    assert [(v["name"], v["body"]) for v in msg["vehicles"]] == [("r1", 0), ("r2", 1)]
    assert not any(v["steerable"] or v["articulated"] or v["footprint"] for v in msg["vehicles"])
    # The spec's mounts: wheels at (0, +-0.25) m, 0.20 m diameter, 0.05 m wide, axles at the radius.
    assert len(msg["wheels"]) == 4
    for wheel, body, y in zip(msg["wheels"], [0, 0, 1, 1], [0.25, -0.25, 0.25, -0.25]):
        assert wheel["body"] == body
        assert (wheel["x"], wheel["y"]) == pytest.approx((0.0, y))
        assert wheel["radius"] == pytest.approx(0.1) and wheel["z"] == pytest.approx(0.1)
        assert wheel["width"] == pytest.approx(0.05)
        assert wheel["color"].startswith("#") and len(wheel["color"]) == 7
    assert msg["lidars"] == [{"name": "scan", "vehicle": "r1"}, {"name": "scan", "vehicle": "r2"}]
    assert msg["lidars3d"] == [] and msg["cameras"] == []
    # MVSim's <gui> angles (the demo world has none; the distance is fitted: test_a_world_without_gui_...).
    gui = msg["gui"]
    assert gui["fov"] == pytest.approx(math.radians(60))
    assert gui["cam_azimuth"] == pytest.approx(math.radians(45)) and gui["cam_elevation"] == pytest.approx(
        math.radians(40))
    assert gui["follow_vehicle"] == ""


@pytest.mark.parametrize("name", ALL_WORLDS)
def test_meshes_decode_to_finite_triangles_in_known_tables(name):
    sim, msg = message(WORLDS / name)
    rows = {"static": 0, "plane": len(sim.spec.elements), "block": len(sim.spec.blocks),
            "body": len(sim.body_pose), "actor": len(sim.spec.actors)}
    assert msg["meshes"][0]["name"] == "ground"
    for mesh in msg["meshes"]:
        assert mesh["group"] in MESH_GROUPS
        if mesh["group"] == "static":
            assert mesh["index"] == -1
        else:
            assert 0 <= mesh["index"] < rows[mesh["group"]]
        v = vertices(mesh)
        assert len(v) > 0 and np.all(np.isfinite(v))
        assert np.all((v[:, 6:] >= 0) & (v[:, 6:] <= 1))
        assert np.linalg.norm(v[:, 3:6], axis=1) == pytest.approx(1.0, abs=1e-3) or mesh["name"].startswith(
            ("block:", "vehicle:", "actor:"))  # degenerate model triangles may have no normal
        if mesh["indices"] is None:
            assert len(v) % 3 == 0
        else:
            idx = np.frombuffer(base64.b64decode(mesh["indices"]), "<u4")
            assert len(idx) % 3 == 0 and idx.max() < len(v)
    assert len(vertices(msg["meshes"][0])) == 6  # the ground is two triangles


def test_meshes_match_the_gl_scene_triangles():
    for name in ALL_WORLDS:
        world = load_world(WORLDS / name)
        sim = Simulation(world)
        msg = scene_message(sim, None, 1)
        drawn = 0
        for mesh in msg["meshes"]:
            if mesh["indices"] is None:
                drawn += len(vertices(mesh)) // 3
            else:
                drawn += len(base64.b64decode(mesh["indices"])) // 12
        assert drawn == SceneMeshes.build(world).triangles, name


def test_terrain_is_indexed_with_one_vertex_per_height_sample():
    world = load_world(WORLDS / "elevation_car.world.xml")
    _, msg = message(WORLDS / "elevation_car.world.xml")
    terrain = [m for m in msg["meshes"] if m["name"].startswith("terrain:")]
    emap = next(e for e in world.elements if hasattr(e, "heights"))
    assert len(terrain) == 1 and terrain[0]["indices"] is not None and terrain[0]["group"] == "static"
    v = vertices(terrain[0])
    heights = np.asarray(emap.heights, dtype=float)
    assert len(v) == heights.size
    assert v[:, 2].max() == pytest.approx(np.nanmax(heights), abs=1e-4)


def test_steering_and_articulated_vehicles():
    sim, msg = message(WORLDS / "articulated.world.xml")
    loader, robot = msg["vehicles"]
    assert loader["steerable"] and loader["articulated"] and loader["body"] == 0
    assert not (robot["steerable"] or robot["articulated"]) and robot["body"] == 1
    bodies = {m["index"]: m["name"] for m in msg["meshes"] if m["group"] == "body"}
    assert bodies == {0: "vehicle:loader", 1: "vehicle:robot", 2: "vehicle:loader:front_unit"}
    # The front unit (body row 2, after all vehicles) carries its wheels, at their mounts in the unit's frame.
    spec = sim.spec.vehicles[0]
    n = len(spec.wheels)
    assert [w["body"] for w in msg["wheels"][:n]] == [0 if w.unit == 0 else 2 for w in spec.wheels]
    assert 2 in [w["body"] for w in msg["wheels"][:n]]
    np.testing.assert_allclose([(w["x"], w["y"]) for w in msg["wheels"][:n]], [(w.x, w.y) for w in spec.wheels])
    assert [w["body"] for w in msg["wheels"][n:]] == [1] * len(sim.spec.vehicles[1].wheels)
    _, msg = message(WORLDS / "car_trailer.world.xml")
    assert [(v["name"], v["steerable"], v["color"]) for v in msg["vehicles"]] == [
        ("car", True, "#c03020"), ("trailer", False, "#ff0000")]
    assert [w["width"] for w in msg["wheels"]] == pytest.approx([0.22] * 4 + [0.2] * 4)


def test_world_sensors_have_no_vehicle_and_planes_actors_are_posed():
    _, msg = message(WORLDS / "moving_things.world.xml")
    assert msg["lidars"] == [{"name": "door_watch", "vehicle": ""}, {"name": "scan", "vehicle": "r1"}] or \
        msg["lidars"] == [{"name": "scan", "vehicle": "r1"}, {"name": "door_watch", "vehicle": ""}]
    groups = {}
    for m in msg["meshes"]:
        groups.setdefault(m["group"], []).append(m["index"])
    assert groups["plane"] == [0, 1] and groups["actor"] == [0, 1] and groups["block"] == [0, 1, 2, 3]
    _, msg = message(TEST_WORLDS / "all_sensors.world.xml")
    assert msg["cameras"] == [{"name": "cam", "vehicle": "s1"}, {"name": "rgbd", "vehicle": "s1"}]
    assert msg["lidars3d"] == [{"name": "lidar", "vehicle": "s1"}]


def test_gui_hints_come_from_the_world(write_world):
    gui = ('<gui><cam_distance>12</cam_distance><cam_azimuth>30</cam_azimuth><cam_elevation>20</cam_elevation>'
           '<fov_deg>50</fov_deg><cam_point_to>1 2 0.5</cam_point_to><follow_vehicle>r1</follow_vehicle></gui>')
    world = robot_world(write_world, extra=gui)
    msg = scene_message(Simulation(world), None, 0)
    gui = dict(msg["gui"])
    assert gui.pop("cam_point_to") == pytest.approx([1.0, 2.0, 0.5]) and gui.pop("follow_vehicle") == "r1"
    assert gui.pop("from_world") is True
    assert gui == pytest.approx({"cam_distance": 12.0, "cam_azimuth": math.radians(30),
                                 "cam_elevation": math.radians(20), "fov": math.radians(50)})
    assert msg["vehicles"][0]["color"] == "#3366cc"


def test_a_gui_without_a_camera_is_framed_whole(write_world):
    """A `<gui>` that sets only MVSim's window and drawing options leaves the first view to "fit world"; one
    setting a single camera parameter is the world's camera."""
    world = robot_world(write_world, extra="<gui><win_w>1024</win_w><show_forces>true</show_forces></gui>")
    assert scene_message(Simulation(world), None, 0)["gui"]["from_world"] is False
    world = robot_world(write_world, extra="<gui><cam_elevation>70</cam_elevation></gui>")
    gui = scene_message(Simulation(world), None, 0)["gui"]
    assert gui["from_world"] is True and gui["cam_distance"] == 80.0 and gui["cam_point_to"] == [0.0, 0.0, 0.0]


def test_a_world_without_gui_is_framed_whole():
    """The demo world (no <gui>: a 24 m x 16 m room around the origin) is looked at from its centre, near enough
    that it fills the view: its half-diagonal subtends about the field of view."""
    _, msg = message(WORLDS / "demo_2robots.world.xml")
    gui = msg["gui"]
    assert gui["from_world"] is False  # the page frames the vehicles once it has their poses
    half_diagonal = 0.5 * math.hypot(24.0, 16.0)
    assert abs(gui["cam_point_to"][0]) < 1.0 and abs(gui["cam_point_to"][1]) < 1.0
    seen = 2 * math.degrees(math.atan(half_diagonal / gui["cam_distance"]))
    assert 0.8 * math.degrees(gui["fov"]) < seen <= math.degrees(gui["fov"]), (gui, seen)


def test_unloadable_models_are_reported_through_warn(write_world, tmp_path):
    block = ('<block name="statue"><shape><pt>0 0</pt><pt>1 0</pt><pt>1 1</pt></shape><zmax>1</zmax>'
             f'<visual><model_uri>{tmp_path / "missing.obj"}</model_uri></visual></block>')
    try:
        world = robot_world(write_world, extra=block)
    except Exception as exc:  # a loader that refuses missing models is fine too
        pytest.skip(f"loader rejects the missing model: {exc}")
    said = []
    msg = scene_message(Simulation(world), None, 0, warn=said.append)
    statue = next(m for m in msg["meshes"] if m["name"] == "block:statue")
    assert not statue["double_sided"]  # drawn as its prism
    assert len(vertices(statue)) == 3 * 8  # two caps and three sides of a triangle prism
    assert said == SceneMeshes.build(world).warnings


def test_vehicles_carry_their_outline_and_height():
    """The chassis polygon (for the outline that turns red in a collision) and its top (for the name label)."""
    _, msg = message(WORLDS / "demo_2robots.world.xml")
    r1 = msg["vehicles"][0]
    assert r1["outline"] == [[-0.25, -0.22], [0.25, -0.22], [0.3, 0.0], [0.25, 0.22], [-0.25, 0.22]]
    assert r1["height"] == pytest.approx(0.4)
    json.dumps(msg)  # JSON-able as sent
