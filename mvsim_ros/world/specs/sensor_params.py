"""Typed parameters of each sensor class: one frozen dataclass per `<sensor class="...">`, every parameter under
MVSim's name with MVSim's default, in SI units (radians, metres, seconds; image sizes and focal lengths in pixels).

The world loader fills them from the class's parameter table (world/params/sensor_tables.py: names, units, defaults
and what each one does) after its checks (world/elements/sensor_checks.py), so a sensor receives values it can use
as they are. A name keeps MVSim's spelling even where its unit changed on reading: `fov_degrees` holds radians, as
the table converts it. A record built in code (`LaserParams(nrays=360)`) starts from the same defaults; to change a
parameter with the loader's conversions and checks, use `mvsim_ros.world.with_sensor_params`.

Each record also reads as a read-only mapping by MVSim's name (`params["nrays"]`), for code that names parameters
as the world file does (sweeps, the parameter tests); `given` names the parameters the file set.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Iterator

from mvsim_ros.world.specs.common import Pose3

#: A 3D lidar's render faces are at least this wide [px] (finer than the beams for accurate interpolation).
LIDAR3D_MIN_FACE_PX = 512


@dataclass(frozen=True)
class SensorParams(Mapping):
    """What every sensor class reads: `sensor_period` [s], the time between two samples (1 / rate).

    given: MVSim names of the parameters the world file set (the others hold their defaults); not compared.
    """

    sensor_period: float = 0.1
    given: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """MVSim's names of the class's parameters, in table order (`given` is not one)."""
        return tuple(f.name for f in fields(cls) if f.name != "given")

    def __getitem__(self, name: str):
        if name not in self.names():
            raise KeyError(name)
        return getattr(self, name)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())


@dataclass(frozen=True)
class PinholeImage:
    """One pinhole image of a camera: size `ncols` x `nrows` [px], principal point (`cx`, `cy`) [px], focal lengths
    `fx`, `fy` [px], and the render's clip distances `clip_min`, `clip_max` [m]."""

    ncols: int
    nrows: int
    cx: float
    cy: float
    fx: float
    fy: float
    clip_min: float
    clip_max: float


@dataclass(frozen=True)
class LaserParams(SensorParams):
    """`<sensor class="laser">`, a 2D lidar (sensor.laser).

    fov_degrees: field of view [rad], centred on the sensor's x axis. nrays: beams per scan, evenly spread over it
    (first and last on its edges). range_std_noise: std. dev. of the range error [m]. max_range, range_min [m]:
    returns beyond or below them read no return. angle_std_noise_deg: std. dev. of each beam's bearing error [rad].
    bodies_visible: other vehicles are seen. raytrace_3d: measure by GPU depth rendering instead of 2D ray casting.
    ignore_parent_body: with raytrace_3d, the sensor's own vehicle is not rendered. viz_*: MVSim's GUI settings
    (point size [px], what is drawn, colours '#rrggbbaa'), read and not used.
    """

    fov_degrees: float = math.pi
    nrays: int = 181
    range_std_noise: float = 0.01
    max_range: float = 80.0
    range_min: float = 0.0
    angle_std_noise_deg: float = math.radians(0.01)
    bodies_visible: bool = True
    raytrace_3d: bool = False
    ignore_parent_body: bool = False
    viz_pointSize: float = 3.0
    viz_visiblePlane: bool = False
    viz_visibleLines: bool = True
    viz_visiblePoints: bool = False
    viz_pointsColor: str = "#ff000080"
    viz_planeColor: str = "#0000ff10"


