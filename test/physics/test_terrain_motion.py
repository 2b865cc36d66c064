"""Vehicles on terrain against closed forms: parked on MVSim's drift test terrain, a uniform 10 deg slope (slide,
hold, climb, attitude, height, loads), two storeys joined by a ramp, and every kind of body (two-wheel robots,
articulated vehicles, trailers, blocks)."""

import math
from pathlib import Path

import numpy as np
import pytest

from mvsim_ros.physics import Simulation
from mvsim_ros.bench.vehicles import make_simulation
from mvsim_ros.physics.terrain import body_angular_velocity, gravity_in_body, orientation_quaternions, rotation_matrices
from mvsim_ros.physics.world_edit import with_entity
from mvsim_ros.core.rotations import ypr_quaternion
from mvsim_ros.world import load_world, load_world_string
from mvsim_ros.world.specs import Pose3

WORLDS = Path(__file__).resolve().parents[1] / "worlds"
REPO_WORLDS = Path(__file__).resolve().parents[2] / "worlds"
G = 9.81
THETA = math.radians(10.0)
#: The slope world's robot: 20 kg chassis, four 1 kg wheels of radius 0.1 m, all driven.
MASS, RADIUS, WHEELS = 24.0, 0.1, 4


def drift_world(controller: str) -> Simulation:
    path = WORLDS / "terrain_drift.world.xml"
    text = path.read_text().replace('class="twist_pid"', f'class="{controller}"')
    return Simulation(load_world_string(text, file=str(path)))


def slope_world(mu: float = 0.8, controller: str = "twist_pid", yaw_deg: float = 0.0, friction: str | None = None,
                x: float = 0.0) -> Simulation:
    path = WORLDS / "terrain_slope10.world.xml"
    text = path.read_text().replace('value="0.8"', f'value="{mu}"')
    # The slope's closed forms leave out Box2D's chassis damping (MVSim's default 0.1 1/s): off here.
    text = text.replace('<chassis mass="20.0"', '<chassis mass="20.0" linear_damping="0" angular_damping="0"')
    text = text.replace('<controller class="twist_pid">', f'<controller class="{controller}">')
    text = text.replace("<init_pose>0 0 0</init_pose>", f"<init_pose>{x} 0 {yaw_deg}</init_pose>")
    if friction is not None:
        start, end = text.index("<friction"), text.index("</friction>") + len("</friction>")
        text = text[:start] + friction + text[end:]
    return Simulation(load_world_string(text, file=str(path)))


# -- parked: MVSim's drift-on-elevation test --------------------------------------------------------------------
@pytest.mark.parametrize("controller", ["twist_pid", "twist_ideal"])
def test_parked_robot_does_not_drift_on_uneven_terrain(controller):
    sim = drift_world(controller)
    start = sim.pose.copy()
    assert abs(sim.vehicle_roll[0]) > math.radians(5)  # it does stand on a slope (about 12 deg of roll)
    sim.run(3.0)
    drift = np.abs(sim.pose - start)[0]
    assert drift[0] < 1e-3 and drift[1] < 1e-3 and drift[2] < 0.01


# -- a uniform 10 deg slope -------------------------------------------------------------------------------------
def test_attitude_and_height_follow_the_plane():
    # Facing +y the slope rises to the right: left side down, roll < 0.
    for yaw_deg, pitch, roll in [(0, -THETA, 0.0), (180, THETA, 0.0), (90, 0.0, -THETA), (-90, 0.0, THETA)]:
        sim = slope_world(controller="raw", yaw_deg=yaw_deg, x=3.0)
        assert sim.vehicle_pitch[0] == pytest.approx(pitch, abs=math.radians(0.1))
        assert sim.vehicle_roll[0] == pytest.approx(roll, abs=math.radians(0.1))
        assert sim.vehicle_z[0] == pytest.approx(3.0 * math.tan(THETA), abs=0.01)
    # Facing 45 deg up the slope: the body's z axis is still the plane's normal.
    sim = slope_world(controller="raw", yaw_deg=45)
    up = rotation_matrices(sim.pose[0, 2], sim.vehicle_pitch[0], sim.vehicle_roll[0])[:, 2]
    assert up == pytest.approx([-math.sin(THETA), 0.0, math.cos(THETA)], abs=1e-9)


