"""A 2D lidar (raytrace_3d) tilted with its vehicle on a slope sees the ground where its beams reach it, at the
range the geometry gives; the Box2D mode stays horizontal (MVSim's 2D mode)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gl_support import needs_gl
from mvsim_ros.physics import Simulation
from mvsim_ros.sensors.host_placement import host_matrix
from mvsim_ros.sensors.suite import build_sensors, host_pose3
from mvsim_ros.world import load_world_string

SLOPE = math.radians(10.0)
H = 20.0 * math.tan(SLOPE)
MOUNT = (0.2, 0.0, 0.3)  # the lidar on the robot [m]
#: Ground falling at 10 deg towards +x for x in [-20, 0], flat (z = 0) beyond; the robot on the slope at x = -3
#: facing downhill (+x), so it pitches nose down by 10 deg and its level-mounted lidar looks 10 deg down.
WORLD = f"""<mvsim_world version="1.0">
  <element class="elevation_map">
    <resolution>20</resolution><corner_min_x>-20</corner_min_x><corner_min_y>-20</corner_min_y>
    <elevation_data_matrix>[{H!r} {H!r} {H!r}; 0 0 0; 0 0 0]</elevation_data_matrix>
  </element>
  <vehicle name="r1">
    <dynamics class="differential">
      <l_wheel pos="0 0.25" mass="1" width="0.05" diameter="0.2"/>
      <r_wheel pos="0 -0.25" mass="1" width="0.05" diameter="0.2"/>
      <chassis mass="15" zmin="0.05" zmax="0.4">
        <shape><pt>-0.3 -0.2</pt><pt>0.3 -0.2</pt><pt>0.3 0.2</pt><pt>-0.3 0.2</pt></shape>
      </chassis>
    </dynamics>
    <init_pose>-3 0 0</init_pose>
    <sensor class="laser" name="laser1"><pose_3d>{MOUNT[0]} {MOUNT[1]} {MOUNT[2]} 0 0 0</pose_3d>
      <fov_degrees>90</fov_degrees><nrays>91</nrays><range_max>30</range_max>
      <raytrace_3d>true</raytrace_3d></sensor>
  </vehicle>
</mvsim_world>
"""


@needs_gl
def test_tilted_lidar_sees_the_flat_ground_past_the_slope():
    from mvsim_ros.sensors.scene import Scene

    world = load_world_string(WORLD, "slope_lidar.world.xml")
    sim = Simulation(world)
    sim.run(0.2)
    pose = host_pose3(sim, 0)
    assert pose[4] == pytest.approx(SLOPE, abs=1e-3)  # nose down, facing downhill
    lidar = build_sensors(world).lidars[0]
    scene = Scene(world)
    scene.update(sim)
    ranges = lidar.render_scan(scene, pose)
    # The centre beam leaves the sensor along the body's x axis, 10 deg below the horizon: parallel to the slope,
    # it reaches the flat ground where its height above z = 0 is used up.
    placement = host_matrix(pose)
    origin = (placement @ np.array([*MOUNT, 1.0]))[:3]
    direction = placement[:3, 0]
    expected = origin[2] / -direction[2]
    assert origin[0] + expected * direction[0] > 0.0  # the hit is on the flat part, past the slope's foot
    centre = int(np.argmin(np.abs(lidar.params.angles)))
    assert ranges[centre] == pytest.approx(expected, rel=0.01)
    # Level, the same lidar would see nothing within 30 m (no walls): the return is the tilt's.
    assert np.isinf(lidar.scan(sim.box2d.world, pose)).all()
