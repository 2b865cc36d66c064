"""What the rendered sensors see of the moving and placed things: actors (their stand-in body), keyframe-animated
blocks and planes, blocks at their 3D pose, vertical planes with their doors, and <walls>. Depths are checked
against the geometry."""

import pytest

from gl_support import needs_gl, optical_pose
from mvsim_ros.physics import Simulation
from mvsim_ros.sensors.camera import Intrinsics, render
from mvsim_ros.sensors.scene import Scene
from mvsim_ros.sensors.suite import build_sensors
from mvsim_ros.world import load_world_string

pytestmark = needs_gl

INTR = Intrinsics(160, 120, 80.0, 60.0, 100.0, 100.0, 0.05, 200.0)
BOX = "<shape><pt>-0.5 -0.5</pt><pt>0.5 -0.5</pt><pt>0.5 0.5</pt><pt>-0.5 0.5</pt></shape>"


def looking_along_x(z: float = 0.8):
    return optical_pose((0.0, 0.0, z), (1.0, 0.0, 0.0), (0.0, -1.0, 0.0))


def world(body: str):
    return load_world_string(f'<mvsim_world version="1.0">\n{body}\n</mvsim_world>')


def depth_at(scene: Scene, pose, v: int = 60, u: int = 80) -> float:
    return float(render(scene, {}, INTR, pose, want_rgb=False).depth[v, u])


def test_actor_without_a_model_is_drawn_as_a_cylinder_with_a_head():
    spec = world('<actor name="a"><collision_radius>0.3</collision_radius><collision_height>1.6</collision_height>'
                 '<init_pose>3 0 0</init_pose></actor>')
    scene = Scene(spec)
    assert scene.actor_models == [False]
    assert depth_at(scene, looking_along_x(0.8)) == pytest.approx(2.7, abs=0.01)  # the cylinder's near side
    # The head: a sphere of 0.24 m around (3, 0, 1.6); seen level from z = 1.6 its near point is at x = 2.76.
    assert depth_at(scene, looking_along_x(1.6)) == pytest.approx(2.76, abs=0.02)
    assert depth_at(scene, looking_along_x(1.9)) > 100.0  # above the head: nothing but sky


def test_actor_moves_in_the_scene_with_the_simulation():
    spec = world('<actor name="a"><walking_speed>1.0</walking_speed><init_pose>3 -4 90</init_pose>'
                 '<path loop="false"><waypoint>3 4 90</waypoint></path></actor>')
    sim = Simulation(spec)
    scene = Scene(spec)
    scene.update(sim)
    assert depth_at(scene, looking_along_x()) > 100.0  # at y = -4: out of the view axis
    while sim.time < 4.0 - 1e-9:
        sim.step()
    scene.update(sim)
    assert depth_at(scene, looking_along_x()) == pytest.approx(2.7, abs=0.01)  # crossing y = 0 now


def test_animated_block_is_rendered_where_its_keyframes_are():
    spec = world(f'<block name="b">{BOX}<zmax>1.5</zmax><init_pose>0 0 0</init_pose>'
                 '<animation type="keyframes"><time_pose>0 2 0 0</time_pose><time_pose>4 6 0 0</time_pose>'
                 '</animation></block>')
    sim = Simulation(spec)
    scene = Scene(spec)
    for until, near_face in ((0.0, 1.5), (2.0, 3.5), (3.0, 4.5)):
        while sim.time < until - 1e-9:
            sim.step()
        scene.update(sim)
        assert depth_at(scene, looking_along_x()) == pytest.approx(near_face, abs=0.01)


def test_block_at_its_3d_pose():
    spec = world(f'<block name="b">{BOX}<zmax>1.0</zmax><init_pose3d>3 0 1.0 0 0 0</init_pose3d>'
                 '<skip_elevation_adjust>true</skip_elevation_adjust></block>')
    scene = Scene(spec)
    assert depth_at(scene, looking_along_x(0.5)) > 100.0  # under the lifted block (z 1..2)
    assert depth_at(scene, looking_along_x(1.5)) == pytest.approx(2.5, abs=0.01)


