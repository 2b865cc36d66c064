"""The ground under the wheels: one vectorised query over elevation maps, horizontal planes and blocks, with
MVSim's stacked-floor rule, agreeing with the world's own height formulas and with the meshes the sensors see."""

import math

import numpy as np
import pytest

from mvsim_ros.physics import Simulation
from mvsim_ros.physics.terrain import TerrainSurfaces
from mvsim_ros.physics.terrain.surfaces import reachable_blocks
from mvsim_ros.sensors.scene_meshes import SceneMeshes, terrain_mesh
from mvsim_ros.world import load_world_string
from mvsim_ros.world.elements.block_geometry import surface_height
from mvsim_ros.world.elements.ground_placement import highest_surface_below

ROBOT = """
  <vehicle name="r1"><dynamics class="differential_4_wheels">
    <lf_wheel pos="0.25 0.3" diameter="0.2" mass="1"/><rf_wheel pos="0.25 -0.3" diameter="0.2" mass="1"/>
    <lr_wheel pos="-0.25 0.3" diameter="0.2" mass="1"/><rr_wheel pos="-0.25 -0.3" diameter="0.2" mass="1"/>
    <chassis mass="20" zmax="0.4"/></dynamics><init_pose>{pose}</init_pose></vehicle>"""

HILLS = """
  <element class="elevation_map"><resolution>0.7</resolution><corner_min_x>-5</corner_min_x>
    <corner_min_y>-4</corner_min_y>
    <elevation_data_matrix>[0 0.3 0.8 1.2 0.9; 0.2 0.5 1.1 1.6 1.0; -0.4 0.1 0.7 1.3 1.1; 0.0 0.6 0.2 -0.3 0.5;
      0.3 0.9 1.4 0.8 0.1; 0.5 0.2 -0.2 0.4 0.7]</elevation_data_matrix></element>"""


def world(body: str, pose: str = "0 0 0"):
    return load_world_string(f'<mvsim_world version="1.0">{body}{ROBOT.format(pose=pose)}</mvsim_world>')


def surfaces_of(body: str, max_step: float = 0.1) -> TerrainSurfaces:
    return TerrainSurfaces.from_world(world(body), max_step)


# -- elevation maps --------------------------------------------------------------------------------------------
def test_elevation_map_height_is_the_world_specs_triangle_interpolation():
    spec = world(HILLS)
    emap = spec.elements[0]
    surfaces = TerrainSurfaces.from_world(spec, 0.1)
    rng = np.random.default_rng(3)
    x, y = rng.uniform(-5.5, -1.0, 2000), rng.uniform(-4.5, -0.5, 2000)
    got = surfaces.ground_height(x, y, 100.0)
    for xi, yi, h in zip(x, y, got):
        expected = emap.elevation_at(xi, yi)
        assert h == pytest.approx(0.0 if expected is None else expected, abs=1e-12)


def test_elevation_map_height_is_the_rendered_terrain_mesh_height():
    # What the cameras and lidars see (scene_meshes.terrain_mesh): each point lies in one mesh triangle, and the
    # plane through that triangle gives the physics height there.
    emap = world(HILLS).elements[0]
    vertices, indices = terrain_mesh(emap)
    triangles = vertices[indices.reshape(-1, 3), :3].astype(float)
    surfaces = surfaces_of(HILLS)
    rng = np.random.default_rng(11)
    x, y = rng.uniform(-4.99, -2.21, 500), rng.uniform(-3.99, -1.21, 500)
    heights = surfaces.ground_height(x, y, 100.0)
    checked = 0
    for xi, yi, h in zip(x, y, heights):
        for a, b, c in triangles:
            det = (b[1] - c[1]) * (a[0] - c[0]) + (c[0] - b[0]) * (a[1] - c[1])
            l1 = ((b[1] - c[1]) * (xi - c[0]) + (c[0] - b[0]) * (yi - c[1])) / det
            l2 = ((c[1] - a[1]) * (xi - c[0]) + (a[0] - c[0]) * (yi - c[1])) / det
            if min(l1, l2, 1 - l1 - l2) >= -1e-9:
                assert h == pytest.approx(l1 * a[2] + l2 * b[2] + (1 - l1 - l2) * c[2], abs=1e-5)  # float32 mesh
                checked += 1
                break
    assert checked == len(x)


