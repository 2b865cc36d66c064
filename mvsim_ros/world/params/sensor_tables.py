"""Parameter tables of the sensor contexts: what every `<sensor>` reads (sensor.common, with its `<publish>` block
in sensor.publish) and what each class adds (laser, lidar3d, camera, rgbd_camera, imu, gnss); see table.py.

A sensor element is read through `reader(kind)`: the common table and its class's table as one. Poses
(`pose`, `pose_3d`, and a laser's `height`) write one pose, so the one given last in the file wins;
world/elements/sensors.py reads them in file order. Ray counts are read as MVSim's integer reading does: the
integer part of the number (MVSim's own definitions compute `horz_nrays` and `nrays` with `$f{...}` expressions
that leave a fraction).
"""

from __future__ import annotations

from mvsim_ros.world.params.table import GUI_ONLY, NOT_SIMULATED, Param, ParamTable

_POSE_3D_UNIT = "m, m, m, rad, rad, rad"
_POSE_2D_UNIT = "m, m, rad"
_INTEGER_PART = "the integer part is used (a fraction, as `$f{}` expressions give, is dropped, as in MVSim)"
_ZMQ = "MVSim's own ZMQ publishing; here every sensor publishes on ROS topics named after it"
_INTERPOLATION = ("here inverse depth is interpolated whenever the four pixels around a beam have a return: exact "
                  "on planes at any incidence, where a relative-step limit would drop grazing ground returns")


def _pose_3d(default: tuple, meaning: str, note: str = "") -> Param:
    return Param("pose_3d", "floats", default, _POSE_3D_UNIT, meaning + " 'x y z yaw pitch roll' (angles in deg "
                 "in the file)", note=note)


def _pose_2d(meaning: str) -> Param:
    return Param("pose", "floats", (0.0, 0.0, 0.0), _POSE_2D_UNIT, meaning + " 'x y yaw' (yaw in deg in the file); "
                 "sets z, pitch and roll to 0")


SENSOR_COMMON = ParamTable("sensor.common", (
    Param("class", "str", None, "", "sensor class: laser, lidar3d, camera, rgbd_camera, imu or gnss (required)",
          attribute=True),
    Param("name", "str", None, "", "sensor name: its ROS topic and frame (also `${NAME}` inside the sensor)",
          ours="the class name", attribute=True,
          note="MVSim names an unnamed sensor `<prefix><N>` (laser, camera or imu, N = sensors on the vehicle "
               "+ 1); here it is named after its class"),
    Param("sensor_period", "float", 0.1, "s", "time between two samples (1 / rate)", quantity="sensor_period"),
    Param("publish", "group", None, "", "MVSim's observation publishing block (see sensor.publish)",
          support=NOT_SIMULATED, note=_ZMQ),
    Param("visual", "group", None, "", "a 3D model drawn for the sensor (see the `visual` context)"),
), "Read by every `<sensor>` class (on a vehicle or directly under `<mvsim_world>`).")

SENSOR_PUBLISH = ParamTable("sensor.publish", (
    Param("publish_topic", "str", "", "", "topic of MVSim's observation publishing (empty: off)",
          support=NOT_SIMULATED, note=_ZMQ),
    Param("enabled", "bool", True, "", "false clears publish_topic", support=NOT_SIMULATED, note=_ZMQ,
          attribute=True),
), "The `<publish>` block of a `<sensor>`.")