def test_raytrace_lidar_sees_the_animated_block():
    laser = ('<sensor class="laser" name="l"><pose_3d>0 0 0.5 0 0 0</pose_3d><fov_degrees>90</fov_degrees>'
             '<nrays>91</nrays><range_max>20</range_max><raytrace_3d>true</raytrace_3d>'
             '<range_std_noise>0</range_std_noise><angle_std_noise_deg>0</angle_std_noise_deg></sensor>')
    spec = world(f'''<vehicle:class name="bot"><dynamics class="differential"/></vehicle:class>
      <vehicle name="r" class="bot"><init_pose>0 0 0</init_pose>{laser}</vehicle>
      <block name="b">{BOX}<zmax>1.5</zmax><init_pose>0 0 0</init_pose>
      <animation type="keyframes"><time_pose>0 2 0 0</time_pose><time_pose>4 6 0 0</time_pose></animation></block>''')
    sim = Simulation(spec)
    lidar = build_sensors(spec).lidars[0]
    scene = Scene(spec)
    while sim.time < 2.0 - 1e-9:
        sim.step()
    scene.update(sim)
    assert lidar.render_scan(scene, sim.pose[0])[45] == pytest.approx(3.5, abs=0.01)


def test_horizontal_plane_and_vertical_plane_with_a_door():
    spec = world('''
      <element class="horizontal_plane"><x_min>-1</x_min><x_max>1</x_max><y_min>-1</y_min><y_max>1</y_max>
        <z>1.0</z></element>
      <element class="vertical_plane"><x0>5</x0><y0>-5</y0><x1>5</x1><y1>5</y1><height>3</height>
        <thickness>0.2</thickness><door position="0.5" width="1.0" z_min="0" z_max="2.0"/></element>''')
    scene = Scene(spec)
    down = optical_pose((0.0, 0.0, 3.0), (0.0, 0.0, -1.0), (0.0, -1.0, 0.0))
    assert depth_at(scene, down) == pytest.approx(2.0, abs=0.01)  # the plane at z = 1 under a camera at z = 3
    # The wall's face at x = 4.9; at y = 0 the door (z 0..2) lets the view through, above it the lintel stops it.
    assert depth_at(scene, optical_pose((0.0, 2.0, 1.0), (1.0, 0.0, 0.0), (0.0, -1.0, 0.0))) == \
        pytest.approx(4.9, abs=0.01)
    assert depth_at(scene, looking_along_x(1.0)) > 100.0
    assert depth_at(scene, looking_along_x(2.5)) == pytest.approx(4.9, abs=0.01)


def test_walls_are_drawn():
    spec = world('<walls><shape><pt>4 -3</pt><pt>4 3</pt><pt>9 -3</pt><pt>9 3</pt></shape>'
                 '<wallHeight>2.0</wallHeight><wallThickness>0.2</wallThickness></walls>')
    assert spec.warnings == []
    assert len(spec.walls[0].segments) == 2
    scene = Scene(spec)
    assert depth_at(scene, looking_along_x(1.0)) == pytest.approx(3.9, abs=0.01)
    assert depth_at(scene, looking_along_x(2.5)) > 100.0  # above the 2 m wall


def test_animated_horizontal_plane_is_a_lift():
    spec = world('''<element class="horizontal_plane"><x_min>0</x_min><x_max>2</x_max><y_min>0</y_min>
        <y_max>2</y_max><z>0.5</z><init_pose>3 0 90</init_pose>
        <animation type="keyframes"><time_pose3d>0 0 0 0 0 0 0</time_pose3d><time_pose3d>4 0 0 2 0 0 0</time_pose3d>
        </animation></element>''')
    sim = Simulation(spec)
    scene = Scene(spec)
    # The plane's frame sits at (3, 0) turned 90 deg: its square covers x in [1, 3], y in [0, 2]; centre (2, 1).
    down = optical_pose((2.0, 1.0, 6.0), (0.0, 0.0, -1.0), (0.0, -1.0, 0.0))
    for until, height in ((0.0, 0.5), (1.0, 1.0), (3.0, 2.0)):
        while sim.time < until - 1e-9:
            sim.step()
        scene.update(sim)
        assert depth_at(scene, down) == pytest.approx(6.0 - height, abs=0.01)
