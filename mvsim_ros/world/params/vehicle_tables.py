"""Parameter tables of the vehicle contexts: vehicle, chassis, wheels, odometry, dynamics classes, controllers,
drivetrain and friction models (see table.py). Names, units and defaults are MVSim's; the parameters this
simulator adds (Pacejka friction, the articulated dynamics, steering rate limits, the integral clamp I_MAX, raw
torques of differential vehicles) are marked as ours in their note.

world/elements/vehicles.py reads every one of these contexts through its table only.
"""

from __future__ import annotations

from mvsim_ros.world.params.table import NOT_SIMULATED, Param, ParamTable

_OURS = "ours (MVSim has no such parameter)"

# -- vehicle ---------------------------------------------------------------------------------------------------

VEHICLE = ParamTable("vehicle", (
    Param("name", "str", None, "", "unique vehicle name (required here; MVSim numbers unnamed ones veh<N>)",
          attribute=True),
    Param("class", "str", None, "", "name of a <vehicle:class> whose children are merged with this vehicle's",
          attribute=True),
    Param("include", "group", None, "", "<include file=...> inside a vehicle: the file's elements join the vehicle's",
          note="expanded by the preprocessor before the vehicle is read"),
    Param("dynamics", "group", None, "", "required; its class attribute selects the dynamics model "
          "(see `dynamics`)"),
    Param("odometry", "group", None, "", "odometry error multipliers (see `odometry`)"),
    Param("friction", "group", None, "", "wheel-ground friction model of every wheel (see `friction.*`); absent: "
          "class default with its defaults"),
    Param("sensor", "group", None, "", "a sensor on the vehicle (see the sensor contexts)"),
    Param("visual", "group", None, "", "3D model(s) of the vehicle (see `visual`)"),
    Param("log_path", "str", "", "", "directory of the vehicle's CSV logs", support=NOT_SIMULATED,
          note="CSV logs are written for all vehicles by the node's log_dir parameter (output/csv_logs.py)"),
    Param("auto_start_recording", "bool", False, "", "start the CSV logs at load", support=NOT_SIMULATED,
          note="CSV logs are written for all vehicles by the node's log_dir parameter (output/csv_logs.py)"),
    Param("init_pose", "floats", None, "m, m, deg", "initial pose 'x y yaw_deg' (the yaw is radians once read)",
          note="origin when neither init_pose nor init_pose3d is given"),
    Param("init_pose3d", "floats", None, "m, m, m, deg, deg, deg", "initial pose 'x y z yaw_deg pitch_deg "
          "roll_deg', used when there is no init_pose", note="the planar simulation starts from x, y, yaw; z, "
          "pitch and roll of a vehicle come from the ground under its wheels from the first step"),
    Param("skip_elevation_adjust", "group", False, "", "flag (its presence): keep the initial z instead of "
          "setting it on the ground", support=NOT_SIMULATED, note="a vehicle always rides on the ground under "
          "its wheels here"),
    Param("init_vel", "floats", (0.0, 0.0, 0.0), "m/s, m/s, deg/s", "initial velocity 'vx vy omega_deg_per_s', "
          "vehicle frame (rad/s once read)"),
    Param("publish", "group", None, "", "pose publishing options (see `vehicle.publish`)"),
    Param("animation", "group", None, "", "keyframe animation <animation type=\"keyframes\">",
          support=NOT_SIMULATED, note="vehicles are driven by their controllers; keyframes move blocks"),
), "`<vehicle>` and `<vehicle:class>`: the instance's tags win over its class's. Degrees in poses are radians "
   "once read.")

VEHICLE_INCLUDE = ParamTable("vehicle.include", (
    Param("file", "str", None, "", "the included file (required), relative to the including one; the element's "
          "other attributes are variables inside it", attribute=True),
), "`<include file=...>` inside a `<vehicle>` or `<vehicle:class>`: expanded by the preprocessor before the vehicle "
   "is read.")

_ZMQ_POSES = ("MVSim publishes these over its own ZMQ comms; here every vehicle's pose is on its ROS ground-truth "
              "topic and TF")