SENSOR_LASER = ParamTable("sensor.laser", (
    Param("fov_degrees", "deg", 180.0, "rad", "field of view, centred on the sensor's x axis", quantity="lidar_fov"),
    Param("nrays", "float", 181, "", "beams per scan, evenly spread over the field of view (first and last on its "
          "edges)", quantity="lidar_rays", note=_INTEGER_PART),
    _pose_2d("pose on the vehicle"),
    _pose_3d((0.0, 0.0, 0.05, 0.0, 0.0, 0.0), "pose on the vehicle"),
    Param("height", "float", 0.05, "m", "z of the pose on the vehicle (the beam plane's height above it)",
          quantity="position"),
    Param("range_std_noise", "float", 0.01, "m", "std. dev. of the Gaussian noise added to every return",
          quantity="noise_std"),
    Param("max_range", "float", 80.0, "m", "maximum range: beams with nothing nearer read no return",
          aliases=("range_max", "maxRange"), quantity="sensor_range",
          note="`range_max` and `maxRange` are read as other names for it"),
    Param("range_min", "float", None, "m", "minimum range: nearer returns read no return",
          aliases=("minRange", "min_range"), ours=0.0, quantity="sensor_range",
          note="ours: MVSim's laser has no minimum range (0 keeps every return)"),
    Param("angle_std_noise_deg", "deg", 0.01, "rad", "std. dev. of the Gaussian error of every beam's bearing",
          quantity="noise_std", note="applied to every beam here; MVSim's 2D ray casting applies it to "
                                     "occupancy-grid returns only"),
    Param("bodies_visible", "bool", True, "", "other vehicles are seen (false: only walls, blocks, actors and "
          "maps)"),
    Param("raytrace_3d", "bool", False, "", "measure by GPU depth rendering of the 3D scene instead of 2D ray "
          "casting on the Box2D shapes"),
    Param("ignore_parent_body", "bool", False, "", "with raytrace_3d: the sensor's own vehicle is not rendered "
          "(2D ray casting never sees it)"),
    Param("viz_pointSize", "float", 3.0, "px", "point size of the scan in MVSim's GUI", support=GUI_ONLY,
          note="MVSim's GUI"),
    Param("viz_visiblePlane", "bool", False, "", "draw the scan as a filled area in MVSim's GUI", support=GUI_ONLY,
          note="MVSim's GUI"),
    Param("viz_visibleLines", "bool", True, "", "draw the scan's lines in MVSim's GUI", support=GUI_ONLY,
          note="MVSim's GUI"),
    Param("viz_visiblePoints", "bool", False, "", "draw the scan's points in MVSim's GUI", support=GUI_ONLY,
          note="MVSim's GUI"),
    Param("viz_pointsColor", "color", "#ff000080", "", "colour of the scan's points in MVSim's GUI",
          support=GUI_ONLY, note="MVSim's GUI"),
    Param("viz_planeColor", "color", "#0000ff10", "", "colour of the scan's area in MVSim's GUI", support=GUI_ONLY,
          note="MVSim's GUI"),
), "`<sensor class=\"laser\">`: a 2D lidar (sensor_msgs/LaserScan).")

SENSOR_LIDAR3D = ParamTable("sensor.lidar3d", (
    _pose_3d((0.0, 0.0, 0.0, 0.0, 0.0, 0.0), "pose on the vehicle (x forward, z up)"),
    Param("range_std_noise", "float", 0.01, "m", "std. dev. of the Gaussian noise added to every return",
          quantity="noise_std"),
    Param("min_range", "float", 0.01, "m", "returns at or below it are dropped", aliases=("range_min",),
          quantity="sensor_range", note="`range_min` is read as another name for it"),
    Param("max_range", "float", 80.0, "m", "returns at or beyond it are dropped", aliases=("range_max",),
          quantity="sensor_range", note="`range_max` is read as another name for it"),
    Param("ignore_parent_body", "bool", False, "", "the sensor's own vehicle is not rendered"),
    Param("vert_fov_degrees", "deg", 30.0, "rad", "vertical field of view, symmetric about the horizontal plane "
          "(unused when vertical_ray_angles is given)", quantity="lidar3d_vert_fov"),
    Param("vertical_ray_angles", "str", "", "rad", "elevation of every ring (deg in the file, any order, all "
          "different, exactly vert_nrays of them); empty: vert_nrays rings evenly over vert_fov_degrees"),
    Param("vert_nrays", "float", 16, "", "rings (vertical beams)", quantity="lidar3d_rings", note=_INTEGER_PART),
    Param("horz_nrays", "float", 180, "", "azimuths per revolution", quantity="lidar3d_columns",
          note=_INTEGER_PART),
    Param("horz_resolution_factor", "float", 1.0, "", "horizontal oversampling of the depth render: face width "
          "= factor x beams per face", note="the faces here are also at least 512 px wide (accuracy)"),
    Param("vert_resolution_factor", "float", 1.0, "", "vertical oversampling of the depth render (pixel height "
          "divided by it)"),
    Param("max_vert_relative_depth_to_interpolate", "float", 0.3, "", "largest depth step between vertically "
          "adjacent pixels, relative to the depth, across which a beam's range is interpolated",
          support=NOT_SIMULATED, note=_INTERPOLATION),
    Param("max_horz_relative_depth_to_interpolate", "float", 0.1, "", "largest depth step between horizontally "
          "adjacent pixels, relative to the depth, across which a beam's range is interpolated",
          support=NOT_SIMULATED, note=_INTERPOLATION),
    Param("generate_intensity", "bool", True, "", "point intensity (0..1) from the grey level of the rendered "
          "colour where the beam meets the scene (else 1)"),
    Param("viz_pointSize", "float", 3.0, "px", "point size in MVSim's GUI", support=GUI_ONLY, note="MVSim's GUI"),
    Param("model", "str", None, "", "a preset (VLP-16, OS1-64, Helios-32) for the tags not given", ours="",
          note="ours: MVSim has no presets (world/elements/sensor_checks.py)"),
    Param("fbo_ncols", "int", None, "px", "width of each of the four depth render faces", ours=0,
          quantity="render_width", note="ours: 0 means max(512, horz_resolution_factor x horz_nrays / 4)"),
), "`<sensor class=\"lidar3d\">`: a 3D lidar (sensor_msgs/PointCloud2).")

