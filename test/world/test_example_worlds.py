"""The example worlds in worlds/ load with the counts and values they were written to have."""

import math
import time

import numpy as np
import pytest

from conftest import REPO
from mvsim_ros.world import load_world
from mvsim_ros.world.specs import ElevationMapSpec, PropertyRegionSpec, SkyBoxSpec

WORLDS = REPO / "worlds"


def test_procedural_world_loops_and_maths():
    world = load_world(WORLDS / "procedural.world.xml")
    posts = [b for b in world.blocks if b.name.startswith("post_")]
    assert len(posts) == 8  # <for k = 0 .. N_POSTS-1>
    for k, post in enumerate(posts):
        angle = 2 * math.pi * k / 8
        assert (post.init_pose.x, post.init_pose.y) == (6.0 * math.cos(angle), 6.0 * math.sin(angle))
        assert post.static and len(post.shape) == 8
    crates = [b for b in world.blocks if b.name.startswith("crate")]
    assert [c.name for c in crates] == ["crate1", "crate2", "crate3", "crate4"]  # <for i = 1 .. 4>: inclusive
    assert [c.init_pose.x for c in crates] == [-2.25, -0.75, 0.75, 2.25]
    assert [c.init_pose.yaw for c in crates] == [math.radians(d) for d in (0, 15, 30, 45)]
    assert crates[0].shape == [(0.0, 0.0), (0.5, 0.0), (0.5, 0.5), (0.0, 0.5)]  # CRATE_SIDE = $f{0.25*2}
    assert [v.name for v in world.vehicles] == ["bot1", "bot2", "bot3"]
    assert [v.init_pose.yaw for v in world.vehicles] == [math.radians(90 * r) for r in (1, 2, 3)]
    stones = [b for b in world.blocks if b.name.startswith("stone")]
    assert len(stones) == 3 and all(-3 <= s.init_pose.x < 3 for s in stones)
    assert "never_built" not in [b.name for b in world.blocks]
    assert len(world.blocks) == 15 and world.timestep == 0.01
    # rand()/randn() come from the world's seeded generator: the same file gives the same clutter.
    again = load_world(WORLDS / "procedural.world.xml")
    assert [s.init_pose.x for s in stones] == [b.init_pose.x for b in again.blocks if b.name.startswith("stone")]


def test_warehouse_world_blocks_vehicles_and_elements():
    world = load_world(WORLDS / "warehouse.world.xml")
    assert [v.name for v in world.vehicles] == ["r1", "r2"]
    r1, r2 = world.vehicles
    assert r1.class_name == "warehouse_bot" and r1.controller.params["max_torque"] == 5.0  # include variable
    assert [s.name for s in r1.sensors] == ["laser1"] and [s.name for s in r2.sensors] == ["front_laser"]
    assert r1.sensors[0].pose.x == 0.25 and r1.sensors[0].pose.z == 0.35
    assert r1.sensors[0].params["nrays"] == 541 and r2.sensors[0].params["nrays"] == 361
    assert r2.sensors[0].publish["publish_topic"] == "/r2/front_laser"
    assert r2.init_vel.vx == 0.2
    blocks = {b.name: b for b in world.blocks}
    assert len(blocks) == 12
    shelf = blocks["shelf_c"]  # outline and height from models/shelf.obj
    assert shelf.static and shelf.shape == [(-1.0, -0.3), (1.0, -0.3), (1.0, 0.3), (-1.0, 0.3)]
    assert (shelf.zmin, shelf.zmax) == (0.0, 1.8) and shelf.init_pose.yaw == pytest.approx(math.pi / 2)
    assert blocks["forklift_station"].shape == [(0.0, 0.0), (2.0, 0.0), (2.0, 1.5), (0.0, 1.5)]  # fallback
    assert any("remote model unavailable" in w and "forklift_station.dae" in w for w in world.warnings)
    assert len(blocks["barrel"].shape) == 12 and blocks["barrel"].zmax == 0.9
    assert blocks["dock_marker"].intangible and not blocks["pallet1"].static
    assert blocks["pallet2"].mass == 25 and blocks["pallet2"].ground_friction == 0.4
    regions = [e for e in world.elements if isinstance(e, PropertyRegionSpec)]
    assert len(regions) == 1 and regions[0].property_name == "friction_mu" and regions[0].value == 0.2
    assert world.gui.follow_vehicle == "r1"
    assert world.b2d_vel_iters == 8


def test_elevation_car_world():
    world = load_world(WORLDS / "elevation_car.world.xml")
    car = world.vehicles[0]
    assert car.dynamics == "ackermann" and car.controller.kind == "twist_front_steer_pid"
    assert car.dynamics_params["max_steer_ang"] == pytest.approx(math.radians(35))
    front = {w.name: (w.x, w.y) for w in car.wheels}
    assert front["fl_wheel"] == (2.5, 0.75) and front["fr_wheel"] == (2.5, -0.75)  # f_wheels_x, f_wheels_d
    assert [s.kind for s in car.sensors] == ["gnss", "imu"]
    terrain = next(e for e in world.elements if isinstance(e, ElevationMapSpec))
    assert terrain.heights.shape == (64, 64)
    assert float(np.min(terrain.heights)) == 0.0 and float(np.max(terrain.heights)) == 4.0
    assert any(isinstance(e, SkyBoxSpec) for e in world.elements)
    assert world.georeference.latitude_deg == 36.8946 and world.georeference.height == 90.0


