"""rviz2 configurations derived from a world file: one display per thing the node publishes for that world.

No ROS here: the configuration is rviz2's YAML text, built from the world's specs (vehicles, their sensors,
world-level sensors, occupancy grids, actors and animated blocks, trailers and articulated vehicles) with the
topic names the node gives them. `tools/make_rviz_configs.py` writes one per example world into `rviz/`;
`launch/demo.launch.py` builds one on the fly for a world that has none shipped.

Every display subscribes with absolute topic names (the node runs without a namespace). Worlds with several
vehicles need the node's single-TF-tree mode (`SINGLE_TREE_PARAMETER`): rviz2's TF display reads only `/tf`
and `/tf_static`, while each vehicle's tree is otherwise on its own `<veh>/tf`.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from mvsim_ros.ros.topics import ros_safe_names, vehicle_prefix
from mvsim_ros.world.specs import SensorSpec, WorldSpec

#: Node parameter that puts every vehicle's TF on /tf (frames prefixed `<veh>/`); the launch file sets it when
#: rviz2 shows a world with several vehicles.
SINGLE_TREE_PARAMETER = "tf_single_tree"
#: Fixed frame of every configuration (REP-105's world-fixed frame).
FIXED_FRAME = "map"
#: Suffix of world files; the configuration of `worlds/NAME.world.xml` is `rviz/NAME.rviz`.
WORLD_SUFFIX = ".world.xml"

_LATCHED = {"Depth": 1, "Durability Policy": "Transient Local", "History Policy": "Keep Last",
            "Reliability Policy": "Reliable"}
_SENSOR = {"Depth": 5, "Durability Policy": "Volatile", "History Policy": "Keep Last",
           "Reliability Policy": "Best Effort"}
_RELIABLE = {"Depth": 5, "Durability Policy": "Volatile", "History Policy": "Keep Last",
             "Reliability Policy": "Reliable"}


def config_name(world_file: str | Path) -> str:
    """File name of a world's configuration: `demo_2robots.world.xml` -> `demo_2robots.rviz`."""
    name = Path(world_file).name
    stem = name[: -len(WORLD_SUFFIX)] if name.endswith(WORLD_SUFFIX) else Path(name).stem
    return stem + ".rviz"


def needs_single_tree(world: WorldSpec) -> bool:
    """True when rviz2 can show the world's TF only with the node's single-tree mode (several vehicles)."""
    return len(world.vehicles) > 1


def _topic(qos: dict, name: str) -> dict:
    return {"Topic": {"Value": "/" + name, **qos}}


def _display(cls: str, name: str, **fields) -> dict:
    return {"Class": f"rviz_default_plugins/{cls}", "Enabled": True, "Name": name, **fields}


def _sensor_displays(sensor: SensorSpec, prefix: str, label: str) -> list[dict]:
    """Displays of one sensor (`label` names them in the panel); IMU and GNSS have no rviz2 default display."""
    base = prefix + sensor.name
    if sensor.kind == "laser":
        return [_display("LaserScan", f"{label} scan", **_topic(_SENSOR, base), **{
            "Color Transformer": "Intensity", "Size (m)": 0.05, "Style": "Flat Squares", "Decay Time": 0})]
    if sensor.kind == "lidar3d":
        return [_display("PointCloud2", f"{label} points", **_topic(_SENSOR, base + "_points"), **{
            "Color Transformer": "AxisColor", "Axis": "Z", "Size (m)": 0.03, "Style": "Flat Squares"})]
    if sensor.kind == "camera":
        return [_display("Image", f"{label} image", **_topic(_SENSOR, base + "/image_raw"))]
    if sensor.kind == "rgbd_camera":
        return [_display("Image", f"{label} rgb", **_topic(_SENSOR, base + "_rgb/image_raw")),
                _display("PointCloud2", f"{label} points", **_topic(_SENSOR, base + "_points"), **{
                    "Color Transformer": "RGB8", "Size (m)": 0.02, "Style": "Flat Squares"})]
    return []


def _vehicle_displays(world: WorldSpec, index: int, prefix: str, has_footprint: bool) -> list[dict]:
    vehicle = world.vehicles[index]
    name = vehicle.name
    displays = [
        _display("MarkerArray", f"{name} chassis", Namespaces={}, **_topic(_LATCHED, prefix + "chassis_markers")),
        _display("Odometry", f"{name} odom", **_topic(_RELIABLE, prefix + "odom"), **{
            "Keep": 20, "Position Tolerance": 0.1, "Angle Tolerance": 0.1,
            "Shape": {"Value": "Arrow", "Color": "255; 25; 0", "Alpha": 1, "Shaft Length": 0.5,
                      "Shaft Radius": 0.03, "Head Length": 0.15, "Head Radius": 0.08}}),
    ]
    if has_footprint:
        # rviz2's Polygon display reads PolygonStamped: the stamped twin of Nav2's `<veh>/footprint`.
        displays.append(_display("Polygon", f"{name} footprint", **_topic(_RELIABLE, prefix + "footprint_stamped"), **{
            "Color": "25; 255; 0", "Alpha": 1}))
    for sensor in vehicle.sensors:
        displays += _sensor_displays(sensor, prefix, f"{name} {sensor.name}")
    return displays