VEHICLE_PUBLISH = ParamTable("vehicle.publish", (
    Param("enabled", "bool", True, "", "false: no pose publishing", attribute=True, support=NOT_SIMULATED,
          note=_ZMQ_POSES),
    Param("publish_pose_topic", "str", "", "", "topic of the vehicle's pose (empty: none)", support=NOT_SIMULATED,
          note=_ZMQ_POSES),
    Param("publish_pose_period", "float", 0.1, "s", "minimum time between two pose messages",
          quantity="duration", support=NOT_SIMULATED, note=_ZMQ_POSES),
    Param("publish_relative_pose_topic", "str", "", "", "topic of other objects' poses relative to this one",
          support=NOT_SIMULATED, note=_ZMQ_POSES),
    Param("publish_relative_pose_objects", "str", "", "", "names of those objects, space or comma separated",
          support=NOT_SIMULATED, note=_ZMQ_POSES),
), "`<publish>` of a vehicle (MVSim's Simulable options).")

VEHICLE_ANIMATION = ParamTable("vehicle.animation", (
    Param("type", "str", None, "", "animation type: keyframes", attribute=True, support=NOT_SIMULATED,
          note="vehicles are driven by their controllers; keyframes move blocks"),
    Param("time_pose", "floats", None, "s, m, m, deg", "keyframe 't x y yaw_deg'", support=NOT_SIMULATED,
          note="vehicles are driven by their controllers; keyframes move blocks"),
    Param("time_pose3d", "floats", None, "s, m, m, m, deg, deg, deg", "keyframe 't x y z yaw pitch roll'",
          support=NOT_SIMULATED, note="vehicles are driven by their controllers; keyframes move blocks"),
), "`<animation>` inside a `<vehicle>` (accepted, not simulated for vehicles).")

ODOMETRY = ParamTable("odometry", (
    Param("x_multiplier", "float", None, "", "scale of the odometry's forward increments (1: exact)",
          attribute=True, quantity="odometry_multiplier", note="absent: drawn per vehicle from a normal "
          "distribution, mean 1, standard deviation 0.02 (as MVSim), by a generator seeded with the vehicle's "
          "name"),
    Param("y_multiplier", "float", None, "", "scale of the odometry's sideways increments (1: exact)",
          attribute=True, quantity="odometry_multiplier", note="absent: drawn as x_multiplier"),
    Param("yaw_multiplier", "float", None, "", "scale of the odometry's heading increments (1: exact)",
          attribute=True, quantity="odometry_multiplier", note="absent: drawn as x_multiplier"),
), "`<odometry>` attributes: each odometry increment, in the vehicle frame, is scaled before it is added.")

# -- chassis, shape, wheels ------------------------------------------------------------------------------------

CHASSIS = ParamTable("chassis", (
    Param("mass", "float", 15.0, "kg", "chassis mass (without wheels)", attribute=True, quantity="mass",
          note="Ackermann classes: 500"),
    Param("zmin", "float", 0.05, "m", "chassis bottom above the ground", attribute=True,
          quantity="body_coordinate", note="Ackermann classes: 0.2"),
    Param("zmax", "float", 0.6, "m", "chassis top above the ground", attribute=True, quantity="body_coordinate",
          note="Ackermann classes: 1.4"),
    Param("color", "color", "#ff0000", "", "chassis colour #RRGGBB[AA]", attribute=True,
          note="Ackermann classes: #e83000"),
    Param("linear_damping", "float", 0.1, "1/s", "Box2D linear damping of the chassis body: its velocity scaled "
          "by (1 - c dt) each step, ~exp(-c t)", attribute=True, quantity="friction_parameter"),
    Param("angular_damping", "float", 0.1, "1/s", "Box2D angular damping of the chassis body: its yaw rate scaled "
          "by (1 - c dt) each step", attribute=True, quantity="friction_parameter"),
    Param("shape", "group", None, "m", "outline polygon of <pt>x y</pt> points (see `shape`)",
          note="default outline per dynamics class (docs: MVSim's defaults)"),
    Param("shape_from_visual", "group", False, "", "flag (its presence): outline and zmin/zmax from the bounding "
          "box of the vehicle's <visual> model"),
), "`<chassis>` inside `<dynamics>`. Defaults are the differential classes'; the Ackermann classes' differ as "
   "noted.")

