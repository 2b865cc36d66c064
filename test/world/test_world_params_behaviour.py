"""What the world and block parameters do in the simulation, against closed forms: restitution, damping, start
velocity, the collision gap, and the ground-truth trajectory files."""

import math
from pathlib import Path

import numpy as np
import pytest

from mvsim_ros.physics import Simulation
from mvsim_ros.output.ground_truth_files import GroundTruthFiles, trajectory_file_name
from mvsim_ros.world import load_world_string

DEFINITIONS = Path(__file__).resolve().parents[2] / "worlds" / "definitions"
#: A block that only Box2D's contacts act on: no ground friction, no damping.
FREE = "<ground_friction>0</ground_friction><linear_damping>0</linear_damping><angular_damping>0</angular_damping>"


def world(body: str, head: str = "") -> Simulation:
    return Simulation(load_world_string(f'<mvsim_world version="1.0">{head}{body}</mvsim_world>'))


@pytest.mark.parametrize("ball, wall, expected", [(0.5, 0.0, 0.5), (0.2, 0.8, 0.8), (0.9, 0.9, 0.9)])
def test_restitution_sets_the_bounce_speed_ratio(ball, wall, expected):
    """A block thrown at 4 m/s against a static block comes back at e times its speed, e the larger of the two
    restitutions (Box2D's mixing)."""
    sim = world(f'<block name="ball"><mass>2</mass>{FREE}<restitution>{ball}</restitution>'
                f'<init_pose>0 0 0</init_pose><init_vel>4 0 0</init_vel></block>'
                f'<block name="wall"><static>true</static><restitution>{wall}</restitution>'
                f'<init_pose>3 0 0</init_pose></block>')
    while sim.time < 1.5:
        sim.step()
    vx, vy = sim.box2d.blocks[0].linearVelocity
    assert vx == pytest.approx(-4.0 * expected, rel=0.01) and abs(vy) < 0.01


def test_linear_and_angular_damping_decay_as_box2d_integrates_them():
    """Box2D 2.3 multiplies the velocity by (1 - h c) every step: after n steps v0 (1 - h c)^n, close to exp(-c t)."""
    sim = world('<block name="b"><mass>5</mass><ground_friction>0</ground_friction>'
                '<linear_damping>0.5</linear_damping><angular_damping>2</angular_damping>'
                '<init_vel>3 0 90</init_vel></block>')
    steps = 400
    for _ in range(steps):
        sim.step()
    body, h = sim.box2d.blocks[0], sim.dt
    speed = math.hypot(*body.linearVelocity)
    # The origin is the centre of mass (a centred square), so init_vel is the body's own velocity.
    assert speed == pytest.approx(3.0 * (1 - h * 0.5) ** steps, rel=1e-4)
    assert body.angularVelocity == pytest.approx(math.radians(90) * (1 - h * 2.0) ** steps, rel=1e-4)
    assert speed == pytest.approx(3.0 * math.exp(-0.5 * steps * h), rel=0.01)


def test_mvsim_default_damping_slows_a_block():
    sim = world('<block name="b"><ground_friction>0</ground_friction><init_vel>2 0 0</init_vel></block>')
    sim.run(1.0)
    assert sim.box2d.blocks[0].linearVelocity[0] == pytest.approx(2.0 * math.exp(-0.1 * 1.0), rel=0.01)


def test_init_vel_is_in_the_block_frame_and_of_its_origin():
    """A block turned 90 degrees given vx = 1 m/s moves along world +y; its centre of mass 1 m ahead of its origin
    moves at v + omega x r."""
    sim = world(f'<block name="b"><mass>1</mass>{FREE}<init_pose>0 0 90</init_pose><init_vel>1 0 0</init_vel>'
                f'</block>'
                f'<block name="c"><mass>1</mass>{FREE}<init_pose>10 0 0</init_pose>'
                f'<init_vel>0 0 57.29577951308232</init_vel>'
                f'<shape><pt>0.5 -0.5</pt><pt>1.5 -0.5</pt><pt>1.5 0.5</pt><pt>0.5 0.5</pt></shape></block>')
    turned, offset = sim.box2d.blocks
    assert tuple(turned.linearVelocity) == pytest.approx((0.0, 1.0), abs=1e-6)
    assert tuple(offset.linearVelocity) == pytest.approx((0.0, 1.0), abs=1e-6)  # omega 1 rad/s x r = (1, 0)
    assert offset.angularVelocity == pytest.approx(1.0)


