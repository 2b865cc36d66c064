"""The benchmark's vehicles: a vehicle class per kind (differential robot, Ackermann car, drivetrain car,
articulated vehicle), worlds of them on a square lattice (flat, or on rolling hills), and the simulation with every
vehicle driving its own circle. Headless, without sensors, no ROS.
"""

from __future__ import annotations

import math

import numpy as np

from mvsim_ros.physics import Simulation
from mvsim_ros.world import load_world_string

ROBOT_CLASS = """
  <vehicle:class name="bench_robot">
    <dynamics class="differential">
      <chassis mass="15.0"><shape><pt>-0.25 -0.22</pt><pt>0.25 -0.22</pt><pt>0.30 0</pt><pt>0.25 0.22</pt>
        <pt>-0.25 0.22</pt></shape></chassis>
      <l_wheel pos="0.0  0.25" mass="1.0" width="0.05" diameter="0.20"/>
      <r_wheel pos="0.0 -0.25" mass="1.0" width="0.05" diameter="0.20"/>
      <controller class="twist_pid"><KP>60</KP><KI>60</KI><I_MAX>0.5</I_MAX><max_torque>6.5</max_torque>
      </controller>
    </dynamics>
    <friction class="default"><mu>0.8</mu><C_damping>0.05</C_damping><C_rr>0.01</C_rr></friction>
  </vehicle:class>
"""


_CAR_WHEELS = """
      <rl_wheel pos="0  0.75" mass="15.0" width="0.22" diameter="0.65"/>
      <rr_wheel pos="0 -0.75" mass="15.0" width="0.22" diameter="0.65"/>
      <fl_wheel mass="15.0" width="0.22" diameter="0.65"/> <fr_wheel mass="15.0" width="0.22" diameter="0.65"/>
      <f_wheels_x>2.5</f_wheels_x> <f_wheels_d>1.5</f_wheels_d> <max_steer_ang_deg>35</max_steer_ang_deg>
      <chassis mass="1200.0" zmin="0.15" zmax="1.45"><shape><pt>-0.9 -0.9</pt><pt>3.4 -0.9</pt><pt>3.6 0</pt>
        <pt>3.4 0.9</pt><pt>-0.9 0.9</pt></shape></chassis>"""
CAR_CLASS = f"""
  <vehicle:class name="bench_robot">
    <dynamics class="ackermann">{_CAR_WHEELS}
      <controller class="twist_front_steer_pid"><KP>1500</KP><KI>500</KI><I_MAX>1</I_MAX>
        <max_torque>800</max_torque></controller>
    </dynamics>
    <friction class="default"><mu>0.9</mu><C_damping>1.0</C_damping><C_rr>0.012</C_rr></friction>
  </vehicle:class>
"""
DRIVETRAIN_CAR_CLASS = f"""
  <vehicle:class name="bench_robot">
    <dynamics class="ackermann_drivetrain">{_CAR_WHEELS}
      <drivetrain type="torsen_4wd"/>
      <controller class="twist_front_steer_pid"><KP>3000</KP><KI>500</KI><I_MAX>1</I_MAX>
        <max_torque>3000</max_torque></controller>
    </dynamics>
    <friction class="pacejka"><surface>dry</surface><C_damping>1.0</C_damping><C_rr>0.012</C_rr></friction>
  </vehicle:class>
"""
ARTICULATED_CLASS = """
  <vehicle:class name="bench_robot">
    <dynamics class="articulated">
      <chassis mass="800"/> <front_chassis mass="700"/>
      <wheel_separation_front>1.2</wheel_separation_front> <wheel_separation_rear>1.2</wheel_separation_rear>
      <rl_wheel pos="0 0.8" mass="30" width="0.3" diameter="0.8"/>
      <rr_wheel pos="0 -0.8" mass="30" width="0.3" diameter="0.8"/>
      <fl_wheel pos="0 0.8" mass="30" width="0.3" diameter="0.8"/>
      <fr_wheel pos="0 -0.8" mass="30" width="0.3" diameter="0.8"/>
      <controller class="twist_pid"><KP>3000</KP><KI>500</KI><I_MAX>1</I_MAX><max_torque>3000</max_torque>
      </controller>
    </dynamics>
    <friction class="default"><mu>0.9</mu><C_damping>1.0</C_damping><C_rr>0.01</C_rr></friction>
  </vehicle:class>
"""
#: Benchmark vehicle kinds: name -> (vehicle class XML, circle twist (v [m/s], omega [rad/s]), spacing [m]).
KINDS = {
    "differential": (ROBOT_CLASS, (0.5, 0.3), 4.0),
    "ackermann": (CAR_CLASS, (2.0, 0.2), 25.0),
    "drivetrain": (DRIVETRAIN_CAR_CLASS, (2.0, 0.2), 25.0),
    "articulated": (ARTICULATED_CLASS, (1.0, 0.2), 25.0),
}


