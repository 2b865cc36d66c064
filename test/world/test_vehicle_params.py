"""Vehicle contexts read through their parameter tables: MVSim's own vehicle definitions resolve to the file's
values and MVSim's defaults, parameter by parameter; an unknown tag or attribute in any vehicle context is one
warning with its file and line."""

import math
from pathlib import Path

import pytest

from mvsim_ros.world import load_world, load_world_string
from mvsim_ros.world.params.vehicle_tables import (CHASSIS, CONTROLLER_DIFFERENTIAL_TWIST_PID,
                                                   CONTROLLER_DRIVETRAIN_TWIST_FRONT_STEER_PID, FRICTION_DEFAULT,
                                                   FRICTION_WARD_IAGNEMMA, TABLES, WHEEL)
from mvsim_ros.world.elements.vehicles import ODOMETRY_KEYS

DEFINITIONS = Path(__file__).resolve().parents[1] / "worlds" / "mvsim_definitions"


def world_with(definition: str, vehicles: str, tmp_path: Path) -> Path:
    """A world that includes one of the definitions, as MVSim's tutorial worlds do, with the given vehicles."""
    path = tmp_path / "w.world.xml"
    path.write_text(f'<mvsim_world version="1.0">\n<include file="{DEFINITIONS / definition}"/>\n{vehicles}\n'
                    "</mvsim_world>\n")
    return path


def vehicle(definition: str, cls: str, tmp_path: Path, inner: str = ""):
    world = load_world(world_with(definition, f'<vehicle name="v" class="{cls}">{inner}</vehicle>', tmp_path))
    return world.vehicles[0], world.warnings


def wheel_values(spec, name):
    w = next(w for w in spec.wheels if w.name == name)
    return (w.x, w.y, w.mass, w.width, w.diameter)


def test_small_robot_resolves_to_its_values_and_mvsim_defaults(tmp_path):
    v, warnings = vehicle("small_robot.vehicle.xml", "small_robot", tmp_path)
    assert not warnings
    assert v.dynamics == "differential"
    assert wheel_values(v, "l_wheel") == (0.0, 0.5, 4.0, 0.2, 0.4)
    assert wheel_values(v, "r_wheel") == (0.0, -0.5, 4.0, 0.2, 0.4)
    for w in v.wheels:  # no inertia given: a solid disc's, m r^2 / 2
        assert w.inertia_yy == pytest.approx(0.5 * 4.0 * 0.2 ** 2) and w.color == WHEEL["color"].default
    c = v.chassis
    assert (c.mass, c.zmin, c.zmax, c.color) == (15.0, 0.05, 0.6, "#ff0000")
    assert (c.linear_damping, c.angular_damping) == (CHASSIS["linear_damping"].default, 0.1)
    p = v.controller.params
    assert v.controller.kind == "twist_pid"
    assert (p["KP"], p["KI"], p["KD"], p["max_torque"], p["V"], p["W"]) == (4.1543, 1.9118, 0.0, 14.44, 0.0, 0.0)
    for name in ("N", "enable_antiwindup", "enable_feedforward", "feedforward_gain", "enable_reference_filter",
                 "reference_filter_tau", "reference_filter_order"):
        assert p[name] == CONTROLLER_DIFFERENTIAL_TWIST_PID[name].default, name
    assert "I_MAX" not in p  # no integral clamp, as MVSim
    assert v.friction.model == "default" and v.friction.params == {"mu": 0.7, "C_damping": 0.1, "C_rr": 0.01}
    assert v.odometry == dict.fromkeys(ODOMETRY_KEYS, 1.0)


