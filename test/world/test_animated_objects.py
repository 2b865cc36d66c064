"""World files with moving and placed things, as MVSim writes them: keyframe animations, <init_pose3d>, the
elevation adjustment of blocks and actors, actors with waypoint paths, unnamed vehicles/blocks/actors, and
<joystick_enabled>. Also the timelines: keyframe interpolation and actor paths against hand-computed poses."""

import math

import numpy as np
import pytest

from mvsim_ros.physics.kinematic.actor_paths import ActorPath
from mvsim_ros.world import WorldFileError, load_world_string
from mvsim_ros.world.specs import Pose3

BOX = "<shape><pt>-0.5 -0.5</pt><pt>0.5 -0.5</pt><pt>0.5 0.5</pt><pt>-0.5 0.5</pt></shape>"
BOT_CLASS = '<vehicle:class name="bot"><dynamics class="differential"/></vehicle:class>'


def world(body: str) -> str:
    return f'<mvsim_world version="1.0">\n{body}\n</mvsim_world>\n'


def test_keyframes_compose_with_the_initial_pose_and_repeat_every_cycle():
    spec = load_world_string(world(f"""
  <block name="lift">{BOX}
    <init_pose>1 2 90</init_pose>
    <animation type="keyframes">
      <time_pose>0 0 0 0</time_pose>
      <time_pose>2 2 0 0</time_pose>
      <time_pose>4 2 2 90</time_pose>
    </animation>
  </block>"""))
    block = spec.blocks[0]
    anim = block.animation
    assert anim.period == 4.0 and anim.times.tolist() == [0.0, 2.0, 4.0]

    def pose(t):
        p = anim.pose_at(t, block.init_pose)
        return p.x, p.y, p.yaw

    # Keyframe (x, y) is in the block's initial frame: rotated 90 deg and moved to (1, 2).
    assert pose(0.0) == pytest.approx((1.0, 2.0, math.pi / 2))
    assert pose(1.0) == pytest.approx((1.0, 3.0, math.pi / 2))  # halfway to (2, 0): (1, 0) -> world (1, 3)
    assert pose(3.0) == pytest.approx((0.0, 4.0, math.pi / 2 + math.pi / 4))  # (2, 1, 45 deg)
    assert pose(5.0) == pytest.approx(pose(1.0))  # fmod(t, 4 s)
    assert pose(10.0) == pytest.approx((1.0, 4.0, math.pi / 2))  # fmod -> t = 2: keyframe (2, 0, 0)


def test_time_pose3d_interpolates_height_and_attitude():
    spec = load_world_string(world(f"""
  <block name="b">{BOX}
    <animation type="keyframes">
      <time_pose3d>0   0 0 0   0 0 0</time_pose3d>
      <time_pose3d>10  0 0 3   0 20 0</time_pose3d>
    </animation>
  </block>"""))
    block = spec.blocks[0]
    p = block.animation.pose_at(2.5, block.init_pose)
    assert (p.x, p.y, p.z) == pytest.approx((0.0, 0.0, 0.75))
    assert p.pitch == pytest.approx(math.radians(5.0)) and p.yaw == pytest.approx(0.0, abs=1e-12)


def test_yaw_is_interpolated_the_shorter_way_round():
    spec = load_world_string(world(f"""
  <block name="b">{BOX}
    <animation type="keyframes"><time_pose>0 0 0 170</time_pose><time_pose>1 0 0 -170</time_pose></animation>
  </block>"""))
    block = spec.blocks[0]
    yaw = block.animation.pose_at(0.5, block.init_pose).yaw
    assert abs(yaw) == pytest.approx(math.pi)  # through 180 deg, not through 0


def test_before_the_first_keyframe_the_block_keeps_its_initial_pose_then_its_last_keyframe():
    spec = load_world_string(world(f"""
  <block name="b">{BOX}<init_pose>5 0 0</init_pose>
    <animation type="keyframes"><time_pose>1 1 0 0</time_pose><time_pose>3 3 0 0</time_pose></animation>
  </block>"""))
    block = spec.blocks[0]
    x = [block.animation.pose_at(t, block.init_pose).x for t in (0.5, 2.0, 3.5)]
    assert x == pytest.approx([5.0, 7.0, 8.0])  # initial; halfway (2) -> 5 + 2; next cycle before t=1: last (3)