def test_outside_the_map_is_flat_ground_and_nan_cells_are_no_surface():
    # A DEM with a hole (NaN sample at x = 1, y = 1): the four cells around it are "no surface" (the rendered mesh
    # leaves them out too), the others are ground as usual; never NaN.
    spec = world('<element class="elevation_map"><resolution>1</resolution><corner_min_x>0</corner_min_x>'
                 '<corner_min_y>0</corner_min_y><elevation_data_matrix>[1 1 1 1; 1 1 1 1; 1 1 1 1; 1 1 1 1]'
                 '</elevation_data_matrix></element>')
    spec.elements[0].heights[1, 1] = math.nan
    surfaces = TerrainSurfaces.from_world(spec, 0.1)
    got = surfaces.ground_height([-1.0, 3.5, 0.5, 1.5, 0.5, 2.5, 2.5], [0.5, 0.5, 0.5, 1.5, 1.5, 2.5, 0.5], 10.0)
    assert got.tolist() == [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0]


def test_a_map_below_zero_is_the_ground_and_a_query_below_every_surface_gets_zero():
    surfaces = surfaces_of('<element class="elevation_map"><resolution>10</resolution><corner_min_x>-10'
                           '</corner_min_x><corner_min_y>-10</corner_min_y>'
                           '<elevation_data_matrix>[-2 -2 -2; -2 -2 -2; -2 -2 -2]</elevation_data_matrix></element>')
    assert surfaces.ground_height([0.0, 0.0], [0.0, 0.0], [-1.9, -2.5]).tolist() == [-2.0, 0.0]  # MVSim's fallback


# -- horizontal planes and the stacked-floor rule ----------------------------------------------------------------
FLOORS = """
  <element class="horizontal_plane"><x_min>-10</x_min><x_max>10</x_max><y_min>-10</y_min><y_max>10</y_max>
    <z>0</z></element>
  <element class="horizontal_plane"><x_min>0</x_min><x_max>4</x_max><y_min>-1</y_min><y_max>1</y_max><z>1.0</z>
  </element>
  <element class="horizontal_plane"><x_min>-1</x_min><x_max>1</x_max><y_min>-2</y_min><y_max>2</y_max><z>2.0</z>
    <init_pose>2 0 90</init_pose></element>"""


@pytest.mark.parametrize("x, y, z_ref, expected", [
    (2.0, 0.0, 0.1, 0.0),    # under the 1 m floor, on the ground floor: it stays there
    (2.0, 0.0, 1.1, 1.0),    # on the 1 m floor (one step up from it): that floor
    (2.0, 0.0, 2.05, 2.0),   # the third floor, turned 90 deg about (2, 0): x in [0, 4], y in [-1, 1]
    (0.5, 0.5, 2.05, 2.0),   # the turned floor beyond the 1 m one (x < 0): its x_min..x_max now spans y
    (4.0, 1.0, 1.1, 1.0),    # the 1 m floor's corner: edges belong to the plane
    (4.01, 0.0, 1.1, 0.0),   # just past its edge: down to the ground floor
    (20.0, 0.0, 5.0, 0.0),   # nothing at all: flat ground
])
def test_highest_floor_not_above_the_query_height(x, y, z_ref, expected):
    assert surfaces_of(FLOORS).ground_height(x, y, z_ref) == expected


def test_plane_heights_agree_with_load_time_placement_and_with_the_rendered_planes():
    spec = world(FLOORS)
    surfaces = TerrainSurfaces.from_world(spec, 0.1)
    meshes = SceneMeshes.build(spec)
    rng = np.random.default_rng(5)
    for x, y, z in zip(rng.uniform(-2, 5, 300), rng.uniform(-3, 3, 300), rng.uniform(-0.5, 2.5, 300)):
        h = float(surfaces.ground_height(x, y, z))
        assert h == highest_surface_below(spec, x, y, z)
        if h > 0.0:  # a rendered plane lies at that height over (x, y): its mesh, placed by its pose
            k = [e.z for e in spec.elements].index(h)
            pose = meshes.plane_poses[k]
            c, s = math.cos(pose[3]), math.sin(pose[3])
            local = np.array([c * (x - pose[0]) + s * (y - pose[1]), -s * (x - pose[0]) + c * (y - pose[1])])
            mesh = meshes.planes[k]
            assert mesh[:, 0].min() <= local[0] <= mesh[:, 0].max() and mesh[:, 1].min() <= local[1] <= mesh[:, 1].max()
            assert pose[2] + mesh[0, 2] == pytest.approx(h)