SHAPE = ParamTable("shape", (
    Param("pt", "floats", None, "m", "one outline point 'x y'; at least 3", quantity="body_coordinate"),
), "`<shape>` of a chassis: a polygon in the vehicle frame.")

WHEEL = ParamTable("wheel", (
    Param("pos", "floats", (0.0, -0.5, 0.0), "m, m, deg", "wheel centre 'x y [yaw_deg]' in the vehicle frame",
          attribute=True, note="a missing wheel tag, or one without pos, takes its dynamics class's position (MVSim "
          "puts a differential wheel tag without pos at (0, -0.5), on the right wheel)"),
    Param("mass", "float", 2.0, "kg", "wheel mass", attribute=True),
    Param("width", "float", 0.2, "m", "wheel width", attribute=True),
    Param("diameter", "float", 0.4, "m", "wheel diameter", attribute=True),
    Param("color", "color", "#323232", "", "wheel colour #RRGGBB[AA]", attribute=True),
    Param("inertia", "float", None, "kg m^2", "spin inertia about the axle", attribute=True,
          quantity="friction_parameter", note="absent: mass (diameter/2)^2 / 2 (a solid disc), as MVSim"),
    Param("linked_yaw", "str", "", "", "name of a <visual> of the vehicle that turns with this wheel's steering",
          attribute=True, support=NOT_SIMULATED, note="visual models are drawn rigid with the chassis"),
    Param("linked_yaw_offset_deg", "deg", 0.0, "rad", "yaw offset of that linked visual", attribute=True,
          support=NOT_SIMULATED, note="visual models are drawn rigid with the chassis"),
    Param("yaw", "deg", 0.0, "rad", "fixed mounting angle (the same as pos's third value)", attribute=True,
          note=_OURS),
    Param("visual", "group", None, "", "3D model of the wheel (see `visual`)"),
), "A wheel tag (`<l_wheel>`, `<fl_wheel>`, ...) of a dynamics class: attributes plus an optional <visual>.")

# -- dynamics --------------------------------------------------------------------------------------------------

DYNAMICS = ParamTable("dynamics", (
    Param("class", "str", None, "", "dynamics model: differential, differential_3_wheels, differential_4_wheels, "
          "ackermann, ackermann_drivetrain (and ours: articulated)", attribute=True),
    Param("chassis", "group", None, "", "chassis (see `chassis`)"),
    Param("controller", "group", None, "", "motor controller; its class attribute selects it (see `controller.*`)",
          note="absent: raw"),
), "`<dynamics class=...>`: what every class reads; each class adds its own tags below.")


def _wheel_tag(name: str, pos: str, note: str = "") -> Param:
    return Param(name, "group", None, "", f"wheel (see `wheel`); absent: at {pos}", note=note)


DYNAMICS_DIFFERENTIAL = ParamTable("dynamics.differential", (
    _wheel_tag("l_wheel", "(0, 0.5)"),
    _wheel_tag("r_wheel", "(0, -0.5)"),
), "`<dynamics class=\"differential\">`: a left and a right driven wheel.")

DYNAMICS_DIFFERENTIAL_3 = ParamTable("dynamics.differential_3_wheels", (
    _wheel_tag("l_wheel", "(0, 0.5)"),
    _wheel_tag("r_wheel", "(0, -0.5)"),
    _wheel_tag("caster_wheel", "(0.5, 0)", note="a free caster: it carries load and rolls, takes no side force"),
), "`<dynamics class=\"differential_3_wheels\">`: two driven wheels and a caster.")

DYNAMICS_DIFFERENTIAL_4 = ParamTable("dynamics.differential_4_wheels", (
    Param("lr_wheel", "group", None, "", "wheel (see `wheel`); absent: at (0, 0.5)", aliases=("l_wheel",),
          note="alias ours"),
    Param("rr_wheel", "group", None, "", "wheel (see `wheel`); absent: at (0, -0.5)", aliases=("r_wheel",),
          note="alias ours"),
    Param("lf_wheel", "group", None, "", "wheel (see `wheel`); absent: at (0.5, 0.5)", aliases=("l_caster_wheel",),
          note="alias ours"),
    Param("rf_wheel", "group", None, "", "wheel (see `wheel`); absent: at (0.5, -0.5)",
          aliases=("r_caster_wheel",), note="alias ours"),
), "`<dynamics class=\"differential_4_wheels\">`: four driven wheels, skid steering.")