@pytest.mark.parametrize("animation, message", [
    ('<animation><time_pose>0 0 0 0</time_pose></animation>', 'type="keyframes"'),
    ('<animation type="spline"><time_pose>0 0 0 0</time_pose></animation>', "unknown animation type 'spline'"),
    ('<animation type="keyframes"></animation>', "no <time_pose>"),
    ('<animation type="keyframes"><time_pose>0 0 0</time_pose></animation>', "expected 4 numbers"),
    ('<animation type="keyframes"><pose>0 0 0 0</pose></animation>', "valid: time_pose, time_pose3d"),
])
def test_bad_animations_name_file_line_and_tag(animation, message):
    with pytest.raises(WorldFileError) as err:
        load_world_string(world(f'<block name="b">{BOX}\n{animation}</block>'), file="anim.xml")
    assert "anim.xml:3:" in str(err.value) and message in str(err.value)


def test_init_pose3d_of_blocks_and_the_elevation_adjustment():
    spec = load_world_string(world(f"""
  <element class="horizontal_plane"><x_min>0</x_min><x_max>4</x_max><y_min>0</y_min><y_max>4</y_max>
    <z>1.0</z></element>
  <block:class name="crate">{BOX}<zmax>0.6</zmax></block:class>
  <block name="on_floor" class="crate"><init_pose3d>2 2 0.8 30 0 0</init_pose3d></block>
  <block name="below" class="crate"><init_pose3d>2 2 0.0 0 0 0</init_pose3d></block>
  <block name="outside" class="crate"><init_pose3d>9 9 0.5 0 10 20</init_pose3d></block>
  <block name="kept" class="crate"><init_pose3d>2 2 0.25 0 0 0</init_pose3d>
    <skip_elevation_adjust>true</skip_elevation_adjust></block>"""))
    blocks = {b.name: b.init_pose for b in spec.blocks}
    # z + zmax/2 = 1.1 reaches the 1 m floor: the block sits on it; from z = 0 (query 0.3) it stays on the ground.
    assert blocks["on_floor"].z == 1.0 and blocks["on_floor"].yaw == pytest.approx(math.radians(30))
    assert blocks["below"].z == 0.0
    assert blocks["outside"].z == 0.0
    assert (blocks["outside"].pitch, blocks["outside"].roll) == pytest.approx((math.radians(10), math.radians(20)))
    assert blocks["kept"].z == 0.25


def test_init_pose_wins_over_init_pose3d_as_in_mvsim():
    spec = load_world_string(world(f'<block name="b">{BOX}<init_pose3d>1 1 1 0 0 0</init_pose3d>'
                                   '<init_pose>2 3 90</init_pose></block>'))
    assert (spec.blocks[0].init_pose.x, spec.blocks[0].init_pose.y, spec.blocks[0].init_pose.z) == (2.0, 3.0, 0.0)


def test_unnamed_vehicles_blocks_and_actors_are_named_as_mvsim_with_one_warning_each(tmp_path):
    path = tmp_path / "unnamed.world.xml"
    path.write_text(world(f"""{BOT_CLASS}
  <vehicle name="alpha" class="bot"/>
  <for var="i" from="1" to="3">
    <vehicle class="bot"><init_pose>$f{{2*i}} 0 0</init_pose></vehicle>
  </for>
  <block name="named">{BOX}</block>
  <block>{BOX}</block>
  <block>{BOX}<init_pose>3 0 0</init_pose></block>
  <actor><init_pose>0 5 0</init_pose></actor>"""))
    from mvsim_ros.world import load_world

    spec = load_world(path)
    assert [v.name for v in spec.vehicles] == ["alpha", "veh1", "veh2", "veh3"]
    assert [v.init_pose.x for v in spec.vehicles] == [0.0, 2.0, 4.0, 6.0]
    assert [b.name for b in spec.blocks] == ["named", "block001", "block002"]
    assert [a.name for a in spec.actors] == ["actor001"]
    assert spec.warnings == [
        f"{path}:5: <vehicle>: 3 <vehicle> elements (the first here) without a name attribute: named 'veh1' to "
        "'veh3' in creation order, as MVSim does",
        f"{path}:8: <block>: 2 <block> elements (the first here) without a name attribute: named 'block001' to "
        "'block002' in creation order, as MVSim does",
        f"{path}:10: <actor>: a <actor> without a name attribute: named 'actor001' in creation order, as MVSim does",
    ]


