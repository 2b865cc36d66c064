"""Test worlds and sweep files of the sweep tests: one differential robot driving +x towards a wall whose distance
is the world variable ${WALL_X} (default 4 m), with or without a 2D lidar."""

from __future__ import annotations

from pathlib import Path

import yaml

from conftest import robot_world_xml

LIDAR = ('<sensor class="laser" name="scan"><pose>0.2 0 0</pose><fov_degrees>180</fov_degrees><nrays>91</nrays>'
         '<range_max>20</range_max><range_std_noise>0</range_std_noise><angle_std_noise_deg>0</angle_std_noise_deg>'
         '<sensor_period>0.1</sensor_period></sensor>')
WALL = ('<variable name="WALL_X" value="4.0"/>'
        '<block name="wall"><static>true</static><shape><pt>0 -3</pt><pt>0.2 -3</pt><pt>0.2 3</pt><pt>0 3</pt></shape>'
        '<init_pose>${WALL_X} 0 0</init_pose></block>')


def write_worlds(folder: Path) -> tuple[Path, Path]:
    """Two worlds: the wall world with a lidar, and the same without one."""
    with_lidar, bare = folder / "wall_lidar.world.xml", folder / "wall.world.xml"
    with_lidar.write_text(robot_world_xml(extra=WALL, class_extra=LIDAR))
    bare.write_text(robot_world_xml(extra=WALL))
    return with_lidar, bare


def write_sweep(folder: Path, **fields) -> Path:
    """A sweep file over the two worlds (keys overridden by `fields`)."""
    with_lidar, bare = write_worlds(folder)
    data = {"worlds": [with_lidar.name, bare.name], "seconds": 4.0, "seeds": 2,
            "parameters": {"friction.mu": [0.5, 0.8], "controller.KP": [40.0, 60.0]},
            "program": {"schedule": [[0.0, 0.5, 0.0]]}}
    data.update(fields)
    path = folder / "sweep.yaml"
    path.write_text(yaml.safe_dump(data))
    return path