def test_office_world_from_a_ros_yaml_map():
    world = load_world(WORLDS / "office_yaml_map.world.xml")
    grid = world.occupancy_grids[0]
    assert grid.occupied.shape == (120, 200) and grid.resolution == 0.05
    assert (grid.x_min, grid.y_min) == (-5.0, -3.0)
    assert grid.occupancy[0, 50] == 100 and grid.occupancy[60, 50] == 0  # bottom wall; free floor
    assert grid.occupancy[-10, 10] == -1 and not grid.occupied[-10, 10]  # unknown corner (top-left)
    assert world.vehicles[0].sensors[0].name == "scan"


def test_the_largest_example_loads_in_under_a_second():
    start = time.perf_counter()
    load_world(WORLDS / "warehouse.world.xml")
    assert time.perf_counter() - start < 1.0


def test_gridmap_yard_world():
    world = load_world(WORLDS / "gridmap_yard.world.xml")
    assert world.timestep == 0.005  # <simul_timestep>0</simul_timestep>: automatic
    assert world.collision_threshold == 0.5
    grid = world.occupancy_grids[0]  # MRPT binary grid map, gzip-compressed
    assert grid.occupied.shape == (120, 160)
    assert (grid.x_min, grid.y_min) == pytest.approx((-8.0, -6.0)) and grid.resolution == pytest.approx(0.1)
    assert grid.occupied[0].all() and grid.occupied[60, 75] and not grid.occupied[30, 30]
    assert grid.occupancy[110, 10] == -1  # unexplored corner
    assert abs(int(grid.occupancy[30, 30]) - 5) <= 2  # free, p = 0.05 within MRPT's log-odds quantisation
    assert [v.name for v in world.vehicles] == ["tug", "cart"]
    assert world.vehicles[0].controller.kind == "twist_pid"  # class from an include via the file's directory
    joint = world.joints[0]
    assert (joint.kind, joint.body_a, joint.body_b, joint.anchor_a) == ("revolute", "tug", "cart", (-0.3, 0.0))
    assert joint.lower_angle == pytest.approx(math.radians(-80))
    assert [type(e).__name__ for e in world.elements] == ["PointCloudSpec", "MarkerSpec"]
    assert [round(s.length, 3) for s in world.walls[0].segments] == [4.0, 1.575]
    assert world.lights.enable_shadows is False


def test_articulated_world():
    world = load_world(WORLDS / "articulated.world.xml")
    # Its ground grid is drawn by MVSim's GUI only: its settings are named once, nothing else is warned about.
    assert len(world.warnings) == 1
    assert "articulated.world.xml:15: <x_min>: <element class=\"ground_grid\">: accepted but not used here: x_min, " \
           "x_max, y_min, y_max, interval (drawn by MVSim's GUI only" in world.warnings[0]
    assert [v.name for v in world.vehicles] == ["loader", "robot"]
    loader = world.vehicles[0]
    a = loader.articulation
    assert loader.dynamics == "articulated" and loader.controller.kind == "twist_pid"
    assert (a.front_length, a.rear_length) == (1.5, 1.5)
    assert a.max_angle == pytest.approx(math.radians(40)) and a.max_rate == pytest.approx(math.radians(25))
    assert (loader.chassis.mass, a.front_chassis.mass) == (3000.0, 2500.0)
    assert a.front_chassis.shape[2] == (1.8, -1.25)
    wheels = [(w.name, w.unit) for w in loader.wheels]
    assert wheels == [("rl_wheel", 0), ("rr_wheel", 0), ("fl_wheel", 1), ("fr_wheel", 1)]
    assert a.corners == {"trailer_top_left": (4.8, 1.25), "trailer_top_right": (4.8, -1.25),
                         "tractor_bottom_left": (-1.6, 1.1), "tractor_bottom_right": (-1.6, -1.1)}
    assert [s.name for s in loader.sensors] == ["scan"]
    assert len(world.walls[0].segments) == 4 and len(world.blocks) == 3


def test_moving_things_world():
    from mvsim_ros.physics import Simulation

    world = load_world(WORLDS / "moving_things.world.xml")
    assert world.warnings == []
    blocks = {b.name: b for b in world.blocks}
    # Crates given z = 2.0 reach the 2.2 m mezzanine with half their 0.6 m height: placed on it.
    assert [blocks[n].init_pose.z for n in ("crate_up_1", "crate_up_2", "crate_down")] == [2.2, 2.2, 0.0]
    assert blocks["shuttle"].animation.period == 24.0
    assert [a.name for a in world.actors] == ["walker", "visitor"]
    assert world.actors[1].path[1].animation == "run" and world.actors[1].path[1].pause == 3.0
    assert [s.name for s in world.sensors] == ["door_watch"]
    sim = Simulation(world)
    while sim.time < 30.0 - 1e-9:
        sim.step()
    # 30 s = one 24 s cycle + 6 s: 6/10 of the way from x = -7 to x = 7.
    assert sim.block_poses3()[3] == pytest.approx((1.4, -2.5, 0.0, 0.0, 0.0, 0.0), abs=1e-4)
    # The walker: 7 m west to the first waypoint (5.83 s), then cycles of 20.5 s: 3.5 m south (2.92 s) and a 2 s
    # pause, 7 m east, 3.5 m north and a 1 s pause, 7 m west. 30 s is 3.67 s into the second cycle: pausing.
    lead, cycle = 7 / 1.2, 3.5 / 1.2 + 2 + 7 / 1.2 + 3.5 / 1.2 + 1 + 7 / 1.2
    assert (30.0 - lead) % cycle == pytest.approx(3.667, abs=1e-3)
    assert sim.actor_poses[0] == pytest.approx((-3.0, -0.5, 0.0, -math.pi / 2), abs=1e-9)