def test_a_named_vehicle_clashing_with_a_generated_name_is_a_duplicate():
    with pytest.raises(WorldFileError, match="duplicate vehicle names: veh1"):
        load_world_string(world(f'{BOT_CLASS}<vehicle class="bot"/><vehicle name="veh1" class="bot">'
                                '<init_pose>3 0 0</init_pose></vehicle>'))


ACTOR_CLASS = """
  <actor:class name="pedestrian">
    <walking_speed>1.2</walking_speed><running_speed>3.0</running_speed>
    <height>1.8</height><collision_radius>0.25</collision_radius><collision_height>1.6</collision_height>
    <animation_walk>Man_Walk</animation_walk>
  </actor:class>"""


def test_actor_class_and_instance_merge_and_the_path_is_read():
    spec = load_world_string(world(ACTOR_CLASS + """
  <actor name="p1" class="pedestrian">
    <walking_speed>1.0</walking_speed>
    <init_pose>-1 0 90</init_pose>
    <path loop="false">
      <waypoint>0 0 0</waypoint>
      <waypoint pause="2.5" animation="run">4 0 0</waypoint>
      <waypoint>4 3 1.5 90 0 0</waypoint>
    </path>
  </actor>"""))
    actor = spec.actors[0]
    assert (actor.name, actor.class_name) == ("p1", "pedestrian")
    assert (actor.walking_speed, actor.running_speed, actor.height) == (1.0, 3.0, 1.8)
    assert (actor.collision_radius, actor.collision_height) == (0.25, 1.6)
    assert actor.clips == {"walk": "Man_Walk"}
    assert (actor.init_pose.x, actor.init_pose.y, actor.init_pose.yaw) == pytest.approx((-1, 0, math.pi / 2))
    assert actor.loop is False
    assert [(w.pose.x, w.pose.y, w.pose.z, w.pause, w.animation) for w in actor.path] == [
        (0, 0, 0, 0, ""), (4, 0, 0, 2.5, "run"), (4, 3, 1.5, 0, "")]
    assert actor.path[2].pose.yaw == pytest.approx(math.pi / 2)


@pytest.mark.parametrize("body, message", [
    ('<actor name="a" class="ghost"/>', "unknown actor class 'ghost' (defined actor classes: pedestrian)"),
    ('<actor name="a"><path><waypoint>1 2</waypoint></path></actor>', "expected 3 or 6 numbers"),
    ('<actor name="a"><path><waypoint animation="fly">1 2 0</waypoint></path></actor>', "valid: walk, run, idle"),
    ('<actor name="a"><path><waypoint pause="-1">1 2 0</waypoint></path></actor>',
     "pause: -1 is outside the accepted range"),
    ('<actor name="a"><collision_radius>0</collision_radius></actor>',
     "collision_radius: 0 is outside the accepted range"),
])
def test_bad_actors_name_file_and_line(body, message):
    with pytest.raises(WorldFileError) as err:
        load_world_string(world(ACTOR_CLASS + "\n" + body), file="actors.xml")
    assert "actors.xml:" in str(err.value) and message in str(err.value)


def _path(waypoints: str, loop: str = "true", init: str = "0 0 0", speed: float = 1.2) -> ActorPath:
    spec = load_world_string(world(f"""
  <actor name="a"><walking_speed>{speed}</walking_speed><running_speed>3.0</running_speed>
    <init_pose>{init}</init_pose><path loop="{loop}">{waypoints}</path></actor>"""))
    return ActorPath(spec.actors[0])


def test_actor_walks_its_path_at_its_speed():
    path = _path("<waypoint>20 0 0</waypoint>", loop="false")
    x, y, z, yaw = path.pose(10.0)
    assert (x, y, z) == pytest.approx((12.0, 0.0, 0.0), abs=1e-9)  # 1.2 m/s for 10 s
    assert yaw == pytest.approx(0.0)
    assert path.speed(10.0) == pytest.approx(1.2)
    assert path.pose(30.0)[:2] == pytest.approx((20.0, 0.0))  # stays at the last waypoint
    assert path.speed(30.0) == 0.0