def test_ackermann_car_reads_its_geometry_controller_and_skips_the_drivetrain_it_does_not_have(tmp_path):
    v, warnings = vehicle("ackermann.vehicle.xml", "car_ackermann", tmp_path)
    # An ackermann dynamics reads no <drivetrain> (MVSim ignores it there): said once, with its line.
    assert len(warnings) == 1 and "ackermann.vehicle.xml:15:" in warnings[0] and "<drivetrain>" in warnings[0]
    assert v.drivetrain is None
    assert wheel_values(v, "rl_wheel") == (0.0, 1.0, 6.0, 0.3, 0.62)
    assert wheel_values(v, "fl_wheel") == (1.3, 1.0, 6.0, 0.3, 0.62)  # from f_wheels_x, f_wheels_d / 2
    assert wheel_values(v, "fr_wheel") == (1.3, -1.0, 6.0, 0.3, 0.62)
    assert v.dynamics_params["max_steer_ang"] == pytest.approx(math.radians(30.0))
    assert v.dynamics_params["max_steer_rate"] == 0.0
    c = v.chassis
    assert (c.mass, c.zmin, c.zmax, c.color) == (800.0, 0.15, 1.0, "#e83000")  # Ackermann colour default
    p = v.controller.params
    assert (p["KP"], p["KI"], p["KD"], p["max_torque"]) == (150.2758, 59.1637, 0.0, 400.94)
    assert (p["zero_threshold"], p["stop_threshold"]) == (0.001, 0.05)
    assert v.friction.params == {"mu": 0.7, "C_damping": 0.5, "C_rr": 0.01}
    assert v.odometry == {"x_multiplier": 1.02, "y_multiplier": 0.99, "yaw_multiplier": 1.03}


def test_agricobiot2_drivetrain_wheels_and_ward_iagnemma_defaults(tmp_path):
    v, warnings = vehicle("agricobiot2.vehicle.xml", "agricobiot2", tmp_path)
    assert v.dynamics == "ackermann_drivetrain"
    # linked_yaw / linked_yaw_offset_deg (two wheels) are accepted but not simulated; no <visual> for the
    # chassis' shape_from_visual: each said, with its line.
    assert sum("linked_yaw" in w and "accepted but not used" in w for w in warnings) == 4
    assert sum("shape_from_visual" in w for w in warnings) == 1 and len(warnings) == 5
    rl = next(w for w in v.wheels if w.name == "rl_wheel")
    assert (rl.x, rl.y, rl.yaw) == (0.0, -0.2, pytest.approx(math.radians(-0.245)))
    assert wheel_values(v, "fl_wheel") == (0.62, pytest.approx(0.2), 5.35, 0.164, 0.406)
    assert v.dynamics_params["max_steer_ang"] == pytest.approx(math.radians(35.0))
    assert (v.chassis.mass, v.chassis.zmin, v.chassis.zmax, v.chassis.shape_from_visual) == (97.0, 0.0, 1.2, True)
    assert v.drivetrain.type == "open_rear"
    assert v.drivetrain.params == {"front_rear_split": 0.5, "front_rear_bias": 1.5, "front_left_right_split": 0.5,
                                   "front_left_right_bias": 1.5, "rear_left_right_split": 0.5,
                                   "rear_left_right_bias": 1.5}
    p = v.controller.params
    assert (p["KP"], p["KI"], p["I_MAX"], p["max_torque"]) == (100.0, 5.0, 10.0, 400.0)
    assert p["N"] == CONTROLLER_DRIVETRAIN_TWIST_FRONT_STEER_PID["N"].default
    f = v.friction
    assert f.model == "wardiagnemma" and (f.params["mu"], f.params["C_damping"]) == (0.9, 0.05)
    for name in ("C_rr", "A_roll", "R1", "R2"):
        assert f.params[name] == FRICTION_WARD_IAGNEMMA[name].default


@pytest.mark.parametrize("definition, cls", [("jackal.vehicle.xml", "jackal"),
                                             ("jackal-ellipse.vehicle.xml", "jackal_ellipse")])
