"""MVSim's vehicle parameters acting in the simulation, against closed forms: odometry error multipliers, chassis
damping (Box2D's discrete form), wheel spin inertia, ackermann raw torques, init_pose3d."""

import math

import numpy as np
import pytest

from mvsim_ros.physics import Simulation
from mvsim_ros.physics.vehicles.odometry import advance_odometry
from mvsim_ros.world import load_world_string

DT = 0.005


def robot(chassis: str = "", wheel: str = 'mass="1.0"', controller: str = '<controller class="raw"/>',
          vehicle: str = "", friction: str = "<C_damping>0</C_damping><C_rr>0</C_rr>") -> str:
    """A 15 kg differential robot on 0.2 m wheels, 0.5 m track, its chassis centred on the axle."""
    return f"""<mvsim_world version="1.0"><simul_timestep>{DT}</simul_timestep>
<vehicle name="r"><init_pose>0 0 0</init_pose>{vehicle}
  <dynamics class="differential">
    <chassis mass="15.0"{chassis}><shape><pt>-0.2 -0.2</pt><pt>0.2 -0.2</pt><pt>0.2 0.2</pt><pt>-0.2 0.2</pt>
    </shape></chassis>
    <l_wheel pos="0 0.25" {wheel} width="0.05" diameter="0.2"/>
    <r_wheel pos="0 -0.25" {wheel} width="0.05" diameter="0.2"/>
    {controller}
  </dynamics>
  <friction class="default">{friction}</friction>
</vehicle></mvsim_world>"""


def test_odometry_multipliers_scale_each_increment_in_the_vehicle_frame():
    pose, twist = np.zeros((1, 3)), np.zeros((1, 2))
    scale = np.array([[1.1, 0.5, 0.9]])
    speed, yaw_rate, dt = 2.0, 1.0, 0.01
    advance_odometry(pose, twist, 0, speed, yaw_rate, dt, scale)
    half = 0.5 * yaw_rate * dt
    assert pose[0, 0] == pytest.approx(1.1 * speed * dt * math.cos(half), rel=1e-12)
    assert pose[0, 1] == pytest.approx(0.5 * speed * dt * math.sin(half), rel=1e-12)
    assert pose[0, 2] == pytest.approx(0.9 * yaw_rate * dt, rel=1e-12)
    assert tuple(twist[0]) == (speed, yaw_rate)  # the measured twist itself is not scaled
    exact = np.zeros((1, 3))
    advance_odometry(exact, np.zeros((1, 2)), 0, speed, yaw_rate, dt, np.ones((1, 3)))
    heading = 0.5 * yaw_rate * dt
    assert tuple(exact[0]) == (speed * math.cos(heading) * dt, speed * math.sin(heading) * dt,
                               pytest.approx(yaw_rate * dt, rel=1e-12))


def test_a_robot_with_odometry_multipliers_reports_scaled_distance_and_turn():
    pid = '<controller class="twist_pid"><KP>20</KP><KI>5</KI></controller>'
    runs = []
    for multipliers in ((1.0, 1.0, 1.0), (1.1, 1.0, 0.8)):
        odometry = '<odometry x_multiplier="{}" y_multiplier="{}" yaw_multiplier="{}"/>'.format(*multipliers)
        sim = Simulation(load_world_string(robot(vehicle=odometry, controller=pid)))
        sim.set_twist(0, 1.0, 0.0)
        sim.run(3.0)
        x = sim.odom_pose[0, 0]
        sim.set_twist(0, 0.0, 0.5)
        sim.run(2.0)
        runs.append((x, sim.odom_pose[0, 2]))
    (x_exact, yaw_exact), (x_scaled, yaw_scaled) = runs
    assert x_scaled == pytest.approx(1.1 * x_exact, rel=1e-9)  # the same motion, each increment scaled
    assert yaw_scaled == pytest.approx(0.8 * yaw_exact, rel=1e-9)