_ACKERMANN_GEOMETRY = (
    _wheel_tag("rl_wheel", "(0, 0.9)"),
    _wheel_tag("rr_wheel", "(0, -0.9)"),
    _wheel_tag("fl_wheel", "(1.3, 0.9)", note="x, y always set from f_wheels_x and f_wheels_d"),
    _wheel_tag("fr_wheel", "(1.3, -0.9)", note="x, y always set from f_wheels_x and f_wheels_d"),
    Param("f_wheels_x", "float", 1.3, "m", "front axle position along x (the front wheels' x)",
          quantity="body_coordinate"),
    Param("f_wheels_d", "float", 2.0, "m", "front track: the front wheels are at y = +/- d/2",
          quantity="body_length"),
    Param("max_steer_ang_deg", "float", 30.0, "deg", "largest equivalent steering angle", quantity="steer_angle"),
    Param("max_steer_rate_deg", "float", 0.0, "deg/s", "how fast the steering turns (0: at once, as MVSim)",
          quantity="angular_velocity", note=_OURS),
)

DYNAMICS_ACKERMANN = ParamTable("dynamics.ackermann", _ACKERMANN_GEOMETRY,
                                "`<dynamics class=\"ackermann\">` (also `car_ackermann`): steered front wheels, "
                                "front-wheel drive.")

DYNAMICS_ACKERMANN_DRIVETRAIN = ParamTable("dynamics.ackermann_drivetrain", (
    *_ACKERMANN_GEOMETRY,
    Param("drivetrain", "group", None, "", "differentials of the single motor (see `drivetrain`)",
          note="absent: torsen_4wd with its defaults"),
), "`<dynamics class=\"ackermann_drivetrain\">`: steered front wheels, one motor through differentials.")

DRIVETRAIN = ParamTable("drivetrain", (
    Param("type", "str", "torsen_4wd", "", "open_front, open_rear, open_4wd, torsen_front, torsen_rear, torsen_4wd",
          attribute=True, note="an unknown type is an error here (MVSim keeps torsen_4wd silently)"),
    Param("front_rear_split", "float", 0.5, "", "share of torque to the front axle", quantity="fraction"),
    Param("front_rear_bias", "float", 1.5, "", "Torsen bias ratio between the axles", quantity="drivetrain_bias"),
    Param("front_left_right_split", "float", 0.5, "", "share of the front torque to the left wheel",
          quantity="fraction"),
    Param("front_left_right_bias", "float", 1.5, "", "Torsen bias ratio between the front wheels",
          quantity="drivetrain_bias"),
    Param("rear_left_right_split", "float", 0.5, "", "share of the rear torque to the left wheel",
          quantity="fraction"),
    Param("rear_left_right_bias", "float", 1.5, "", "Torsen bias ratio between the rear wheels",
          quantity="drivetrain_bias"),
), "`<drivetrain type=...>` of an ackermann_drivetrain vehicle.")

DYNAMICS_ARTICULATED = ParamTable("dynamics.articulated", (
    Param("rl_wheel", "group", None, "", "rear unit wheel; absent: at (0, 0.6)", note=_OURS),
    Param("rr_wheel", "group", None, "", "rear unit wheel; absent: at (0, -0.6)", note=_OURS),
    Param("fl_wheel", "group", None, "", "front unit wheel (front unit frame); absent: at (0, 0.6)", note=_OURS),
    Param("fr_wheel", "group", None, "", "front unit wheel (front unit frame); absent: at (0, -0.6)", note=_OURS),
    Param("front_chassis", "group", None, "", "the front unit's chassis (as `chassis`)", note=_OURS),
    Param("wheel_separation_front", "float", 1.0, "m", "pivot to front axle (> 0)", note=_OURS),
    Param("wheel_separation_rear", "float", 1.0, "m", "rear axle to pivot (> 0)", note=_OURS),
    Param("max_articulation_deg", "float", 40.0, "deg", "largest pivot angle (0 to 90)", note=_OURS),
    Param("max_articulation_rate_deg", "float", 30.0, "deg/s", "fastest pivot motion (0: none)",
          quantity="angular_velocity", note=_OURS),
    Param("pivot_max_torque", "float", 0.0, "N m", "pivot motor torque limit (0: enough for full grip)",
          quantity="torque", note=_OURS),
    Param("pivot_gain", "float", 5.0, "1/s", "pivot motor gain (> 0)", note=_OURS),
    *(Param(tag, "floats", None, "m", "footprint corner 'x y' in base_link (all four or none)",
            quantity="body_coordinate", note=_OURS)
      for tag in ("trailer_top_left", "trailer_top_right", "tractor_bottom_left", "tractor_bottom_right")),
), "`<dynamics class=\"articulated\">` (ours: two units joined by a powered pivot). Controllers: raw and "
   "twist_pid as `controller.differential.*`, front_steer_pid as `controller.ackermann.front_steer_pid`.")

