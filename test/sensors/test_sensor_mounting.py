"""Where a sensor is and what it sees, from MVSim's parameters: a laser's `height` (the z of its pose) decides
which blocks its plane cuts; `ignore_parent_body` hides the sensor's own vehicle from rendered lidars (MVSim
renders it otherwise); a 3D lidar's rings sit at its `vertical_ray_angles`."""

import math

import numpy as np
import pytest

from conftest import robot_world_xml
from gl_support import needs_gl
from mvsim_ros.physics import Simulation
from mvsim_ros.sensors.suite import build_sensors
from mvsim_ros.world import load_world_string

NO_NOISE = "<range_std_noise>0</range_std_noise><angle_std_noise_deg>0</angle_std_noise_deg>"
#: A block whose near face is the plane x = 2 m, 0 to 0.5 m high.
LOW_BLOCK = ('<block name="low"><static>true</static><zmin>0</zmin><zmax>0.5</zmax>'
             '<geometry type="box" lx="0.4" ly="2" lz="0.5"/><init_pose>2 -1 0</init_pose></block>')


def on_robot(sensor: str, extra: str = "") -> str:
    return robot_world_xml(init_pose="0 0 0", extra=extra).replace(
        "<init_pose>0 0 0</init_pose>", "<init_pose>0 0 0</init_pose>" + sensor)


@pytest.mark.parametrize("height, expected", [(0.3, 1.7), (0.8, math.inf)])
def test_a_laser_scans_at_its_height(height, expected):
    laser = (f'<sensor class="laser" name="l"><pose>0.3 0 0</pose><height>{height}</height><fov_degrees>10'
             f'</fov_degrees><nrays>3</nrays>{NO_NOISE}</sensor>')
    world = load_world_string(on_robot(laser, LOW_BLOCK))
    lidar = build_sensors(world).lidars[0]
    assert lidar.spec.pose.z == height
    sim = Simulation(world)
    assert lidar.scan(sim.box2d.world, sim.pose[0])[1] == pytest.approx(expected, abs=1e-3)


#: A wall block whose near face is the plane x = 3 m, 2 m high.
WALL = ('<block name="wall"><static>true</static><zmin>0</zmin><zmax>2</zmax>'
        '<geometry type="box" lx="0.2" ly="6" lz="2"/><init_pose>3 -3 0</init_pose></block>')


@needs_gl
@pytest.mark.parametrize("ignore, expected", [("false", 0.75), ("true", 4.0)])
@pytest.mark.parametrize("kind", ["laser", "lidar3d"])
def test_rendered_lidars_see_their_own_vehicle_unless_told_to_ignore_it(kind, ignore, expected):
    from mvsim_ros.sensors.scene import Scene

    # Mounted 1 m behind the reference point, looking forward through the robot's own chassis (its rear face is the
    # plane x = -0.25, 0.75 m ahead of the sensor) at the wall 4 m ahead.
    if kind == "laser":
        sensor = (f'<sensor class="laser" name="s"><pose_3d>-1 0 0.3 0 0 0</pose_3d><fov_degrees>10</fov_degrees>'
                  f'<nrays>3</nrays><raytrace_3d>true</raytrace_3d>{NO_NOISE}'
                  f'<ignore_parent_body>{ignore}</ignore_parent_body></sensor>')
    else:
        sensor = ('<sensor class="lidar3d" name="s"><pose_3d>-1 0 0.3 0 0 0</pose_3d><vert_nrays>1</vert_nrays>'
                  '<horz_nrays>360</horz_nrays><range_std_noise>0</range_std_noise>'
                  f'<ignore_parent_body>{ignore}</ignore_parent_body></sensor>')
    world = load_world_string(on_robot(sensor, WALL))
    sensors = build_sensors(world)
    sim = Simulation(world)
    scene = Scene(world)
    scene.update(sim)
    if kind == "laser":
        ahead = sensors.lidars[0].render_scan(scene, sim.pose[0])[1]
    else:
        ahead = sensors.lidars3d[0].scan(scene, sim.pose[0])[0, 180]  # azimuth 0
    assert ahead == pytest.approx(expected, abs=3e-3)


@needs_gl
def test_lidar3d_rings_at_their_vertical_ray_angles():
    from mvsim_ros.sensors.scene import Scene

    sensor = ('<sensor class="lidar3d" name="s"><pose_3d>0 0 1.0 0 0 0</pose_3d><vert_nrays>3</vert_nrays>'
              '<vertical_ray_angles>5 -10 -20</vertical_ray_angles><horz_nrays>360</horz_nrays>'
              '<range_std_noise>0</range_std_noise><ignore_parent_body>true</ignore_parent_body></sensor>')
    world = load_world_string(on_robot(sensor))
    lidar = build_sensors(world).lidars3d[0]
    assert lidar.elevations == pytest.approx(np.radians([-20.0, -10.0, 5.0]))
    sim = Simulation(world)
    scene = Scene(world)
    scene.update(sim)
    ranges = lidar.scan(scene, sim.pose[0])
    # The ground 1 m below: a beam at elevation -e meets it 1 / sin(e) away; the upward ring sees nothing.
    assert ranges[0] == pytest.approx(1.0 / math.sin(math.radians(20.0)), rel=5e-3)
    assert ranges[1] == pytest.approx(1.0 / math.sin(math.radians(10.0)), rel=5e-3)
    assert np.all(np.isnan(ranges[2]))
