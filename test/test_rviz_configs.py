"""rviz2 configurations: the shipped ones match their worlds, and each world's publications get a display."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import yaml

from mvsim_ros.cli.rviz_config import SINGLE_TREE_PARAMETER, config_name, rviz_config, rviz_displays
from mvsim_ros.world import load_world

ROOT = Path(__file__).resolve().parent.parent


def _generator():
    spec = importlib.util.spec_from_file_location("make_rviz_configs", ROOT / "tools" / "make_rviz_configs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _topics(displays: list[dict]) -> dict[str, str]:
    """Topic -> display class (without the plugin prefix)."""
    return {d["Topic"]["Value"]: d["Class"].split("/")[1] for d in displays if "Topic" in d}


def test_every_world_has_an_up_to_date_config():
    stale = _generator().stale_configs(ROOT)
    assert stale == [], f"stale rviz configs (run tools/make_rviz_configs.py): {stale}"


def test_a_changed_config_is_reported_by_name(tmp_path):
    shutil.copytree(ROOT / "worlds", tmp_path / "worlds")
    (tmp_path / "rviz").mkdir()
    for world in sorted((tmp_path / "worlds").glob("*.world.xml"))[:2]:
        shutil.copy(ROOT / "rviz" / config_name(world), tmp_path / "rviz")
    for world in sorted((tmp_path / "worlds").glob("*.world.xml"))[2:]:
        world.unlink()
    first = sorted((tmp_path / "rviz").glob("*.rviz"))[0]
    first.write_text(first.read_text().replace("Fixed Frame: map", "Fixed Frame: odom"))
    (tmp_path / "rviz" / "gone.rviz").write_text("Panels: []\n")
    assert _generator().stale_configs(tmp_path) == [f"rviz/{first.name}", "rviz/gone.rviz"]


def test_shipped_configs_are_rviz2_yaml_with_map_fixed_frame():
    for path in sorted((ROOT / "rviz").glob("*.rviz")):
        config = yaml.safe_load(path.read_text())
        manager = config["Visualization Manager"]
        assert manager["Global Options"]["Fixed Frame"] == "map", path.name
        classes = [d["Class"] for d in manager["Displays"]]
        assert classes[:2] == ["rviz_default_plugins/Grid", "rviz_default_plugins/TF"], path.name
        assert "rviz_default_plugins/RobotModel" not in classes, path.name


def test_demo_2robots_shows_both_robots_scans_and_the_map():
    config = yaml.safe_load((ROOT / "rviz" / "demo_2robots.rviz").read_text())
    topics = _topics(config["Visualization Manager"]["Displays"])
    assert topics == {"/simul_map": "Map", "/r1/chassis_markers": "MarkerArray", "/r1/odom": "Odometry",
                      "/r1/scan": "LaserScan", "/r2/chassis_markers": "MarkerArray", "/r2/odom": "Odometry",
                      "/r2/scan": "LaserScan"}
    assert f"{SINGLE_TREE_PARAMETER}:=true" in (ROOT / "rviz" / "demo_2robots.rviz").read_text()


def test_single_vehicle_topics_have_no_prefix_and_no_single_tree_note():
    text = (ROOT / "rviz" / "office_yaml_map.rviz").read_text()
    topics = _topics(yaml.safe_load(text)["Visualization Manager"]["Displays"])
    assert topics == {"/simul_map": "Map", "/chassis_markers": "MarkerArray", "/odom": "Odometry",
                      "/scan": "LaserScan"}
    assert SINGLE_TREE_PARAMETER not in text


def test_trailers_articulation_and_moving_objects_get_their_displays():
    car = _topics(yaml.safe_load((ROOT / "rviz" / "car_trailer.rviz").read_text())["Visualization Manager"]
                  ["Displays"])
    assert car["/car/footprint_stamped"] == "Polygon" and "/trailer/footprint_stamped" not in car
    loader = _topics(yaml.safe_load((ROOT / "rviz" / "articulated.rviz").read_text())["Visualization Manager"]
                     ["Displays"])
    assert loader["/loader/footprint_stamped"] == "Polygon" and "/robot/footprint_stamped" not in loader
    moving = _topics(yaml.safe_load((ROOT / "rviz" / "moving_things.rviz").read_text())["Visualization Manager"]
                     ["Displays"])
    assert moving["/simul_objects"] == "MarkerArray" and moving["/door_watch"] == "LaserScan"


def test_cameras_rgbd_and_3d_lidars_get_image_and_cloud_displays():
    world = load_world(str(ROOT / "test" / "worlds" / "all_sensors.world.xml"))
    topics = _topics(rviz_displays(world))
    assert topics["/s1/cam/image_raw"] == "Image"
    assert topics["/s1/rgbd_rgb/image_raw"] == "Image" and topics["/s1/rgbd_points"] == "PointCloud2"
    assert topics["/s1/lidar_points"] == "PointCloud2" and topics["/s1/scan"] == "LaserScan"
    assert not {"/s1/imu", "/s1/gps"} & set(topics), "rviz2 has no default IMU or GNSS display"
    assert yaml.safe_load(rviz_config(world, "sensors"))["Visualization Manager"]["Displays"]