#: Hills of the terrain case: height amplitude [m] and wavelength [m] of z = A sin(2 pi x / L) cos(2 pi y / L),
#: sampled every HILLS_RESOLUTION [m] (steepest slope atan(2 pi A / L) = 17 deg).
HILLS_AMPLITUDE, HILLS_WAVELENGTH, HILLS_RESOLUTION = 0.5, 10.0, 0.5


def hills_xml(extent: float) -> str:
    """An elevation map of rolling hills covering [-10, extent + 10] m in x and y."""
    count = int(math.ceil((extent + 20.0) / HILLS_RESOLUTION)) + 1
    coords = -10.0 + HILLS_RESOLUTION * np.arange(count)
    gx, gy = np.meshgrid(coords, coords, indexing="ij")
    k = 2.0 * math.pi / HILLS_WAVELENGTH
    heights = HILLS_AMPLITUDE * np.sin(k * gx) * np.cos(k * gy)
    rows = ";\n".join(" ".join(f"{h:.4f}" for h in row) for row in heights)
    return (f'  <element class="elevation_map"><resolution>{HILLS_RESOLUTION}</resolution>'
            f"<corner_min_x>-10</corner_min_x><corner_min_y>-10</corner_min_y>\n"
            f"  <elevation_data_matrix>[{rows}]</elevation_data_matrix></element>\n")


def bench_world_xml(robots: int, timestep: float = 0.005, kind: str = "differential", terrain: bool = False) -> str:
    """A world with `robots` vehicles of a benchmark kind on a square lattice (on hills with `terrain`)."""
    vehicle_class, _, spacing = KINDS[kind]
    side = math.ceil(math.sqrt(robots))
    vehicles = "\n".join(
        f'  <vehicle name="r{i + 1}" class="bench_robot"><init_pose>{(i % side) * spacing} '
        f"{(i // side) * spacing} 0</init_pose></vehicle>"
        for i in range(robots)
    )
    ground = hills_xml((side - 1) * spacing) if terrain else ""
    return f'<mvsim_world version="1.0">\n  <simul_timestep>{timestep}</simul_timestep>\n{ground}{vehicle_class}' \
           f"{vehicles}\n</mvsim_world>\n"


def make_simulation(robots: int, timestep: float = 0.005, kind: str = "differential",
                    terrain: bool = False) -> Simulation:
    """The benchmark simulation, every vehicle commanded to drive its own circle (on hills with `terrain`)."""
    world = load_world_string(bench_world_xml(robots, timestep, kind, terrain),
                              file=f"<bench {robots} {kind}{' terrain' if terrain else ''}>")
    sim = Simulation(world)
    v, omega = KINDS[kind][1]
    for i in range(robots):
        sim.set_twist(i, v, omega)
    return sim


__all__ = ["ARTICULATED_CLASS", "CAR_CLASS", "DRIVETRAIN_CAR_CLASS", "KINDS", "ROBOT_CLASS", "bench_world_xml",
           "hills_xml", "make_simulation"]