def test_without_torque_and_low_friction_it_slides_down_at_g_sin_minus_mu_cos():
    mu = 0.1  # tan(10 deg) = 0.176 > mu
    sim = slope_world(mu=mu, controller="raw")
    sim.run(1.0)
    v0, x0 = sim.velocity[0, 0], sim.pose[0, 0]
    sim.run(2.0)
    accel = (sim.velocity[0, 0] - v0) / 2.0
    expected = -G * (math.sin(THETA) - mu * math.cos(THETA))
    assert accel == pytest.approx(expected, rel=0.05)
    assert sim.pose[0, 0] < x0 and abs(sim.pose[0, 1]) < 1e-6  # straight down the slope
    assert sim.vehicle_z[0] == pytest.approx(sim.pose[0, 0] * math.tan(THETA), abs=0.01)


def test_without_torque_and_enough_friction_it_stays():
    sim = slope_world(mu=0.8, controller="raw")
    sim.run(3.0)
    assert np.abs(sim.velocity[0, :2]).max() < 1e-3
    assert np.abs(sim.pose[0, :2]).max() < 1e-3
    assert sim.wheels.torque.tolist() == [0.0] * 4
    # The contact patches hold the slope: the drivetrain carries m_share g sin(theta) R per wheel.
    assert sim.wheels.hold_torque == pytest.approx([MASS * G * math.sin(THETA) * RADIUS / WHEELS] * 4, rel=1e-9)


@pytest.mark.parametrize("friction", [
    '<friction class="default"><mu>0.8</mu></friction>',
    '<friction class="wardiagnemma"><mu>0.8</mu></friction>',
    '<friction class="ellipse"/>',
    '<friction class="pacejka"><surface>dry</surface></friction>',
])
def test_every_friction_model_holds_a_parked_robot_facing_uphill(friction):
    sim = slope_world(controller="raw", friction=friction)
    sim.run(2.0)
    assert np.abs(sim.velocity[0, :2]).max() < 1e-3
    assert np.abs(sim.pose[0, :2]).max() < 1e-3


@pytest.mark.parametrize("friction", [
    '<friction class="default"><mu>0.1</mu></friction>',
    '<friction class="wardiagnemma"><mu>0.1</mu><R1>0</R1><R2>0</R2></friction>',
    '<friction class="pacejka"><surface>ice</surface></friction>',
])
def test_every_friction_model_lets_a_robot_slide_beyond_its_limit(friction):
    sim = slope_world(controller="raw", friction=friction)
    sim.run(1.0)
    v0 = sim.velocity[0, 0]
    sim.run(1.0)
    mu = 0.1  # ice: D = 0.1
    assert sim.velocity[0, 0] - v0 == pytest.approx(-G * (math.sin(THETA) - mu * math.cos(THETA)), rel=0.05)


def test_side_slope_is_held_laterally():
    sim = slope_world(controller="raw", yaw_deg=90)
    sim.run(2.0)
    assert np.abs(sim.velocity[0, :2]).max() < 1e-3
    assert np.abs(sim.wheels.force_y).min() > 0.0  # the lateral friction holds it


def test_climbing_at_constant_speed_takes_m_g_sin_theta_r_over_n_per_driven_wheel():
    sim = slope_world(mu=0.8)
    sim.set_twist(0, 1.0, 0.0)
    sim.run(5.0)
    assert sim.body_twist()[0, 0] == pytest.approx(1.0, abs=0.01)
    expected = MASS * G * math.sin(THETA) * RADIUS / WHEELS
    assert sim.drive_torque == pytest.approx([expected] * WHEELS, rel=0.05)
    assert sim.vehicle_pitch[0] == pytest.approx(-THETA, abs=math.radians(0.1))
    assert sim.vehicle_z[0] == pytest.approx(sim.pose[0, 0] * math.tan(THETA), abs=0.01)
    # Box2D moves the vehicle's horizontal projection (as MVSim): 1 m/s across the map, tan(theta) m/s upwards.
    assert sim.vehicle_vz[0] == pytest.approx(sim.velocity[0, 0] * math.tan(THETA), rel=1e-3)
    # cos(theta) of the level-ground load on every wheel.
    assert sim.wheels.normal_force == pytest.approx([20.0 * G / WHEELS * math.cos(THETA)] * WHEELS, rel=1e-9)


def test_accelerometer_at_rest_facing_uphill_reads_g_sin_theta_forward():
    sim = slope_world(controller="raw")
    reading = gravity_in_body(sim.vehicle_pitch[0], sim.vehicle_roll[0], G)
    assert reading == pytest.approx([G * math.sin(THETA), 0.0, G * math.cos(THETA)], rel=0.01, abs=1e-9)