_CAMERA_POSE_NOTE = ("MVSim's default: at 0.5 m looking along the vehicle's x axis, the image's x axis to the "
                     "vehicle's left (its definitions use yaw -90, roll -90: x right, y down)")


def _intrinsics(prefix: str, what: str) -> tuple[Param, ...]:
    return (
        Param(prefix + "ncols", "int", 640, "px", f"{what} width", quantity="image_size"),
        Param(prefix + "nrows", "int", 480, "px", f"{what} height", quantity="image_size"),
        Param(prefix + "cx", "float", 320.0, "px", f"{what} principal point, column (not recomputed from "
              f"{prefix}ncols)", quantity="principal_point"),
        Param(prefix + "cy", "float", 240.0, "px", f"{what} principal point, row (not recomputed from "
              f"{prefix}nrows)", quantity="principal_point"),
        Param(prefix + "fx", "float", 500.0, "px", f"{what} focal length along columns", quantity="focal_length"),
        Param(prefix + "fy", "float", 500.0, "px", f"{what} focal length along rows", quantity="focal_length"),
    )


SENSOR_CAMERA = ParamTable("sensor.camera", (
    _pose_3d((0.0, 0.0, 0.5, 90.0, 0.0, 90.0), "pose of the optical frame (z forward, x right, y down) on the "
             "vehicle", note=_CAMERA_POSE_NOTE),
    *_intrinsics("", "image"),
    Param("clip_min", "float", 0.01, "m", "near clip distance of the render", quantity="clip_distance"),
    Param("clip_max", "float", 1e4, "m", "far clip distance of the render", quantity="clip_distance"),
), "`<sensor class=\"camera\">`: a pinhole RGB camera (sensor_msgs/Image + CameraInfo).")

SENSOR_RGBD = ParamTable("sensor.rgbd", (
    _pose_3d((0.0, 0.0, 0.5, 90.0, 0.0, 90.0), "pose of the depth sensor's body (x forward) on the vehicle; its "
             "optical frame is that body turned by yaw -90, roll -90", note=_CAMERA_POSE_NOTE),
    Param("relativePoseIntensityWRTDepth", "floats", (0.0, 0.0, 0.0, -90.0, 0.0, -90.0), _POSE_3D_UNIT,
          "pose of the RGB optical frame on the depth sensor's body 'x y z yaw pitch roll' (angles in deg in the "
          "file); the default makes RGB and depth coincide"),
    Param("sense_depth", "bool", True, "", "render the depth image"),
    Param("sense_rgb", "bool", True, "", "render the RGB image"),
    *_intrinsics("depth_", "depth image"),
    *_intrinsics("rgb_", "RGB image"),
    Param("rgb_clip_min", "float", 0.01, "m", "near clip distance of the RGB render", quantity="clip_distance"),
    Param("rgb_clip_max", "float", 1e4, "m", "far clip distance of the RGB render", quantity="clip_distance"),
    Param("depth_clip_min", "float", 0.1, "m", "nearest valid depth", quantity="clip_distance"),
    Param("depth_clip_max", "float", 15.0, "m", "farthest valid depth", quantity="clip_distance"),
    Param("depth_resolution", "float", 1e-3, "m", "depth quantisation step (depths are whole multiples of it, "
          "rounded down)", quantity="clip_distance"),
    Param("depth_noise_sigma", "float", 1e-3, "m", "std. dev. of the Gaussian noise added to every depth, "
          "rounded to depth_resolution", quantity="noise_std"),
    Param("show_3d_pointcloud", "bool", False, "", "draw the point cloud in MVSim's GUI", support=GUI_ONLY,
          note="MVSim's GUI"),
    Param("publish_ros_depth_image", "bool", True, "", "publish the depth image and its CameraInfo"),
    Param("publish_ros_colored_pointcloud", "bool", False, "", "publish the points with their colour (XYZRGB, "
          "from the RGB pixel each point projects to) instead of XYZ"),
), "`<sensor class=\"rgbd_camera\">`: a depth camera with an RGB camera (Images, CameraInfos, PointCloud2).")