# -- controllers -----------------------------------------------------------------------------------------------

CONTROLLER = ParamTable("controller", (
    Param("class", "str", "raw", "", "controller of the dynamics class (see the `controller.*` contexts)",
          attribute=True),
), "`<controller class=...>`.")

_I_MAX = Param("I_MAX", "float", None, "m", "clamp of the error integral to +/- I_MAX, with the integral frozen "
               "while the output saturates towards the error", quantity="integral_limit",
               note=_OURS + "; absent: no clamp, as MVSim")


def _gains(kp: float, max_torque: float) -> tuple[Param, ...]:
    return (
        Param("KP", "float", kp, "N m s/m", "proportional gain of the wheel-speed PID", quantity="controller_gain"),
        Param("KI", "float", 0.0, "N m/m", "integral gain", quantity="controller_gain"),
        Param("KD", "float", 0.0, "N m s^2/m", "derivative gain", quantity="controller_gain"),
        Param("max_torque", "float", max_torque, "N m", "saturation of the output torque", quantity="torque"),
        _I_MAX,
    )


def _pid_options() -> tuple[Param, ...]:
    return (
        Param("N", "float", 0.0, "1/s", "derivative filter rate: the D term follows KD e through a first-order "
              "lag of rate N (0: plain difference of the error)", quantity="controller_gain"),
        Param("enable_antiwindup", "bool", False, "", "back-calculation anti-windup: the integral is corrected "
              "by (KI/KP) (saturated - unsaturated output) dt"),
        Param("enable_feedforward", "bool", False, "", "add the torque that holds the chassis weight on the "
              "slope, m g sin(slope) R / driven wheels"),
        Param("feedforward_gain", "float", 1.0, "", "scale of the feed-forward torque (1: full)",
              quantity="controller_gain"),
        Param("enable_reference_filter", "bool", False, "", "low-pass filter the wheel speed setpoints"),
        Param("reference_filter_tau", "float", 0.1, "s", "time constant of each filter stage", quantity="duration"),
        Param("reference_filter_order", "int", 1, "", "filter stages: 1 or 2"),
    )


_V = Param("V", "float", 0.0, "m/s", "initial forward speed setpoint", quantity="velocity")
_W = Param("W", "deg", 0.0, "rad/s", "initial yaw rate setpoint (deg/s in the file)", quantity="angular_velocity")
_STEER = Param("STEER_ANG", "deg", 0.0, "rad", "initial steering angle setpoint", quantity="angle")

CONTROLLER_DIFFERENTIAL_RAW = ParamTable("controller.differential.raw", (
    Param("torque_left", "float", 0.0, "N m", "initial torque of the left wheels", quantity="raw_torque",
          note=_OURS + " (MVSim's reads none)"),
    Param("torque_right", "float", 0.0, "N m", "initial torque of the right wheels", quantity="raw_torque",
          note=_OURS + " (MVSim's reads none)"),
), "`<controller class=\"raw\">` of differential vehicles: wheel torques as commanded.")

CONTROLLER_DIFFERENTIAL_TWIST_PID = ParamTable("controller.differential.twist_pid", (
    *_gains(10.0, 100.0), *_pid_options(), _V, _W,
), "`<controller class=\"twist_pid\">` of differential vehicles: one speed PID per driven wheel, on the wheel "
   "speeds the twist asks for. A zero setpoint (below 0.001 m/s) with wheels below 0.05 m/s stops the motors "
   "and resets the PIDs; while braking to zero a wheel's torque only opposes its motion.")

