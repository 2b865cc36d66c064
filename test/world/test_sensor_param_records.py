"""Typed sensor parameters (world/specs/sensor_params.py): one record per sensor class holding every parameter of
its table under MVSim's name, with the table's defaults; filled by the loader; changed by name through
`with_sensor_params` with the loader's conversions and checks."""

import math

import pytest

from mvsim_ros.world import WorldFileError, load_world_string, with_sensor_params
from mvsim_ros.world.params.sensor_tables import CLASS_TABLES, reader
from mvsim_ros.world.specs import (CameraParams, LaserParams, Lidar3DParams, PinholeImage, RgbdCameraParams,
                                   SensorParams, SensorSpec, SourceRef, params_class)

#: Table parameters that are not values of the record: the pose tags write SensorSpec.pose, groups are read by
#: their own code, attributes name the element.
NOT_IN_RECORD = ("pose", "pose_3d", "height")


def bare_sensor(kind: str) -> SensorSpec:
    world = load_world_string(f'<mvsim_world version="1.0"><sensor class="{kind}" name="s"/></mvsim_world>')
    return world.sensors[0]


@pytest.mark.parametrize("kind", list(CLASS_TABLES))
def test_a_record_holds_every_parameter_of_its_table_by_mvsim_name(kind):
    names = [p.name for p in reader(kind) if p.type != "group" and not p.attribute and p.name not in NOT_IN_RECORD]
    assert list(params_class(kind).names()) == names


@pytest.mark.parametrize("kind", list(CLASS_TABLES))
def test_a_records_defaults_are_what_the_loader_reads_from_the_table(kind):
    sensor = bare_sensor(kind)
    assert type(sensor.params) is params_class(kind)
    assert sensor.params == params_class(kind)()
    assert dict(sensor.params) == dict(params_class(kind)())


def test_a_record_reads_as_a_mapping_by_mvsim_name_and_keeps_what_the_file_set():
    world = load_world_string('<mvsim_world version="1.0"><sensor class="laser" name="s"><fov_degrees>90'
                              '</fov_degrees><range_max>12</range_max></sensor></mvsim_world>')
    params = world.sensors[0].params
    assert isinstance(params, LaserParams)
    assert params.fov_degrees == params["fov_degrees"] == pytest.approx(math.pi / 2)
    assert params.max_range == params.get("max_range") == 12.0
    assert params.given == {"fov_degrees", "max_range"}
    assert "given" not in params and "range_max" not in params and len(params) == len(LaserParams.names())
    with pytest.raises(KeyError):
        params["given"]
    with pytest.raises(AttributeError):
        params.nrays = 3  # frozen


def test_a_spec_built_in_code_gets_its_class_defaults_and_refuses_another_classs_record():
    assert SensorSpec(kind="camera", name="c").params == CameraParams()
    assert SensorSpec(kind="sonar", name="p").params == SensorParams()
    with pytest.raises(TypeError, match="must be a LaserParams"):
        SensorSpec(kind="laser", name="l", params=CameraParams())
    with pytest.raises(TypeError, match="must be a CameraParams"):
        SensorSpec(kind="camera", name="c", params={"ncols": 4})


def test_images_of_the_camera_records():
    assert CameraParams(ncols=4, clip_max=9.0).image() == PinholeImage(4, 480, 320.0, 240.0, 500.0, 500.0, 0.01, 9.0)
    rgbd = RgbdCameraParams(rgb_fx=7.0, depth_nrows=3)
    assert rgbd.rgb_image() == PinholeImage(640, 480, 320.0, 240.0, 7.0, 500.0, 0.01, 1e4)
    assert rgbd.depth_image() == PinholeImage(640, 3, 320.0, 240.0, 500.0, 500.0, 0.1, 15.0)


def test_a_lidar3d_face_width_follows_fbo_ncols_or_the_beams():
    assert Lidar3DParams().face_width_px() == 512
    assert Lidar3DParams(horz_nrays=4000).face_width_px() == 1000
    assert Lidar3DParams(horz_nrays=4000, horz_resolution_factor=1.5).face_width_px() == 1500
    assert Lidar3DParams(fbo_ncols=300).face_width_px() == 300


def test_with_sensor_params_reads_text_as_the_file_does_and_takes_typed_values_as_they_are():
    laser = bare_sensor("laser")
    changed = with_sensor_params(laser, {"nrays": "360", "fov_degrees": "359", "range_max": 30.0})
    assert (changed.params.nrays, changed.params.max_range) == (360, 30.0)
    assert changed.params.fov_degrees == pytest.approx(math.radians(359))
    assert {"nrays", "fov_degrees", "max_range"} <= changed.params.given
    assert laser.params == LaserParams() and changed.name == laser.name and changed.pose == laser.pose
    assert with_sensor_params(laser, {"nrays": 90.7}).params.nrays == 90  # MVSim's integer part


def test_with_sensor_params_resolves_a_lidar3d_preset_again():
    lidar = with_sensor_params(bare_sensor("lidar3d"), {"model": "OS1-64", "horz_nrays": 512})
    assert (lidar.params.vert_nrays, lidar.params.horz_nrays, lidar.params.max_range) == (64, 512, 120.0)


@pytest.mark.parametrize("changes, message", [
    ({"range_min": 90.0}, "max_range > range_min"),
    ({"nrays": "many"}, "expected a number"),
    ({"beams": 3}, "has no parameter 'beams'"),
    ({"pose_3d": "0 0 0 0 0 0"}, "has no parameter 'pose_3d'"),
])
def test_with_sensor_params_errors_name_the_sensors_file_and_line(changes, message):
    laser = SensorSpec(kind="laser", name="front", source=SourceRef("w.xml", 7, "sensor"))
    with pytest.raises(WorldFileError) as caught:
        with_sensor_params(laser, changes)
    assert str(caught.value).startswith("w.xml:7: <sensor>: ") and message in str(caught.value)