def test_jackals_four_wheels_and_ideal_controller(definition, cls, tmp_path):
    v, warnings = vehicle(definition, cls, tmp_path)
    assert [w.name for w in v.wheels] == ["lr_wheel", "rr_wheel", "lf_wheel", "rf_wheel"]
    assert wheel_values(v, "lf_wheel") == (0.13, 0.16, 1.0, 0.03, 0.2)
    assert wheel_values(v, "rr_wheel") == (-0.13, -0.16, 1.0, 0.03, 0.2)
    assert v.controller.kind == "twist_ideal" and v.controller.params == {"V": 0.0, "W": 0.0}
    assert len(warnings) == 1 and "shape_from_visual" in warnings[0]  # the gains under twist_ideal: silent
    assert (v.chassis.mass, v.chassis.zmin, v.chassis.zmax) == (10.0, 0.05, 0.25)
    if cls == "jackal":
        assert v.friction.params == {"mu": 0.8, "C_damping": 0.05, "C_rr": 0.01}
    else:
        assert v.friction.model == "ellipse"
        assert v.friction.params == {"C_damping": 0.05, "C_rr": 0.0, "C_s": 7.5, "slip_angle_saturation": 0.1,
                                     "slip_ratio_saturation": 0.1, "C_alpha": 8.5, "C_alpha_s": 0.5,
                                     "C_s_alpha": 0.5}
        assert v.odometry == {"x_multiplier": 1.01, "y_multiplier": 1.0, "yaw_multiplier": 0.97}


def test_pickup_and_turtlebot(tmp_path):
    v, _ = vehicle("pickup.vehicle.xml", "pickup", tmp_path)
    assert wheel_values(v, "rl_wheel") == (-1.8, 0.9, 6.0, 0.2, 0.8)
    assert wheel_values(v, "fr_wheel") == (1.7, pytest.approx(-0.925), 6.0, 0.2, 0.8)
    assert v.dynamics_params["max_steer_ang"] == pytest.approx(math.radians(40.0))
    p = v.controller.params
    assert (p["KP"], p["KI"], p["I_MAX"], p["max_torque"]) == (1500.0, 50.0, 20.0, 600.0)
    assert (v.chassis.mass, v.chassis.zmin, v.chassis.zmax) == (2000.0, 0.01, 1.9)
    v, _ = vehicle("turtlebot3_burger.vehicle.xml", "turtlebot3_burger", tmp_path)
    assert wheel_values(v, "l_wheel") == (0.0, 0.08, 0.1, 0.03, 0.066)
    assert v.controller.kind == "twist_ideal" and (v.chassis.mass, v.chassis.zmax) == (1.0, 0.192)
    assert v.friction.params == {"mu": 0.8, "C_damping": 0.01, "C_rr": 0.01}


def test_scania_truck_and_trailer(tmp_path):
    path = world_with("scania_truck.vehicle.xml", '<vehicle name="truck" class="scania_truck"/>\n'
                      '<vehicle name="trailer" class="scania_trailer"><init_pose>-1 0 0</init_pose></vehicle>',
                      tmp_path)
    world = load_world(path)
    truck, trailer = world.vehicles
    assert truck.chassis.shape == [(2.5, 1.0), (4.0, 1.0), (4.0, -1.0), (2.5, -1.0)]
    assert (truck.chassis.mass, truck.chassis.zmin, truck.chassis.zmax) == (3000.0, 0.4, 3.5)
    assert wheel_values(truck, "fl_wheel") == (3.0, 0.9, 15.0, 0.35, 1.0)
    assert truck.friction.params == {"mu": 0.7, "C_damping": 0.5, "C_rr": 0.01}
    assert trailer.controller.kind == "raw" and wheel_values(trailer, "lf_wheel") == (-4.25, 0.8, 10.0, 0.35, 0.75)
    # <linear_damping> as a child tag is not read (MVSim reads chassis damping from attributes): the default stays.
    assert trailer.chassis.linear_damping == 0.1
    damping = [w for w in world.warnings if "<linear_damping>" in w]
    assert len(damping) == 1 and "scania_truck.vehicle.xml:28:" in damping[0]