def test_actor_pauses_runs_and_loops():
    # (0,0) -> (6,0) walking 5 s, pause 2 s; -> (6,6) running 2 s; -> back to (0,0)... (loop: to the first waypoint)
    path = _path('<waypoint>0 0 0</waypoint><waypoint pause="2">6 0 0</waypoint>'
                 '<waypoint animation="run">6 6 90</waypoint>', init="0 0 0")
    assert path.pose(2.5)[:2] == pytest.approx((3.0, 0.0))
    assert path.pose(6.0)[:2] == pytest.approx((6.0, 0.0))  # pausing (arrived at 5 s, leaves at 7 s)
    assert path.speed(6.0) == 0.0
    assert path.pose(8.0)[:2] == pytest.approx((6.0, 3.0))  # running 3 m/s since 7 s
    # back to (0, 0): the diagonal of 6 sqrt(2) m at 1.2 m/s, then the cycle repeats (0,0) -> (6,0) ...
    back = 6 * math.sqrt(2) / 1.2
    assert path.pose(9.0 + back)[:2] == pytest.approx((0.0, 0.0))
    assert path.pose(9.0 + back + 2.5)[:2] == pytest.approx((3.0, 0.0))


def test_actor_faces_along_its_segment_and_turns_into_the_waypoint_yaw():
    path = _path('<waypoint>10 0 90</waypoint>', loop="false", init="0 0 -90", speed=1.0)
    assert path.pose(0.0)[3] == pytest.approx(-math.pi / 2)  # starts at its initial yaw
    assert path.pose(0.5)[3] == pytest.approx(-math.pi / 4)  # half of the first 10 %: half-way to the heading 0
    assert path.pose(5.0)[3] == pytest.approx(0.0)  # walking along +x
    assert path.pose(9.0)[3] == pytest.approx(math.pi / 4)  # half of the last 20 %: half-way to 90 deg
    assert path.pose(12.0)[3] == pytest.approx(math.pi / 2)


def test_an_actor_without_a_path_stands_still():
    spec = load_world_string(world('<actor name="a"><init_pose>1 2 45</init_pose></actor>'))
    path = ActorPath(spec.actors[0])
    assert path.pose(100.0) == pytest.approx((1.0, 2.0, 0.0, math.radians(45)))


def test_joystick_enabled_is_a_known_gui_option():
    spec = load_world_string(world("<joystick_enabled>true</joystick_enabled>"))
    assert spec.joystick_enabled is True and len(spec.warnings) == 1  # MVSim's GUI option: noted once, kept
    assert "<joystick_enabled>: <mvsim_world>: accepted but not used here: joystick_enabled (MVSim's GUI" in \
        spec.warnings[0]


def test_rotation_helpers_round_trip():
    from mvsim_ros.core.rotations import (matrix_quaternion, quaternion_product, quaternion_yaw_pitch_roll,
                                          ypr_quaternion)

    def same_rotation(a, b):  # q and -q are one rotation
        return a == pytest.approx(b, abs=1e-12) or a == pytest.approx(tuple(-c for c in b), abs=1e-12)

    rng = np.random.default_rng(3)
    for _ in range(50):
        a, b = (Pose3(0, 0, 0, rng.uniform(-3, 3), rng.uniform(-1.5, 1.5), rng.uniform(-3, 3)) for _ in range(2))
        q = matrix_quaternion(a.rotation())
        assert q[0] >= 0 and same_rotation(q, ypr_quaternion(a.yaw, a.pitch, a.roll))
        assert quaternion_yaw_pitch_roll(q) == pytest.approx((a.yaw, a.pitch, a.roll), abs=1e-9)
        assert same_rotation(quaternion_product(q, matrix_quaternion(b.rotation())),
                             matrix_quaternion(a.rotation() @ b.rotation()))


def test_wheel_pos_takes_mvsims_optional_mounting_yaw():
    spec = load_world_string(world('''<vehicle name="v"><dynamics class="differential">
      <l_wheel pos="0.1 0.3 -90" mass="1.0" width="0.05" diameter="0.2"/>
      <r_wheel pos="0.1 -0.3" mass="1.0" width="0.05" diameter="0.2"/></dynamics></vehicle>'''))
    left, right = spec.vehicles[0].wheels
    assert (left.x, left.y, left.yaw) == pytest.approx((0.1, 0.3, -math.pi / 2))
    assert (right.x, right.y, right.yaw) == pytest.approx((0.1, -0.3, 0.0))
    with pytest.raises(WorldFileError, match=r"wheel pos 'x y \[yaw_deg\]': expected 2 or 3 numbers"):
        load_world_string(world('<vehicle name="v"><dynamics class="differential">'
                                '<l_wheel pos="1 2 3 4"/></dynamics></vehicle>'))
