"""Worlds written for MVSim speak clearly: GUI-only parameters and unavailable remote models are one warning line
each, every warning is said once, and a typo names what was meant (a misspelt top-level element is an error)."""

from __future__ import annotations

import re

import pytest

from conftest import robot_world_xml
from mvsim_ros.sensors.scene_meshes import SceneMeshes
from mvsim_ros.world import load_world, load_world_string
from mvsim_ros.world.errors import WorldFileError
from mvsim_ros.world.files.visual_models import REMOTE_MODEL_WARNING
from mvsim_ros.world.warning_summary import summarize_warnings, unavailable_remote_models

#: MVSim's 2D lidar definition (definitions/lidar2d.sensor.xml), with its GUI-only <viz_*> parameters.
LIDAR2D_SENSOR = """<sensor class="laser" name="{name}">
    <pose_3d> 0.1 0.0 0.3 0.0 0.0 0.0</pose_3d>
    <fov_degrees>180</fov_degrees>
    <sensor_period>0.05</sensor_period>
    <nrays>181</nrays>
    <range_std_noise>0.01</range_std_noise>
    <max_range>30.0</max_range>
    <viz_visiblePoints>true</viz_visiblePoints>
    <viz_pointSize>3.0</viz_pointSize>
    <viz_visiblePlane>false</viz_visiblePlane>
    <viz_visibleLines>true</viz_visibleLines>
    <viz_pointsColor>#ff000080</viz_pointsColor>
    <viz_planeColor>#0000ff10</viz_planeColor>
</sensor>"""
#: MVSim's RGB-D camera definition (definitions/rgbd_camera.sensor.xml), cut to its GUI-only parameter.
RGBD_SENSOR = """<sensor class="rgbd_camera" name="camera1">
    <pose_3d>0.2 0 0.3 0 0 0</pose_3d>
    <show_3d_pointcloud>true</show_3d_pointcloud>
</sensor>"""
GUI_ONLY_NAMES = ("viz_visiblePoints", "viz_pointSize", "viz_visiblePlane", "viz_visibleLines", "viz_pointsColor",
                  "viz_planeColor", "show_3d_pointcloud")
REMOTE_URIS = [f"https://models.example/m{k}.dae" for k in range(9)]


def _jackal_like_world() -> str:
    """A world as MVSim's demo_jackal: two 2D lidars and an RGB-D camera on the robot, 13 GUI-only parameters."""
    sensors = LIDAR2D_SENSOR.format(name="laser1") + LIDAR2D_SENSOR.format(name="laser2") + RGBD_SENSOR
    return robot_world_xml(extra=f'<vehicle name="r2" class="bot"><init_pose>2 0 0</init_pose>{sensors}</vehicle>')


def test_gui_only_parameters_are_one_line_with_counts_and_names():
    world = load_world_string(_jackal_like_world(), file="w.xml")

    gui = [w for w in world.warnings if any(name in w for name in GUI_ONLY_NAMES)]
    assert len(gui) == 1, world.warnings
    assert gui[0].startswith("13 GUI-only parameters ignored"), gui[0]
    assert "viz_pointSize ×2" in gui[0] and "show_3d_pointcloud" in gui[0]


def test_a_world_with_gui_only_parameters_says_at_most_one_line_per_kind():
    world = load_world_string(_jackal_like_world(), file="w.xml")

    kinds = [re.sub(r"^w\.xml:\d+: <[^>]*>: ", "", w).split(" of ", 1)[0] for w in world.warnings]
    assert len(world.warnings) <= 2, world.warnings
    assert len(set(kinds)) == len(kinds), world.warnings


def test_remote_models_unavailable_are_one_line_naming_the_fix_and_each_uri_once():
    lines = [f"w.xml:{k}: <block>: {REMOTE_MODEL_WARNING}: {uri} (host models.example failed earlier in this "
             f"process (timed out); not tried again); using the declared shape/bounding box"
             for k, uri in enumerate(REMOTE_URIS)]

    out = summarize_warnings(["w.xml:1: <a>: something else", *lines], world_file="demo.world.xml")

    assert len(out) == 2 and out[0] == "w.xml:1: <a>: something else", out
    line = out[1]
    assert "mvsim_fetch_models demo.world.xml" in line and "MVSIM_OFFLINE=1" in line
    assert all(line.count(uri) == 1 for uri in REMOTE_URIS), line
    assert line.count("not tried again") <= 1, line
    assert unavailable_remote_models(out) == set(REMOTE_URIS)


def test_an_actors_unavailable_model_is_said_once_by_the_load_and_not_again_by_the_scene(write_world):
    path = write_world(robot_world_xml(extra=(
        '<actor name="person1"><visual><model_uri>https://models.example/person.dae</model_uri></visual>'
        '<init_pose>3 0 0</init_pose></actor>')))

    world = load_world(path)
    heard: list[str] = []
    meshes = SceneMeshes.build(world, warn=heard.append)

    said = [w for w in world.warnings if "https://models.example/person.dae" in w]
    assert len(said) == 1 and "mvsim_fetch_models" in said[0], world.warnings
    assert heard == [] and meshes.warnings == []


def test_a_misspelt_vehicle_fails_the_load_naming_file_line_and_the_element(write_world):
    path = write_world(robot_world_xml(extra='<vehicel name="r2" class="bot"/>'))

    with pytest.raises(WorldFileError) as raised:
        load_world(path)

    text = str(raised.value)
    assert f"{path}:17" in text and "did you mean <vehicle>?" in text, text


def test_other_unknown_top_level_tags_keep_warning():
    world = load_world_string(robot_world_xml(extra="<weather/>"), file="w.xml")
    assert world.warnings == ["w.xml:17: <weather>: unknown tag; skipped"]


def test_init_pos_names_init_pose():
    world = load_world_string(robot_world_xml(
        extra='<vehicle name="r2" class="bot"><init_pos>1 0 0</init_pos></vehicle>'), file="w.xml")
    (warning,) = world.warnings
    assert "unknown parameter <init_pos>" in warning and warning.endswith("did you mean <init_pose>?"), warning


def test_a_misspelt_attribute_names_the_known_one():
    world = load_world_string(robot_world_xml(extra='<block name="b" clas="box"><shape><pt>0 0</pt><pt>1 0</pt>'
                                                    '<pt>1 1</pt></shape></block>'), file="w.xml")
    (warning,) = world.warnings
    assert "unknown attribute clas=" in warning and warning.endswith("did you mean 'class'?"), warning


def test_a_misspelt_world_parameter_warns_naming_the_known_one():
    world = load_world_string(robot_world_xml(extra="<gravty>9.8</gravty>"), file="w.xml")
    assert world.warnings == ["w.xml:17: <gravty>: unknown world parameter; kept but not used; did you mean <gravity>?"]