def test_defaults_without_friction_controller_or_odometry_are_mvsims():
    spec = load_world_string('<mvsim_world version="1.0"><vehicle name="v"><dynamics class="differential"/>'
                             '</vehicle></mvsim_world>')
    v = spec.vehicles[0]
    assert v.friction.model == "default"
    assert v.friction.params == {p.name: p.default for p in FRICTION_DEFAULT}
    assert v.friction.params["C_damping"] == 0.01
    assert v.controller.kind == "raw" and v.controller.params == {"torque_left": 0.0, "torque_right": 0.0}
    # Odometry multipliers: drawn per vehicle around 1 (sigma 0.02), the same for the same vehicle name.
    again = load_world_string('<mvsim_world version="1.0"><vehicle name="v"><dynamics class="differential"/>'
                              '</vehicle></mvsim_world>').vehicles[0]
    assert v.odometry == again.odometry and all(abs(m - 1.0) < 0.1 for m in v.odometry.values())
    assert len(set(v.odometry.values())) == 3


def test_mvsim_controller_defaults_per_class():
    def controller(dynamics, kind):
        return load_world_string(
            f'<mvsim_world version="1.0"><vehicle name="v"><dynamics class="{dynamics}">'
            f'<controller class="{kind}"/></dynamics></vehicle></mvsim_world>').vehicles[0].controller.params

    assert controller("differential", "twist_pid")["KP"] == 10.0
    assert controller("ackermann", "twist_front_steer_pid")["KP"] == 100.0
    assert controller("ackermann", "front_steer_pid")["KP"] == 100.0
    assert controller("ackermann_drivetrain", "twist_front_steer_pid")["max_torque"] == 400.0
    assert controller("ackermann_drivetrain", "front_steer_pid")["max_torque"] == 100.0
    raw = controller("ackermann", "raw")
    assert raw == {"fl_torque": 0.0, "fr_torque": 0.0, "steer_ang_deg": 0.0}


def test_init_pose3d_sets_the_planar_pose_and_keeps_z_and_attitude():
    v = load_world_string('<mvsim_world version="1.0"><vehicle name="v"><init_pose3d>1 2 0.5 90 5 -3</init_pose3d>'
                          '<dynamics class="differential"/></vehicle></mvsim_world>').vehicles[0]
    assert (v.init_pose.x, v.init_pose.y, v.init_pose.yaw) == (1.0, 2.0, pytest.approx(math.pi / 2))
    p = v.init_pose3
    assert (p.z, p.pitch, p.roll) == (0.5, pytest.approx(math.radians(5)), pytest.approx(math.radians(-3)))


def test_raw_controllers_read_mvsims_names():
    v = load_world_string('<mvsim_world version="1.0"><vehicle name="v"><dynamics class="ackermann_drivetrain">'
                          '<controller class="raw"><torque>12</torque><steer_ang_deg>10</steer_ang_deg></controller>'
                          '</dynamics></vehicle></mvsim_world>').vehicles[0]
    assert v.controller.params == {"torque": 12.0, "steer_ang_deg": pytest.approx(math.radians(10))}


# -- one warning, with file and line, for anything unknown in each vehicle context ----------------------------

BASE = """<mvsim_world version="1.0">
<vehicle name="v">
<init_pose>0 0 0</init_pose>{vehicle}
<odometry x_multiplier="1"{odometry}/>
<publish{publish_attr}>{publish}</publish>
<dynamics class="{dynamics}"{dynamics_attr}>{dynamics_tag}
<chassis mass="20"{chassis_attr}>{chassis}<shape><pt>-0.5 -0.5</pt><pt>0.5 -0.5</pt><pt>0.5 0.5</pt>{shape}</shape>
</chassis>
<{wheel} mass="1"{wheel_attr}/>
<controller class="{controller}">{controller_tag}</controller>{drivetrain}
</dynamics>
<friction class="{friction}">{friction_tag}</friction>
</vehicle>
</mvsim_world>
"""
SLOTS = {"vehicle": "", "odometry": "", "publish_attr": "", "publish": "", "dynamics": "differential",
         "dynamics_attr": "", "dynamics_tag": "", "chassis_attr": "", "chassis": "", "shape": "", "wheel": "l_wheel",
         "wheel_attr": "", "controller": "twist_pid", "controller_tag": "", "drivetrain": "", "friction": "default",
         "friction_tag": ""}