@dataclass(frozen=True)
class Lidar3DParams(SensorParams):
    """`<sensor class="lidar3d">`, a 3D lidar (sensor.lidar3d); a `<model>` preset is already resolved.

    range_std_noise: std. dev. of the range error [m]. min_range, max_range [m]: returns at or below, at or beyond
    them are dropped. ignore_parent_body: the sensor's own vehicle is not rendered. vert_fov_degrees: vertical field
    of view [rad], symmetric about the horizontal plane. vertical_ray_angles: every ring's elevation [rad],
    ascending (empty: vert_nrays rings evenly over vert_fov_degrees). vert_nrays: rings. horz_nrays: azimuths per
    revolution. horz_resolution_factor, vert_resolution_factor: oversampling of the depth render.
    max_vert/horz_relative_depth_to_interpolate: MVSim's interpolation limits, read and not used. generate_intensity:
    point intensity from the rendered colour (else 1). viz_pointSize: MVSim's GUI [px], not used. model: the preset's
    name ("" for none). fbo_ncols: width of each of the four render faces [px] (0: `face_width_px`'s rule).
    """

    range_std_noise: float = 0.01
    min_range: float = 0.01
    max_range: float = 80.0
    ignore_parent_body: bool = False
    vert_fov_degrees: float = math.radians(30.0)
    vertical_ray_angles: tuple[float, ...] = ()
    vert_nrays: int = 16
    horz_nrays: int = 180
    horz_resolution_factor: float = 1.0
    vert_resolution_factor: float = 1.0
    max_vert_relative_depth_to_interpolate: float = 0.3
    max_horz_relative_depth_to_interpolate: float = 0.1
    generate_intensity: bool = True
    viz_pointSize: float = 3.0
    model: str = ""
    fbo_ncols: int = 0

    def face_width_px(self) -> int:
        """Width [px] of each of the four depth render faces: fbo_ncols, or with 0 max(LIDAR3D_MIN_FACE_PX,
        horz_resolution_factor x horz_nrays / 4 rounded up)."""
        return self.fbo_ncols or max(LIDAR3D_MIN_FACE_PX, math.ceil(self.horz_resolution_factor * self.horz_nrays / 4))


@dataclass(frozen=True)
class CameraParams(SensorParams):
    """`<sensor class="camera">`, a pinhole RGB camera (sensor.camera): image size ncols x nrows [px], principal
    point cx, cy [px] (not recomputed from the size, as in MVSim), focal lengths fx, fy [px], render clip distances
    clip_min, clip_max [m]."""

    ncols: int = 640
    nrows: int = 480
    cx: float = 320.0
    cy: float = 240.0
    fx: float = 500.0
    fy: float = 500.0
    clip_min: float = 0.01
    clip_max: float = 1e4

    def image(self) -> PinholeImage:
        """The camera's image."""
        return PinholeImage(self.ncols, self.nrows, self.cx, self.cy, self.fx, self.fy, self.clip_min, self.clip_max)


def rgb_on_depth_body() -> Pose3:
    """MVSim's default pose of an RGB-D camera's RGB optical frame on its depth sensor's body (yaw -90, roll
    -90 deg): the RGB and depth optical frames coincide."""
    return Pose3(0.0, 0.0, 0.0, math.radians(-90.0), 0.0, math.radians(-90.0))