SENSOR_IMU = ParamTable("sensor.imu", (
    _pose_2d("pose on the vehicle"),
    _pose_3d((0.0, 0.0, 0.0, 0.0, 0.0, 0.0), "pose on the vehicle"),
    Param("angular_velocity_white_noise_std_noise", "float", 2e-4, "rad/s", "std. dev. of the gyroscope's white "
          "noise, per axis", aliases=("angular_velocity_std_noise",), quantity="noise_std",
          note="`angular_velocity_std_noise` (MVSim's older name) sets the same value"),
    Param("linear_acceleration_white_noise_std_noise", "float", 0.017, "m/s^2", "std. dev. of the "
          "accelerometer's white noise, per axis", aliases=("linear_acceleration_std_noise",),
          quantity="noise_std", note="`linear_acceleration_std_noise` (MVSim's older name) sets the same value"),
    Param("angular_velocity_random_walk_std_noise", "float", 0.0, "rad/s/sqrt(s)", "std. dev. of the gyroscope "
          "bias random walk", aliases=("angular_velocity_bias_random_walk",), quantity="noise_std",
          note="the bias steps once per sample over the time since the last one (MVSim steps it over the "
               "simulation step); `angular_velocity_bias_random_walk` is read as another name for it"),
    Param("linear_acceleration_random_walk_std_noise", "float", 0.0, "m/s^2/sqrt(s)", "std. dev. of the "
          "accelerometer bias random walk", aliases=("linear_acceleration_bias_random_walk",),
          quantity="noise_std",
          note="the bias steps once per sample over the time since the last one (MVSim steps it over the "
               "simulation step); `linear_acceleration_bias_random_walk` is read as another name for it"),
    Param("measure_orientation", "bool", False, "", "also measure the sensor's orientation (in ENU when the "
          "world has a <georeference>)"),
    Param("orientation_std_noise", "float", 0.005, "rad", "std. dev. of the orientation error, a rotation with "
          "this std. dev. about each sensor axis", quantity="noise_std"),
), "`<sensor class=\"imu\">`: angular velocity, specific force, optionally orientation (sensor_msgs/Imu).")

SENSOR_GNSS = ParamTable("sensor.gnss", (
    _pose_2d("antenna pose on the vehicle"),
    _pose_3d((0.0, 0.0, 0.0, 0.0, 0.0, 0.0), "antenna pose on the vehicle"),
    Param("horizontal_std_noise", "float", 2.0, "m", "std. dev. of the East and North position noise",
          quantity="noise_std"),
    Param("vertical_std_noise", "float", 4.0, "m", "std. dev. of the Up position noise", quantity="noise_std"),
), "`<sensor class=\"gnss\">`: a GNSS receiver (sensor_msgs/NavSatFix); needs the world's `<georeference>`.")

#: Each sensor class's own table, by the class attribute's value.
CLASS_TABLES: dict[str, ParamTable] = {
    "laser": SENSOR_LASER, "lidar3d": SENSOR_LIDAR3D, "camera": SENSOR_CAMERA, "rgbd_camera": SENSOR_RGBD,
    "imu": SENSOR_IMU, "gnss": SENSOR_GNSS,
}

_READERS = {kind: ParamTable(table.context, (*SENSOR_COMMON.params, *table.params), table.description)
            for kind, table in CLASS_TABLES.items()}


def reader(kind: str) -> ParamTable:
    """The table a `<sensor class="kind">` element is read through: sensor.common's parameters and its class's."""
    return _READERS[kind]


#: The tables of this group, in the order docs/parameters.md lists them.
TABLES: list[ParamTable] = [SENSOR_COMMON, SENSOR_PUBLISH, *CLASS_TABLES.values()]