_IDEAL_IGNORED = "MVSim's twist_ideal reads no parameters; its definitions carry these, skipped silently"

CONTROLLER_TWIST_IDEAL = ParamTable("controller.twist_ideal", (
    _V, _W,
    *(Param(name, "float", None, "", "a PID gain, unused by an ideal controller", support=NOT_SIMULATED,
            note=_IDEAL_IGNORED) for name in ("KP", "KI", "KD", "I_MAX", "max_torque")),
), "`<controller class=\"twist_ideal\">` (differential and ackermann): the body follows the twist exactly. "
   "MVSim reads nothing here; V and W are ours.")

CONTROLLER_ACKERMANN_RAW = ParamTable("controller.ackermann.raw", (
    Param("fl_torque", "float", 0.0, "N m", "initial torque of the front-left wheel", aliases=("torque_left",),
          quantity="raw_torque", note="alias ours"),
    Param("fr_torque", "float", 0.0, "N m", "initial torque of the front-right wheel", aliases=("torque_right",),
          quantity="raw_torque", note="alias ours"),
    Param("steer_ang_deg", "deg", 0.0, "rad", "initial equivalent steering angle", quantity="angle"),
), "`<controller class=\"raw\">` of ackermann vehicles: front wheel torques and steering angle.")

CONTROLLER_ACKERMANN_FRONT_STEER_PID = ParamTable("controller.ackermann.front_steer_pid", (
    *_gains(100.0, 100.0), _V, _STEER,
), "`<controller class=\"front_steer_pid\">` of ackermann vehicles: speed PID on the front wheels, steering "
   "angle commanded.")

CONTROLLER_ACKERMANN_TWIST_FRONT_STEER_PID = ParamTable("controller.ackermann.twist_front_steer_pid", (
    *_gains(100.0, 100.0), *_pid_options(),
    Param("zero_threshold", "float", 0.001, "m/s", "wheel setpoints below this are zero", quantity="velocity"),
    Param("stop_threshold", "float", 0.05, "m/s", "with a zero setpoint, wheels below this speed are stopped "
          "and the PIDs reset", quantity="velocity"),
    _V, _W,
), "`<controller class=\"twist_front_steer_pid\">` of ackermann vehicles: speed PID on the front wheels, "
   "steering from the twist.")

CONTROLLER_DRIVETRAIN_RAW = ParamTable("controller.ackermann_drivetrain.raw", (
    Param("torque", "float", 0.0, "N m", "initial motor torque", quantity="raw_torque"),
    Param("steer_ang_deg", "deg", 0.0, "rad", "initial equivalent steering angle", quantity="angle"),
), "`<controller class=\"raw\">` of ackermann_drivetrain vehicles: the motor torque and steering angle.")

CONTROLLER_DRIVETRAIN_FRONT_STEER_PID = ParamTable("controller.ackermann_drivetrain.front_steer_pid", (
    *_gains(100.0, 100.0), _V, _STEER,
), "`<controller class=\"front_steer_pid\">` of ackermann_drivetrain vehicles: a PID on the odometry speed "
   "drives the motor, steering angle commanded.")

CONTROLLER_DRIVETRAIN_TWIST_FRONT_STEER_PID = ParamTable("controller.ackermann_drivetrain.twist_front_steer_pid", (
    *_gains(100.0, 400.0), *_pid_options(), _V, _W,
), "`<controller class=\"twist_front_steer_pid\">` of ackermann_drivetrain vehicles: a PID on the odometry speed "
   "drives the motor, steering from the twist.")

# -- friction --------------------------------------------------------------------------------------------------

FRICTION_COMMON = ParamTable("friction.common", (
    Param("class", "str", "default", "", "friction model: default, wardiagnemma, ellipse (and ours: pacejka)",
          attribute=True),
), "`<friction class=...>`, the same model for every wheel of the vehicle.")

_FRICTION_COMMON = (
    Param("C_damping", "float", 0.01, "N.m.s/rad", "viscous friction of each wheel's bearing (torque per wheel "
          "spin rate)", quantity="friction_parameter"),
    Param("C_rr", "float", 0.0, "", "rolling-resistance coefficient (force = C_rr x normal load)",
          quantity="friction_parameter"),
)