def test_lateral_friction_is_the_fixture_friction():
    sim = world('<block name="b"><lateral_friction>0.7</lateral_friction></block>')
    assert [f.friction for f in sim.box2d.blocks[0].fixtures] == pytest.approx([0.7])


def robot_near_a_wall(threshold: str | None, gap: float) -> Simulation:
    """The differential robot facing a static block `gap` metres ahead of its chassis' front."""
    head = "" if threshold is None else f"<collision_threshold>{threshold}</collision_threshold>"
    spec = load_world_string(f'<mvsim_world version="1.0">{head}'
                             f'<include file="{DEFINITIONS}/diff_robot.vehicle.xml"/>'
                             f'<vehicle name="r1" class="diff_robot"><init_pose>0 0 0</init_pose></vehicle>'
                             f'</mvsim_world>')
    front = max(x for x, _ in spec.vehicles[0].chassis.shape)
    spec = load_world_string(f'<mvsim_world version="1.0">{head}'
                             f'<include file="{DEFINITIONS}/diff_robot.vehicle.xml"/>'
                             f'<vehicle name="r1" class="diff_robot"><init_pose>0 0 0</init_pose></vehicle>'
                             f'<block name="w"><static>true</static><init_pose>{front + gap + 0.5} 0 0</init_pose>'
                             f'</block></mvsim_world>')
    return Simulation(spec)


@pytest.mark.parametrize("threshold, gap, colliding", [
    ("0.1", 0.05, True),  # within the gap: in collision, as MVSim
    ("0.1", 0.15, False),
    (None, 0.02, True),  # MVSim's default 3 cm
    (None, 0.06, False),
    ("0", 0.05, False),  # 0: touching only
])
def test_collision_threshold_is_a_gap_in_metres(threshold, gap, colliding):
    sim = robot_near_a_wall(threshold, gap)
    sim.step()
    assert bool(sim.take_collisions()[0]) is colliding


def test_ground_truth_files_have_mvsims_rows_at_its_rate(tmp_path):
    """16 Hz at a 1/256 s step: a row after the first step, then every 16th step (exact in binary)."""
    base = tmp_path / "gt.txt"
    sim = world(f'<include file="{DEFINITIONS}/diff_robot.vehicle.xml"/>'
                f'<vehicle name="r1" class="diff_robot"><init_pose>1 2 90</init_pose></vehicle>'
                f'<vehicle name="r2" class="diff_robot"><init_pose>-1 0 0</init_pose></vehicle>',
                head=f"<simul_timestep>{1 / 256}</simul_timestep><save_ground_truth_trajectory>{base}"
                     f"</save_ground_truth_trajectory><ground_truth_rate>16</ground_truth_rate>")
    with GroundTruthFiles.for_world(sim) as files:
        written = []
        for _ in range(256):
            sim.step()
            if files.record():
                written.append(sim.steps)
    assert written == list(range(1, 257, 16))
    assert files.file_names == {"r1": tmp_path / "gt.r1.txt", "r2": tmp_path / "gt.r2.txt"}
    rows = (tmp_path / "gt.r1.txt").read_text().splitlines()
    assert len(rows) == 16
    assert rows[0] == "0.003906 1.000000 2.000000 0.000000 0.000000 0.000000 0.707107 0.707107"
    t = np.array([float(r.split()[0]) for r in rows])
    assert np.diff(t) == pytest.approx(0.0625)
    assert (tmp_path / "gt.r2.txt").read_text().splitlines()[-1].split()[1:] == [
        "-1.000000", "0.000000", "0.000000", "0.000000", "0.000000", "0.000000", "1.000000"]


def test_no_ground_truth_files_unless_the_world_asks():
    sim = world("")
    assert GroundTruthFiles.for_world(sim) is None


@pytest.mark.parametrize("base, expected", [("out/gt.txt", "out/gt.r1.txt"), ("gt", "gt.r1.txt"),
                                            ("a.b/gt.csv", "a.b/gt.r1.txt")])
def test_trajectory_file_names_replace_the_extension(base, expected):
    assert trajectory_file_name(base, "r1") == Path(expected)