def _towing_heads(world: WorldSpec) -> set[int]:
    """Indices of the vehicles the node publishes `<veh>/footprint` for: those that tow others through a
    world-file joint, and articulated vehicles."""
    index = {v.name: i for i, v in enumerate(world.vehicles)}
    heads = {index[j.body_a] for j in world.joints if j.body_a in index and j.body_b in index}
    return heads | {i for i, v in enumerate(world.vehicles) if v.articulation is not None}


def rviz_displays(world: WorldSpec) -> list[dict]:
    """The Displays list of a world's configuration, in a stable order."""
    world, _ = ros_safe_names(world, False)
    count = len(world.vehicles)
    displays = [
        _display("Grid", "Grid", **{"Cell Size": 1, "Plane Cell Count": 40, "Color": "160; 160; 164",
                                    "Alpha": 0.5, "Reference Frame": "<Fixed Frame>"}),
        _display("TF", "TF", **{"Show Names": True, "Show Axes": True, "Show Arrows": False,
                                "Marker Scale": 0.5, "Frame Timeout": 15, "Frames": {"All Enabled": True}}),
    ]
    if world.occupancy_grids:
        displays.append(_display("Map", "simul_map", **_topic(_LATCHED, "simul_map"), **{
            "Alpha": 0.7, "Color Scheme": "map", "Draw Behind": True}))
    if world.actors or any(b.animation is not None for b in world.blocks):
        displays.append(_display("MarkerArray", "simul_objects", **{"Namespaces": {}},
                                 **_topic(_RELIABLE, "simul_objects")))
    heads = _towing_heads(world)
    for i in range(count):
        prefix = vehicle_prefix(world.vehicles[i].name, count, False)
        displays += _vehicle_displays(world, i, prefix, i in heads)
    for sensor in world.sensors:
        displays += _sensor_displays(sensor, "", sensor.name)
    return displays


def _tools(world: WorldSpec) -> list[dict]:
    """rviz2's tools; the pose and goal tools talk to the first vehicle (`<veh>/initialpose`, `<veh>/goal_pose`
    when topics are namespaced, as a namespaced Nav2 listens)."""
    named, _ = ros_safe_names(world, False)
    prefix = vehicle_prefix(named.vehicles[0].name, len(named.vehicles), False) if named.vehicles else ""
    return [
        {"Class": "rviz_default_plugins/Interact", "Hide Inactive Objects": True},
        {"Class": "rviz_default_plugins/MoveCamera"},
        {"Class": "rviz_default_plugins/Select"},
        {"Class": "rviz_default_plugins/FocusCamera"},
        {"Class": "rviz_default_plugins/Measure", "Line color": "128; 128; 0"},
        {"Class": "rviz_default_plugins/SetInitialPose", "Topic": {"Value": f"/{prefix}initialpose"}},
        {"Class": "rviz_default_plugins/SetGoal", "Topic": {"Value": f"/{prefix}goal_pose"}},
        {"Class": "rviz_default_plugins/PublishPoint", "Single click": True, "Topic": {"Value": "/clicked_point"}},
    ]


def rviz_config(world: WorldSpec, world_label: str) -> str:
    """The whole rviz2 configuration file (YAML with a header comment) of `world`; `world_label` names the
    world file in the header."""
    config = {
        "Panels": [
            {"Class": "rviz_common/Displays", "Name": "Displays", "Help Height": 78, "Tree Height": 500},
            {"Class": "rviz_common/Views", "Name": "Views"},
            {"Class": "rviz_common/Time", "Name": "Time", "SyncMode": 0, "SyncSource": ""},
        ],
        "Visualization Manager": {
            "Class": "",
            "Displays": rviz_displays(world),
            "Enabled": True,
            "Global Options": {"Background Color": "48; 48; 48", "Fixed Frame": FIXED_FRAME, "Frame Rate": 30},
            "Name": "root",
            "Tools": _tools(world),
            "Value": True,
            "Views": {
                "Current": {"Class": "rviz_default_plugins/Orbit", "Name": "Current View", "Distance": 25,
                            "Focal Point": {"X": 0, "Y": 0, "Z": 0}, "Pitch": 1.1, "Yaw": 4.0,
                            "Target Frame": "<Fixed Frame>", "Value": "Orbit (rviz_default_plugins)"},
                "Saved": None,
            },
        },
        "Window Geometry": {"Height": 900, "Width": 1400, "X": 0, "Y": 0, "Hide Left Dock": False,
                            "Hide Right Dock": True},
    }
    single = (f"# Several vehicles: start the node with {SINGLE_TREE_PARAMETER}:=true (demo.launch.py does so with\n"
              "# use_rviz:=true), so that every vehicle's TF reaches /tf, the only TF topic rviz2's TF display reads.\n"
              if needs_single_tree(world) else "")
    header = (f"# rviz2 configuration for {world_label}, generated by tools/make_rviz_configs.py from the world file;\n"
              "# edit the generator, not this file (test/test_rviz_configs.py checks they agree).\n" + single)
    return header + yaml.safe_dump(config, sort_keys=False, default_flow_style=False, width=120)
