"""Sensor parameters read through their tables: MVSim's sensor definitions (our copies in
test/worlds/mvsim_definitions, included as MVSim's tutorial worlds include them) resolve to the file's values and
MVSim's defaults, parameter by parameter; unknown tags and attributes in a sensor are warned once with file:line."""

import math
from pathlib import Path

import pytest

from conftest import robot_world_xml
from mvsim_ros.world import WorldFileError, load_world, load_world_string
from mvsim_ros.world.params.sensor_tables import reader
from mvsim_ros.world.specs import Pose3

WORLD = Path(__file__).resolve().parents[1] / "worlds" / "mvsim_sensors.world.xml"
DEG = math.pi / 180

#: MVSim's defaults of every parameter, by sensor class, in SI units (written out here, not taken from the tables,
#: so that a wrong default in a table fails). The GUI-only viz_* settings and the groups are left out.
MVSIM_DEFAULTS = {
    "laser": {"sensor_period": 0.1, "fov_degrees": math.pi, "nrays": 181, "range_std_noise": 0.01,
              "max_range": 80.0, "range_min": 0.0, "angle_std_noise_deg": 0.01 * DEG, "bodies_visible": True,
              "raytrace_3d": False, "ignore_parent_body": False},
    "lidar3d": {"sensor_period": 0.1, "range_std_noise": 0.01, "min_range": 0.01, "max_range": 80.0,
                "ignore_parent_body": False, "vert_fov_degrees": 30 * DEG, "vertical_ray_angles": (),
                "vert_nrays": 16, "horz_nrays": 180, "horz_resolution_factor": 1.0, "vert_resolution_factor": 1.0,
                "max_vert_relative_depth_to_interpolate": 0.3, "max_horz_relative_depth_to_interpolate": 0.1,
                "generate_intensity": True, "model": "", "fbo_ncols": 0},
    "camera": {"sensor_period": 0.1, "ncols": 640, "nrows": 480, "cx": 320.0, "cy": 240.0, "fx": 500.0,
               "fy": 500.0, "clip_min": 0.01, "clip_max": 1e4},
    "rgbd_camera": {"sensor_period": 0.1, "sense_depth": True, "sense_rgb": True,
                    **{p + k: v for p in ("depth_", "rgb_") for k, v in
                       {"ncols": 640, "nrows": 480, "cx": 320.0, "cy": 240.0, "fx": 500.0, "fy": 500.0}.items()},
                    "rgb_clip_min": 0.01, "rgb_clip_max": 1e4, "depth_clip_min": 0.1, "depth_clip_max": 15.0,
                    "depth_resolution": 1e-3, "depth_noise_sigma": 1e-3, "show_3d_pointcloud": False,
                    "publish_ros_depth_image": True, "publish_ros_colored_pointcloud": False,
                    "relativePoseIntensityWRTDepth": Pose3(0, 0, 0, -90 * DEG, 0, -90 * DEG)},
    "imu": {"sensor_period": 0.1, "angular_velocity_white_noise_std_noise": 2e-4,
            "linear_acceleration_white_noise_std_noise": 0.017, "angular_velocity_random_walk_std_noise": 0.0,
            "linear_acceleration_random_walk_std_noise": 0.0, "measure_orientation": False,
            "orientation_std_noise": 0.005},
    "gnss": {"sensor_period": 0.1, "horizontal_std_noise": 2.0, "vertical_std_noise": 4.0},
}
MVSIM_DEFAULT_POSES = {"laser": Pose3(z=0.05), "lidar3d": Pose3(), "camera": Pose3(0, 0, 0.5, 90 * DEG, 0, 90 * DEG),
                       "rgbd_camera": Pose3(0, 0, 0.5, 90 * DEG, 0, 90 * DEG), "imu": Pose3(), "gnss": Pose3()}

_LIDAR3D_COMMON = {"horz_resolution_factor": 1.0, "vert_resolution_factor": 1.0,
                   "max_vert_relative_depth_to_interpolate": 0.3, "max_horz_relative_depth_to_interpolate": 0.1,
                   "range_std_noise": 0.005, "generate_intensity": False}
HELIOS_70_ANGLES = tuple(DEG * a for a in (
    -55.020, -52.081, -49.142, -46.204, -43.265, -40.326, -37.387, -34.449, -31.510, -28.571, -25.632, -22.694,
    -19.755, -16.816, -13.877, -10.939, -8.000, -6.667, -5.333, -4.000, -2.667, -1.333, 0.000, 1.333, 2.667,
    4.000, 5.333, 6.667, 8.754, 10.841, 12.929, 15))