FRICTION_DEFAULT = ParamTable("friction.default", (
    Param("mu", "float", 0.8, "", "wheel-ground friction coefficient (Coulomb limit of the tyre force)",
          quantity="friction_coefficient"),
    *_FRICTION_COMMON,
), "`<friction class=\"default\">` (also what a vehicle without `<friction>` gets).")

FRICTION_WARD_IAGNEMMA = ParamTable("friction.wardiagnemma", (
    Param("mu", "float", 0.8, "", "wheel-ground friction coefficient", quantity="friction_coefficient"),
    *_FRICTION_COMMON,
    Param("A_roll", "float", 50.0, "s/m", "rate of the exponential rolling-resistance term",
          quantity="friction_parameter"),
    Param("R1", "float", 0.0075, "", "constant rolling-resistance term", quantity="friction_parameter"),
    Param("R2", "float", 0.02, "s/m", "speed-proportional rolling-resistance term", quantity="friction_parameter"),
), "`<friction class=\"wardiagnemma\">` (also `ward_iagnemma`): default friction plus Ward and Iagnemma's "
   "speed-dependent rolling resistance.")

FRICTION_ELLIPSE = ParamTable("friction.ellipse", (
    *_FRICTION_COMMON,
    Param("C_s", "float", 7.5, "", "longitudinal slip stiffness", quantity="friction_parameter"),
    Param("slip_angle_saturation", "float", 0.1, "rad", "slip angle where the side force saturates",
          quantity="friction_parameter", note="must be > 0"),
    Param("slip_ratio_saturation", "float", 0.1, "", "slip ratio where the traction force saturates",
          quantity="friction_parameter", note="must be > 0"),
    Param("C_alpha", "float", 8.5, "", "lateral slip-angle stiffness", quantity="friction_parameter"),
    Param("C_alpha_s", "float", 0.5, "", "coupling of slip ratio into the side force", quantity="friction_parameter"),
    Param("C_s_alpha", "float", 0.5, "", "coupling of slip angle into the traction force",
          quantity="friction_parameter"),
), "`<friction class=\"ellipse\">` (also `ellipse_curve`): MVSim's ellipse-curve method.")

#: Pacejka magic-formula coefficients (B, C, D, E) per surface, the same longitudinally and laterally: from Colli,
#: Pagani, Panelli, "A Gazebo car simulator ..." (package CarCommndsFr, "Compute surface type":
#: Dry Bx = By = 10, Cx = Cy = 1.9, D = 1, E = 0.97; Wet 12, 2.3, 0.82, 1; Snow 5, 2, 0.3, 1; Ice 4, 2, 0.1, 1).
PACEJKA_SURFACES: dict[str, tuple[float, float, float, float]] = {
    "dry": (10.0, 1.9, 1.0, 0.97),
    "wet": (12.0, 2.3, 0.82, 1.0),
    "snow": (5.0, 2.0, 0.3, 1.0),
    "ice": (4.0, 2.0, 0.1, 1.0),
}
_PACEJKA_MEANING = {"B": "stiffness factor", "C": "shape factor", "D": "peak factor (x load)",
                    "E": "curvature factor (<= 1)"}
_PACEJKA_DRY = dict(zip("BCDE", PACEJKA_SURFACES["dry"]))


def _pacejka_coefficient(key: str, axis: str) -> Param:
    direction = "longitudinal" if axis == "x" else "lateral"
    quantity = "pacejka_curvature" if key == "E" else "friction_parameter"
    return Param(f"{key}{axis}", "float", None, "", f"{direction} {_PACEJKA_MEANING[key]}", ours=_PACEJKA_DRY[key],
                 quantity=quantity, note=_OURS + "; wins over <" + key + "> and <surface>")


FRICTION_PACEJKA = ParamTable("friction.pacejka", (
    Param("surface", "str", None, "", "coefficient preset: dry, wet, snow, ice", ours="dry", note=_OURS),
    *(Param(key, "float", None, "", f"{_PACEJKA_MEANING[key]}, both directions",
            quantity="pacejka_curvature" if key == "E" else "friction_parameter",
            note=_OURS + "; wins over <surface>") for key in "BCDE"),
    *(_pacejka_coefficient(key, axis) for axis in "xy" for key in "BCDE"),
    *_FRICTION_COMMON,
), "`<friction class=\"pacejka\">` (ours): Pacejka's magic formula on slip ratio and slip angle.")