@pytest.mark.parametrize("linear, angular", [(0.1, 0.1), (0.5, 2.0)])
def test_chassis_damping_decays_the_velocity_in_box2d_discrete_form(linear, angular):
    # Wheels of 1 g (spin inertia ~ 5e-6 kg m^2) and no bearing damping: only the chassis damping slows the robot.
    # Box2D (2.3, as pybox2d builds it) scales the velocities by (1 - dt c) every step: v_k = v_0 (1 - dt c)^k, close
    # to exp(-c t).
    text = robot(chassis=f' linear_damping="{linear}" angular_damping="{angular}"', wheel='mass="0.001"',
                 vehicle="<init_vel>1 0 0</init_vel>")
    sim = Simulation(load_world_string(text))
    steps = 400
    for _ in range(steps):
        sim.step()
    expected = (1.0 - DT * linear) ** steps
    assert sim.body_twist()[0, 0] == pytest.approx(expected, rel=1e-3)
    assert expected == pytest.approx(math.exp(-linear * steps * DT), rel=0.01)
    spin = Simulation(load_world_string(text.replace("<init_vel>1 0 0</init_vel>", "<init_vel>0 0 45</init_vel>")))
    for _ in range(steps):
        spin.step()
    assert spin.body_twist()[0, 2] == pytest.approx(math.radians(45) * (1.0 - DT * angular) ** steps, rel=2e-3)


@pytest.mark.parametrize("inertia", [None, 0.05])
def test_wheel_inertia_sets_the_spin_up_rate(inertia):
    # Rolling without slip under a torque tau per wheel: M a = 2 F, I a / R = tau - R F  =>
    # a = 2 tau / (R (M + 2 I / R^2)); I = m r^2 / 2 when the file gives none.
    torque, radius, mass = 0.5, 0.1, 17.0
    given = f' inertia="{inertia}"' if inertia is not None else ""
    i_yy = inertia if inertia is not None else 0.5 * 1.0 * radius ** 2
    controller = f'<controller class="raw"><torque_left>{torque}</torque_left><torque_right>{torque}</torque_right>' \
                 '</controller>'
    text = robot(chassis=' linear_damping="0" angular_damping="0"', wheel=f'mass="1.0"{given}',
                 controller=controller)
    sim = Simulation(load_world_string(text))
    assert sim.wheels.inertia_yy == pytest.approx([i_yy, i_yy])
    sim.run(1.0)
    accel = 2 * torque / (radius * (mass + 2 * i_yy / radius ** 2))
    assert sim.body_twist()[0, 0] == pytest.approx(accel * 1.0, rel=0.01)
    assert sim.wheels.omega == pytest.approx([accel / radius] * 2, rel=0.01)


def test_ackermann_raw_drives_the_front_wheels_with_mvsims_torques():
    text = """<mvsim_world version="1.0"><vehicle name="c"><dynamics class="ackermann">
      <controller class="raw"><fl_torque>30</fl_torque><fr_torque>20</fr_torque><steer_ang_deg>10</steer_ang_deg>
      </controller></dynamics></vehicle></mvsim_world>"""
    sim = Simulation(load_world_string(text))
    names = [w.name for w in sim.spec.vehicles[0].wheels]
    torques = dict(zip(names, sim.controllers.raw_torque.tolist()))
    assert torques == {"rl_wheel": 0.0, "rr_wheel": 0.0, "fl_wheel": 30.0, "fr_wheel": 20.0}
    sim.step()
    assert sim.steering_angles["c"] == pytest.approx(math.radians(10))


def test_init_pose3d_places_the_vehicle():
    text = robot().replace("<init_pose>0 0 0</init_pose>", "<init_pose3d>2 -1 0 30 0 0</init_pose3d>")
    sim = Simulation(load_world_string(text))
    assert tuple(sim.pose[0]) == pytest.approx((2.0, -1.0, math.radians(30)))
