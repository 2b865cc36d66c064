"""Sensors measured without ROS (for the viewer's runner): each sensor samples when due on the simulated clock,
exactly as the node's scan and image publishers decide, and keeps its output in its `latest` for the viewer.

2D lidars ray cast in Box2D, or with `raytrace_3d` render a GL scene of the world; cameras and 3D lidars render
it. The scene is built once and updated once per call when something rendered is due. Without an OpenGL context
the runner warns once: raytrace_3d lidars ray cast in 2D instead (as the node does) and cameras and 3D lidars are
not measured.
"""

from __future__ import annotations

import logging
from typing import Callable

from mvsim_ros.sensors.gl_context import GlUnavailable
from mvsim_ros.sensors.suite import host_pose3

LOG = logging.getLogger("mvsim_ros.viewer")


class SensorRunner:
    """Runs the sensors of `sensors` (a sensors.suite.Sensors, or None: nothing to run) on Simulation `sim`.

    warn: where warnings go (no OpenGL context, visual models drawn as stand-ins); default: the
    "mvsim_ros.viewer" logger.
    """

    def __init__(self, sim, sensors, warn: Callable[[str], None] | None = None):
        self.sim = sim
        self.warn = warn or LOG.warning
        self.lidars = list(sensors.lidars) if sensors is not None else []
        self.cameras = list(sensors.cameras) if sensors is not None else []
        self.lidars3d = list(sensors.lidars3d) if sensors is not None else []
        #: The GL scene of the rendered sensors (None when there are none or no OpenGL context).
        self.scene = None
        gpu = [lidar for lidar in self.lidars if lidar.raytrace_3d]
        if gpu or self.cameras or self.lidars3d:
            try:
                from mvsim_ros.sensors.scene import Scene

                self.scene = Scene(sim.spec, warn=self.warn)
            except GlUnavailable as exc:
                self.warn(f"no OpenGL context: {len(gpu)} lidar(s) with raytrace_3d ray cast in 2D instead; "
                          f"{len(self.cameras)} camera(s) and {len(self.lidars3d)} 3D lidar(s) not simulated: {exc}")
                for lidar in gpu:
                    lidar.raytrace_3d = False
                self.cameras, self.lidars3d = [], []

    def run_due(self) -> None:
        """Measure with every sensor due at the simulation's current time (call after each step)."""
        sim = self.sim
        now = sim.time
        updated = False
        for lidar in self.lidars:
            if lidar.due(now):
                if lidar.raytrace_3d and self.scene is not None:
                    if not updated:
                        self.scene.update(sim)
                        updated = True
                    lidar.render_scan(self.scene, host_pose3(sim, lidar.vehicle))
                else:
                    lidar.scan(sim.box2d.world, host_pose3(sim, lidar.vehicle))
        lidars3d = [lidar for lidar in self.lidars3d if lidar.due(now)]
        cameras = [cam for cam in self.cameras if cam.due(now)]
        if not lidars3d and not cameras:
            return
        if not updated:
            self.scene.update(sim)
        for lidar in lidars3d:
            lidar.scan(self.scene, host_pose3(sim, lidar.vehicle))
        for cam in cameras:
            cam.capture(self.scene, host_pose3(sim, cam.vehicle))