TAG, ATTR = "\n<bogus>1</bogus>", ' bogus="2"'


@pytest.mark.parametrize("slots, line", [
    ({"vehicle": TAG}, 4),
    ({"odometry": ATTR}, 4),
    ({"publish_attr": ATTR}, 5),
    ({"publish": TAG}, 6),
    ({"dynamics_attr": ATTR}, 6),
    ({"dynamics_tag": TAG}, 7),
    ({"chassis_attr": ATTR}, 7),
    ({"chassis": TAG}, 8),
    ({"shape": TAG}, 8),
    ({"wheel_attr": ATTR}, 9),
    ({"controller_tag": TAG}, 11),
    ({"controller": "twist_front_steer_pid", "dynamics": "ackermann", "wheel": "fl_wheel", "controller_tag": TAG},
     11),
    ({"controller": "raw", "dynamics": "ackermann_drivetrain", "wheel": "fl_wheel", "controller_tag": TAG}, 11),
    ({"dynamics": "ackermann_drivetrain", "wheel": "fl_wheel", "controller": "twist_front_steer_pid",
      "drivetrain": f'\n<drivetrain type="open_4wd"{ATTR}/>'}, 11),
    ({"dynamics": "ackermann_drivetrain", "wheel": "fl_wheel", "controller": "twist_front_steer_pid",
      "drivetrain": f'\n<drivetrain type="open_4wd">{TAG}</drivetrain>'}, 12),
    ({"friction_tag": TAG}, 13),
    ({"friction": "wardiagnemma", "friction_tag": TAG}, 13),
    ({"friction": "ellipse", "friction_tag": TAG}, 13),
    ({"friction": "pacejka", "friction_tag": TAG}, 13),
])
def test_a_bogus_tag_or_attribute_is_one_warning_with_its_line(slots, line):
    text = BASE.format(**{**SLOTS, **slots})
    spec = load_world_string(text, file="bogus.world.xml")
    assert len(spec.warnings) == 1, spec.warnings
    assert spec.warnings[0].startswith(f"bogus.world.xml:{line}:") and "bogus" in spec.warnings[0]


def test_without_anything_bogus_there_is_no_warning():
    assert load_world_string(BASE.format(**SLOTS)).warnings == []


def test_the_tables_cover_every_vehicle_context_mvsim_reads():
    contexts = {t.context for t in TABLES}
    assert {"vehicle", "dynamics", "controller", "chassis", "shape", "odometry", "wheel", "dynamics.differential",
            "dynamics.differential_3_wheels", "dynamics.differential_4_wheels", "dynamics.ackermann",
            "dynamics.ackermann_drivetrain", "controller.differential.twist_pid", "controller.ackermann.raw",
            "controller.ackermann.front_steer_pid", "controller.ackermann.twist_front_steer_pid",
            "controller.ackermann_drivetrain.raw", "controller.ackermann_drivetrain.front_steer_pid",
            "controller.ackermann_drivetrain.twist_front_steer_pid", "friction.common", "friction.default",
            "friction.wardiagnemma", "friction.ellipse"} <= contexts


def test_vehicle_and_wheel_visuals_go_to_the_visual_reader_with_the_warnings():
    spec = load_world_string('<mvsim_world version="1.0"><vehicle name="v">\n<visual><bogus>1</bogus></visual>\n'
                             '<dynamics class="differential"><l_wheel><visual>\n<bogus2>1</bogus2></visual></l_wheel>'
                             '</dynamics></vehicle></mvsim_world>', file="visual.world.xml")
    assert sorted(w.split(" ")[0] for w in spec.warnings) == ["visual.world.xml:2:", "visual.world.xml:4:"]
    assert all("<visual>" in w for w in spec.warnings)