def test_orientation_helpers_agree_with_the_scalar_conventions():
    rng = np.random.default_rng(2)
    yaw, pitch, roll = rng.uniform(-3, 3, 50), rng.uniform(-1.2, 1.2, 50), rng.uniform(-3, 3, 50)
    quats = orientation_quaternions(yaw, pitch, roll)
    mats = rotation_matrices(yaw, pitch, roll)
    for k in range(50):
        w, x, y, z = ypr_quaternion(yaw[k], pitch[k], roll[k])
        assert quats[k] == pytest.approx([x, y, z, w], abs=1e-12)
        assert mats[k] == pytest.approx(Pose3(0, 0, 0, yaw[k], pitch[k], roll[k]).rotation(), abs=1e-12)
    sim = slope_world(controller="raw")
    assert sim.orientation()[0] == pytest.approx(orientation_quaternions(0.0, -THETA, 0.0), abs=1e-9)
    assert sim.pose3[0] == pytest.approx([0, 0, 0, 0, -THETA, 0], abs=1e-9)


def test_gyroscope_rates_are_the_body_frame_angular_velocity():
    rng = np.random.default_rng(4)
    angles, rates = rng.uniform(-1.2, 1.2, (20, 3)), rng.uniform(-2, 2, (20, 3))
    h = 1e-6
    for (yaw, pitch, roll), (yaw_rate, pitch_rate, roll_rate) in zip(angles, rates):
        r0 = rotation_matrices(yaw, pitch, roll)
        r1 = rotation_matrices(yaw + h * yaw_rate, pitch + h * pitch_rate, roll + h * roll_rate)
        skew = r0.T @ (r1 - r0) / h
        expected = [skew[2, 1], skew[0, 2], skew[1, 0]]
        got = body_angular_velocity(yaw_rate, pitch, roll, pitch_rate, roll_rate)
        assert got == pytest.approx(expected, abs=1e-4)
    # Driving over hills: the reading is the change of the 3D orientation over the step.
    sim = Simulation(load_world(REPO_WORLDS / "elevation_car.world.xml"))
    sim.set_twist(0, 3.0, 0.2)
    sim.run(2.0)
    for _ in range(50):
        before = rotation_matrices(sim.pose[0, 2], sim.vehicle_pitch[0], sim.vehicle_roll[0])
        sim.step()
        after = rotation_matrices(sim.pose[0, 2], sim.vehicle_pitch[0], sim.vehicle_roll[0])
        skew = before.T @ (after - before) / sim.dt
        assert sim.angular_velocity3()[0] == pytest.approx([skew[2, 1], skew[0, 2], skew[1, 0]], abs=0.02)


# -- two storeys ------------------------------------------------------------------------------------------------
def test_ramp_onto_an_upper_floor_and_off_its_edge():
    sim = Simulation(load_world(WORLDS / "terrain_multistorey.world.xml"))
    upper, lower = 0, 1
    sim.set_twist(upper, 1.0, 0.0)
    sim.set_twist(lower, 1.0, 0.0)
    on_floor = under_floor = fallen = 0
    while sim.time < 18.0:
        sim.step()
        x = sim.pose[upper, 0]
        if 8.3 < x < 13.7:  # every wheel over the 1 m floor (wheels 0.25 m ahead and behind)
            assert sim.vehicle_z[upper] == pytest.approx(1.0, abs=0.01)
            assert abs(sim.vehicle_pitch[upper]) < math.radians(0.1)
            on_floor += 1
        elif x > 14.3:  # past its edge: back on the ground floor
            assert sim.vehicle_z[upper] == pytest.approx(0.0, abs=0.01)
            fallen += 1
        elif 2.3 < x < 7.7:  # on the ramp: 1 m over 6 m
            assert sim.vehicle_pitch[upper] == pytest.approx(-math.atan(1 / 6), abs=math.radians(0.1))
        if 8.0 < sim.pose[lower, 0] < 14.0:  # driving under the upper floor it stays on the ground floor
            under_floor += 1
        assert sim.vehicle_z[lower] == 0.0
    assert on_floor > 800 and fallen > 500 and under_floor > 1000