_HELIOS = {**_LIDAR3D_COMMON, "vert_nrays": 32, "sensor_period": 0.1, "horz_nrays": 1808, "min_range": 0.2,
           "max_range": 110.0}
#: What each included definition sets (with the include's variables applied), in SI units, and its pose.
FILE_VALUES = {
    "front_laser": ("laser", Pose3(0.3, 0, 0.7), {
        "fov_degrees": math.pi, "sensor_period": 0.05, "nrays": 181, "range_std_noise": 0.01,
        "angle_std_noise_deg": 0.01 * DEG, "raytrace_3d": False, "max_range": 70.0}),
    "rplidar": ("laser", Pose3(1.8, 0, 0.7), {
        "fov_degrees": 2 * math.pi, "sensor_period": 0.125, "nrays": 1000, "range_std_noise": 0.01,
        "angle_std_noise_deg": 0.01 * DEG, "raytrace_3d": False, "max_range": 16.0}),
    "vlp16": ("lidar3d", Pose3(0.5, 0, 0.7), {
        **_LIDAR3D_COMMON, "vert_fov_degrees": 30 * DEG, "vert_nrays": 16, "sensor_period": 0.1, "horz_nrays": 1808,
        "max_range": 80.0}),
    "os1": ("lidar3d", Pose3(0.5, 0, 0.7), {
        **_LIDAR3D_COMMON, "vert_nrays": 64, "vert_fov_degrees": 22.5 * DEG, "sensor_period": 0.1,
        "horz_nrays": 1024, "min_range": 0.5, "max_range": 90.0}),
    "helios26": ("lidar3d", Pose3(0.5, 0, 0.7), {**_HELIOS, "vertical_ray_angles": tuple(DEG * a for a in (
        -16, -14.5, -13, -12.5, -11, -9.5, -8, -7, -6.5, -6.0, -5.5, -5.0, -4.5, -4.0, -3.5, -3.0, -2.5, -2.0, -1.5,
        -1.0, -0.5, 0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 6.0, 8.0, 10.0))}),
    "helios31": ("lidar3d", Pose3(0.5, 0, 0.7), {**_HELIOS, "vertical_ray_angles": tuple(
        DEG * a for a in range(-16, 16))}),
    "helios70": ("lidar3d", Pose3(0.5, 0, 0.7), {
        **_HELIOS, "sensor_period": 0.05, "horz_nrays": 904, "vertical_ray_angles": HELIOS_70_ANGLES}),
    "cam": ("camera", Pose3(0.65, 0, 1.0, -90 * DEG, 0, -90 * DEG), {
        "sensor_period": 0.1, "ncols": 640, "nrows": 480, "cx": 320.0, "cy": 240.0, "fx": 400.0, "fy": 400.0,
        "clip_min": 0.01, "clip_max": 1e4}),
    "rgbd": ("rgbd_camera", Pose3(0.65, 0, 1.0), {
        "relativePoseIntensityWRTDepth": Pose3(0, 0, 0, -90 * DEG, 0, -90 * DEG), "sensor_period": 0.1,
        "sense_depth": True, "sense_rgb": True, "show_3d_pointcloud": False, "publish_ros_depth_image": True,
        "publish_ros_colored_pointcloud": False, "depth_ncols": 640, "depth_nrows": 480, "depth_cx": 320.0,
        "depth_cy": 240.0, "depth_fx": 400.0, "depth_fy": 400.0, "depth_resolution": 1e-3, "depth_clip_min": 0.01,
        "depth_clip_max": 15.0, "depth_noise_sigma": 0.05, "rgb_ncols": 640, "rgb_nrows": 480, "rgb_cx": 320.0,
        "rgb_cy": 240.0, "rgb_fx": 400.0, "rgb_fy": 400.0, "rgb_clip_min": 0.01, "rgb_clip_max": 1e4}),
    "imu": ("imu", Pose3(), {
        "sensor_period": 0.05, "angular_velocity_white_noise_std_noise": 2e-4,
        "linear_acceleration_white_noise_std_noise": 0.017, "angular_velocity_random_walk_std_noise": 0.0,
        "linear_acceleration_random_walk_std_noise": 0.0, "measure_orientation": True}),
    "gps": ("gnss", Pose3(z=1.2), {"sensor_period": 1.0, "horizontal_std_noise": 2.0, "vertical_std_noise": 4.0}),
}
#: GUI settings the 2D lidar definitions give (not simulated, still read).
VIZ = {"viz_visiblePoints": True, "viz_pointSize": 3.0, "viz_visiblePlane": False, "viz_visibleLines": True,
       "viz_pointsColor": "#ff000080", "viz_planeColor": "#0000ff10"}


