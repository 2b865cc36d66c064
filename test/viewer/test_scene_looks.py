"""Data side of how worlds look in the viewer: ceilings culled as MVSim culls them and marked roofs, a distinct
colour per vehicle, the world's bounds for "fit world", and the recent paths the simulator keeps for late pages."""

from __future__ import annotations

import base64

import numpy as np

from mvsim_ros.physics import Simulation
from mvsim_ros.viewer.frame_message import unpack_message
from mvsim_ros.viewer.scene_message import accent_colors, scene_message
from mvsim_ros.viewer.trail_history import TRAIL_MIN_STEP, TRAIL_POINTS, TrailHistory
from mvsim_ros.world import load_world
from viewer_worlds import WAREHOUSE_WORLD


def warehouse_scene(write_world):
    return scene_message(Simulation(load_world(write_world(WAREHOUSE_WORLD))), None, 1)


def test_a_ceiling_is_culled_from_above_and_marked_a_roof(write_world):
    planes = {m["name"]: m for m in warehouse_scene(write_world)["meshes"] if m["group"] == "plane"}
    floor, ceiling = planes["plane:0"], planes["plane:1"]
    assert (floor["cull_face"], floor["roof"]) == ("NONE", False)
    assert (ceiling["cull_face"], ceiling["roof"]) == ("FRONT", True)
    vertices = np.frombuffer(base64.b64decode(ceiling["vertices"]), dtype="<f4").reshape(-1, 9)
    assert len(vertices) == 6 and (vertices[:, 5] < 0).all(), "only the face seen from below is left"


def test_vehicles_of_one_colour_get_distinct_accents(write_world):
    vehicles = warehouse_scene(write_world)["vehicles"]
    assert [v["color"] for v in vehicles] == ["#cc2222", "#cc2222"]
    assert vehicles[0]["accent"] == "#cc2222" and vehicles[1]["accent"] != "#cc2222"
    assert accent_colors(["#112233", "#445566"]) == ["#112233", "#445566"]
    many = accent_colors(["#3366cc"] * 20)
    assert len(set(many[:17])) == 17


def test_bounds_cover_the_building(write_world):
    assert warehouse_scene(write_world)["bounds"] == [[-15.0, -13.0], [20.0, 13.0]]


def test_trail_history_keeps_recent_points_apart():
    history = TrailHistory(["r1", "r2"])
    for k in range(2 * TRAIL_POINTS):
        history.record(np.array([[k * TRAIL_MIN_STEP, 0.0, 0.0], [1.0, 2.0, 0.0]]))
    paths = history.paths()
    header, arrays, _ = unpack_message(history.message(3))
    assert (header["type"], header["version"], header["vehicles"]) == ("trails", 3, ["r1", "r2"])
    assert arrays["trail:0"].shape == (TRAIL_POINTS, 2) and arrays["trail:1"].tolist() == [[1.0, 2.0]]
    assert len(paths["r1"]) == TRAIL_POINTS and paths["r1"][-1][0] > paths["r1"][0][0]
    assert paths["r2"] == [[1.0, 2.0]]


def test_trail_history_forgets_a_vehicle_put_elsewhere():
    history = TrailHistory(["r1", "r2"])
    for k in range(5):
        history.record(np.array([[k * 0.1, 0.0, 0.0], [1.0, k * 0.1, 0.0]]))
    history.forget(0)
    history.record(np.array([[10.0, 10.0, 0.0], [1.0, 0.4, 0.0]]))
    assert history.paths()["r1"] == [[10.0, 10.0]] and len(history.paths()["r2"]) == 5
