"""Typed specs of a loaded world, split by subject; every one importable from here.

These plain dataclasses are all the physics, sensors and ROS layer learn from a world file: no XML, no Box2D.
Units are SI (m, kg, s, rad) unless a name says otherwise.
"""

from mvsim_ros.world.specs.common import KeptTag, Point2, Point3, Pose2, Pose3, SourceRef, Twist2, polygon_area
from mvsim_ros.world.specs.sensor_params import (LIDAR3D_MIN_FACE_PX, CameraParams, GnssParams, ImuParams, LaserParams,
                                                 Lidar3DParams, PinholeImage, RgbdCameraParams, SensorParams,
                                                 params_class)
from mvsim_ros.world.specs.sensors import SensorSpec
from mvsim_ros.world.specs.vehicles import (ARTICULATION_CORNERS, ArticulationSpec, ChassisSpec, ControllerSpec,
                                            DrivetrainSpec, DynamicsClass, FrictionSpec, VehicleSpec, WheelSlot,
                                            WheelSpec)
from mvsim_ros.world.specs.blocks import BlockSpec, Geometry
from mvsim_ros.world.specs.animation import KeyframeAnimation, KeyframeTrack
from mvsim_ros.world.specs.actors import ActorSpec, Waypoint
from mvsim_ros.world.specs.visuals import VisualSpec
from mvsim_ros.world.specs.world_options import Georeference, GuiOptions, LightOptions
from mvsim_ros.world.specs.terrain import (ElevationMapSpec, HorizontalPlaneSpec, PropertyRegionSpec, VerticalPlaneSpec,
                                           WallOpening)
from mvsim_ros.world.specs.scenery import (SKYBOX_FACES, ElementSpec, GroundGridSpec, MarkerSpec, PointCloudSpec,
                                           SkyBoxSpec, WallSegment, WallsSpec)
from mvsim_ros.world.specs.world import JointSpec, OccupancyGridSpec, WorldSpec

__all__ = ["Point2", "Point3", "SourceRef", "Pose2", "Twist2", "Pose3", "KeptTag", "polygon_area", "SensorSpec",
           "SensorParams", "LaserParams", "Lidar3DParams", "CameraParams", "RgbdCameraParams", "ImuParams",
           "GnssParams", "PinholeImage", "LIDAR3D_MIN_FACE_PX", "params_class",
           "WheelSpec", "ChassisSpec", "FrictionSpec", "ControllerSpec", "DrivetrainSpec",
           "ARTICULATION_CORNERS", "ArticulationSpec", "VehicleSpec", "WheelSlot", "DynamicsClass",
           "Geometry", "BlockSpec", "KeyframeAnimation", "KeyframeTrack", "Waypoint", "ActorSpec",
           "VisualSpec", "GuiOptions", "LightOptions", "Georeference", "ElevationMapSpec",
           "HorizontalPlaneSpec", "WallOpening", "VerticalPlaneSpec", "PropertyRegionSpec", "SKYBOX_FACES",
           "GroundGridSpec", "SkyBoxSpec", "PointCloudSpec", "ElementSpec", "WallSegment", "WallsSpec",
           "MarkerSpec", "JointSpec", "OccupancyGridSpec", "WorldSpec"]