def same(a, b) -> bool:
    if isinstance(a, Pose3):
        return isinstance(b, Pose3) and all(math.isclose(x, y, abs_tol=1e-12) for x, y in zip(
            (a.x, a.y, a.z, a.yaw, a.pitch, a.roll), (b.x, b.y, b.z, b.yaw, b.pitch, b.roll)))
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)
    return a == b and type(a) is type(b)


@pytest.fixture(scope="module")
def definitions():
    world = load_world(WORLD)
    return {sensor.name: sensor for sensor in world.vehicles[0].sensors}


def test_every_definition_is_read():
    assert set(load_world(WORLD).vehicles[0].sensors[i].name for i in range(11)) == set(FILE_VALUES)


@pytest.mark.parametrize("name", list(FILE_VALUES))
def test_each_parameter_is_the_files_value_or_mvsims_default(definitions, name):
    kind, pose, given = FILE_VALUES[name]
    sensor = definitions[name]
    assert sensor.kind == kind
    assert same(sensor.pose, pose), sensor.pose
    expected = {**MVSIM_DEFAULTS[kind], **given, **(VIZ if kind == "laser" else {})}
    for param in reader(kind):
        if param.type == "group" or param.attribute or param.name in ("pose", "pose_3d", "height"):
            continue
        if param.name.startswith("viz_") and kind != "laser":
            continue
        assert param.name in expected, f"{kind}.{param.name} has no expected value in this test"
        assert same(sensor.params[param.name], expected[param.name]), (
            f"{name}.{param.name}: {sensor.params[param.name]!r}, expected {expected[param.name]!r}")
    assert set(given) <= sensor.params.given


@pytest.mark.parametrize("kind", list(MVSIM_DEFAULTS))
def test_a_bare_sensor_has_mvsims_defaults(kind):
    world = load_world_string(f'<mvsim_world version="1.0"><sensor class="{kind}" name="s"/></mvsim_world>')
    sensor = world.sensors[0]
    assert same(sensor.pose, MVSIM_DEFAULT_POSES[kind]), sensor.pose
    for name, value in MVSIM_DEFAULTS[kind].items():
        assert same(sensor.params[name], value), f"{kind}.{name}: {sensor.params[name]!r}, expected {value!r}"
    assert not sensor.params.given and not world.warnings


@pytest.mark.parametrize("tags, z", [
    ("<height>0.4</height>", 0.4),
    ("<pose_3d>1 0 0.7 0 0 0</pose_3d><height>0.4</height>", 0.4),
    ("<height>0.4</height><pose_3d>1 0 0.7 0 0 0</pose_3d>", 0.7),
    ("<pose_3d>1 0 0.7 0 0 0</pose_3d><pose>1 0 0</pose>", 0.0),
])
def test_the_last_pose_tag_wins(tags, z):
    world = load_world_string(f'<mvsim_world version="1.0"><sensor class="laser" name="s">{tags}</sensor>'
                              '</mvsim_world>')
    assert world.sensors[0].pose.z == z


def test_legacy_and_current_names_write_one_value_the_last_wins():
    world = load_world_string(
        '<mvsim_world version="1.0"><sensor class="imu" name="s">'
        '<angular_velocity_white_noise_std_noise>0.1</angular_velocity_white_noise_std_noise>'
        '<angular_velocity_std_noise>0.2</angular_velocity_std_noise>'
        '<linear_acceleration_std_noise>0.3</linear_acceleration_std_noise>'
        '<linear_acceleration_white_noise_std_noise>0.4</linear_acceleration_white_noise_std_noise>'
        '</sensor><sensor class="laser" name="l"><range_max>12</range_max></sensor></mvsim_world>')
    imu, laser = world.sensors
    assert imu.params["angular_velocity_white_noise_std_noise"] == 0.2
    assert imu.params["linear_acceleration_white_noise_std_noise"] == 0.4
    assert laser.params["max_range"] == 12.0


