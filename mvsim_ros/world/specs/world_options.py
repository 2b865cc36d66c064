"""Specs of the world-level option blocks ``<gui>``, ``<lights>`` and ``<georeference>`` (SI units, radians)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mvsim_ros.world.specs.common import Point3, SourceRef

if TYPE_CHECKING:
    from mvsim_ros.world.xml.xml_tree import XmlNode


@dataclass
class GuiOptions:
    """``<gui>``: MVSim's GUI options. The browser viewer takes its first camera from cam_distance [m],
    cam_azimuth_rad / cam_elevation_rad, fov_rad, cam_point_to (x, y, z) [m] and follow_vehicle; the others (window
    size [px], refresh_fps [Hz], force_scale [m/N], clip planes [m], ...) are MVSim desktop settings, kept.
    camera_given: the block sets the camera's place (cam_distance, cam_azimuth, cam_elevation or cam_point_to)."""

    source: SourceRef | None = None
    win_w: int = 800
    win_h: int = 600
    start_maximized: bool = True
    refresh_fps: int = 20
    ortho: bool = False
    show_forces: bool = False
    show_sensor_points: bool = True
    show_sensor_previews: bool = True
    show_gui_panels: bool = True
    show_trajectories: bool = False
    force_scale: float = 0.01
    cam_distance: float = 80.0
    cam_azimuth_rad: float = math.radians(45.0)
    cam_elevation_rad: float = math.radians(40.0)
    fov_rad: float = math.radians(60.0)
    clip_plane_min: float = 0.05
    clip_plane_max: float = 10e3
    cam_point_to: Point3 = (0.0, 0.0, 0.0)
    follow_vehicle: str = ""
    headless: bool = False
    camera_given: bool = False


@dataclass
class LightOptions:
    """``<lights>``: MVSim's directional light and shadows (angles [rad], clip planes [m], sizes [px], intensities
    0..1, colours '#rrggbb[aa]'); kept, not used by this simulator's renderer. extra_lights: the
    ``<point_light>`` / ``<spot_light>`` elements as given."""

    source: SourceRef | None = None
    enable_shadows: bool = True
    disable_lights_on_high_cpu_usage: bool = True
    shadow_map_size: int = 2048
    shadow_cascades: int = 4
    sensor_shadow_cascades: int = 1
    light_azimuth_rad: float = math.radians(45.0)
    light_elevation_rad: float = math.radians(70.0)
    light_clip_plane_min: float = 0.1
    light_clip_plane_max: float = 900.0
    shadow_bias: float = 1e-5
    shadow_bias_cam2frag: float = 1e-5
    shadow_bias_normal: float = 1e-4
    light_color: str = "#ffffff"
    light_ambient: float = 0.5
    light_diffuse: float = 0.8
    light_specular: float = 0.6
    ambient_sky_color: str = "#e0e8ff"
    ambient_ground_color: str = "#403a30"
    eye_distance_to_shadow_map_extension: float = 2.0
    minimum_shadow_map_extension_ratio: float = 0.005
    extra_lights: list[XmlNode] = field(default_factory=list)


@dataclass
class Georeference:
    """``<georeference>``: where the world origin is on Earth, for GNSS sensors.

    latitude_deg, longitude_deg [deg, WGS84] and height [m, ellipsoidal] of the world origin;
    world_to_enu_rotation_rad: rotation of the world frame from East-North-Up (0: +x points East).
    world_is_utm: world x, y are UTM coordinates [m]; utm_easting / utm_northing [m], utm_zone and utm_band are
    then those of the reference point (MVSim subtracts them, and the height, before the ENU conversion).
    """

    source: SourceRef | None = None
    latitude_deg: float = 0.0
    longitude_deg: float = 0.0
    height: float = 0.0
    world_to_enu_rotation_rad: float = 0.0
    world_is_utm: bool = False
    utm_easting: float = 0.0
    utm_northing: float = 0.0
    utm_zone: int = 0
    utm_band: str = ""

    def world_to_local(self, x: float, y: float, z: float) -> Point3:
        """A world point [m] relative to the reference point, in the frame the ENU conversion takes: itself, or
        with world_is_utm, minus the reference's UTM easting, northing and height."""
        if not self.world_is_utm:
            return (x, y, z)
        return (x - self.utm_easting, y - self.utm_northing, z - self.height)


__all__ = ["GuiOptions", "LightOptions", "Georeference"]
