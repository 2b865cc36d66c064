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