# -- every kind of body -----------------------------------------------------------------------------------------
TWO_WHEELER = """<mvsim_world version="1.0">
  <element class="elevation_map"><resolution>200</resolution><corner_min_x>-100</corner_min_x>
    <corner_min_y>-100</corner_min_y><elevation_data_matrix>[-17.632698070846498 -17.632698070846498;
    17.632698070846498 17.632698070846498]</elevation_data_matrix></element>
  {vehicles}
</mvsim_world>"""
DIFF = """<vehicle name="{name}"><dynamics class="differential"><chassis mass="15"/>
    <l_wheel pos="0 0.5" diameter="0.4"/><r_wheel pos="0 -0.5" diameter="0.4"/>
    <controller class="twist_pid"><KP>100</KP><KI>100</KI><max_torque>50</max_torque></controller></dynamics>
    <init_pose>{pose}</init_pose></vehicle>"""


THREE = DIFF.replace('class="differential"', 'class="differential_3_wheels"').replace(
    '<r_wheel pos="0 -0.5" diameter="0.4"/>', '<r_wheel pos="0 -0.5" diameter="0.4"/><caster_wheel pos="0.5 0"/>')


@pytest.mark.parametrize("robot", [DIFF, THREE], ids=["two wheels", "two wheels and a caster"])
def test_two_and_three_wheel_robots_pitch_with_the_ground_under_them(robot):
    sim = Simulation(load_world_string(TWO_WHEELER.format(vehicles=robot.format(name="r", pose="2 0 0"))))
    assert sim.terrain.points.table.shape[0] == (4 if robot is DIFF else 3)  # chassis ends / the caster
    assert sim.vehicle_pitch[0] == pytest.approx(-THETA, abs=1e-9)
    assert sim.vehicle_z[0] == pytest.approx(2 * math.tan(THETA), abs=1e-9)
    sim.set_twist(0, 0.5, 0.0)
    sim.run(3.0)
    assert sim.body_twist()[0, 0] == pytest.approx(0.5, abs=0.01)
    assert sim.vehicle_z[0] == pytest.approx(sim.pose[0, 0] * math.tan(THETA), abs=1e-6)


def test_articulated_units_and_a_trailer_are_fitted_body_by_body():
    articulated = """<vehicle name="art"><dynamics class="articulated"><chassis mass="400"/>
        <rl_wheel pos="0 0.6" diameter="0.8"/><rr_wheel pos="0 -0.6" diameter="0.8"/>
        <fl_wheel pos="0 0.6" diameter="0.8"/><fr_wheel pos="0 -0.6" diameter="0.8"/>
        <controller class="twist_pid"><KP>1000</KP><KI>100</KI><max_torque>3000</max_torque></controller></dynamics>
        <init_pose>0 -10 90</init_pose></vehicle>"""
    trailer = """<vehicle name="trailer"><dynamics class="differential"><chassis mass="10"/>
        <l_wheel pos="0 0.5" diameter="0.4"/><r_wheel pos="0 -0.5" diameter="0.4"/>
        <controller class="raw"/></dynamics><init_pose>-1.5 10 0</init_pose></vehicle>
      <joint type="revolute" body_a="tractor" anchor_a="-0.5 0" body_b="trailer" anchor_b="1.0 0"/>"""
    vehicles = articulated + DIFF.format(name="tractor", pose="0 10 0") + trailer
    sim = Simulation(load_world_string(TWO_WHEELER.format(vehicles=vehicles)))
    # Across the slope: both articulated units roll left side down (facing +y, uphill is to their right).
    assert sim.body_roll[[0, 3]] == pytest.approx([-THETA, -THETA], abs=1e-9)
    assert sim.unit_pose3[0, 2] == pytest.approx(0.0, abs=1e-9)  # the front unit is straight ahead, along y
    # The trailer (two wheels + its hitch) and the tractor pitch with the slope.
    assert sim.vehicle_pitch[1:] == pytest.approx([-THETA, -THETA], abs=1e-9)
    sim.set_twist(0, 1.0, 0.0)
    sim.set_twist(1, 0.5, 0.0)
    sim.run(3.0)
    assert np.all(np.isfinite(sim.body_pose3))
    assert sim.body_z == pytest.approx(sim.body_pose[:, 0] * math.tan(THETA), abs=0.02)