@pytest.mark.parametrize("body, message", [
    ("<vert_nrays>3</vert_nrays><vertical_ray_angles>-1 0</vertical_ray_angles>", "expected 3 different angles"),
    ("<vert_nrays>2</vert_nrays><vertical_ray_angles>1 1</vertical_ray_angles>", "expected 2 different angles"),
    ("<vert_nrays>2</vert_nrays><vertical_ray_angles>1 x</vertical_ray_angles>", "expected a number"),
    ("<horz_resolution_factor>0</horz_resolution_factor>", "must lie in"),
])
def test_bad_lidar3d_values_name_their_line(body, message):
    with pytest.raises(WorldFileError, match=f"w.xml:2.*{message}"):
        load_world_string(f'<mvsim_world version="1.0"><sensor class="lidar3d" name="s">\n{body}</sensor>'
                          '</mvsim_world>', file="w.xml")


@pytest.mark.parametrize("kind", list(MVSIM_DEFAULTS))
@pytest.mark.parametrize("on_vehicle", [False, True])
def test_a_bogus_tag_or_attribute_gives_one_warning_with_its_line(kind, on_vehicle):
    sensor = (f'<sensor class="{kind}" name="s" colour="red">\n<sensor_period>0.2</sensor_period>\n<bogus>1</bogus>'
              '\n</sensor>')
    if on_vehicle:
        body = (f'<vehicle:class name="bot"><dynamics class="differential"/></vehicle:class>\n'
                f'<vehicle name="r" class="bot"><init_pose>0 0 0</init_pose>{sensor}</vehicle>')
        first = 2
    else:
        body, first = sensor, 1
    world = load_world_string(f'<mvsim_world version="1.0">{body}</mvsim_world>', file="w.xml")
    mine = [w for w in world.warnings if "bogus" in w or "colour" in w]
    assert len(mine) == 2, world.warnings
    assert mine[0].startswith(f"w.xml:{first}: ") and 'unknown attribute colour="red"' in mine[0]
    assert mine[1].startswith(f"w.xml:{first + 2}: <bogus>: unknown parameter <bogus>")
    assert len(world.warnings) == 2, world.warnings


def test_unnamed_sensors_get_mvsims_names_from_their_class_and_number_on_the_vehicle(write_world):
    extra_class = ('<sensor class="laser"/><sensor class="imu"><sensor_period>0.1</sensor_period></sensor>'
                   '<sensor class="laser" name="front"/><sensor class="gnss"/><sensor class="camera"/>')
    world = load_world(write_world(robot_world_xml(class_extra=extra_class,
                                                   extra='<sensor class="imu"/>')))
    assert [s.name for s in world.vehicles[0].sensors] == ["laser1", "imu2", "front", "imu4", "camera5"]
    assert [s.name for s in world.sensors] == ["imu0"]


@pytest.mark.parametrize("kind, body, message", [
    ("laser", "<range_min>5</range_min><max_range>2</max_range>", "max_range > range_min"),
    ("lidar3d", "<model>vlp-99</model>", "unknown lidar3d model 'vlp-99'"),
    ("lidar3d", "<min_range>9</min_range><max_range>3</max_range>", "0 <= min_range < max_range"),
    ("camera", "<clip_min>2</clip_min><clip_max>1</clip_max>", "0 < clip_min < clip_max"),
    ("rgbd_camera", "<depth_clip_min>2</depth_clip_min><depth_clip_max>1</depth_clip_max>",
     "0 < depth_clip_min < depth_clip_max"),
])
def test_values_a_sensor_cannot_simulate_fail_at_load_naming_the_sensor_element(kind, body, message):
    with pytest.raises(WorldFileError) as caught:
        load_world_string(f'<mvsim_world version="1.0">\n<sensor class="{kind}" name="s">{body}</sensor>'
                          '</mvsim_world>', file="w.xml")
    assert str(caught.value).startswith("w.xml:2: <sensor>: sensor 's': ")
    assert message in str(caught.value)


def test_a_lidar3d_preset_is_resolved_at_load_and_given_tags_win():
    world = load_world_string('<mvsim_world version="1.0"><sensor class="lidar3d" name="s"><model>VLP_16</model>'
                              '<horz_nrays>900</horz_nrays></sensor></mvsim_world>')
    params = world.sensors[0].params
    assert (params["vert_nrays"], params["horz_nrays"], params["max_range"]) == (16, 900, 100.0)
    assert params["vert_fov_degrees"] == pytest.approx(math.radians(30.0))