def test_an_animated_plane_carries_its_height_with_it():
    lift = """<element class="horizontal_plane"><x_min>0</x_min><x_max>2</x_max><y_min>0</y_min><y_max>2</y_max>
      <z>0</z><init_pose>3 -1 0</init_pose><animation type="keyframes"><time_pose3d>0 0 0 0.02 0 0 0</time_pose3d>
      <time_pose3d>10 0 0 2.02 0 0 0</time_pose3d></animation></element>"""
    surfaces = surfaces_of(lift)
    assert surfaces.ground_height(4.0, 0.0, 0.5) == pytest.approx(0.02)
    surfaces.move_planes(5.0)
    assert surfaces.ground_height(4.0, 0.0, 1.1) == pytest.approx(1.02)
    assert surfaces.ground_height(6.0, 0.0, 1.1) == 0.0


def test_only_level_planes_at_zero_make_a_flat_world():
    assert surfaces_of('<element class="horizontal_plane"><z>0</z></element>').is_flat()
    assert surfaces_of("").is_flat()
    assert not surfaces_of('<element class="horizontal_plane"><z>0.5</z></element>').is_flat()
    assert not surfaces_of(HILLS).is_flat()


# -- blocks ----------------------------------------------------------------------------------------------------
BLOCKS = """
  <block name="ramp"><static>true</static><intangible>true</intangible>
    <geometry type="ramp" lx="4" ly="2" lz="0.8"/><init_pose>1 0 30</init_pose></block>
  <block name="bump"><static>true</static><intangible>true</intangible>
    <geometry type="semi_cylinder_bump" lx="3" ly="0.4" lz="0.05"/><init_pose>-3 0 0</init_pose></block>
  <block name="step"><static>true</static><shape><pt>-4 2</pt><pt>-2 2</pt><pt>-2 3</pt><pt>-4 3</pt></shape>
    <zmin>0</zmin><zmax>0.08</zmax></block>
  <block name="shelf"><static>true</static><shape><pt>5 5</pt><pt>6 5</pt><pt>6 6</pt><pt>5 6</pt></shape>
    <zmax>2.5</zmax></block>"""


def test_ramp_and_bump_heights_follow_the_block_geometry_formulas():
    spec = world(BLOCKS)
    surfaces = TerrainSurfaces.from_world(spec, 0.1)
    rng = np.random.default_rng(8)
    for block in spec.blocks[:2]:
        pose = block.init_pose
        lx, ly = rng.uniform(-2.5, 4.5, 400), rng.uniform(-1.2, 1.2, 400)
        c, s = math.cos(pose.yaw), math.sin(pose.yaw)
        x, y = pose.x + c * lx - s * ly, pose.y + s * lx + c * ly
        got = surfaces.ground_height(x, y, 10.0)
        for h, u, v in zip(got, lx, ly):
            local = surface_height(block.geometry, u, v)
            if local is not None and abs(u) > 1e-9 and abs(abs(v) - 0.5 * block.geometry.params["ly"]) > 1e-9:
                assert h == pytest.approx(pose.z + local, abs=1e-12)


def test_a_low_block_is_a_step_and_a_tall_one_never_costs_a_query():
    spec = world(BLOCKS)
    names = [spec.blocks[b].name for b in reachable_blocks(spec, TerrainSurfaces.from_world(spec, 0.1), 0.1)]
    assert names == ["ramp", "bump", "step"]  # the 2.5 m shelf is out of reach of a 0.1 m step from any surface
    surfaces = TerrainSurfaces.from_world(spec, 0.1)
    assert surfaces.ground_height([-3.0, -3.0], [2.5, 2.5], [0.1, 0.05]).tolist() == [0.08, 0.0]


def test_a_simulation_on_flat_ground_skips_the_terrain_phase():
    sim = Simulation(world('<element class="horizontal_plane"><z>0</z></element>'))
    assert not sim.terrain.active
    sim.set_twist(0, 1.0, 0.3)
    sim.run(1.0)
    assert sim.vehicle_z.tolist() == [0.0] and sim.vehicle_pitch.tolist() == [0.0]
    assert sim.wheels.normal_force.tolist() == [20 * 9.81 / 4] * 4
