"""Over DDS, against the node process: a robot whose world gives no <friction> and no controller gains drives at
the speed MVSim's defaults give it.

The robot: MVSim's differential defaults (chassis 15 kg, wheels 2 kg, 0.4 m diameter, so R = 0.2 m, and a Box2D
body of M = 15 + 2 x 2 = 19 kg), twist_pid with MVSim's KP = 10 N m s/m (KI = KD = 0), default friction with
C_damping = 0.01 N m s/rad, chassis linear_damping c = 0.1 1/s, step h = 5 ms. Commanded v* = 1 m/s, at the
steady state the wheels roll (omega = v / R) and each one's torque balance KP (v* - v) - C_damping v / R = R F
holds, with F the ground force on each wheel, against Box2D's damping, which scales v by (1 - h c) each step:
v = (v + h 2F / M)(1 - h c), so 2F = M c v / (1 - h c). Together:

    v = KP v* / (KP + C_damping / R + M c R / (2 (1 - h c)))   = 10 / 10.24 = 0.97655 m/s

(without the chassis damping 10 / 10.05 = 0.995 m/s; with the C_damping = 1 N m s/rad used before as our default,
0.667 m/s).
"""

from __future__ import annotations

import os

import pytest
from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry

from dds_probe import node_and_probe

os.environ.setdefault("ROS_DOMAIN_ID", str(os.getpid() % 90 + 1))

WORLD = """<mvsim_world version="1.0">
  <simul_timestep>0.005</simul_timestep>
  <vehicle name="r1">
    <init_pose>0 0 0</init_pose>
    <dynamics class="differential"><controller class="twist_pid"/></dynamics>
  </vehicle>
</mvsim_world>
"""
KP, V_SET, C_DAMPING, R, M, C, H = 10.0, 1.0, 0.01, 0.2, 19.0, 0.1, 0.005
EXPECTED = KP * V_SET / (KP + C_DAMPING / R + M * C * R / (2 * (1 - H * C)))


def test_a_robot_without_friction_or_gains_reaches_mvsims_speed(tmp_path):
    assert EXPECTED == pytest.approx(0.97655, abs=1e-5)
    world = tmp_path / "defaults.world.xml"
    world.write_text(WORLD)
    with node_and_probe("mvsim_defaults_probe", f"world_file:={world}", "realtime_factor:=2.0") as probe:
        truth: list[Odometry] = []
        probe.node.create_subscription(Odometry, "/base_pose_ground_truth", truth.append, 50)
        cmd = probe.node.create_publisher(Twist, "/cmd_vel", 10)
        assert probe.wait_for(lambda: len(truth) > 5, timeout=30.0), "no ground truth from the node"
        command = Twist()
        command.linear.x = V_SET

        def sim_time() -> float:
            stamp = truth[-1].header.stamp
            return stamp.sec + 1e-9 * stamp.nanosec

        start = sim_time()
        for _ in range(300):  # commands at 20 Hz (wall) until 3 s of simulated time have passed
            probe.spin_for(0.05, publish=lambda: cmd.publish(command))
            if sim_time() - start > 3.0:
                break
        assert sim_time() - start > 3.0, "the simulation did not advance 3 s"
        # Steady state (time constant ~ 0.05 s): the ground-truth forward speed within 0.2 % of the closed form.
        speeds = [m.twist.twist.linear.x for m in truth[-10:]]
        assert all(s == pytest.approx(EXPECTED, rel=2e-3) for s in speeds), speeds