def test_blocks_moved_by_box2d_follow_the_ground_static_ones_keep_their_z():
    blocks = """<block name="crate"><mass>5</mass><shape><pt>-0.2 -0.2</pt><pt>0.2 -0.2</pt><pt>0.2 0.2</pt>
        <pt>-0.2 0.2</pt></shape><zmax>0.4</zmax><init_pose>-3 5 0</init_pose></block>
      <block name="pillar"><static>true</static><shape><pt>-0.2 -0.2</pt><pt>0.2 -0.2</pt><pt>0.2 0.2</pt>
        <pt>-0.2 0.2</pt></shape><zmax>0.4</zmax><init_pose>3 5 0</init_pose></block>
      <block name="kept"><mass>5</mass><shape><pt>-0.2 -0.2</pt><pt>0.2 -0.2</pt><pt>0.2 0.2</pt>
        <pt>-0.2 0.2</pt></shape><zmax>0.4</zmax><init_pose3d>6 5 0.3 0 0 0</init_pose3d>
        <skip_elevation_adjust/></block>"""
    sim = Simulation(load_world_string(TWO_WHEELER.format(vehicles=DIFF.format(name="r", pose="0 0 0") + blocks)))
    poses = sim.block_poses3()
    assert poses[:, 2] == pytest.approx([-3 * math.tan(THETA), 3 * math.tan(THETA), 0.3], abs=1e-9)
    sim.set_block_state(0, 1.0, 5.0, 0.0)  # the crate, teleported up the slope
    assert sim.block_poses3()[0, 2] == pytest.approx(math.tan(THETA), abs=1e-9)


def test_no_nan_when_driving_off_a_dem_with_holes_and_off_its_edge():
    spec = load_world_string(TWO_WHEELER.format(vehicles=DIFF.format(name="r", pose="0 0 0")).replace(
        "<resolution>200</resolution>", "<resolution>2</resolution>").replace(
        "[-17.632698070846498 -17.632698070846498;\n    17.632698070846498 17.632698070846498]",
        "[0 0.2 0.4 0.2; 0.1 0.3 0.5 0.1; 0.2 0.4 0.3 0.0; 0.0 0.1 0.2 0.1]").replace(
        "<corner_min_x>-100</corner_min_x>", "<corner_min_x>-3</corner_min_x>").replace(
        "<corner_min_y>-100</corner_min_y>", "<corner_min_y>-3</corner_min_y>"))
    spec.elements[0].heights[2, 1] = math.nan
    sim = Simulation(spec)
    sim.set_twist(0, 1.0, 0.4)
    for _ in range(8):
        sim.run(1.0)
        assert np.all(np.isfinite(sim.body_pose3)) and np.all(np.isfinite(sim.wheels.normal_force))
    assert sim.vehicle_z[0] == 0.0 and np.hypot(*sim.pose[0, :2]) > 3  # off the map: MVSim's flat ground


def test_elevation_car_world_drives_in_3d():
    sim = Simulation(load_world(REPO_WORLDS / "elevation_car.world.xml"))
    assert sim.terrain.active
    sim.set_twist(0, 3.0, 0.1)
    sim.run(5.0)
    assert sim.vehicle_z[0] > 1.0 and abs(sim.vehicle_pitch[0]) > math.radians(5)
    assert sim.wheel_ground_z == pytest.approx(sim.ground_height(*_wheel_xy(sim), 100.0), abs=0.05)


def _wheel_xy(sim):
    w, pose = sim.wheels, sim.pose3[0]
    rot = rotation_matrices(pose[3], pose[4], pose[5])
    points = rot @ np.vstack([w.x, w.y, np.zeros(w.count)])
    return pose[0] + points[0], pose[1] + points[1]


def test_a_spawn_on_terrain_keeps_the_others_exactly_where_they_were():
    base = TWO_WHEELER.format(vehicles=DIFF.format(name="a", pose="0 0 0"))
    reference = Simulation(load_world_string(base))
    edited = Simulation(load_world_string(base))
    for sim in (reference, edited):
        sim.set_twist(0, 0.5, 0.2)
        sim.run(1.0)
    newcomer = load_world_string(TWO_WHEELER.format(vehicles=DIFF.format(name="b", pose="50 50 0"))).vehicles[0]
    edited = with_entity(edited, newcomer)
    assert edited.vehicle_z[1] == pytest.approx(50 * math.tan(THETA), abs=1e-9)
    for sim in (reference, edited):
        sim.run(1.0)
    assert edited.pose3[0].tolist() == reference.pose3[0].tolist()


def test_terrain_benchmark_robots_drive_their_circles_on_the_hills():
    sim = make_simulation(4, terrain=True)
    assert sim.terrain.active
    sim.run(4.0)
    twist = sim.body_twist()
    assert twist[:, 0] == pytest.approx([0.5] * 4, rel=0.05) and twist[:, 2] == pytest.approx([0.3] * 4, rel=0.1)
    assert np.ptp(sim.vehicle_z) > 0.1 and np.all(np.isfinite(sim.body_pose3))