@dataclass(frozen=True)
class RgbdCameraParams(SensorParams):
    """`<sensor class="rgbd_camera">`, a depth camera with an RGB camera (sensor.rgbd).

    relativePoseIntensityWRTDepth: pose of the RGB optical frame on the depth sensor's body [m, rad]. sense_depth,
    sense_rgb: which images are rendered. depth_* and rgb_*: each image's size ncols x nrows [px], principal point
    cx, cy [px], focal lengths fx, fy [px]; rgb_clip_min, rgb_clip_max [m]: the RGB render's clip distances;
    depth_clip_min, depth_clip_max [m]: the valid depths. depth_resolution: depth quantisation step [m].
    depth_noise_sigma: std. dev. of the depth noise [m]. show_3d_pointcloud: MVSim's GUI, not used.
    publish_ros_depth_image: publish the depth image and its CameraInfo. publish_ros_colored_pointcloud: points
    with their colour (XYZRGB) instead of XYZ.
    """

    relativePoseIntensityWRTDepth: Pose3 = field(default_factory=rgb_on_depth_body)
    sense_depth: bool = True
    sense_rgb: bool = True
    depth_ncols: int = 640
    depth_nrows: int = 480
    depth_cx: float = 320.0
    depth_cy: float = 240.0
    depth_fx: float = 500.0
    depth_fy: float = 500.0
    rgb_ncols: int = 640
    rgb_nrows: int = 480
    rgb_cx: float = 320.0
    rgb_cy: float = 240.0
    rgb_fx: float = 500.0
    rgb_fy: float = 500.0
    rgb_clip_min: float = 0.01
    rgb_clip_max: float = 1e4
    depth_clip_min: float = 0.1
    depth_clip_max: float = 15.0
    depth_resolution: float = 1e-3
    depth_noise_sigma: float = 1e-3
    show_3d_pointcloud: bool = False
    publish_ros_depth_image: bool = True
    publish_ros_colored_pointcloud: bool = False

    def rgb_image(self) -> PinholeImage:
        """The RGB image."""
        return PinholeImage(self.rgb_ncols, self.rgb_nrows, self.rgb_cx, self.rgb_cy, self.rgb_fx, self.rgb_fy,
                            self.rgb_clip_min, self.rgb_clip_max)

    def depth_image(self) -> PinholeImage:
        """The depth image (its clip distances are the valid depths)."""
        return PinholeImage(self.depth_ncols, self.depth_nrows, self.depth_cx, self.depth_cy, self.depth_fx,
                            self.depth_fy, self.depth_clip_min, self.depth_clip_max)


@dataclass(frozen=True)
class ImuParams(SensorParams):
    """`<sensor class="imu">` (sensor.imu). angular_velocity_white_noise_std_noise [rad/s] and
    linear_acceleration_white_noise_std_noise [m/s^2]: std. dev. of the gyroscope's and accelerometer's white
    noise, per axis; angular_velocity_random_walk_std_noise [rad/s/sqrt(s)] and
    linear_acceleration_random_walk_std_noise [m/s^2/sqrt(s)]: std. dev. of their bias random walks;
    measure_orientation: also measure the orientation, with error std. dev. orientation_std_noise [rad] about each
    sensor axis."""

    angular_velocity_white_noise_std_noise: float = 2e-4
    linear_acceleration_white_noise_std_noise: float = 0.017
    angular_velocity_random_walk_std_noise: float = 0.0
    linear_acceleration_random_walk_std_noise: float = 0.0
    measure_orientation: bool = False
    orientation_std_noise: float = 0.005


@dataclass(frozen=True)
class GnssParams(SensorParams):
    """`<sensor class="gnss">` (sensor.gnss): std. dev. of the East and North position noise,
    horizontal_std_noise [m], and of the Up one, vertical_std_noise [m]."""

    horizontal_std_noise: float = 2.0
    vertical_std_noise: float = 4.0


#: The parameter record of each sensor class, by the class attribute's value.
SENSOR_PARAMS: dict[str, type[SensorParams]] = {
    "laser": LaserParams, "lidar3d": Lidar3DParams, "camera": CameraParams, "rgbd_camera": RgbdCameraParams,
    "imu": ImuParams, "gnss": GnssParams,
}


def params_class(kind: str) -> type[SensorParams]:
    """The parameter record of sensor class `kind`; SensorParams (the period alone) for a class MVSim does not
    define."""
    return SENSOR_PARAMS.get(kind, SensorParams)


__all__ = ["CameraParams", "GnssParams", "ImuParams", "LIDAR3D_MIN_FACE_PX", "LaserParams", "Lidar3DParams",
           "PinholeImage", "RgbdCameraParams", "SENSOR_PARAMS", "SensorParams", "params_class",
           "rgb_on_depth_body"]
