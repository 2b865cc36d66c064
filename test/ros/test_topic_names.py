"""World names made valid ROS topic names (no DDS): what is renamed, what follows, what is refused."""

import pytest

from mvsim_ros.ros.topics import RosNameError, ros_name, ros_safe_names
from mvsim_ros.world import load_world_string

BOT = '<vehicle:class name="bot"><dynamics class="differential"/></vehicle:class>'


@pytest.mark.parametrize("name, expected", [
    ("r1", "r1"), ("my-robot", "my_robot"), ("01a_truck", "_01a_truck"), ("a b.c", "a_b_c"),
    ("fleet/7", "fleet/_7"), ("ü", "_"), ("a//b", ""), ("", ""),
])
def test_ros_name(name, expected):
    assert ros_name(name) == expected


def test_names_in_topics_are_renamed_and_joints_follow():
    world = load_world_string(f'''<mvsim_world version="1.0">{BOT}
      <vehicle name="tug-1" class="bot"><sensor class="laser" name="front laser"/></vehicle>
      <vehicle name="2cart" class="bot"><init_pose>-2 0 0</init_pose></vehicle>
      <joint type="revolute" body_a="tug-1" body_b="2cart" anchor_a="-0.5 0" anchor_b="0.5 0"/>
      <sensor class="laser" name="door-watch"><pose>5 0 0</pose></sensor></mvsim_world>''', file="w.xml")
    safe, warnings = ros_safe_names(world, force_namespace=False)
    assert [v.name for v in safe.vehicles] == ["tug_1", "_2cart"]
    assert safe.vehicles[0].sensors[0].name == "front_laser" and safe.sensors[0].name == "door_watch"
    assert (safe.joints[0].body_a, safe.joints[0].body_b) == ("tug_1", "_2cart")
    assert warnings[0] == ("w.xml:2: <vehicle>: vehicle 'tug-1' is published as 'tug_1' (ROS topic names take "
                           "letters, digits and '_', not a leading digit)")
    assert len(warnings) == 4
    assert [v.name for v in world.vehicles] == ["tug-1", "2cart"]  # the loaded spec itself is unchanged


def test_a_single_vehicle_keeps_its_name_unless_namespaced():
    world = load_world_string(f'<mvsim_world version="1.0">{BOT}<vehicle name="my-robot" class="bot"/></mvsim_world>')
    assert ros_safe_names(world, force_namespace=False) == (world, [])
    safe, warnings = ros_safe_names(world, force_namespace=True)
    assert safe.vehicles[0].name == "my_robot" and len(warnings) == 1


def test_names_that_meet_after_renaming_are_refused():
    world = load_world_string(f'''<mvsim_world version="1.0">{BOT}<vehicle name="a-b" class="bot"/>
      <vehicle name="a_b" class="bot"><init_pose>3 0 0</init_pose></vehicle></mvsim_world>''', file="w.xml")
    with pytest.raises(RosNameError, match=r"w.xml:2: <vehicle>: vehicle 'a_b' and vehicle 'a-b' "
                                           r"\(w.xml:1: <vehicle>\) would both be published as 'a_b'"):
        ros_safe_names(world, force_namespace=False)
