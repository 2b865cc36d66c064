"""Small worlds and helpers shared by the viewer's data-side tests (scene, frame, sensor runner)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from mvsim_ros.physics import Simulation
from mvsim_ros.sensors.suite import build_sensors
from mvsim_ros.viewer.frame_message import FrameEncoder, unpack_message
from mvsim_ros.world import load_world
from mvsim_ros.world.specs import Pose3

REPO = Path(__file__).resolve().parents[1]
WORLDS = REPO / "worlds"
TEST_WORLDS = REPO / "test" / "worlds"

#: One differential robot 'r1' (0.2 m wheels, 0.5 m track) with `sensors` on it, `extra` at world level.
ROBOT_WORLD = """<mvsim_world version="1.0">
  <simul_timestep>0.005</simul_timestep>
  {grid}
  <vehicle:class name="bot">
    <dynamics class="differential">
      <chassis mass="15.0" zmin="0.05" zmax="0.4" color="#3366cc"><shape><pt>-0.25 -0.22</pt><pt>0.25 -0.22</pt>
      <pt>0.25 0.22</pt><pt>-0.25 0.22</pt></shape></chassis>
      <l_wheel pos="0.0  0.25" mass="1.0" width="0.05" diameter="0.20"/>
      <r_wheel pos="0.0 -0.25" mass="1.0" width="0.05" diameter="0.20"/>
      <controller class="twist_pid"><KP>60</KP><KI>60</KI><KD>0</KD><I_MAX>0.5</I_MAX><max_torque>6.5</max_torque>
      </controller>
    </dynamics>
    <friction class="default"><mu>0.8</mu><C_damping>0.05</C_damping><C_rr>0.01</C_rr></friction>
  </vehicle:class>
  <vehicle name="r1" class="bot"><init_pose>{init_pose}</init_pose>{sensors}</vehicle>
  {extra}
</mvsim_world>
"""


def robot_world(write_world, grid_file=None, init_pose="0 0 0", sensors="", extra=""):
    """A WorldSpec of ROBOT_WORLD (an occupancy grid from `grid_file` at 0.1 m per pixel when given)."""
    grid = (f'<element class="occupancy_grid"><file>{grid_file}</file><resolution>0.1</resolution></element>'
            if grid_file else "")
    return load_world(write_world(ROBOT_WORLD.format(grid=grid, init_pose=init_pose, sensors=sensors, extra=extra)))


def setup(world):
    """(Simulation, Sensors, FrameEncoder) of a WorldSpec."""
    sim = Simulation(world)
    sensors = build_sensors(world)
    return sim, sensors, FrameEncoder(sim, sensors)


def decoded_frame(encoder, version=1, paused=False, rtf=1.0):
    """(header, arrays) of the encoder's current frame."""
    header, arrays, tail = unpack_message(encoder.frame(version, paused, rtf))
    assert tail == b""
    return header, arrays


def place(vertices: np.ndarray, row) -> np.ndarray:
    """Positions (N, 3) of mesh vertices (rows of 9) placed by a pose-table row (x, y, z, yaw[, pitch, roll])."""
    row = [float(v) for v in row] + [0.0] * (6 - len(row))
    x, y, z, yaw, pitch, roll = row
    rot = Pose3(yaw=yaw, pitch=pitch, roll=roll).rotation()
    return vertices[:, :3].astype(float) @ rot.T + (x, y, z)


def rotate(points, yaw: float) -> np.ndarray:
    """2D points rotated by yaw [rad]."""
    c, s = math.cos(yaw), math.sin(yaw)
    p = np.asarray(points, dtype=float)
    return np.stack([c * p[:, 0] - s * p[:, 1], s * p[:, 0] + c * p[:, 1]], axis=1)


#: A warehouse like MVSim's demo_warehouse, of our own: a 35 m x 26 m building (floor plane, perimeter walls and
#: a ceiling 6 m up, both culled from outside as MVSim's are: cull_face FRONT) without <gui>, and two robots of
#: the same chassis colour, r1 at (2, 1) and r2 at (-6, -4).
WAREHOUSE_WORLD = """<mvsim_world version="1.0">
  <simul_timestep>0.005</simul_timestep>
  <element class="horizontal_plane">
    <x_min>-15</x_min> <y_min>-13</y_min> <x_max>20</x_max> <y_max>13</y_max> <z>0.0</z> <color>#404040</color>
  </element>
  <element class="horizontal_plane">
    <cull_face>FRONT</cull_face>
    <x_min>-15</x_min> <y_min>-13</y_min> <x_max>20</x_max> <y_max>13</y_max> <z>6.0</z> <color>#8090a0</color>
  </element>
  {walls}
  <vehicle:class name="bot">
    <dynamics class="differential">
      <chassis mass="15.0" zmin="0.05" zmax="0.6" color="#cc2222"><shape><pt>-0.4 -0.35</pt><pt>0.4 -0.35</pt>
      <pt>0.4 0.35</pt><pt>-0.4 0.35</pt></shape></chassis>
      <l_wheel pos="0.0  0.4" mass="1.0" width="0.05" diameter="0.20"/>
      <r_wheel pos="0.0 -0.4" mass="1.0" width="0.05" diameter="0.20"/>
      <controller class="twist_pid"><KP>60</KP><KI>60</KI><KD>0</KD><I_MAX>0.5</I_MAX><max_torque>6.5</max_torque>
      </controller>
    </dynamics>
    <friction class="default"><mu>0.8</mu><C_damping>0.05</C_damping><C_rr>0.01</C_rr></friction>
  </vehicle:class>
  <vehicle name="r1" class="bot"><init_pose>2 1 0</init_pose></vehicle>
  <vehicle name="r2" class="bot"><init_pose>-6 -4 90</init_pose></vehicle>
</mvsim_world>
""".replace("{walls}", "\n  ".join(
    f'<element class="vertical_plane"><cull_face>FRONT</cull_face><x0>{x0}</x0><y0>{y0}</y0><x1>{x1}</x1>'
    f'<y1>{y1}</y1><z>0.0</z><height>6.0</height><color>#a08070</color></element>'
    for x0, y0, x1, y1 in [(-15, 13, -15, -13), (20, 13, -15, 13), (20, -13, 20, 13), (-15, -13, 20, -13)]))