#: Friction class name in a world file -> its table (aliases: other names of the same class).
FRICTION_TABLES = {"default": FRICTION_DEFAULT, "wardiagnemma": FRICTION_WARD_IAGNEMMA,
                   "ellipse": FRICTION_ELLIPSE, "pacejka": FRICTION_PACEJKA}
FRICTION_ALIASES = {"ward_iagnemma": "wardiagnemma", "ellipse_curve": "ellipse"}

_DIFFERENTIAL_KINDS = ("differential", "differential_3_wheels", "differential_4_wheels")
#: Controller tables by (dynamics class, controller class).
CONTROLLER_TABLES: dict[tuple[str, str], ParamTable] = {
    **{(d, "raw"): CONTROLLER_DIFFERENTIAL_RAW for d in (*_DIFFERENTIAL_KINDS, "articulated")},
    **{(d, "twist_pid"): CONTROLLER_DIFFERENTIAL_TWIST_PID for d in (*_DIFFERENTIAL_KINDS, "articulated")},
    **{(d, "twist_ideal"): CONTROLLER_TWIST_IDEAL for d in (*_DIFFERENTIAL_KINDS, "ackermann")},
    ("ackermann", "raw"): CONTROLLER_ACKERMANN_RAW,
    ("ackermann", "front_steer_pid"): CONTROLLER_ACKERMANN_FRONT_STEER_PID,
    ("ackermann", "twist_front_steer_pid"): CONTROLLER_ACKERMANN_TWIST_FRONT_STEER_PID,
    ("articulated", "front_steer_pid"): CONTROLLER_ACKERMANN_FRONT_STEER_PID,
    ("ackermann_drivetrain", "raw"): CONTROLLER_DRIVETRAIN_RAW,
    ("ackermann_drivetrain", "front_steer_pid"): CONTROLLER_DRIVETRAIN_FRONT_STEER_PID,
    ("ackermann_drivetrain", "twist_front_steer_pid"): CONTROLLER_DRIVETRAIN_TWIST_FRONT_STEER_PID,
}

#: Dynamics class name -> its own table (the tags it adds to `dynamics`).
DYNAMICS_TABLES = {"differential": DYNAMICS_DIFFERENTIAL, "differential_3_wheels": DYNAMICS_DIFFERENTIAL_3,
                   "differential_4_wheels": DYNAMICS_DIFFERENTIAL_4, "ackermann": DYNAMICS_ACKERMANN,
                   "ackermann_drivetrain": DYNAMICS_ACKERMANN_DRIVETRAIN, "articulated": DYNAMICS_ARTICULATED}
DYNAMICS_ALIASES = {"car_ackermann": "ackermann"}

#: The tables of this group, in the order docs/parameters.md lists them.
TABLES: list[ParamTable] = [
    VEHICLE, VEHICLE_INCLUDE, VEHICLE_PUBLISH, VEHICLE_ANIMATION, ODOMETRY, CHASSIS, SHAPE, WHEEL, DYNAMICS,
    DYNAMICS_DIFFERENTIAL, DYNAMICS_DIFFERENTIAL_3, DYNAMICS_DIFFERENTIAL_4, DYNAMICS_ACKERMANN,
    DYNAMICS_ACKERMANN_DRIVETRAIN, DRIVETRAIN, DYNAMICS_ARTICULATED, CONTROLLER, CONTROLLER_DIFFERENTIAL_RAW,
    CONTROLLER_DIFFERENTIAL_TWIST_PID, CONTROLLER_TWIST_IDEAL, CONTROLLER_ACKERMANN_RAW,
    CONTROLLER_ACKERMANN_FRONT_STEER_PID, CONTROLLER_ACKERMANN_TWIST_FRONT_STEER_PID, CONTROLLER_DRIVETRAIN_RAW,
    CONTROLLER_DRIVETRAIN_FRONT_STEER_PID, CONTROLLER_DRIVETRAIN_TWIST_FRONT_STEER_PID, FRICTION_COMMON,
    FRICTION_DEFAULT, FRICTION_WARD_IAGNEMMA, FRICTION_ELLIPSE, FRICTION_PACEJKA,
]
